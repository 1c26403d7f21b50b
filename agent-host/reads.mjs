// The reads of the agent host: saved conversations, subagent transcripts,
// one tool call's output, the model list, plan usage and a session title
// (docs/agent-host-pipe.md, "Reads").
//
// Everything comes from the SDK (the desktop never reads Claude's files, and
// neither does the host): the session functions for what is saved, and a
// Query for what only a running Claude Code knows (models, usage).  None of
// them needs an open session, so a one-shot host (no open) answers them
// too; in a host with an open session, sessionId and cwd default to it.

import {
  query, listSessions, getSessionInfo, getSessionMessages, listSubagents, getSubagentMessages,
} from '@anthropic-ai/claude-agent-sdk';
import { claudeOptions } from './claude.mjs';
import { historyPage, PAGE_MAX } from './history.mjs';
import { RequestError, SchemaError, uuid, absPath, intIn } from './pipe.mjs';
import { openSession } from './run.mjs';

const LIST_MAX = 1000;
const TITLE_MAX = 80;

// Subagent ids and tool_use ids name files and transcript entries; allow
// only what Claude Code makes (agent ids are hex, tool_use ids toolu_…).
const token = (v) => (typeof v === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(v)
  ? null : 'must be an id of 1 to 128 characters A-Z a-z 0-9 _ -');

const conversation = {
  sessionId: [false, uuid],
  cwd: [false, absPath],
};
const paging = {
  before: [false, uuid],
  limit: [false, intIn(1, PAGE_MAX)],
};

export const READ_PARAMS = {
  history: { ...conversation, ...paging },
  list: { cwd: [false, absPath], limit: [false, intIn(1, LIST_MAX)] },
  inspect: { ...conversation },
  subagents: { ...conversation },
  subagentHistory: { ...conversation, agentId: [true, token], ...paging },
  toolOutput: { ...conversation, toolUseId: [true, token] },
  catalog: {},
  usage: {},
  title: { ...conversation },
};

// sessionId and cwd of a read: given, or the open session's.
async function target(method, params, needSession = true) {
  let sid = params.sessionId;
  let dir = params.cwd;
  if ((needSession && sid === undefined) || dir === undefined) {
    const s = await openSession();
    if (s) { sid ??= s.sessionId; dir ??= s.cwd; }
  }
  if ((needSession && !sid) || !dir) {
    throw new SchemaError(needSession
      ? `sessionId and cwd are required in a host with no open session (${method})`
      : `cwd is required in a host with no open session (${method})`);
  }
  return { sid, dir };
}

const samePath = (a, b) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

async function info(sid, dir) {
  const i = await getSessionInfo(sid, { dir });
  if (!i) throw new RequestError('not_found', `no saved Claude conversation ${sid} in ${dir}`);
  return i;
}

async function knownSubagent(sid, dir, agentId) {
  const ids = await listSubagents(sid, { dir });
  if (!ids.includes(agentId)) {
    throw new RequestError('not_found', `conversation ${sid} in ${dir} has no subagent ${agentId}`);
  }
}

// The tool_result of one tool_use in a list of envelopes, or undefined.
function findToolResult(envelopes, toolUseId) {
  for (const e of envelopes) {
    if (e.type !== 'user' || !Array.isArray(e.message?.content)) continue;
    for (const b of e.message.content) {
      if (b?.type === 'tool_result' && b.tool_use_id === toolUseId) {
        return { content: b.content ?? '', isError: b.is_error === true };
      }
    }
  }
  return undefined;
}

// A title fits a sidebar row: its first line, at most TITLE_MAX characters,
// cut at a word when it must be cut.
export function shortTitle(text) {
  const line = text.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  const flat = line.replace(/\s+/g, ' ');
  const chars = [...flat];
  if (chars.length <= TITLE_MAX) return flat;
  const cut = chars.slice(0, TITLE_MAX - 1).join('');
  const space = cut.lastIndexOf(' ');
  return (space >= TITLE_MAX / 2 ? cut.slice(0, space) : cut) + '…';
}

// Helper queries started by catalog/usage in a host with no open session.
const helpers = new Set();

