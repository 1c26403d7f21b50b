// claude-turn.mjs - one turn of a new Claude conversation through the agent
// host directly (no bridge, no broker), so that the real SDK saves a
// transcript for a test of the reads (hbctl-claude.sh).  Every hbcode tool
// call is answered with the text of --tool-output.  Node stdlib only.
//
//   node claude-turn.mjs --session UUID --cwd DIR --message-id UUID --text TEXT
//        [--tool-output TEXT] -- node host.mjs
//
// Exits 0 once the turn is idle and the host has closed; prints nothing.
import { spawn } from "node:child_process";
import readline from "node:readline";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const opts = {};
for (let i = 0; i < sep; i++) opts[argv[i].replace(/^--/, "")] = argv[++i];
const cmd = argv.slice(sep + 1);
const child = spawn(cmd[0], cmd.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const send = (o) => child.stdin.write(JSON.stringify(o) + "\n");
const fail = (why) => { console.error(`claude-turn: ${why}`); child.kill("SIGKILL"); process.exit(1); };
setTimeout(() => fail("no idle within 60 s"), 60_000).unref();

readline.createInterface({ input: child.stdout }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === 1 && m.error) fail(`open: ${m.error.message}`);
  if (m.id === 1) send({ id: 2, method: "send", params: { text: opts.text, messageId: opts["message-id"] } });
  if (m.id === 2 && m.error) fail(`send: ${m.error.message}`);
  if (m.event === "toolCall") {
    send({ id: `t-${m.requestId}`, method: "toolResult",
           params: { requestId: m.requestId, content: [{ type: "text", text: opts["tool-output"] ?? "" }], isError: false } });
  }
  if (m.event === "message" && m.message?.subtype === "session_state_changed" && m.message.state === "idle") {
    send({ id: 3, method: "close" });
    child.stdin.end();
  }
});
child.on("exit", (code) => process.exit(code === 0 ? 0 : 1));
send({ id: 1, method: "open", params: {
  sessionId: opts.session, cwd: opts.cwd, permissionMode: "default",
  allowedTools: ["mcp__hbcode__maintain_sessions"],
  appCapabilities: [{ name: "maintain_sessions", description: "Read-only view of HB Code sessions.",
                      inputSchema: { type: "object", properties: { action: { type: "string" } }, required: ["action"] },
                      approval: "read-only" }],
} });
