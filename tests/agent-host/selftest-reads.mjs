// selftest-reads - the agent host self-test's scenarios I to N: the reads of saved
// conversations (history, list, inspect, title, subagents, tool output, catalog,
// usage), in a host that runs one and in a one-shot host.

import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { renameSession, getSessionMessages } from '../../agent-host/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs';
import { root, deadline, assert, Host } from './selftest-rig.mjs';

export const scenarios = {};

// I: history reads the saved transcript through the SDK: the message sent
// with messageId X is saved with uuid X, one API message is one message,
// pages cut by uuid, a lost boundary asks to reload, and a one-shot host
// (no open) reads the same with sessionId and cwd.
scenarios.I = async (port) => {
  const h = new Host('I', port);
  let full;
  try {
    await h.open();
    const x = randomUUID();
    const firstText = `I-first-${x}`;
    await h.call('send', { text: firstText, messageId: x });
    await h.waitIdle('first turn end');
    let from = h.events.length;
    await h.call('send', { text: '@tool maintain_sessions {"action":"guide"}' });
    const call = await h.waitEvent((e) => e.event === 'toolCall', 'toolCall', 15_000, from);
    // A read while the turn runs (the tool call waits for its answer).
    const mid = await h.call('history', {});
    assert(mid.messages.some((m) => m.uuid === x), 'history during a turn has the first message');
    await h.call('toolResult', { requestId: call.requestId, content: [{ type: 'text', text: 'I-guide' }], isError: false });
    await h.waitIdle('second turn end', 15_000, from);

    full = await h.call('history', {});
    const ms = full.messages;
    assert(full.hasMore === false, 'one page holds the whole short conversation');
    assert(ms[0].uuid === x && ms[0].type === 'user', `first message has uuid X: ${JSON.stringify(ms[0]).slice(0, 300)}`);
    assert(JSON.stringify(ms[0].message.content).includes(firstText), 'first message text');
    // Every message is whole and shows something; one API message is one message.
    const apiIds = ms.filter((m) => m.type === 'assistant').map((m) => m.message.id);
    assert(new Set(apiIds).size === apiIds.length, `one message per API message: ${apiIds}`);
    for (const m of ms) {
      assert(m.uuids[0] === m.uuid && m.uuids.length >= 1, 'uuid is the first of uuids');
      assert(Array.isArray(m.message.content) ? m.message.content.length > 0 : m.message.content.trim() !== '', 'non-empty');
    }
    const toolMsg = ms.find((m) => m.type === 'assistant' && m.message.content.some((b) => b.type === 'tool_use' && b.id === call.toolUseId));
    assert(toolMsg, 'the tool_use is in the history');
    // The mock answers a @tool turn with a text block and a tool_use block in
    // one API message, which Claude Code saves as two envelopes.
    assert(toolMsg.uuids.length === 2 && toolMsg.message.content.map((b) => b.type).join() === 'text,tool_use',
      `envelopes joined: ${JSON.stringify(toolMsg).slice(0, 400)}`);
    const texts = ms.map((m) => m.type + ':' + JSON.stringify(m.message.content)).join('\n');
    assert(texts.includes('I-guide') && texts.includes('Done. Tool said'), 'tool result and last answer in history');

    // Paging: newest first pages of 2, walked back by uuid, give the whole list.
    const pages = [];
    let before;
    for (;;) {
      const p = await h.call('history', { limit: 2, ...(before ? { before } : {}) });
      assert(p.messages.length >= 1 && p.messages.length <= 2, `page size ${p.messages.length}`);
      pages.unshift(p.messages);
      if (!p.hasMore) break;
      before = p.messages[0].uuid;
    }
    assert(JSON.stringify(pages.flat()) === JSON.stringify(ms), 'pages add up to the whole history');
    const gone = await h.call('history', { before: randomUUID() });
    assert(JSON.stringify(gone) === '{"reload":true}', `unknown boundary: ${JSON.stringify(gone)}`);
    const atFirst = await h.call('history', { before: x });
    assert(atFirst.messages.length === 0 && atFirst.hasMore === false, 'nothing before the first message');

    // The strict schema of history.
    const bad = [
      { bogus: 1 }, { limit: 0 }, { limit: 101 }, { limit: '5' }, { limit: 1.5 },
      { before: 'not-a-uuid' }, { cwd: 'relative/path' }, { sessionId: 7 },
    ];
    for (const params of bad) {
      const r = await h.request('history', params);
      assert(r.error?.code === 'invalid_request', `history ${JSON.stringify(params)} -> ${JSON.stringify(r)}`);
    }
    await h.close();
  } finally { h.kill(); }

  // A one-shot host: no open, so sessionId and cwd are required.
  const o = new Host('I', port);
  try {
    const none = await o.request('history', {});
    assert(none.error?.code === 'invalid_request', `history without open: ${JSON.stringify(none)}`);
    const noCwd = await o.request('history', { sessionId: h.sessionId });
    assert(noCwd.error?.code === 'invalid_request', `history without cwd: ${JSON.stringify(noCwd)}`);
    const again = await o.call('history', { sessionId: h.sessionId, cwd: h.cwd });
    assert(JSON.stringify(again) === JSON.stringify(full), 'the one-shot host reads the same history');
    const empty = await o.call('history', { sessionId: randomUUID(), cwd: h.cwd });
    assert(empty.messages.length === 0 && empty.hasMore === false, 'an unknown conversation has no messages');
    const ex = await o.close();
    assert(ex.code === 0, `one-shot host exit ${ex.code}`);
  } finally { o.kill(); }
};

