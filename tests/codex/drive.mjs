#!/usr/bin/env node
// drive.mjs: a minimal JSON-RPC client for `codex app-server` (or for
// anything that speaks its protocol on stdio, e.g. `hb-codex-bridge -- codex
// app-server`). Node stdlib only.
//
//   node drive.mjs [options] [-- COMMAND ARGS...]
//
// COMMAND defaults to `<this dir>/node_modules/.bin/codex app-server`.
// The command runs with a fresh CODEX_HOME (config.toml.in, @PORT@ filled in
// with --mock-port), a fresh HOME, telemetry off and no proxies; see
// README.md. The driver performs initialize / initialized / thread/start /
// turn/start for each --text, answers item/tool/call itself only in
// --mode self-answer, waits for turn/completed and prints one JSON summary on
// stdout. Diagnostics go to stderr.
//
// Exit status: 0 the flow finished (every turn got turn/completed, and
// --expect-status matched if given); 1 failure (JSON-RPC error, child died,
// expectation not met); 2 usage error; 3 timeout.

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const HERE = path.dirname(fileURLToPath(import.meta.url));

const USAGE = `usage: node drive.mjs [options] [-- COMMAND ARGS...]
  --mock-port N            port of mock-responses.mjs (fills @PORT@ in the config)
  --mode M                 self-answer (default) | bridge
  --tools FILE             JSON array for thread/start dynamicTools (default: none)
  --text T                 user text of a turn (repeatable: one turn each;
                           default: one turn with a request to use the hbcode tool)
  --turn-model M           turn/start's model (the model for this turn and the next)
  --answer-text T          self-answer: text of the tool answer (default: a fixed JSON text)
  --answer-success B       self-answer: true|false (default true)
  --answer-delay MS        self-answer: wait MS before answering a tool call
  --no-answer              self-answer: never answer tool calls
  --interrupt-on EV        send turn/interrupt after EV: tool-call | tool-done | turn-started
  --interrupt-delay MS     ... MS milliseconds after it (default 0)
  --no-experimental        initialize without capabilities.experimentalApi
  --expect-status S        exit 1 unless every turn ends with status S
  --timeout S              overall timeout in seconds (default 60)
  --config FILE            config template (default: config.toml.in beside this file)
  --work-dir DIR           where to create CODEX_HOME, HOME and the project dir
                           (default: a new temp dir, removed at the end)
  --keep                   keep the work dir
  --cwd DIR                thread/start cwd (default: <work-dir>/project)
  --env K=V                extra environment for the command (repeatable)
  --leave-open METHOD      a server request of METHOD is listed but never answered,
                           as a desktop whose person answers elsewhere (repeatable)
  --transcript FILE        write every frame as JSON lines {t,dir,msg}
  --stderr FILE            write the command's stderr there (default: <work-dir>/stderr.log)
  --quiet                  no progress on stderr
`;

