#!/usr/bin/env node
// Self-test of host.mjs against the real Claude Agent SDK 0.3.332 (and the
// Claude Code binary it ships) talking to mock-messages.mjs on 127.0.0.1.
// It plays the desktop side of the pipe described in docs/agent-host-pipe.md.
//
//   node selftest.mjs [--keep] [--only A,B,...] [--claude PATH]
//
// Prints one "ok"/"FAIL" line per scenario and ends with "N passed, N failed".

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { renameSession, getSessionMessages } from '../../agent-host/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const KEEP = argv.includes('--keep');
const onlyArg = argv.indexOf('--only') >= 0 ? argv[argv.indexOf('--only') + 1] : undefined;
const ONLY = onlyArg ? new Set(onlyArg.split(',')) : undefined;
const claudeArg = argv.indexOf('--claude') >= 0 ? argv[argv.indexOf('--claude') + 1] : undefined;
// A scenario takes seconds; this only stops one that hangs (no timing is asserted).
const SCENARIO_MS = 180_000;

const MARKERS = [
  'CLAUDECODE', 'CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_CHILD_SESSION', 'CLAUDE_PID',
  'CLAUDE_CODE_CHILD_NOTES_DIR', 'CLAUDE_CODE_SESSION_ATTENDED', 'CLAUDE_EFFORT',
  'AI_AGENT', 'TRACEPARENT',
];

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-host-selftest-'));
const mockLog = path.join(root, 'mock-requests.jsonl');

// The catalog as the desktop sends it: one tool of each approval class.
const CAPABILITIES = [
  {
    name: 'maintain_sessions',
    description: 'Read-only view of HB Code sessions: guide, listSessions, resolveSession.',
    inputSchema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['guide', 'listSessions', 'resolveSession'] },
        limit: { type: 'integer', minimum: 1, maximum: 200 },
        sessionId: { type: 'string' },
      },
      required: ['action'],
      additionalProperties: false,
    },
    approval: 'read-only',
  },
  {
    name: 'manage_sessions',
    description: 'Create, rename or archive HB Code sessions.',
    inputSchema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['create', 'rename', 'archive'] },
        sessionId: { type: 'string' },
        title: { type: 'string' },
      },
      required: ['action'],
    },
    approval: 'agent',
  },
  {
    name: 'send_session_message',
    description: 'Send a message to another HB Code session.',
    inputSchema: {
      type: 'object',
      properties: { recipientSessionId: { type: 'string' }, message: { type: 'string' } },
      required: ['recipientSessionId', 'message'],
    },
    approval: 'desktop',
  },
];

// ------------------------------------------------------------------ helpers

function deadline(ms, what) {
  let t;
  const p = new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`timeout: ${what}`)), ms); });
  return { p, clear: () => clearTimeout(t) };
}

function assert(cond, msg) {
  if (!cond) throw new Error(`assertion failed: ${msg}`);
}

function startMock() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(HERE, 'mock-messages.mjs'), '--log', mockLog], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const rl = createInterface({ input: child.stdout });
    rl.once('line', (line) => {
      const m = /^PORT (\d+)$/.exec(line);
      if (!m) return reject(new Error(`mock said: ${line}`));
      resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (c) => reject(new Error(`mock exited ${c}`)));
  });
}

