// The run of the agent host: one SDK query for one Claude session, and the
// requests that drive it (open, send, permission, toolResult, interrupt,
// close) with the events they cause (docs/agent-host-pipe.md, "Requests"
// and "Events").
//
// The run owns the process's end: finish() sends "closed" and exits, because
// a host never survives its run.  The reads (reads.mjs) only ask it for the
// open session and its query.

import { query, createSdkMcpServer, getSessionInfo } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import { claudeOptions } from './claude.mjs';
import {
  emit, RequestError, checkFields, str, nonEmpty, oneOf, bool, strArray, uuid, isObj, absPath,
} from './pipe.mjs';

// The nine environment markers a parent Claude Code session gives its
// children (docs/agent-host-pipe.md).  The desktop/bridge removes them before
// it starts the host; the open reply reports any that are still there.
const CHILD_MARKERS = [
  'CLAUDECODE', 'CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_CHILD_SESSION', 'CLAUDE_PID',
  'CLAUDE_CODE_CHILD_NOTES_DIR', 'CLAUDE_CODE_SESSION_ATTENDED', 'CLAUDE_EFFORT',
  'AI_AGENT', 'TRACEPARENT',
];

const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'auto', 'bypassPermissions', 'dontAsk'];
const APPROVAL_CLASSES = ['read-only', 'desktop', 'agent'];
const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'];
const SERVER = 'hbcode';
const PREFIX = `mcp__${SERVER}__`;

function checkCapability(v, i) {
  try {
    checkFields(`params.appCapabilities[${i}]`, v, {
      name: [true, (s) => (typeof s === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(s) ? null : 'must be a tool name [A-Za-z0-9_-]{1,64}')],
      description: [true, str],
      inputSchema: [true, (s) => (isObj(s) && (s.type === undefined || s.type === 'object') ? null : 'must be a JSON Schema of type object')],
      approval: [true, oneOf(APPROVAL_CLASSES)],
    });
  } catch (e) { return e.message; }
  return null;
}

const contentBlock = (b, i) => {
  if (!isObj(b)) return `content[${i}] must be an object`;
  try {
    if (b.type === 'text') checkFields(`content[${i}]`, b, { type: [true, str], text: [true, str] });
    else if (b.type === 'image') {
      checkFields(`content[${i}]`, b, { type: [true, str], data: [true, str], mimeType: [true, nonEmpty] });
    } else return `content[${i}].type must be "text" or "image"`;
  } catch (e) { return e.message; }
  return null;
};

export const RUN_PARAMS = {
  open: {
    sessionId: [true, uuid],
    cwd: [true, absPath],
    permissionMode: [true, oneOf(PERMISSION_MODES)],
    model: [false, nonEmpty],
    effort: [false, oneOf(EFFORTS)],
    allowedTools: [false, strArray],
    appendSystemPrompt: [false, str],
    persistSession: [false, bool],
    appCapabilities: [true, (v) => {
      if (!Array.isArray(v)) return 'must be an array';
      const seen = new Set();
      for (let i = 0; i < v.length; i++) {
        const e = checkCapability(v[i], i);
        if (e) return e;
        if (seen.has(v[i].name)) return `duplicate tool "${v[i].name}"`;
        seen.add(v[i].name);
      }
      return null;
    }],
  },
  send: {
    text: [true, nonEmpty],
    messageId: [false, uuid],
  },
  permission: {
    requestId: [true, nonEmpty],
    decision: [true, oneOf(['allow', 'deny'])],
    message: [false, nonEmpty],
  },
  toolResult: {
    requestId: [true, nonEmpty],
    content: [true, (v) => {
      if (!Array.isArray(v)) return 'must be an array';
      for (let i = 0; i < v.length; i++) { const e = contentBlock(v[i], i); if (e) return e; }
      return null;
    }],
    isError: [true, bool],
  },
  interrupt: {},
  close: {},
};