// Call an SDK session function (as the user would, from Claude Code) on a
// host's Claude folder.
async function asHost(h, fn) {
  const saved = process.env.CLAUDE_CONFIG_DIR;
  process.env.CLAUDE_CONFIG_DIR = path.join(h.home, '.claude');
  try { return await fn(); } finally {
    if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR; else process.env.CLAUDE_CONFIG_DIR = saved;
  }
}

// Run one turn that calls an hbcode tool and answer it with `text`.
async function toolTurn(h, prompt, text, isError = false) {
  const from = h.events.length;
  await h.call('send', { text: prompt });
  const call = await h.waitEvent((e) => e.event === 'toolCall', 'toolCall', 15_000, from);
  await h.call('toolResult', { requestId: call.requestId, content: [{ type: 'text', text }], isError });
  await h.waitIdle('tool turn end', 15_000, from);
  return call;
}

// Every read's strict schema: an unknown field, a missing or wrongly typed one.
async function expectInvalid(h, cases) {
  for (const [method, params] of cases) {
    const r = await h.request(method, params);
    assert(r.error?.code === 'invalid_request', `${method} ${JSON.stringify(params)} -> ${JSON.stringify(r)}`);
  }
}

const LONG_PROMPT = 'J-title please look at the timeline rows of this workspace and tell me which ones are stale and why they are';

