// messages-desktop.mjs - plays the HB Code desktop on a Codex thread that
// waits for messages from other sessions: initialize, thread/start, then
// (optionally) one turn of its own, and otherwise nothing until STOP-FILE
// exists.  Every frame goes to the transcript, so the test can wait for
// what it needs there (a turn started by the bridge, its turn/completed).
// Node stdlib only.
//
//   node messages-desktop.mjs --mock-port N --work-dir DIR --transcript FILE
//        --state FILE --stop-file FILE [--turn TEXT] [--reserved] [--resume THREAD]
//        [--env K=V]... [--timeout S] -- hb-codex-bridge ARGS... -- codex app-server
//
// --state FILE   written (JSON {threadId}) once thread/start is answered
// --turn TEXT    start one turn of the desktop's own right after thread/start
// --resume ID    thread/resume that thread (same --work-dir) instead of thread/start
// --reserved     after thread/start, send two turn/start the bridge must
//                refuse: one with the JSON-RPC id session-message-999 and
//                one whose clientUserMessageId is session-message-998
// Prints a JSON summary on stdout at the end: threadId, the answers to the
// desktop's requests, the turns it saw start and complete, server requests.
// Exit 0 when it stopped on the stop file, 1 on an error, 3 on timeout.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const RIG = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "codex");
const argv = process.argv.slice(2);
const dd = argv.indexOf("--");
const { values: opt } = parseArgs({
  args: argv.slice(0, dd),
  options: {
    "mock-port": { type: "string" },
    "work-dir": { type: "string" },
    transcript: { type: "string" },
    state: { type: "string" },
    "stop-file": { type: "string" },
    turn: { type: "string" },
    reserved: { type: "boolean", default: false },
    resume: { type: "string" },
    env: { type: "string", multiple: true },
    timeout: { type: "string", default: "120" },
  },
  strict: true,
});
const command = argv.slice(dd + 1);

const work = path.resolve(opt["work-dir"]);
const codexHome = path.join(work, "codex-home"), home = path.join(work, "home"), project = path.join(work, "project");
for (const d of [codexHome, home, project]) fs.mkdirSync(d, { recursive: true });
const tpl = fs.readFileSync(path.join(RIG, "config.toml.in"), "utf8");
fs.writeFileSync(path.join(codexHome, "config.toml"), tpl.split("@PORT@").join(String(Number(opt["mock-port"]))));

// The same environment as tests/codex/drive.mjs: nothing that could pick
// another endpoint, account or telemetry sink; the pinned codex on PATH.
const env = { ...process.env };
for (const k of Object.keys(env)) {
  if (/^(CODEX_|OPENAI_|OTEL_|AZURE_OPENAI)/.test(k) || /^(http|https|all|ftp|no|grpc)_proxy$/i.test(k)) delete env[k];
}
delete env.SSL_CERT_FILE;
Object.assign(env, {
  CODEX_HOME: codexHome, HOME: home,
  XDG_CONFIG_HOME: path.join(home, ".config"), XDG_DATA_HOME: path.join(home, ".local", "share"),
  XDG_CACHE_HOME: path.join(home, ".cache"), XDG_STATE_HOME: path.join(home, ".local", "state"),
  MOCK_API_KEY: "mock-key-not-a-secret", RUST_LOG: "warn",
  NO_PROXY: "127.0.0.1,localhost,::1", no_proxy: "127.0.0.1,localhost,::1",
  OTEL_SDK_DISABLED: "true", OTEL_TRACES_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none",
  OTEL_LOGS_EXPORTER: "none", DO_NOT_TRACK: "1", NO_COLOR: "1",
  PATH: [path.join(RIG, "node_modules", ".bin"), process.env.PATH ?? "/usr/bin:/bin"].join(path.delimiter),
});
for (const kv of opt.env ?? []) env[kv.slice(0, kv.indexOf("="))] = kv.slice(kv.indexOf("=") + 1);

const t0 = Date.now();
const transcript = fs.openSync(opt.transcript, "w");
const record = (dir, msg) => fs.writeSync(transcript, JSON.stringify({ t: Date.now() - t0, dir, msg }) + "\n");
const summary = { threadId: null, answers: [], turnsStarted: [], turnsCompleted: [], serverRequests: [], errors: [], exit: null };