function mockRequests(sessionId) {
  if (!fs.existsSync(mockLog)) return [];
  return fs.readFileSync(mockLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((r) => !sessionId || r.headers?.['x-claude-code-session-id'] === sessionId);
}

// All tool_result blocks the model received in one session's requests.
function toolResultsSeen(sessionId) {
  const out = [];
  for (const r of mockRequests(sessionId)) {
    for (const m of r.body?.messages ?? []) {
      if (m.role !== 'user' || !Array.isArray(m.content)) continue;
      for (const b of m.content) {
        if (b.type === 'tool_result') {
          const text = typeof b.content === 'string' ? b.content
            : (b.content ?? []).map((c) => c.text ?? '').join('');
          out.push({ seq: r.seq, toolUseId: b.tool_use_id, isError: b.is_error === true, text });
        }
      }
    }
  }
  return out;
}

class Host {
  constructor(name, port, { exe = claudeArg, extraEnv = {}, cwd } = {}) {
    this.name = name;
    this.home = path.join(root, name, 'home');
    this.cwd = cwd ?? path.join(root, name, 'project');
    fs.mkdirSync(this.home, { recursive: true });
    fs.mkdirSync(this.cwd, { recursive: true });
    const env = { ...process.env };
    for (const k of MARKERS) delete env[k]; // what the bridge does before it starts the host
    Object.assign(env, {
      HOME: this.home,
      CLAUDE_CONFIG_DIR: path.join(this.home, '.claude'),
      XDG_CONFIG_HOME: path.join(this.home, '.config'),
      XDG_CACHE_HOME: path.join(this.home, '.cache'),
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
      ANTHROPIC_API_KEY: 'test',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      NO_PROXY: '127.0.0.1,localhost',
    });
    Object.assign(env, extraEnv);
    for (const k of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'ALL_PROXY', 'all_proxy']) delete env[k];
    this.stderrPath = path.join(root, name, 'host.stderr');
    this.pipePath = path.join(root, name, 'pipe.jsonl');
    const errFd = fs.openSync(this.stderrPath, 'w');
    this.child = spawn(process.execPath, [path.join(HERE, '..', '..', 'agent-host', 'host.mjs'), ...(exe ? [exe] : [])], {
      cwd: this.cwd, env, stdio: ['pipe', 'pipe', errFd], detached: true,
    });
    fs.closeSync(errFd);
    this.nextId = 1;
    this.replies = new Map();
    this.events = [];
    this.waiters = [];
    this.exited = new Promise((r) => this.child.once('exit', (code, sig) => r({ code, sig })));
    const rl = createInterface({ input: this.child.stdout });
    rl.on('line', (line) => {
      fs.appendFileSync(this.pipePath, `< ${line}\n`);
      let m;
      try { m = JSON.parse(line); } catch { this.bad = line; return; }
      if ('id' in m) {
        const w = this.replies.get(m.id);
        if (w) { this.replies.delete(m.id); w(m); }
        else this.orphans = (this.orphans ?? 0) + 1;
      } else {
        this.events.push(m);
        this.waiters = this.waiters.filter((w) => !w(m));
      }
    });
  }

  writeLine(obj) {
    const line = typeof obj === 'string' ? obj : JSON.stringify(obj);
    fs.appendFileSync(this.pipePath, `> ${line}\n`);
    this.child.stdin.write(line + '\n');
  }

  // Send a request, resolve with the whole reply line ({id,result}|{id,error}).
  request(method, params, ms = 15_000) {
    const id = this.nextId++;
    const msg = { id, method, ...(params !== undefined ? { params } : {}) };
    const d = deadline(ms, `reply to ${method}`);
    const p = new Promise((r) => this.replies.set(id, r));
    this.writeLine(msg);
    return Promise.race([p, d.p]).finally(d.clear);
  }

  async call(method, params, ms) {
    const r = await this.request(method, params, ms);
    if (r.error) throw new Error(`${method} failed: ${JSON.stringify(r.error)}`);
    return r.result;
  }

  // Wait for an event (also one already received after index `from`).
  waitEvent(pred, what, ms = 15_000, from = 0) {
    for (let i = from; i < this.events.length; i++) if (pred(this.events[i])) return Promise.resolve(this.events[i]);
    const d = deadline(ms, what);
    const p = new Promise((resolve) => {
      this.waiters.push((e) => { if (pred(e)) { resolve(e); return true; } return false; });
    });
    return Promise.race([p, d.p]).finally(d.clear);
  }

  waitIdle(what = 'idle', ms = 15_000, from = 0) {
    return this.waitEvent(
      (e) => e.event === 'message' && e.message?.type === 'system' &&
        e.message.subtype === 'session_state_changed' && e.message.state === 'idle',
      what, ms, from);
  }

  async open(extra = {}) {
    this.sessionId = randomUUID();
    return this.call('open', {
      sessionId: this.sessionId,
      cwd: this.cwd,
      permissionMode: 'default',
      allowedTools: ['mcp__hbcode__maintain_sessions'],
      appCapabilities: CAPABILITIES,
      ...extra,
    }, 30_000);
  }

  async close() {
    if (this.child.exitCode !== null) return this.exited;
    try { await this.request('close', undefined, 5_000); } catch {}
    this.child.stdin.end();
    const d = deadline(10_000, 'host exit');
    try { return await Promise.race([this.exited, d.p]); }
    catch { try { process.kill(-this.child.pid, 'SIGKILL'); } catch {} return this.exited; }
    finally { d.clear(); }
  }

  kill() { try { process.kill(-this.child.pid, 'SIGKILL'); } catch {} }
}

// ------------------------------------------------------------------ scenarios

const scenarios = {};

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

// ------------------------------------------------------------------ main

const { child: mock, port } = await startMock();
let passed = 0, failed = 0;
for (const [name, fn] of Object.entries(scenarios)) {
  if (ONLY && !ONLY.has(name)) continue;
  const t0 = Date.now();
  const d = deadline(SCENARIO_MS, `scenario ${name}`);
  try {
    await Promise.race([fn(port), d.p]);
    const ms = Date.now() - t0;
    passed++;
    console.log(`ok   ${name} (${ms} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e.message}`);
    const dir = path.join(root, name);
    for (const f of ['pipe.jsonl', 'host.stderr']) {
      const p = path.join(dir, f);
      if (fs.existsSync(p)) {
        const text = fs.readFileSync(p, 'utf8');
        console.log(`--- ${name}/${f} (last 4000 chars)\n${text.slice(-4000)}`);
      }
    }
  } finally { d.clear(); }
}
mock.kill('SIGTERM');
if (failed === 0 && !KEEP) fs.rmSync(root, { recursive: true, force: true });
else console.log(`artifacts kept in ${root}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