// ---------------------------------------------------------------- state

let q = null;               // the SDK Query
let opened = false;
let opening = null;         // promise of the open in flight
let closing = false;
let busy = false;
let sawStateEvents = false;
let sessionId = null;
let sessionCwd = null;
let seqPerm = 0;
let seqTool = 0;
const pendingPermissions = new Map(); // requestId -> {resolve, input}
const pendingTools = new Map();       // requestId -> {resolve, toolUseId}
const finishedTools = new Set();      // requestIds cancelled or answered
const subagents = new Map();          // task_id (a subagent's agentID) -> {type, description}

// The streaming prompt: an async queue of SDKUserMessages.
const inputQueue = [];
let inputWaiter = null;
let inputEnded = false;
function pushInput(m) {
  inputQueue.push(m);
  if (inputWaiter) { const w = inputWaiter; inputWaiter = null; w(); }
}
function endInput() {
  inputEnded = true;
  if (inputWaiter) { const w = inputWaiter; inputWaiter = null; w(); }
}
async function* promptStream() {
  for (;;) {
    while (inputQueue.length > 0) yield inputQueue.shift();
    if (inputEnded) return;
    await new Promise((r) => { inputWaiter = r; });
  }
}

// ---------------------------------------------------------------- tools

function makeTool(cap) {
  let schema;
  try {
    schema = z.fromJSONSchema({ type: 'object', ...cap.inputSchema });
  } catch (e) {
    throw new RequestError('invalid_schema', `tool ${cap.name}: inputSchema cannot be used: ${e.message}`);
  }
  if (!(schema instanceof z.ZodObject)) {
    throw new RequestError('invalid_schema', `tool ${cap.name}: inputSchema must describe an object`);
  }
  const annotations = cap.approval === 'read-only' ? { readOnlyHint: true } : undefined;
  return {
    name: cap.name,
    description: cap.description,
    inputSchema: schema,
    annotations,
    handler: (args, extra) => runTool(cap.name, args, extra),
  };
}

function runTool(tool, args, extra) {
  const requestId = `tool-${++seqTool}`;
  const toolUseId = extra?._meta?.['claudecode/toolUseId'];
  const signal = extra?.signal;
  return new Promise((resolve) => {
    const entry = { toolUseId, resolve: null };
    const onAbort = () => {
      if (!pendingTools.has(requestId)) return;
      pendingTools.delete(requestId);
      finishedTools.add(requestId);
      emit('toolCancel', { requestId, ...(toolUseId ? { toolUseId } : {}) });
      resolve({ content: [{ type: 'text', text: 'Run stopped.' }], isError: true });
    };
    entry.resolve = (result) => {
      signal?.removeEventListener?.('abort', onAbort);
      resolve(result);
    };
    pendingTools.set(requestId, entry);
    emit('toolCall', { requestId, tool, arguments: args ?? {}, ...(toolUseId ? { toolUseId } : {}) });
    if (signal) {
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }
  });
}

function canUseTool(toolName, input, opts) {
  const requestId = `perm-${++seqPerm}`;
  const signal = opts?.signal;
  return new Promise((resolve) => {
    const settle = (decision, result) => {
      if (!pendingPermissions.has(requestId)) return;
      pendingPermissions.delete(requestId);
      signal?.removeEventListener?.('abort', onAbort);
      emit('permissionResolved', { requestId, decision });
      resolve(result);
    };
    const onAbort = () => settle('cancelled', { behavior: 'deny', message: 'Run stopped.' });
    pendingPermissions.set(requestId, { input, settle });
    const ev = { requestId, tool: toolName, input };
    if (opts?.toolUseID) ev.toolUseId = opts.toolUseID;
    if (opts?.agentID) {
      ev.agentId = opts.agentID;
      const sub = subagents.get(opts.agentID);
      if (sub) ev.subagent = sub;
    }
    if (sessionCwd) ev.cwd = sessionCwd;
    if (opts?.displayName) ev.displayName = opts.displayName;
    if (opts?.title) ev.title = opts.title;
    if (opts?.decisionReason) ev.decisionReason = opts.decisionReason;
    if (opts?.blockedPath) ev.blockedPath = opts.blockedPath;
    emit('permission', ev);
    if (signal) {
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }
  });
}