const child = spawn(command[0], command.slice(1), {
  cwd: project, env, detached: true,
  stdio: ["pipe", "pipe", fs.openSync(path.join(work, "stderr.log"), "w")],
});
let exited = false;
const exitP = new Promise((r) => child.on("exit", (code, signal) => { exited = true; summary.exit = { code, signal }; r(); }));
child.stdin.on("error", () => {});
const send = (m) => { record("c2s", m); if (child.stdin.writable) child.stdin.write(JSON.stringify(m) + "\n"); };

let nextId = 1;
const waiting = new Map();
function request(method, params, id = nextId++) {
  return new Promise((resolve) => { waiting.set(id, resolve); send({ id, method, params }); });
}

readline.createInterface({ input: child.stdout }).on("line", (line) => {
  let m;
  try { m = JSON.parse(line); } catch { summary.errors.push("not JSON: " + line.slice(0, 200)); return; }
  record("s2c", m);
  if (m.id !== undefined && m.method === undefined) {
    summary.answers.push({ id: m.id, ok: !m.error, error: m.error ?? null });
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (w) w(m);
  } else if (m.id !== undefined) {
    // approvals and the like: the desktop says no (the bridge answers tool calls)
    summary.serverRequests.push(m.method);
    send({ id: m.id, error: { code: -32601, message: `messages-desktop does not handle ${m.method}` } });
  } else if (m.method === "turn/started") {
    summary.turnsStarted.push(m.params?.turn?.id);
  } else if (m.method === "turn/completed") {
    summary.turnsCompleted.push({ id: m.params?.turn?.id, status: m.params?.turn?.status });
  } else if (m.method === "error") {
    summary.errors.push(m.params);
  }
});

let done = false;
async function finish(code) {
  if (done) return;
  done = true;
  clearInterval(poll);
  clearTimeout(timer);
  try { child.stdin.end(); } catch {}
  const kill = (sig) => { try { process.kill(-child.pid, sig); } catch {} };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  if (!exited && !(await Promise.race([exitP.then(() => true), sleep(3000).then(() => false)]))) {
    kill("SIGTERM");
    if (!(await Promise.race([exitP.then(() => true), sleep(2000).then(() => false)]))) kill("SIGKILL");
  }
  await Promise.race([exitP, sleep(1000)]);
  fs.closeSync(transcript);
  process.stdout.write(JSON.stringify(summary) + "\n");
  setTimeout(() => process.exit(code), 100);
}
const poll = setInterval(() => { if (fs.existsSync(opt["stop-file"])) finish(0); }, 100);
const timer = setTimeout(() => { summary.errors.push("timeout"); finish(3); }, 1000 * Number(opt.timeout));
child.on("exit", () => { if (!done) { summary.errors.push("the bridge exited"); finish(1); } });
process.on("SIGTERM", () => { summary.errors.push("SIGTERM"); finish(1); });

const text = (t) => [{ type: "text", text: t, text_elements: [] }];
(async () => {
  const init = await request("initialize", {
    clientInfo: { name: "hbcode_desktop_test", title: "HB Code messages test", version: "0.0.1" },
    capabilities: { experimentalApi: true },
  });
  if (init.error) throw new Error("initialize: " + init.error.message);
  send({ method: "initialized" });
  const started = opt.resume !== undefined
    ? await request("thread/resume", { threadId: opt.resume })
    : await request("thread/start", { cwd: project });
  if (started.error) throw new Error("thread/start or resume: " + started.error.message);
  summary.threadId = started.result?.thread?.id ?? null;
  fs.writeFileSync(opt.state, JSON.stringify({ threadId: summary.threadId }));
  if (opt.reserved) {
    await request("turn/start", { threadId: summary.threadId, input: text("FORBIDDEN-BY-ID") }, "session-message-999");
    await request("turn/start", {
      threadId: summary.threadId, clientUserMessageId: "session-message-998", input: text("FORBIDDEN-BY-CLIENT-ID"),
    });
  }
  if (opt.turn !== undefined) await request("turn/start", { threadId: summary.threadId, input: text(opt.turn) });
})().catch((e) => { summary.errors.push(String(e.message ?? e)); finish(1); });
