// selftest-pipe - the agent host self-test's scenarios A to H, O and P: the pipe
// itself (tools run, asked, denied and interrupted, the strict request schema, a
// resumed session, Claude Code that cannot start, the markers reported by open,
// a second open refused without harm to the first, the open's model, effort and
// Auto mode).

import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { root, CAPABILITIES, deadline, assert, mockRequests, toolResultsSeen, Host } from './selftest-rig.mjs';

export const scenarios = {};

// A: a read-only tool in allowedTools runs without a permission event.
scenarios.A = async (port) => {
  const h = new Host('A', port);
  try {
    const opened = await h.open();
    assert(opened.sessionId === h.sessionId && opened.resumed === false, `open result ${JSON.stringify(opened)}`);
    assert(Array.isArray(opened.inheritedMarkers) && opened.inheritedMarkers.length === 0, 'no inherited markers');
    await h.call('send', { text: 'List my sessions. @tool maintain_sessions {"action":"listSessions","limit":5}' });
    const call = await h.waitEvent((e) => e.event === 'toolCall', 'toolCall');
    assert(call.tool === 'maintain_sessions', `tool ${call.tool}`);
    assert(call.arguments.action === 'listSessions' && call.arguments.limit === 5, `arguments ${JSON.stringify(call.arguments)}`);
    assert(typeof call.toolUseId === 'string' && call.toolUseId.startsWith('toolu_'), 'toolUseId');
    const marker = `A-result-${randomUUID()}`;
    const res = await h.call('toolResult', {
      requestId: call.requestId, content: [{ type: 'text', text: marker }], isError: false,
    });
    assert(res.delivered === true, 'toolResult delivered');
    await h.waitIdle('turn end');
    assert(!h.events.some((e) => e.event === 'permission'), 'no permission event for a read-only tool');
    const seen = toolResultsSeen(h.sessionId).find((r) => r.toolUseId === call.toolUseId);
    assert(seen && seen.text.includes(marker) && !seen.isError, `model saw the result: ${JSON.stringify(seen)}`);
    const result = h.events.find((e) => e.event === 'message' && e.message?.type === 'result');
    assert(result && result.message.subtype === 'success', 'result message success');
    // A repeat answer for the same call is harmless.
    const again = await h.call('toolResult', { requestId: call.requestId, content: [], isError: false });
    assert(again.delivered === false, 'late toolResult not delivered');
    const closed = h.close();
    await h.waitEvent((e) => e.event === 'closed', 'closed event', 10_000);
    const ex = await closed;
    assert(ex.code === 0, `host exit code ${ex.code}`);
  } finally { h.kill(); }
};

// B: an agent-class tool (not in allowedTools) asks; allow -> toolCall -> result.
scenarios.B = async (port) => {
  const h = new Host('B', port);
  try {
    await h.open();
    await h.call('send', { text: '@tool manage_sessions {"action":"rename","sessionId":"s-1","title":"New"}' });
    const perm = await h.waitEvent((e) => e.event === 'permission', 'permission');
    assert(perm.tool === 'mcp__hbcode__manage_sessions', `permission tool ${perm.tool}`);
    assert(perm.input.action === 'rename' && perm.input.title === 'New', 'permission input');
    assert(perm.toolUseId?.startsWith('toolu_'), 'permission toolUseId');
    assert(!h.events.some((e) => e.event === 'toolCall'), 'no toolCall before the answer');
    await h.call('permission', { requestId: perm.requestId, decision: 'allow' });
    const resolved = await h.waitEvent((e) => e.event === 'permissionResolved', 'permissionResolved');
    assert(resolved.requestId === perm.requestId && resolved.decision === 'allow', 'permissionResolved allow');
    const call = await h.waitEvent((e) => e.event === 'toolCall', 'toolCall');
    assert(call.tool === 'manage_sessions' && call.toolUseId === perm.toolUseId, 'toolCall after allow');
    const marker = `B-renamed-${randomUUID()}`;
    await h.call('toolResult', { requestId: call.requestId, content: [{ type: 'text', text: marker }], isError: false });
    await h.waitIdle('turn end');
    const seen = toolResultsSeen(h.sessionId).find((r) => r.toolUseId === call.toolUseId);
    assert(seen && seen.text.includes(marker), `model saw the result: ${JSON.stringify(seen)}`);
    // Error results reach the model as is_error.
    await h.call('send', { text: '@tool maintain_sessions {"action":"guide"}' });
    const from = h.events.length;
    const call2 = await h.waitEvent((e) => e.event === 'toolCall' && e.requestId !== call.requestId, 'second toolCall');
    await h.call('toolResult', { requestId: call2.requestId, content: [{ type: 'text', text: 'B-store-locked' }], isError: true });
    await h.waitIdle('second turn end', 15_000, from);
    const seen2 = toolResultsSeen(h.sessionId).find((r) => r.toolUseId === call2.toolUseId);
    assert(seen2 && seen2.isError && seen2.text.includes('B-store-locked'), `error result: ${JSON.stringify(seen2)}`);
    await h.close();
  } finally { h.kill(); }
};