let opt;
let command;
try {
  const argv = process.argv.slice(2);
  const dd = argv.indexOf("--");
  const own = dd >= 0 ? argv.slice(0, dd) : argv;
  command = dd >= 0 ? argv.slice(dd + 1) : [];
  ({ values: opt } = parseArgs({
    args: own,
    options: {
      "mock-port": { type: "string" },
      mode: { type: "string", default: "self-answer" },
      tools: { type: "string" },
      text: { type: "string", multiple: true },
      "turn-model": { type: "string" },
      "answer-text": { type: "string" },
      "answer-success": { type: "string", default: "true" },
      "answer-delay": { type: "string", default: "0" },
      "no-answer": { type: "boolean", default: false },
      "interrupt-on": { type: "string" },
      "interrupt-delay": { type: "string", default: "0" },
      "no-experimental": { type: "boolean", default: false },
      "expect-status": { type: "string" },
      timeout: { type: "string", default: "60" },
      config: { type: "string", default: path.join(HERE, "config.toml.in") },
      "work-dir": { type: "string" },
      keep: { type: "boolean", default: false },
      cwd: { type: "string" },
      env: { type: "string", multiple: true },
      "leave-open": { type: "string", multiple: true },
      transcript: { type: "string" },
      stderr: { type: "string" },
      quiet: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  }));
} catch (e) {
  process.stderr.write(`drive.mjs: ${e.message}\n${USAGE}`);
  process.exit(2);
}
if (opt.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (!["self-answer", "bridge"].includes(opt.mode)) {
  process.stderr.write(`drive.mjs: --mode must be self-answer or bridge\n`);
  process.exit(2);
}
if (opt["interrupt-on"] && !["tool-call", "tool-done", "turn-started"].includes(opt["interrupt-on"])) {
  process.stderr.write(`drive.mjs: --interrupt-on must be tool-call, tool-done or turn-started\n`);
  process.exit(2);
}
if (!opt["mock-port"]) {
  process.stderr.write(`drive.mjs: --mock-port is required (start mock-responses.mjs first)\n`);
  process.exit(2);
}
if (command.length === 0) command = [path.join(HERE, "node_modules", ".bin", "codex"), "app-server"];
// The command runs in the project dir: make a relative program path absolute
// (other relative arguments are the caller's business).
if (command[0].includes("/")) command[0] = path.resolve(command[0]);

const DEFAULT_ANSWER = JSON.stringify({ ok: true, sessions: [{ id: "s1", age_days: 2 }], source: "drive.mjs self-answer" });
const texts = opt.text?.length ? opt.text : ["Please list my HB Code sessions using the hbcode tool."];
const timeoutMs = Math.round(Number(opt.timeout) * 1000);
const t0 = Date.now();
const quiet = opt.quiet;
const log = (...a) => {
  if (!quiet) process.stderr.write(`[drive +${((Date.now() - t0) / 1000).toFixed(3)}s] ${a.join(" ")}\n`);
};

// ------------------------------------------------------------- work dirs --

const workDir = opt["work-dir"]
  ? path.resolve(opt["work-dir"])
  : fs.mkdtempSync(path.join(os.tmpdir(), "hb-codex-"));
const codexHome = path.join(workDir, "codex-home");
const homeDir = path.join(workDir, "home");
const projectDir = opt.cwd ? path.resolve(opt.cwd) : path.join(workDir, "project");
for (const d of [codexHome, homeDir, projectDir]) fs.mkdirSync(d, { recursive: true });
const tpl = fs.readFileSync(opt.config, "utf8");
fs.writeFileSync(path.join(codexHome, "config.toml"), tpl.split("@PORT@").join(String(Number(opt["mock-port"]))));
const stderrPath = opt.stderr ? path.resolve(opt.stderr) : path.join(workDir, "stderr.log");

// ----------------------------------------------------------- environment --

function childEnv() {
  const env = { ...process.env };
  // Nothing that could select another account, endpoint or telemetry sink.
  for (const k of Object.keys(env)) {
    if (/^(CODEX_|OPENAI_|OTEL_|AZURE_OPENAI)/.test(k)) delete env[k];
    if (/^(http|https|all|ftp|no|grpc)_proxy$/i.test(k)) delete env[k];
  }
  delete env.SSL_CERT_FILE;
  delete env.RUST_LOG;
  Object.assign(env, {
    CODEX_HOME: codexHome,
    HOME: homeDir,
    XDG_CONFIG_HOME: path.join(homeDir, ".config"),
    XDG_DATA_HOME: path.join(homeDir, ".local", "share"),
    XDG_CACHE_HOME: path.join(homeDir, ".cache"),
    XDG_STATE_HOME: path.join(homeDir, ".local", "state"),
    MOCK_API_KEY: "mock-key-not-a-secret",
    RUST_LOG: "warn",
    NO_PROXY: "127.0.0.1,localhost,::1",
    no_proxy: "127.0.0.1,localhost,::1",
    OTEL_SDK_DISABLED: "true",
    OTEL_TRACES_EXPORTER: "none",
    OTEL_METRICS_EXPORTER: "none",
    OTEL_LOGS_EXPORTER: "none",
    DO_NOT_TRACK: "1",
    NO_COLOR: "1",
    // the pinned codex first on PATH, so `hb-codex-bridge -- codex app-server` finds it
    PATH: [path.join(HERE, "node_modules", ".bin"), process.env.PATH ?? "/usr/bin:/bin"].join(path.delimiter),
  });
  for (const kv of opt.env ?? []) {
    const i = kv.indexOf("=");
    if (i <= 0) {
      process.stderr.write(`drive.mjs: --env wants K=V, got ${kv}\n`);
      process.exit(2);
    }
    env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return env;
}

// ------------------------------------------------------------- summary --

const summary = {
  ok: false,
  mode: opt.mode,
  command,
  threadId: null,
  turnStatus: null,
  turnError: null,
  finalText: null,
  turns: [],
  toolCalls: [],
  serverRequests: [],
  errors: [],
  warnings: [],
  exit: null,
  durationMs: null,
  workDir: opt.keep || opt["work-dir"] ? workDir : null,
  stderrTail: null,
};

// ----------------------------------------------------------------- child --

let transcript = null;
if (opt.transcript) transcript = fs.openSync(path.resolve(opt.transcript), "w");
function record(dir, msg) {
  if (transcript !== null) fs.writeSync(transcript, JSON.stringify({ t: (Date.now() - t0) / 1000, dir, msg }) + "\n");
}

log(`spawn ${command.join(" ")} (CODEX_HOME=${codexHome})`);
const stderrFd = fs.openSync(stderrPath, "w");
const child = spawn(command[0], command.slice(1), {
  cwd: projectDir,
  env: childEnv(),
  stdio: ["pipe", "pipe", stderrFd],
  detached: true, // own process group: we can end the whole tree
});
let childExited = false;
const exitPromise = new Promise((resolve) => {
  child.on("exit", (code, signal) => {
    childExited = true;
    summary.exit = { code, signal };
    resolve();
    onChildExit(code, signal);
  });
  child.on("error", (e) => {
    childExited = true;
    summary.errors.push({ where: "spawn", message: e.message });
    resolve();
    finish(1);
  });
});
child.stdin.on("error", (e) => log(`stdin: ${e.message}`));

function send(msg) {
  record("c2s", msg);
  if (!child.stdin.writable) return;
  child.stdin.write(JSON.stringify(msg) + "\n");
}

let nextId = 1;
const pending = new Map(); // id -> {method, resolve, reject}
function request(method, params) {
  const id = nextId++;
  const msg = params === undefined ? { id, method } : { id, method, params };
  return new Promise((resolve, reject) => {
    pending.set(id, { method, resolve, reject });
    send(msg);
  });
}
function notify(method, params) {
  send(params === undefined ? { method } : { method, params });
}

class RpcError extends Error {
  constructor(method, error) {
    super(`${method}: ${error?.message ?? JSON.stringify(error)}`);
    this.method = method;
    this.rpc = error;
  }
}

// turn bookkeeping
let currentTurn = null; // {id, status, resolve, ...}
const turnWaiters = new Map(); // turnId -> resolve
const earlyCompleted = new Map(); // turnId -> turn (completed before turn/start answered)
const toolByCallId = new Map();
let interruptScheduled = false;
const lateAnswers = []; // promises of delayed tool answers
const completedTurns = new Set(); // ids of turns that got turn/completed
let bridgeViolation = false; // bridge mode: a tool call reached the driver

function toolEntry(callId) {
  let e = toolByCallId.get(callId);
  if (!e) {
    e = {
      callId,
      namespace: null,
      tool: null,
      arguments: null,
      turnId: null,
      requestSeen: false,
      answeredBy: null,
      itemStatus: null,
      success: null,
      contentItems: null,
    };
    toolByCallId.set(callId, e);
    summary.toolCalls.push(e);
  }
  return e;
}

function maybeInterrupt(ev) {
  if (opt["interrupt-on"] !== ev || interruptScheduled || !currentTurn) return;
  interruptScheduled = true;
  const turn = currentTurn;
  setTimeout(() => {
    log(`turn/interrupt (after ${ev})`);
    request("turn/interrupt", { threadId: summary.threadId, turnId: turn.id }).then(
      () => {
        turn.interruptAnswered = true;
      },
      (e) => summary.errors.push({ where: "turn/interrupt", message: e.message, rpc: e.rpc ?? null }),
    );
  }, Number(opt["interrupt-delay"]));
}

function handleServerRequest(msg) {
  const { id, method, params } = msg;
  if (method === "item/tool/call") {
    const e = toolEntry(params?.callId);
    Object.assign(e, {
      namespace: params?.namespace ?? null,
      tool: params?.tool ?? null,
      arguments: params?.arguments ?? null,
      turnId: params?.turnId ?? null,
      requestSeen: true,
    });
    log(`item/tool/call ${params?.namespace}/${params?.tool} callId=${params?.callId}`);
    if (opt.mode === "bridge") {
      summary.errors.push({
        where: "item/tool/call",
        message: "bridge mode: the driver received an item/tool/call; the bridge should have answered it",
        callId: params?.callId,
      });
      bridgeViolation = true;
      // Answer with a failure so that the turn can still finish.
      send({ id, result: { contentItems: [{ type: "inputText", text: "drive.mjs: bridge did not answer" }], success: false } });
      e.answeredBy = "driver(bridge-fallback)";
      return;
    }
    maybeInterrupt("tool-call");
    if (opt["no-answer"]) return;
    const answer = {
      contentItems: [{ type: "inputText", text: opt["answer-text"] ?? DEFAULT_ANSWER }],
      success: opt["answer-success"] !== "false",
    };
    const reply = () => {
      if (childExited) return;
      e.answeredBy = "driver";
      e.answer = answer;
      // an answer sent after the turn ended (e.g. late, after turn/interrupt)
      if (completedTurns.has(params?.turnId)) e.answeredAfterTurnEnd = true;
      send({ id, result: answer });
    };
    const delay = Number(opt["answer-delay"]);
    if (delay > 0) {
      // finish() waits for these, so a late answer is still written.
      lateAnswers.push(new Promise((resolve) => setTimeout(() => (reply(), resolve()), delay)));
    } else reply();
    return;
  }
  // Anything else (approvals, user input, auth refresh...) is unexpected here.
  summary.serverRequests.push({ method, params });
  if ((opt["leave-open"] ?? []).includes(method)) {
    log(`server request ${method}: left open`);
    return;
  }
  log(`unexpected server request ${method}: answering with an error`);
  send({ id, error: { code: -32601, message: `drive.mjs does not handle ${method}` } });
}

function handleNotification(msg) {
  const { method, params } = msg;
  switch (method) {
    case "configWarning":
    case "warning":
    case "deprecationNotice":
      summary.warnings.push({ method, message: params?.summary ?? params?.message ?? JSON.stringify(params) });
      log(`${method}: ${params?.summary ?? params?.message}`);
      break;
    case "error":
      summary.errors.push({ where: "notification error", params });
      log(`error notification: ${JSON.stringify(params)}`);
      break;
    case "turn/started":
      if (currentTurn && params?.turn?.id === currentTurn.id) maybeInterrupt("turn-started");
      break;
    case "item/started":
    case "item/completed": {
      const item = params?.item;
      if (item?.type === "dynamicToolCall") {
        const e = toolEntry(item.id);
        e.namespace ??= item.namespace ?? null;
        e.tool ??= item.tool ?? null;
        e.arguments ??= item.arguments ?? null;
        e.turnId ??= params?.turnId ?? null;
        e.itemStatus = item.status ?? null;
        if (method === "item/completed") {
          e.success = item.success ?? null;
          e.contentItems = item.contentItems ?? null;
          if (!e.answeredBy && opt.mode === "bridge") e.answeredBy = "command";
          log(`tool item completed ${item.id}: ${item.status}`);
          maybeInterrupt("tool-done");
        }
      } else if (item?.type === "agentMessage" && method === "item/completed") {
        const t = turnFor(params?.turnId);
        if (t) t.agentMessages.push(item.text);
      }
      break;
    }
    case "turn/completed": {
      const turn = params?.turn;
      log(`turn/completed ${turn?.id}: ${turn?.status}`);
      completedTurns.add(turn?.id);
      const w = turnWaiters.get(turn?.id);
      if (w) w(turn);
      else earlyCompleted.set(turn?.id, turn);
      break;
    }
    default:
      break;
  }
}

const turnsById = new Map();
function turnFor(id) {
  return turnsById.get(id) ?? null;
}

const rl = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
rl.on("line", (line) => {
  if (!line.trim()) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    record("s2c-raw", line);
    summary.errors.push({ where: "stdout", message: "non-JSON line from the command", line: line.slice(0, 500) });
    return;
  }
  record("s2c", msg);
  if (msg.id !== undefined && msg.method === undefined) {
    const p = pending.get(msg.id);
    if (!p) {
      summary.errors.push({ where: "response", message: `response to unknown id ${JSON.stringify(msg.id)}` });
      return;
    }
    pending.delete(msg.id);
    if (msg.error) p.reject(new RpcError(p.method, msg.error));
    else p.resolve(msg.result);
  } else if (msg.id !== undefined && msg.method) {
    handleServerRequest(msg);
  } else if (msg.method) {
    handleNotification(msg);
  }
});

// ------------------------------------------------------------ lifecycle --

let finished = false;
let expectedExit = false;
function onChildExit(code, signal) {
  log(`command exited code=${code} signal=${signal}`);
  if (!expectedExit && !finished) {
    summary.errors.push({ where: "child", message: `command exited early (code=${code}, signal=${signal})` });
    for (const [, p] of pending) p.reject(new Error(`command exited before answering ${p.method}`));
    for (const [, w] of turnWaiters) w(null);
  }
}

function killTree(sig) {
  try {
    process.kill(-child.pid, sig);
  } catch {
    try {
      child.kill(sig);
    } catch {
      /* gone */
    }
  }
}

async function stopChild() {
  expectedExit = true;
  if (childExited) return;
  try {
    child.stdin.end();
  } catch {
    /* ignore */
  }
  const waited = await Promise.race([exitPromise.then(() => true), sleep(3000).then(() => false)]);
  if (waited) return;
  log("command still running 3 s after stdin EOF: SIGTERM");
  killTree("SIGTERM");
  const waited2 = await Promise.race([exitPromise.then(() => true), sleep(2000).then(() => false)]);
  if (waited2) return;
  log("SIGKILL");
  killTree("SIGKILL");
  await Promise.race([exitPromise, sleep(1000)]);
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms).unref?.());
}

