// selftest-rig - what the agent host self-test's scenarios share (selftest.mjs runs
// them; selftest-pipe.mjs and selftest-reads.mjs hold them): the command line, the
// throwaway folder, the mock Messages API (mock-messages.mjs) and what it was sent,
// and Host, one host.mjs process with the pipe of docs/agent-host-pipe.md.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const argv = process.argv.slice(2);
export const KEEP = argv.includes('--keep');
export const onlyArg = argv.indexOf('--only') >= 0 ? argv[argv.indexOf('--only') + 1] : undefined;
export const ONLY = onlyArg ? new Set(onlyArg.split(',')) : undefined;
export const claudeArg = argv.indexOf('--claude') >= 0 ? argv[argv.indexOf('--claude') + 1] : undefined;
// A scenario takes seconds; this only stops one that hangs (no timing is asserted).
export const SCENARIO_MS = 180_000;

export const MARKERS = [
  'CLAUDECODE', 'CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_CHILD_SESSION', 'CLAUDE_PID',
  'CLAUDE_CODE_CHILD_NOTES_DIR', 'CLAUDE_CODE_SESSION_ATTENDED', 'CLAUDE_EFFORT',
  'AI_AGENT', 'TRACEPARENT',
];

export const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-host-selftest-'));
export const mockLog = path.join(root, 'mock-requests.jsonl');

// The catalog as the desktop sends it: one tool of each approval class.
export const CAPABILITIES = [
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

export function deadline(ms, what) {
  let t;
  const p = new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`timeout: ${what}`)), ms); });
  return { p, clear: () => clearTimeout(t) };
}

export function assert(cond, msg) {
  if (!cond) throw new Error(`assertion failed: ${msg}`);
}

export function startMock() {
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

export function mockRequests(sessionId) {
  if (!fs.existsSync(mockLog)) return [];
  return fs.readFileSync(mockLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((r) => !sessionId || r.headers?.['x-claude-code-session-id'] === sessionId);
}

// All tool_result blocks the model received in one session's requests.
export function toolResultsSeen(sessionId) {
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

export class Host {
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
