// stuck-host.mjs - a misbehaving agent host, to test hb-claude-bridge's own
// limits (the real host never does this): it answers `open`, then answers
// nothing else, ignores close and the end of its stdin, and starts a child
// in its own process group that would outlive it.  It writes the child's
// pid to the file given as its argument.  Node stdlib only.
import { spawn } from "node:child_process";
import fs from "node:fs";
import readline from "node:readline";

const child = spawn("sleep", ["600"], { stdio: "ignore" });
fs.writeFileSync(process.argv[2], `${process.pid} ${child.pid}\n`);
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "open")
    process.stdout.write(JSON.stringify({ id: m.id, result: { sessionId: m.params.sessionId, resumed: false, inheritedMarkers: [] } }) + "\n");
});
process.stdin.on("end", () => {}); // stays
setInterval(() => {}, 1000);