// J: the reads of one saved conversation with a subagent, in the host that
// runs it: list, inspect, title, subagents, subagentHistory, toolOutput.
scenarios.J = async (port) => {
  const h = new Host('J', port);
  try {
    await h.open();
    let from = h.events.length;
    await h.call('send', { text: LONG_PROMPT });
    await h.waitIdle('first turn end', 15_000, from);
    const mainMarker = `J-main-${randomUUID()}`;
    const mainCall = await toolTurn(h, '@tool maintain_sessions {"action":"guide"}', mainMarker, true);
    // The Agent tool starts a subagent whose own prompt makes it call an
    // hbcode tool; its transcript is saved beside the conversation's.
    const subMarker = `J-sub-${randomUUID()}`;
    const subPrompt = '@tool maintain_sessions {\\"action\\":\\"listSessions\\",\\"limit\\":3}';
    const agentCall = await toolTurn(h,
      `@tool Agent {"description":"List sessions","prompt":"${subPrompt}","subagent_type":"general-purpose","run_in_background":false}`,
      subMarker);
    assert(agentCall.arguments.limit === 3, `the subagent called the tool: ${JSON.stringify(agentCall)}`);

    const { agentIds } = await h.call('subagents', {});
    assert(Array.isArray(agentIds) && agentIds.length === 1, `subagents: ${JSON.stringify(agentIds)}`);
    const agentId = agentIds[0];
    const sub = await h.call('subagentHistory', { agentId });
    assert(sub.hasMore === false && sub.messages.length >= 3, `subagent history: ${sub.messages.length}`);
    const subTool = sub.messages.find((m) => m.type === 'assistant' &&
      m.message.content.some((b) => b.type === 'tool_use' && b.id === agentCall.toolUseId));
    assert(subTool && subTool.uuids.length === 2, 'the subagent\'s tool_use message, joined');
    assert(JSON.stringify(sub.messages).includes(subMarker), 'the subagent saw the tool result');
    const subLast = await h.call('subagentHistory', { agentId, limit: 1 });
    assert(subLast.hasMore === true && subLast.messages.length === 1 &&
      subLast.messages[0].uuid === sub.messages[sub.messages.length - 1].uuid, 'subagent page of 1');
    const subPrev = await h.call('subagentHistory', { agentId, limit: 1, before: subLast.messages[0].uuid });
    assert(subPrev.messages[0].uuid === sub.messages[sub.messages.length - 2].uuid, 'subagent page before');
    const subGone = await h.call('subagentHistory', { agentId, before: randomUUID() });
    assert(JSON.stringify(subGone) === '{"reload":true}', 'subagent reload');
    const noAgent = await h.request('subagentHistory', { agentId: 'a0000000000000000' });
    assert(noAgent.error?.code === 'not_found', `unknown subagent: ${JSON.stringify(noAgent)}`);

    // toolOutput: the conversation's own call, the subagent's, an unknown one.
    const own = await h.call('toolOutput', { toolUseId: mainCall.toolUseId });
    assert(own.toolUseId === mainCall.toolUseId && own.isError === true && own.agentId === undefined &&
      JSON.stringify(own.content).includes(mainMarker), `own tool output: ${JSON.stringify(own)}`);
    const fromSub = await h.call('toolOutput', { toolUseId: agentCall.toolUseId });
    assert(fromSub.agentId === agentId && fromSub.isError === false &&
      JSON.stringify(fromSub.content).includes(subMarker), `subagent tool output: ${JSON.stringify(fromSub)}`);
    const hist = await h.call('history', {});
    const agentUse = hist.messages.flatMap((m) => (m.type === 'assistant' ? m.message.content : []))
      .find((b) => b.type === 'tool_use' && b.name === 'Agent');
    assert(agentUse, 'the Agent tool_use is in the history');
    const agentOut = await h.call('toolOutput', { toolUseId: agentUse.id });
    assert(agentOut.agentId === undefined && JSON.stringify(agentOut.content).length > 2, `Agent output: ${JSON.stringify(agentOut)}`);
    const none = await h.request('toolOutput', { toolUseId: 'toolu_none' });
    assert(none.error?.code === 'not_found', `unknown tool call: ${JSON.stringify(none)}`);

    // inspect, title and list of the open conversation.
    const { session } = await h.call('inspect', {});
    assert(session.sessionId === h.sessionId && session.cwd === h.cwd && session.firstPrompt === LONG_PROMPT,
      `inspect: ${JSON.stringify(session)}`);
    const { title } = await h.call('title', {});
    const want = (session.customTitle || session.summary).split('\n')[0];
    assert(title.length <= 80 && title.endsWith('…') && want.startsWith(title.slice(0, -1)),
      `title "${title}" from "${want}"`);
    // catalog and usage ask the open session's own query.
    const { models } = await h.call('catalog', {}, 60_000);
    assert(models.some((m) => m.value === 'default'), `catalog of the open session: ${JSON.stringify(models)}`);
    const usage = await h.call('usage', {}, 60_000);
    assert(usage.rateLimitsAvailable === false && usage.rateLimits === null, `usage: ${JSON.stringify(usage)}`);
    const listed = await h.call('list', {});
    assert(listed.sessions.length === 1 && listed.sessions[0].sessionId === h.sessionId, `list: ${JSON.stringify(listed)}`);

    await expectInvalid(h, [
      ['list', { cwd: 'rel' }], ['list', { limit: 0 }], ['list', { what: 1 }],
      ['inspect', { sessionId: 'x' }], ['inspect', { agentId: 'a' }],
      ['subagents', { limit: 1 }],
      ['subagentHistory', {}], ['subagentHistory', { agentId: '../x' }], ['subagentHistory', { agentId, limit: 101 }],
      ['toolOutput', {}], ['toolOutput', { toolUseId: 5 }], ['toolOutput', { toolUseId: 'toolu_1', before: randomUUID() }],
      ['catalog', { model: 'x' }], ['usage', { cwd: h.cwd }], ['title', { sessionId: h.sessionId, limit: 1 }],
    ]);
    await h.close();
  } finally { h.kill(); }

  // A title the user set wins; the one-shot host reads it.
  await asHost(h, () => renameSession(h.sessionId, 'J renamed', { dir: h.cwd }));
  const o = new Host('J', port);
  try {
    const t = await o.call('title', { sessionId: h.sessionId, cwd: h.cwd });
    assert(t.title === 'J renamed', `custom title: ${JSON.stringify(t)}`);
    const ex = await o.close();
    assert(ex.code === 0, `exit ${ex.code}`);
  } finally { o.kill(); }
};