// C: deny with a message -> the model's next request carries the denial.
scenarios.C = async (port) => {
  const h = new Host('C', port);
  try {
    await h.open();
    await h.call('send', { text: '@tool manage_sessions {"action":"archive","sessionId":"s-2"}' });
    const perm = await h.waitEvent((e) => e.event === 'permission', 'permission');
    const denial = `Declined in HB Code (C-${randomUUID()})`;
    await h.call('permission', { requestId: perm.requestId, decision: 'deny', message: denial });
    await h.waitIdle('turn end');
    assert(!h.events.some((e) => e.event === 'toolCall'), 'no toolCall after deny');
    const seen = toolResultsSeen(h.sessionId).find((r) => r.toolUseId === perm.toolUseId);
    assert(seen && seen.isError && seen.text.includes(denial), `model saw the denial: ${JSON.stringify(seen)}`);
    const again = await h.request('permission', { requestId: perm.requestId, decision: 'allow' });
    assert(again.error?.code === 'unknown_request', 'a second answer is refused');
    await h.close();
  } finally { h.kill(); }
};

// D: interrupt during a toolCall -> toolCancel, the turn ends, a late result is dropped.
scenarios.D = async (port) => {
  const h = new Host('D', port);
  try {
    await h.open();
    await h.call('send', { text: '@tool maintain_sessions {"action":"listSessions"}' });
    const call = await h.waitEvent((e) => e.event === 'toolCall', 'toolCall');
    const busy = await h.request('send', { text: 'another message' });
    assert(busy.error?.code === 'busy', `send while busy: ${JSON.stringify(busy)}`);
    await h.call('interrupt');
    const cancel = await h.waitEvent((e) => e.event === 'toolCancel', 'toolCancel');
    assert(cancel.requestId === call.requestId && cancel.toolUseId === call.toolUseId, 'toolCancel names the call');
    await h.waitIdle('turn end after interrupt');
    const late = await h.call('toolResult', { requestId: call.requestId, content: [{ type: 'text', text: 'late' }], isError: false });
    assert(late.delivered === false, 'late result not delivered');
    const result = h.events.find((e) => e.event === 'message' && e.message?.type === 'result');
    assert(result, 'a result message ends the interrupted turn');
    await h.close();
  } finally { h.kill(); }
};