function tailFile(p, n = 40) {
  try {
    const s = fs.readFileSync(p, "utf8");
    const lines = s.split("\n").filter((l) => l.length);
    return lines.slice(-n);
  } catch {
    return null;
  }
}

async function finish(code) {
  if (finished) return;
  finished = true;
  clearTimeout(overall);
  if (code !== 3 && lateAnswers.length) {
    await Promise.race([Promise.all(lateAnswers), sleep(Number(opt["answer-delay"]) + 1000)]);
    await sleep(300); // let the command react to a late answer (logged in the transcript)
  }
  await stopChild();
  summary.durationMs = Date.now() - t0;
  const last = summary.turns[summary.turns.length - 1];
  if (last) {
    summary.turnStatus = last.status;
    summary.turnError = last.error;
    summary.finalText = last.agentMessages.length ? last.agentMessages[last.agentMessages.length - 1] : null;
  }
  if (bridgeViolation && code === 0) code = 1;
  if (opt["expect-status"] && code === 0) {
    const bad = summary.turns.filter((t) => t.status !== opt["expect-status"]);
    if (bad.length || summary.turns.length !== texts.length) {
      summary.errors.push({ where: "expect-status", message: `expected every turn to be ${opt["expect-status"]}` });
      code = 1;
    }
  }
  summary.ok = code === 0;
  if (code !== 0) summary.stderrTail = tailFile(stderrPath);
  process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
  if (transcript !== null) fs.closeSync(transcript);
  try {
    fs.closeSync(stderrFd);
  } catch {
    /* ignore */
  }
  if (!opt.keep && !opt["work-dir"]) fs.rmSync(workDir, { recursive: true, force: true });
  process.exitCode = code;
  // Do not linger on stray handles.
  setTimeout(() => process.exit(code), 200).unref();
}

