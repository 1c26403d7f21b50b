// quiet-agent.mjs - the least an agent process says on its pipe, so that
// tests/e2e/bridge-detach.sh can end hb-claude-bridge and hb-codex-bridge
// in every way without starting a real agent each time.  Node stdlib only.
//
//   node quiet-agent.mjs claude|codex EXIT-FILE
//
// claude (docs/agent-host-pipe.md): answers open with the session id it
//   was given, send with {} and then the turn's running and idle states,
//   history with the user messages sent to it (a send with messageId X is
//   kept as uuid X, as Claude Code saves it; one page, in memory only),
//   close with {} and then `closed`; ends at the end of its input.
// codex (app-server JSON-RPC): answers initialize, thread/start (thread
//   thr-quiet, also reported as thread/started) and turn/start (a turn
//   that starts and completes at once); ends at the end of its input.
// Both end by themselves once EXIT-FILE exists (the agent's own exit; the
// host says `closed` with reason "ended" first).  Signals: the default.
import fs from "node:fs";
import readline from "node:readline";

const [kind, exitFile] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
let ended = false;
let sessionId = null;
let turns = 0;
const saved = []; // the "transcript": what send wrote

function end(reason) {
  if (ended) return;
  ended = true;
  if (kind === "claude") out({ event: "closed", reason });
  process.stdout.write("", () => process.exit(0));
}

function claude(m) {
  const state = (s) => out({ event: "message", message: { type: "system", subtype: "session_state_changed", state: s, session_id: sessionId } });
  if (m.method === "open") {
    sessionId = m.params.sessionId;
    out({ id: m.id, result: { sessionId, resumed: false, inheritedMarkers: [] } });
  } else if (m.method === "send") {
    const uuid = m.params.messageId ?? `quiet-${saved.length + 1}`;
    saved.push({ uuid, uuids: [uuid], type: "user", message: { role: "user", content: [{ type: "text", text: m.params.text }] } });
    out({ id: m.id, result: {} });
    state("running");
    state("idle");
  } else if (m.method === "history") {
    out({ id: m.id, result: { messages: saved.slice(-(m.params.limit ?? 100)), hasMore: false } });
  } else if (m.method === "close") {
    out({ id: m.id, result: {} });
    end("close");
  } else {
    out({ id: m.id, error: { code: "unknown_method", message: `quiet-agent has no ${m.method}` } });
  }
}

function codex(m) {
  if (m.id === undefined) return; // a notification (initialized)
  if (m.method === "initialize") {
    out({ id: m.id, result: { userAgent: "quiet-agent" } });
  } else if (m.method === "thread/start") {
    const thread = { id: "thr-quiet" };
    out({ method: "thread/started", params: { thread } });
    out({ id: m.id, result: { thread } });
  } else if (m.method === "turn/start") {
    const turn = { id: `turn-${++turns}`, status: "inProgress" };
    const threadId = m.params.threadId;
    out({ id: m.id, result: { turn } });
    out({ method: "turn/started", params: { threadId, turn } });
    out({ method: "turn/completed", params: { threadId, turn: { ...turn, status: "completed" } } });
  } else {
    out({ id: m.id, error: { code: -32601, message: `quiet-agent has no ${m.method}` } });
  }
}

setInterval(() => { if (fs.existsSync(exitFile)) end("ended"); }, 100);
readline.createInterface({ input: process.stdin })
  .on("line", (line) => (kind === "claude" ? claude : codex)(JSON.parse(line)))
  .on("close", () => end("close"));