// E: the strict request schema (no SDK query needed for most of it).
scenarios.E = async (port) => {
  const h = new Host('E', port);
  try {
    const cases = [
      [{ method: 'open', params: { sessionId: randomUUID(), cwd: h.cwd, permissionMode: 'default', appCapabilities: [], bogus: 1 } }, 'invalid_request'],
      [{ method: 'open', params: { sessionId: 'not-a-uuid', cwd: h.cwd, permissionMode: 'default', appCapabilities: [] } }, 'invalid_request'],
      [{ method: 'open', params: { sessionId: randomUUID(), cwd: h.cwd, permissionMode: 'yolo', appCapabilities: [] } }, 'invalid_request'],
      [{ method: 'send', params: { text: 'x', extra: true } }, 'invalid_request'],
      [{ method: 'toolResult', params: { requestId: 'tool-1', content: [{ type: 'text', text: 'x', more: 1 }], isError: false } }, 'invalid_request'],
      [{ method: 'permission', params: { requestId: 'perm-1', decision: 'maybe' } }, 'invalid_request'],
      [{ method: 'frobnicate' }, 'unknown_method'],
      [{ method: 'close', params: {}, extra: 1 }, 'invalid_request'],
      [{ method: 'send', params: { text: 'hello' } }, 'not_open'],
    ];
    for (const [msg, code] of cases) {
      const id = h.nextId++;
      const p = new Promise((r) => h.replies.set(id, r));
      h.writeLine({ id, ...msg });
      const d = deadline(5_000, `reply to ${JSON.stringify(msg)}`);
      const r = await Promise.race([p, d.p]).finally(d.clear);
      assert(r.error?.code === code, `${JSON.stringify(msg)} -> ${JSON.stringify(r)} (want ${code})`);
    }
    // A line that is no JSON, or has no id, gets an error reply with id null.
    const before = h.orphans ?? 0;
    h.writeLine('this is not json');
    h.writeLine({ method: 'close' });
    await new Promise((r) => setTimeout(r, 300));
    assert((h.orphans ?? 0) - before === 2, 'id-less errors answered with id null');
    // Still usable: a valid open works after the rejected ones.
    await h.open();
    await h.close();
  } finally { h.kill(); }
};

// F: a second host opened with the same sessionId (same Claude folder) resumes it.
scenarios.F = async (port) => {
  const h1 = new Host('F', port);
  let sessionId;
  try {
    await h1.open();
    sessionId = h1.sessionId;
    await h1.call('send', { text: 'F-first-turn' });
    await h1.waitIdle('first turn end');
    await h1.close();
  } finally { h1.kill(); }
  const h2 = new Host('F', port); // same HOME, same project folder
  try {
    const before = mockRequests(sessionId).length;
    const r = await h2.call('open', {
      sessionId, cwd: h2.cwd, permissionMode: 'plan', appCapabilities: CAPABILITIES,
    }, 30_000);
    assert(r.resumed === true, `resumed: ${JSON.stringify(r)}`);
    h2.sessionId = sessionId;
    await h2.call('send', { text: 'F-second-turn' });
    await h2.waitIdle('second turn end');
    const reqs = mockRequests(sessionId).slice(before);
    const last = reqs[reqs.length - 1];
    const texts = JSON.stringify(last?.body?.messages ?? []);
    assert(texts.includes('F-first-turn') && texts.includes('F-second-turn'), 'the resumed request carries both turns');
    await h2.close();
  } finally { h2.kill(); }
};

// G: Claude Code cannot start -> error reply open_failed, failed, closed, exit 1.
scenarios.G = async (port) => {
  const h = new Host('G', port, { exe: path.join(root, 'no-such-claude') });
  try {
    const r = await h.request('open', {
      sessionId: randomUUID(), cwd: h.cwd, permissionMode: 'default', appCapabilities: CAPABILITIES,
    }, 20_000);
    assert(r.error?.code === 'open_failed', `open: ${JSON.stringify(r)}`);
    await h.waitEvent((e) => e.event === 'failed', 'failed event');
    const closed = await h.waitEvent((e) => e.event === 'closed', 'closed event');
    assert(closed.reason === 'failed', `closed reason ${closed.reason}`);
    const ex = await h.exited;
    assert(ex.code === 1, `exit code ${ex.code}`);
  } finally { h.kill(); }
};