// ---------------------------------------------------------------- requests

async function doOpen(p) {
  opened = true;
  const tools = p.appCapabilities.map(makeTool);
  const allowedTools = p.allowedTools ??
    p.appCapabilities.filter((c) => c.approval !== 'agent').map((c) => PREFIX + c.name);

  let resumed = false;
  try {
    resumed = (await getSessionInfo(p.sessionId, { dir: p.cwd })) !== undefined;
  } catch { resumed = false; }
  sessionId = p.sessionId;
  sessionCwd = p.cwd;

  const env = { ...process.env, CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS: '1' };
  const options = {
    cwd: p.cwd,
    permissionMode: p.permissionMode,
    allowedTools,
    disallowedTools: ['AskUserQuestion'],
    mcpServers: { [SERVER]: createSdkMcpServer({ name: SERVER, version: '1.0.0', alwaysLoad: true, tools }) },
    canUseTool,
    settingSources: ['user', 'project', 'local'],
    systemPrompt: {
      type: 'preset', preset: 'claude_code',
      ...(p.appendSystemPrompt ? { append: p.appendSystemPrompt } : {}),
    },
    // A private conversation (svc-explainer's worker) asks for none.
    persistSession: p.persistSession ?? true,
    env,
    ...claudeOptions(),
    ...(resumed ? { resume: p.sessionId } : { sessionId: p.sessionId }),
    ...(p.model ? { model: p.model } : {}),
    ...(p.effort ? { effort: p.effort } : {}),
    ...(p.permissionMode === 'bypassPermissions' ? { allowDangerouslySkipPermissions: true } : {}),
  };
  q = query({ prompt: promptStream(), options });
  pump();
  const init = await q.initializationResult();
  if (p.permissionMode === 'auto') refuseWithoutAutoMode(init?.models ?? [], p.model);
  const inheritedMarkers = CHILD_MARKERS.filter((k) => process.env[k] !== undefined);
  return {
    sessionId: p.sessionId,
    resumed,
    inheritedMarkers,
  };
}

// Page 003: full access runs in Auto mode, and "the open fails when the
// model doesn't support Auto mode".  Claude Code lists the session's model
// among its models (a model named in the open joins the list); a model
// that lacks Auto mode has no supportsAutoMode.  A model missing from the
// list is Claude Code's to judge.
function refuseWithoutAutoMode(models, model) {
  const want = model ?? 'default';
  const m = models.find((x) => x.value === want) ?? models.find((x) => x.resolvedModel === want);
  if (!m || m.supportsAutoMode === true) return;
  const name = m.displayName && m.displayName !== want ? `${m.displayName} (${want})` : want;
  throw new RequestError('auto_mode_unsupported',
    `The open fails: the model ${name} doesn't support Auto mode, which the session's full access uses. ` +
    'Choose another model for the session, or another access level.');
}

async function pump() {
  try {
    for await (const m of q) {
      if (m?.type === 'system' && m.subtype === 'session_state_changed') {
        sawStateEvents = true;
        if (m.state === 'idle') busy = false;
      } else if (m?.type === 'result' && !sawStateEvents) {
        busy = false;
      } else if (m?.type === 'system' && m.subtype === 'task_started' && typeof m.task_id === 'string') {
        // What names a subagent on its permission events (its agentID is its task_id).
        subagents.set(m.task_id, {
          ...(typeof m.subagent_type === 'string' ? { type: m.subagent_type } : {}),
          ...(typeof m.description === 'string' ? { description: m.description } : {}),
        });
      }
      emit('message', { message: m });
    }
    finish(closing ? 'close' : 'ended');
  } catch (e) {
    if (finished) return;
    if (closing) return finish('close');
    emit('failed', { error: String(e?.message ?? e) });
    finish('failed');
  }
}