const overall = setTimeout(() => {
  summary.errors.push({ where: "timeout", message: `no finish within ${opt.timeout} s` });
  log("TIMEOUT");
  finish(3);
}, timeoutMs);

async function main() {
  const init = await request("initialize", {
    clientInfo: { name: "hbcode_drive", title: "HB Code test driver", version: "0.0.1" },
    capabilities: opt["no-experimental"] ? {} : { experimentalApi: true },
  });
  summary.initialize = init;
  notify("initialized");
  const startParams = { cwd: projectDir };
  if (opt.tools) startParams.dynamicTools = JSON.parse(fs.readFileSync(opt.tools, "utf8"));
  const started = await request("thread/start", startParams);
  summary.threadId = started?.thread?.id ?? null;
  log(`thread ${summary.threadId}`);
  for (const text of texts) {
    interruptScheduled = false;
    const r = await request("turn/start", {
      threadId: summary.threadId,
      input: [{ type: "text", text, text_elements: [] }],
      ...(opt["turn-model"] ? { model: opt["turn-model"] } : {}),
    });
    const turnId = r?.turn?.id;
    const t = { id: turnId, text, status: null, error: null, agentMessages: [], interruptAnswered: false };
    summary.turns.push(t);
    turnsById.set(turnId, t);
    currentTurn = t;
    const done = earlyCompleted.has(turnId)
      ? earlyCompleted.get(turnId)
      : await new Promise((resolve) => turnWaiters.set(turnId, resolve));
    turnWaiters.delete(turnId);
    if (!done) throw new Error("command exited during the turn");
    t.status = done.status ?? null;
    t.error = done.error ?? null;
    t.durationMs = done.durationMs ?? null;
    // Items carried by turn/completed (agent messages) if none were seen as notifications
    if (!t.agentMessages.length && Array.isArray(done.items)) {
      for (const it of done.items) if (it?.type === "agentMessage") t.agentMessages.push(it.text);
    }
    currentTurn = null;
  }
}

main().then(
  () => finish(0),
  (e) => {
    summary.errors.push({ where: e.method ?? "driver", message: e.message, rpc: e.rpc ?? null });
    finish(1);
  },
);