// K: list in a one-shot host (no open): the saved conversations of exactly
// one folder, newest first, though another folder shares its project key.
scenarios.K = async (port) => {
  const base = path.join(root, 'K');
  const dash = path.join(base, 'p-q');      // Claude Code stores both folders
  const nested = path.join(base, 'p', 'q'); // under the project key ...-K-p-q
  const ids = {};
  for (const [name, cwd] of [['first', dash], ['other', nested], ['second', dash]]) {
    fs.mkdirSync(cwd, { recursive: true });
    const h = new Host('K', port, { cwd });
    try {
      await h.open();
      await h.call('send', { text: `K-${name}` });
      await h.waitIdle(`${name} turn end`);
      await h.close();
      ids[name] = h.sessionId;
    } finally { h.kill(); }
  }
  const o = new Host('K', port);
  try {
    const { sessions } = await o.call('list', { cwd: dash });
    assert(JSON.stringify(sessions.map((s) => s.sessionId)) === JSON.stringify([ids.second, ids.first]),
      `list of ${dash}: ${JSON.stringify(sessions)}`);
    assert(sessions[0].lastModified >= sessions[1].lastModified && sessions[0].cwd === dash &&
      sessions[0].summary === 'K-second' && typeof sessions[0].createdAt === 'number', 'list fields');
    const one = await o.call('list', { cwd: dash, limit: 1 });
    assert(one.sessions.length === 1 && one.sessions[0].sessionId === ids.second, 'list limit 1');
    const other = await o.call('list', { cwd: nested });
    assert(other.sessions.length === 1 && other.sessions[0].sessionId === ids.other, `list of ${nested}`);
    const empty = await o.call('list', { cwd: path.join(base, 'nothing-here') });
    assert(empty.sessions.length === 0, 'a folder without conversations');
    const t = await o.call('title', { sessionId: ids.first, cwd: dash });
    assert(t.title === 'K-first', `title: ${JSON.stringify(t)}`);

    const noCwd = await o.request('list', {});
    assert(noCwd.error?.code === 'invalid_request', `list without cwd: ${JSON.stringify(noCwd)}`);
    const ex = await o.close();
    assert(ex.code === 0, `one-shot host exit ${ex.code}`);
  } finally { o.kill(); }
};

// L: catalog and usage in a one-shot host (a helper query with an empty
// prompt stream, closed after each read), the reads that need a session
// refused without one, and a read answered before close ends the host.
scenarios.L = async (port) => {
  const o = new Host('L', port);
  try {
    const { models } = await o.call('catalog', {}, 60_000);
    assert(Array.isArray(models) && models.length > 0 &&
      models.every((m) => typeof m.value === 'string' && typeof m.displayName === 'string'),
      `catalog: ${JSON.stringify(models)}`);
    const usage = await o.call('usage', {}, 60_000);
    assert(JSON.stringify(usage) === '{"subscriptionType":null,"rateLimitsAvailable":false,"rateLimits":null}',
      `usage of an API-key account: ${JSON.stringify(usage)}`);
    // The helper queries saved nothing.
    const after = await o.call('list', { cwd: o.cwd });
    assert(after.sessions.length === 0, `helper queries saved a session: ${JSON.stringify(after)}`);

    for (const method of ['history', 'inspect', 'title', 'subagents', 'toolOutput', 'subagentHistory']) {
      const extra = method === 'toolOutput' ? { toolUseId: 'toolu_1' } : method === 'subagentHistory' ? { agentId: 'a1' } : {};
      const r = await o.request(method, extra);
      assert(r.error?.code === 'invalid_request' && /required/.test(r.error.message), `${method} without a session: ${JSON.stringify(r)}`);
    }
    const gone = await o.request('inspect', { sessionId: randomUUID(), cwd: o.cwd });
    assert(gone.error?.code === 'not_found', `inspect of an unknown conversation: ${JSON.stringify(gone)}`);
    const noTitle = await o.request('title', { sessionId: randomUUID(), cwd: o.cwd });
    assert(noTitle.error?.code === 'not_found', `title of an unknown conversation: ${JSON.stringify(noTitle)}`);

    // A read and close written at once: the read is answered, then closed.
    const id = o.nextId++;
    const got = new Promise((r) => o.replies.set(id, r));
    o.writeLine({ id, method: 'catalog' });
    o.writeLine({ id: o.nextId++, method: 'close' });
    o.child.stdin.end();
    const d = deadline(60_000, 'catalog before close');
    const r = await Promise.race([got, d.p]).finally(d.clear);
    assert(Array.isArray(r.result?.models), `catalog answered before the end: ${JSON.stringify(r)}`);
    await o.waitEvent((e) => e.event === 'closed', 'closed');
    const ex = await o.exited;
    assert(ex.code === 0, `one-shot host exit ${ex.code}`);
    const lines = fs.readFileSync(o.pipePath, 'utf8').trim().split('\n');
    assert(lines[lines.length - 1] === '< {"event":"closed","reason":"close"}', `last line ${lines[lines.length - 1]}`);
  } finally { o.kill(); }
};

