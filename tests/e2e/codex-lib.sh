# codex-lib.sh - what the end-to-end scripts that run the real codex
# (codex.sh, worker-codex.sh, mcp-codex.sh, and those of Codex session
# messages: messages-codex.sh, launch-codex.sh) read back from it and its
# mock: sourced after lib.sh.

# What the model received as the tool's output, from the mock log FILE
# (mock-responses.mjs --log): the first one's text.
tool_output() {
	js_args '
		for (const l of require("fs").readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l);
			if (r.toolOutput) { print(r.toolOutput.text); exit(0); }
		}' "$1"
}

# "TURNS MAX" from a mock log for the envelope in file $2: TURNS = requests
# whose newest input item is a user message that is exactly the envelope
# (a turn started or steered with it), MAX = the most user messages equal
# to it in one request (the thread's history): "1 1" is exactly once.
envelope_count() {
	js_args '
		const fs = require("fs");
		const want = fs.readFileSync(argv[1], "utf8");
		let turns = 0, max = 0, log = "";
		try { log = fs.readFileSync(argv[0], "utf8"); } catch {}
		const text = (i) => i && i.type === "message" && i.role === "user" && Array.isArray(i.content) ?
			i.content.map((c) => c.text).join("") : null;
		for (const l of log.split("\n")) {
			if (!l) continue;
			const input = (JSON.parse(l).body || {}).input || [];
			max = Math.max(max, input.filter((i) => text(i) === want).length);
			if (text(input[input.length - 1]) === want) turns++;
		}
		print(turns + " " + max);' "$1" "$2"
}

# How many user messages with client id $2 the thread/resume answer in
# transcript $1 holds (the thread's history as codex saved it).
client_id_count() {
	js_args '
		const fs = require("fs");
		let n = 0;
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const t = ((JSON.parse(l).msg || {}).result || {}).thread;
			for (const turn of (t && t.turns) || [])
				for (const i of turn.items || []) if (i.type === "userMessage" && i.clientId === argv[1]) n++;
		}
		print(n);' "$1" "$2"
}

# launches: the runs the broker's launcher has going, as hbctl status
# --json lists them ("[]": none).
launches() { "$build/hbctl" status --json | js 'const s = input; print(JSON.stringify(JSON.parse(s).launches))'; }