// Run fn on a Query: the open session's, or else a helper started with an
// empty prompt stream (Claude Code answers control requests without a
// prompt) and closed right after, so nothing is saved and nothing lingers.
async function withQuery(fn) {
  const s = await openSession();
  if (s) return fn(s.query);
  let stop;
  const stopped = new Promise((r) => { stop = r; });
  async function* noPrompt() { await stopped; }
  const hq = query({
    prompt: noPrompt(),
    options: {
      cwd: process.cwd(),
      persistSession: false,
      settingSources: ['user', 'project', 'local'],
      env: { ...process.env },
      ...claudeOptions(),
    },
  });
  const helper = { close: () => { stop(); try { hq.close(); } catch {} } };
  helpers.add(helper);
  try {
    await hq.initializationResult();
    return await fn(hq);
  } finally {
    helpers.delete(helper);
    helper.close();
  }
}

export function closeHelpers() {
  for (const h of helpers) h.close();
  helpers.clear();
}

export const readMethods = {
  async history(params) {
    const { sid, dir } = await target('history', params);
    const envelopes = await getSessionMessages(sid, { dir, includeSystemMessages: true });
    return historyPage(envelopes, { before: params.before, limit: params.limit });
  },

  // Exactly one folder: no git worktrees, and not the other folders whose
  // names Claude Code stores under the same project key.
  async list(params) {
    const { dir } = await target('list', params, false);
    const all = await listSessions({ dir, includeWorktrees: false });
    const mine = all.filter((s) => s.cwd === undefined || samePath(s.cwd, dir));
    mine.sort((a, b) => b.lastModified - a.lastModified);
    return { sessions: mine.slice(0, params.limit ?? LIST_MAX) };
  },

  async inspect(params) {
    const { sid, dir } = await target('inspect', params);
    return { session: await info(sid, dir) };
  },

  async subagents(params) {
    const { sid, dir } = await target('subagents', params);
    return { agentIds: await listSubagents(sid, { dir }) };
  },

  async subagentHistory(params) {
    const { sid, dir } = await target('subagentHistory', params);
    await knownSubagent(sid, dir, params.agentId);
    const envelopes = await getSubagentMessages(sid, params.agentId, { dir });
    return historyPage(envelopes, { before: params.before, limit: params.limit });
  },

  // The full output of one tool call as the transcript saved it: the
  // conversation's own calls first, then each subagent's.
  async toolOutput(params) {
    const { sid, dir } = await target('toolOutput', params);
    const own = findToolResult(await getSessionMessages(sid, { dir }), params.toolUseId);
    if (own) return { toolUseId: params.toolUseId, ...own };
    for (const agentId of await listSubagents(sid, { dir })) {
      const r = findToolResult(await getSubagentMessages(sid, agentId, { dir }), params.toolUseId);
      if (r) return { toolUseId: params.toolUseId, agentId, ...r };
    }
    throw new RequestError('not_found', `no output of tool call ${params.toolUseId} in conversation ${sid}`);
  },

  async catalog() {
    return { models: await withQuery((q) => q.supportedModels()) };
  },

  // Plan windows as the SDK reports them, without the weekly window of
  // third-party apps (page 003).  An API-key account has none:
  // rateLimitsAvailable false and rateLimits null; nothing is made up.
  async usage() {
    const u = await withQuery((q) => q.usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET({ skipBehaviors: true }));
    let rateLimits = null;
    if (u.rate_limits_available && u.rate_limits) {
      const { seven_day_oauth_apps: _thirdParty, ...rest } = u.rate_limits;
      rateLimits = rest;
    }
    return {
      subscriptionType: u.subscription_type ?? null,
      rateLimitsAvailable: u.rate_limits_available === true,
      rateLimits,
    };
  },

  // The SDK's info already resolves the title: customTitle is the title the
  // user set, else the AI title; summary falls back to the last and then
  // the first prompt.
  async title(params) {
    const { sid, dir } = await target('title', params);
    const i = await info(sid, dir);
    const text = i.customTitle || i.summary || i.firstPrompt || '';
    return { title: shortTitle(text) };
  },
};