async function mockScript(port, steps) {
  const r = await fetch(`http://127.0.0.1:${port}/_mock/script`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ steps }),
  });
  assert(r.ok, `mock script: ${r.status}`);
}

// M: a message with nothing to show (empty thinking, blank text) is dropped
// from history though the SDK saved it; thinking and text of one API message
// are one message.
scenarios.M = async (port) => {
  const h = new Host('M', port);
  try {
    await h.open();
    await mockScript(port, [
      { blocks: [{ type: 'thinking', thinking: '' }, { type: 'text', text: ' ' }] },
      { blocks: [{ type: 'thinking', thinking: 'M-thought' }, { type: 'text', text: 'M-answer' }] },
    ]);
    let from = h.events.length;
    await h.call('send', { text: 'M-one' });
    await h.waitIdle('first turn end', 15_000, from);
    from = h.events.length;
    await h.call('send', { text: 'M-two' });
    await h.waitIdle('second turn end', 15_000, from);
    // What the SDK saved: the first answer's envelopes show nothing.
    const raw = await asHost(h, () => getSessionMessages(h.sessionId, { dir: h.cwd }));
    const empty = raw.filter((e) => e.type === 'assistant' && e.message.content.every((b) =>
      (b.type === 'thinking' && b.thinking === '') || (b.type === 'text' && b.text.trim() === '')));
    assert(empty.length >= 1, `the SDK saved the empty answer: ${JSON.stringify(raw.map((e) => e.message.content))}`);
    const { messages } = await h.call('history', {});
    const uuids = new Set(messages.flatMap((m) => m.uuids));
    assert(empty.every((e) => !uuids.has(e.uuid)), 'the empty answer is not in history');
    const shape = messages.map((m) => m.type + ':' + m.message.content.map((b) => b.type).join('+'));
    // Claude Code asks again after an empty answer, and the second step answers.
    assert(JSON.stringify(shape) === '["user:text","assistant:thinking+text","user:text","assistant:text"]',
      `history shape ${JSON.stringify(shape)}`);
    const last = messages[1];
    assert(last.uuids.length === 2 && last.message.content[0].thinking === 'M-thought' &&
      last.message.content[1].text === 'M-answer', `joined thinking and text: ${JSON.stringify(last)}`);
    await h.close();
  } finally { h.kill(); }
};

// N: a page holds at most 100 messages: 51 turns (102 messages) are a
// page of the newest 100 and one of the first 2.
scenarios.N = async (port) => {
  const h = new Host('N', port);
  try {
    await h.open();
    for (let i = 1; i <= 51; i++) {
      const from = h.events.length;
      await h.call('send', { text: `N-${i}` });
      await h.waitIdle(`turn ${i} end`, 15_000, from);
    }
    const newest = await h.call('history', {});
    const text = (m) => m.message.content[0].text;
    assert(newest.messages.length === 100 && newest.hasMore === true, `default page: ${newest.messages.length} ${newest.hasMore}`);
    assert(text(newest.messages[0]) === 'N-2' && text(newest.messages[99]) === 'OK.', 'the newest 100, oldest first');
    const first = await h.call('history', { before: newest.messages[0].uuid });
    assert(first.messages.length === 2 && first.hasMore === false && text(first.messages[0]) === 'N-1',
      `the first page: ${JSON.stringify(first.messages.map(text))}`);
    await h.close();
  } finally { h.kill(); }
};
