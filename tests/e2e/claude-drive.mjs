// claude-drive.mjs - plays the desktop against hb-claude-bridge: waits for
// the bridge's "opened" event, sends one prompt, answers approval cards
// through `hbctl approve|decline` as the scenario says, and prints a JSON
// summary when the run is idle.  Node stdlib only.
//
//   node claude-drive.mjs --hbctl PATH [--prompt TEXT] [--approve | --decline MSG]
//        [--timeout S] [--transcript FILE] [--stay-until FILE] [--send-after MS]
//        [--interrupt-when FILE]
//        -- hb-claude-bridge ARGS... -- node host.mjs
//
// Without --prompt the desktop sends nothing (a run opened only to receive
// messages from other sessions; use it with --stay-until).
// --send-after MS: send the prompt MS after "opened", as the desktop does
// once it has recorded the operation (page 003), not at once.
// --transcript FILE: every line from the bridge as {t (ms since 1970), line}
// --interrupt-when FILE: interrupt the turn once FILE exists.
// --stay-until FILE: do not end at the first idle; end once FILE exists
// (the run stays open for what else reaches it, e.g. session messages).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import readline from "node:readline";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const opts = {};
for (let i = 0; i < sep; i++) {
  const k = argv[i].replace(/^--/, "");
  if (k === "approve") opts.approve = true;
  else opts[k] = argv[++i];
}
const cmd = argv.slice(sep + 1);
const summary = { opened: null, events: [], approvals: [], finalText: null, errors: [] };
const child = spawn(cmd[0], cmd.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const send = (o) => child.stdin.write(JSON.stringify(o) + "\n");
const timer = setTimeout(() => { summary.errors.push("timeout"); finish(3); }, 1000 * (Number(opts.timeout) || 60));
let done = false;
const transcript = opts.transcript ? fs.openSync(opts.transcript, "w") : null;
const stay = opts["stay-until"] ? setInterval(() => { if (fs.existsSync(opts["stay-until"])) finish(0); }, 100) : null;
const interruptWhen = opts["interrupt-when"] ? setInterval(() => {
  if (!fs.existsSync(opts["interrupt-when"])) return;
  clearInterval(interruptWhen);
  send({ id: "int-1", method: "interrupt" });
}, 100) : null;

function finish(code) {
  if (done) return;
  done = true;
  clearTimeout(timer);
  clearInterval(poll);
  if (stay) clearInterval(stay);
  if (interruptWhen) clearInterval(interruptWhen);
  send({ id: "close-1", method: "close" });
  child.stdin.end();
  child.on("exit", (status) => {
    summary.bridgeExit = status;
    console.log(JSON.stringify(summary));
    process.exit(code);
  });
}

// Approval cards live in the broker: look for one and answer it.
const poll = setInterval(() => {
  if (!opts.approve && opts.decline === undefined) return;
  const r = spawnSync(opts.hbctl, ["approvals", "--json"], { encoding: "utf8" });
  let card;
  try {
    card = JSON.parse(r.stdout || "[]")[0];
  } catch {
    return;
  }
  if (!card) return;
  summary.approvals.push({ id: card.id, tool: card.tool, kind: card.kind, command: card.command, cwd: card.cwd,
                           subagent: card.subagent });
  const args = opts.approve ? ["approve", card.id] : ["decline", card.id, "--message", opts.decline];
  spawnSync(opts.hbctl, args, { encoding: "utf8" });
  // Then, for the slow-call scenarios: interrupt the turn, or stop the run.
  if (opts["interrupt-after"])
    setTimeout(() => send({ id: "int-1", method: "interrupt" }), Number(opts["interrupt-after"]));
  if (opts["stop-run-after"])
    setTimeout(() => spawnSync(opts.hbctl, ["run", "stop", opts.run], { encoding: "utf8" }),
               Number(opts["stop-run-after"]));
}, 100);

readline.createInterface({ input: child.stdout }).on("line", (line) => {
  if (transcript !== null) fs.writeSync(transcript, JSON.stringify({ t: Date.now(), line }) + "\n");
  let m;
  try { m = JSON.parse(line); } catch { summary.errors.push("not JSON: " + line); return; }
  if (m.event === "opened") {
    summary.opened = m.result;
    summary.openedAt = Date.now();
    if (opts.prompt === undefined) return;
    setTimeout(() => send({ id: 1, method: "send", params: { text: opts.prompt } }),
               Number(opts["send-after"]) || 0);
    return;
  }
  if (m.event === "message") {
    const msg = m.message;
    summary.events.push(msg.type + (msg.subtype ? "/" + msg.subtype : "") + (msg.state ? ":" + msg.state : ""));
    if (msg.type === "assistant")
      for (const c of msg.message?.content || []) if (c.type === "text") summary.finalText = c.text;
    if (msg.type === "system" && msg.subtype === "session_state_changed" && msg.state === "idle" && summary.sent &&
        !stay)
      finish(0);
    return;
  }
  if (m.id === 1) { summary.sent = !m.error; if (m.error) { summary.errors.push(m.error); finish(1); } return; }
  if (m.event) summary.events.push("event:" + m.event);
  if (m.event === "failed") { summary.errors.push(m.error); finish(1); }
  if (m.event === "toolCall" || m.event === "permission" || m.event === "toolCancel")
    summary.errors.push("the bridge let " + m.event + " through");
});
child.on("exit", (status) => { if (!done) { summary.bridgeExit = status; summary.errors.push("bridge exited"); done = true; console.log(JSON.stringify(summary)); process.exit(1); } });
