#!/usr/bin/env node
// fake-bridge.mjs: a stand-in for hb-codex-bridge, used to check drive.mjs's
// bridge mode (and as a reference of what the bridge does on the pipe).
//
//   node fake-bridge.mjs -- COMMAND ARGS...
//
// Spawns COMMAND, passes every line between our stdio and its stdio, except
// the `item/tool/call` requests from COMMAND: those it answers itself with
// {contentItems:[{type:"inputText", text: $FAKE_BRIDGE_TEXT}], success:true}
// and never forwards. Node stdlib only.
import { spawn } from "node:child_process";
import readline from "node:readline";

const dd = process.argv.indexOf("--");
const cmd = dd >= 0 ? process.argv.slice(dd + 1) : [];
if (cmd.length === 0) {
  process.stderr.write("usage: node fake-bridge.mjs -- COMMAND ARGS...\n");
  process.exit(2);
}
const text = process.env.FAKE_BRIDGE_TEXT ?? "fake-bridge answer";
const child = spawn(cmd[0], cmd.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
child.on("exit", (code, sig) => process.exit(code ?? (sig ? 128 : 1)));
child.on("error", (e) => {
  process.stderr.write(`fake-bridge: ${e.message}\n`);
  process.exit(127);
});

// agent -> client (our stdout), intercepting tool calls
readline.createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => {
  let msg = null;
  try {
    msg = JSON.parse(line);
  } catch {
    /* pass through */
  }
  if (msg && msg.method === "item/tool/call" && msg.id !== undefined) {
    process.stderr.write(`fake-bridge: answering ${msg.params?.namespace}/${msg.params?.tool} ${msg.params?.callId}\n`);
    child.stdin.write(JSON.stringify({ id: msg.id, result: { contentItems: [{ type: "inputText", text }], success: true } }) + "\n");
    return;
  }
  process.stdout.write(line + "\n");
});
// client -> agent
readline.createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line) => child.stdin.write(line + "\n"));
process.stdin.on("end", () => child.stdin.end());
for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, () => child.kill(s));