let finished = false;
function finish(reason) {
  if (finished) return;
  finished = true;
  for (const [, p] of pendingPermissions) p.settle('cancelled', { behavior: 'deny', message: 'Run stopped.' });
  for (const [id, t] of pendingTools) {
    pendingTools.delete(id);
    emit('toolCancel', { requestId: id, ...(t.toolUseId ? { toolUseId: t.toolUseId } : {}) });
    t.resolve({ content: [{ type: 'text', text: 'Run stopped.' }], isError: true });
  }
  emit('closed', { reason });
  // Let stdout drain, then end: the host never survives its run.
  process.stdout.write('', () => process.exit(reason === 'failed' ? 1 : 0));
}

// ---------------------------------------------------------------- methods

// Each method takes checked params and returns the reply's result, or
// throws a RequestError.
export const runMethods = {
  // A second open is refused before it touches anything: the session
  // already open, and the open in flight that send and the reads wait on,
  // stay as they are.
  open(params) {
    if (opened) throw new RequestError('already_open', 'this host already owns a session');
    opening = doOpen(params);
    return opening;
  },
  async send(params) {
    if (opening) await opening.catch(() => {});
    if (!q) throw new RequestError('not_open', 'no open session');
    if (busy) throw new RequestError('busy', 'Claude is still busy with the current turn');
    busy = true;
    pushInput({
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: params.text }] },
      parent_tool_use_id: null,
      session_id: sessionId,
      ...(params.messageId ? { uuid: params.messageId } : {}),
    });
    return {};
  },
  permission(params) {
    const p = pendingPermissions.get(params.requestId);
    if (!p) throw new RequestError('unknown_request', `no pending permission ${params.requestId}`);
    if (params.decision === 'allow') p.settle('allow', { behavior: 'allow', updatedInput: p.input });
    else p.settle('deny', { behavior: 'deny', message: params.message ?? 'The user declined this tool call.' });
    return {};
  },
  toolResult(params) {
    const t = pendingTools.get(params.requestId);
    if (!t) {
      if (finishedTools.has(params.requestId)) return { delivered: false };
      throw new RequestError('unknown_request', `no pending tool call ${params.requestId}`);
    }
    pendingTools.delete(params.requestId);
    finishedTools.add(params.requestId);
    t.resolve({ content: params.content, ...(params.isError ? { isError: true } : {}) });
    return { delivered: true };
  },
  async interrupt() {
    if (opening) await opening.catch(() => {});
    if (!q) throw new RequestError('not_open', 'no open session');
    await q.interrupt();
    return {};
  },
};

// After the error reply to a failed open: the run is over.  A refused second
// open (already_open) is no failed open: the first one's run goes on.
export function openFailed(code, message) {
  if (code === 'already_open') return;
  if (finished) return;
  emit('failed', { error: message });
  finish('failed');
}

// The open session for the reads: {sessionId, cwd, query} once an open has
// succeeded and the run is still going, else null.  Waits for an open in
// flight, so a read sent right after open sees its session.
export async function openSession() {
  if (opening) await opening.catch(() => {});
  if (!q || finished || !sessionId) return null;
  return { sessionId, cwd: sessionCwd, query: q };
}

// End the run: close (request), EOF on stdin, SIGTERM.
export async function closeRun() {
  if (closing) return;
  closing = true;
  if (opening) await opening.catch(() => {}); // answer the open first
  if (finished) return;
  endInput();
  if (!q) return finish('close');
  try { q.close(); } catch {}
  // pump() ends when the query ends; make sure the host does not linger.
  setTimeout(() => finish('close'), 3000).unref();
}