// H: markers left in the environment are reported by open.
scenarios.H = async (port) => {
  const h = new Host('H', port, { extraEnv: { CLAUDE_CODE_CHILD_SESSION: '1', CLAUDE_PID: '1' } });
  try {
    const r = await h.open();
    assert(JSON.stringify(r.inheritedMarkers) === '["CLAUDE_CODE_CHILD_SESSION","CLAUDE_PID"]',
      `inheritedMarkers ${JSON.stringify(r.inheritedMarkers)}`);
    await h.close();
  } finally { h.kill(); }
};

// O: a second open is refused with already_open and leaves the open session
// alone: no failed, no closed, and a send after it still completes its turn.
scenarios.O = async (port) => {
  const h = new Host('O', port);
  try {
    await h.open();
    const first = h.sessionId;
    const again = await h.request('open', {
      sessionId: randomUUID(), cwd: h.cwd, permissionMode: 'default', appCapabilities: CAPABILITIES,
    });
    assert(again.error?.code === 'already_open', `second open: ${JSON.stringify(again)}`);
    const from = h.events.length;
    await h.call('send', { text: 'O-after-the-refused-open' });
    await h.waitIdle('turn end after the refused open', 15_000, from);
    assert(!h.events.some((e) => e.event === 'failed' || e.event === 'closed'),
      `no failed or closed: ${JSON.stringify(h.events.filter((e) => e.event !== 'message'))}`);
    const result = h.events.slice(from).find((e) => e.event === 'message' && e.message?.type === 'result');
    assert(result?.message.subtype === 'success' && result.message.session_id === first,
      `the first session's turn completed: ${JSON.stringify(result?.message)}`);
    const ex = await h.close();
    assert(ex.code === 0, `host exit code ${ex.code}`);
  } finally { h.kill(); }
};

// P: the open's model and effort reach the model's requests, and full access
// (permissionMode auto) opens only on a model with Auto mode: Claude Code
// lists claude-opus-4-5 without supportsAutoMode, so that open fails with the
// page's sentence, then failed and closed, and nothing reaches the model.
scenarios.P = async (port) => {
  const h = new Host('P', port);
  try {
    await h.open({ permissionMode: 'auto', model: 'sonnet', effort: 'high' });
    await h.call('send', { text: 'P-model-and-effort' });
    await h.waitIdle('turn end');
    const reqs = mockRequests(h.sessionId).filter((r) => JSON.stringify(r.body?.messages ?? []).includes('P-model-and-effort'));
    assert(reqs.length > 0, 'the turn reached the mock');
    for (const r of reqs) {
      assert(r.body.model === 'claude-sonnet-5-5', `model in the request: ${r.body.model}`);
      assert(r.body.output_config?.effort === 'high', `effort in the request: ${JSON.stringify(r.body.output_config)}`);
    }
    await h.close();
  } finally { h.kill(); }
  const n = new Host('P-no-auto', port);
  try {
    const sessionId = randomUUID();
    const r = await n.request('open', {
      sessionId, cwd: n.cwd, permissionMode: 'auto', model: 'claude-opus-4-5', appCapabilities: CAPABILITIES,
    }, 30_000);
    assert(r.error?.code === 'auto_mode_unsupported', `open: ${JSON.stringify(r)}`);
    assert(r.error.message.includes("doesn't support Auto mode") && r.error.message.includes('claude-opus-4-5'),
      `the sentence: ${r.error.message}`);
    const failed = await n.waitEvent((e) => e.event === 'failed', 'failed event');
    assert(failed.error === r.error.message, `failed: ${JSON.stringify(failed)}`);
    const closed = await n.waitEvent((e) => e.event === 'closed', 'closed event');
    assert(closed.reason === 'failed', `closed reason ${closed.reason}`);
    assert(mockRequests(sessionId).length === 0, 'nothing reached the model');
    // The same model below full access opens.
    const m = new Host('P-plan', port);
    try {
      await m.open({ permissionMode: 'plan', model: 'claude-opus-4-5' });
      await m.close();
    } finally { m.kill(); }
  } finally { n.kill(); }
};
