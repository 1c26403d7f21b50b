// evaluator.mjs - one Node for an end-to-end script's JavaScript, instead
// of one per question.  The scripts ask hundreds of small questions of
// JSON (`events` in a wait_for poll, a field of `hbctl ... --json`), and a
// Node started for each took 85 ms of CPU: about 90 CPU-s of a CI run on
// 2 CPUs (docs/benchmarks.md).  lib.sh starts this once per script; its
// `evaluate` reaches it over bash's /dev/tcp on 127.0.0.1.
//
// Usage: node evaluator.mjs ADDR_FILE
//   Listens on 127.0.0.1 (a port the kernel picks) and writes "PORT TOKEN"
//   to ADDR_FILE (in the script's private folder): a request without the
//   token is closed unanswered, so another user of the machine cannot have
//   it run code.  Ends when the script that started it has ended.
//
// A request: NUL-terminated fields, TOKEN, N, then N fields: the name of
// what to do and its arguments.  The answer: its exit status on a line,
// what it printed, a NUL, and its error if it failed.  What to do:
//   events FILE COND          how many lines of FILE (JSON lines) hold for
//                             the expression COND on e (require at hand)
//   timeline_completed FILE SESSION COND
//                             how many timeline rows of SESSION came first
//                             as a call and then completed, matching COND on r
//   js CODE INPUT ARG...      CODE as a function body, with argv (the
//                             ARGs), input (INPUT, often JSON), print
//                             (console.log's) and exit(status); a throw
//                             is status 1 with its message
import fs from "node:fs";
import net from "node:net";
import crypto from "node:crypto";
import util from "node:util";
import { createRequire } from "node:module";

const [addrFile] = process.argv.slice(2);
const token = crypto.randomBytes(16).toString("hex");
const require = createRequire(import.meta.url);

// A file's JSON lines, parsed once: what was read of it, and where.  A
// file that shrank (rewritten) is read again from the start; a last line
// without its newline waits for it.
const files = new Map();
function jsonLines(path) {
	let f = files.get(path);
	const size = fs.statSync(path).size;
	if (!f || size < f.offset) f = { offset: 0, lines: [] };
	if (size > f.offset) {
		const fd = fs.openSync(path, "r");
		try {
			const buf = Buffer.alloc(size - f.offset);
			const got = fs.readSync(fd, buf, 0, buf.length, f.offset);
			const end = buf.lastIndexOf(10, got - 1);
			if (end >= 0) {
				for (const l of buf.subarray(0, end).toString("utf8").split("\n")) {
					try { f.lines.push(JSON.parse(l)); } catch { /* not JSON: not an event */ }
				}
				f.offset += end + 1;
			}
		} finally {
			fs.closeSync(fd);
		}
	}
	files.set(path, f);
	return f.lines;
}

class Exit { constructor(status) { this.status = status; } }

const verbs = {
	events(file, cond) {
		const holds = new Function("e", "require", `return (${cond}\n);`);
		let n = 0;
		for (const e of jsonLines(file)) if (holds(e, require)) n++;
		return `${n}\n`;
	},
	timeline_completed(file, session, cond) {
		const holds = new Function("r", "require", `return (${cond}\n);`);
		const calls = new Set();
		let n = 0;
		for (const e of jsonLines(file)) {
			if (e.event !== "timeline.row" || e.session !== session) continue;
			if (e.row.status === "call") calls.add(e.row.id);
			else if (calls.has(e.row.id) && holds(e.row, require)) n++;
		}
		return `${n}\n`;
	},
	js(code, input, ...argv) {
		let out = "";
		const print = (...a) => { out += util.format(...a) + "\n"; };
		const exit = (status) => { throw new Exit(status ?? 0); };
		try {
			new Function("argv", "input", "print", "exit", "require", code)(argv, input, print, exit, require);
		} catch (err) {
			if (err instanceof Exit) return [err.status, out];
			err.out = out;
			throw err;
		}
		return out;
	},
};

// [status, what it printed, its error]
function answer(fields) {
	const [what, ...args] = fields;
	if (!Object.hasOwn(verbs, what)) return [2, "", `evaluator: no such question "${what}"\n`];
	try {
		const r = verbs[what](...args);
		return Array.isArray(r) ? [...r, ""] : [0, r, ""];
	} catch (err) {
		return [1, (err && err.out) || "", `evaluator: ${what}: ${err && err.message}\n`];
	}
}

const server = net.createServer((sock) => {
	let buf = Buffer.alloc(0);
	sock.on("data", (d) => {
		buf = Buffer.concat([buf, d]);
		const fields = [];
		let at = 0, nul;
		while ((nul = buf.indexOf(0, at)) >= 0) {
			fields.push(buf.subarray(at, nul).toString("utf8"));
			at = nul + 1;
		}
		if (fields.length >= 1 && fields[0] !== token) return sock.destroy();
		if (fields.length < 2 || fields.length < 2 + Number(fields[1])) return;
		const [status, out, err] = answer(fields.slice(2, 2 + Number(fields[1])));
		sock.end(`${status}\n${out}\0${err}`);
	});
	sock.on("error", () => {});
});
server.listen(0, "127.0.0.1", () => {
	fs.writeFileSync(addrFile + ".new", `${server.address().port} ${token}\n`, { mode: 0o600 });
	fs.renameSync(addrFile + ".new", addrFile);
});
// The script that started it: once it has ended (this process is another's
// child then), nobody asks any more.
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 1000).unref();
server.on("close", () => process.exit(0));
