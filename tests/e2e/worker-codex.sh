#!/usr/bin/env bash
# End to end for svc-explainer's Codex worker (svc-explainer/worker_codex.c)
# through tests/worker-drive: worker_codex -> the real `codex app-server`
# 0.171.0 (tests/codex) -> a mock Responses API on 127.0.0.1; the worker's
# tool (echo, in the worker's own namespace) is answered by worker-drive's
# callback, with no broker and no bridge.  Checks: the turn completes, the
# brief reached the model, the model got the tool's output (and its PNG as
# an input_image), and no process of the worker's group is left; a cancel
# while the model stalls ends the turn interrupted, again with nothing
# left (how long the stop took is printed, not asserted: shared machines
# are noisy; the code bounds it by the 1 s interrupt grace and a kill),
# and no process of the worker's group has the Gemini key that the
# driver's environment holds; a killed driver leaves nothing either.
# Usage: worker-codex.sh BUILD (needs `npm ci` in tests/codex).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/worker-lib.sh"
. "$(dirname "$0")/codex-lib.sh"
require codex

ns=hbcode_explainer # WORKER_NAMESPACE (svc-explainer/worker.h)
cat >"$tmp/tools.json" <<EOF
[{"type":"namespace","name":"$ns","description":"The explainer worker's tools.",
  "tools":[{"type":"function","name":"echo","description":"Echo the arguments back.",
    "inputSchema":{"type":"object","properties":{"word":{"type":"string"}},"required":["word"],
      "additionalProperties":false}}]}]
EOF
brief="Make a short explainer about marmalade; call echo with the word first."

# A scenario's mock: $1 name, $2 mock scenario (tool|hang).  Sets port.
start_mock() {
	local dir=$tmp/$1
	mkdir -p "$dir/codex-home" "$dir/home" "$dir/work"
	MOCK_SCRIPT_JSON="{\"scenario\":\"$2\",\"tool\":{\"namespace\":\"$ns\",\"name\":\"echo\",\"arguments\":{\"word\":\"marmalade-42\"},\"callId\":\"call_echo\"},\"finalText\":\"Done. The tool said: {{output}}\",\"deltaChunks\":0}" \
		node "$rig/mock-responses.mjs" --port 0 --log "$dir/mock.jsonl" --quiet \
		>"$dir/mock.out" 2>"$dir/mock.err" &
	mock=$!
	for _ in $(seq 100); do [ -s "$dir/mock.out" ] && break; sleep 0.05; done
	port=$(sed -n 's/^PORT //p' "$dir/mock.out" | head -1)
	sed "s/@PORT@/$port/g" "$rig/config.toml.in" >"$dir/codex-home/config.toml"
}
stop_mock() { kill "$mock" 2>/dev/null; wait "$mock" 2>/dev/null; mock=; }

# worker-drive for scenario $1 in the background (pid in drive), with the
# environment a session's user would give it and nothing that could reach
# beyond the mock; $2... more options of worker-drive.  The Gemini key is
# in its environment, for worker-drive to keep from codex.
start_drive() {
	local dir=$tmp/$1
	shift
	env -i PATH="$rig/node_modules/.bin:$PATH" HOME="$dir/home" CODEX_HOME="$dir/codex-home" \
		MOCK_API_KEY=mock-key-not-a-secret RUST_LOG=warn GEMINI_API_KEY="$gemini_key" \
		NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost OTEL_SDK_DISABLED=true \
		${LSAN_OPTIONS:+LSAN_OPTIONS="$LSAN_OPTIONS"} ${ASAN_OPTIONS:+ASAN_OPTIONS="$ASAN_OPTIONS"} \
		${HB_WORKER_CANCEL_GRACE_MS:+HB_WORKER_CANCEL_GRACE_MS=$HB_WORKER_CANCEL_GRACE_MS} \
		"$build/tests/worker-drive" --agent codex --codex codex --cwd "$dir/work" --tools "$tmp/tools.json" \
		--brief "$brief" --timeout-ms 60000 "$@" >"$dir/summary.json" 2>"$dir/drive.err" &
	drive=$!
	desktop=$drive # lib.sh stops it if we exit early
}

# The first request's body, and each image of the tool output the model
# received as a line "input_image <mime> png-bytes" (its text:
# codex-lib.sh's tool_output).
first_body() { js_args 'const l=require("fs").readFileSync(argv[0],"utf8").split("\n").filter(Boolean); print(JSON.stringify(JSON.parse(l[0]).body))' "$1"; }
tool_images() {
	js_args '
		for (const l of require("fs").readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l);
			for (const c of r.toolOutput && Array.isArray(r.toolOutput.raw) ? r.toolOutput.raw : []) {
				if (c.type !== "input_image") continue;
				const m = /^data:([^;]+);base64,(.*)$/.exec(c.image_url || "");
				const png = m && Buffer.from(m[2], "base64").subarray(0, 8)
					.equals(Buffer.from("89504e470d0a1a0a", "hex"));
				print(c.type, m ? m[1] : "no-data-url", png ? "png-bytes" : "other-bytes");
			}
		}' "$1" | sort -u
}

# The whole turn: the model calls echo, then answers with a text.
start_mock done tool
start_drive done --png "$png"
wait "$drive"
echo $? >"$tmp/done/rc"
desktop=
stop_mock
d=$tmp/done
check "done: worker-drive ran the turn" '[ "$(cat $d/rc)" = 0 ]'
check "done: the turn completed" '[ "$(field $d/summary.json status)" = completed ]'
check "done: the worker answered its one tool call" '[ "$(field $d/summary.json toolCalls)" = 1 ]'
check "done: the brief reached the model" 'first_body $d/mock.jsonl | grep -qF "$brief"'
check "done: the model got echo's output" 'tool_output $d/mock.jsonl | grep -qF "{\"word\":\"marmalade-42\"}"'
check "done: the model got the PNG as an input_image" \
	'[ "$(tool_images $d/mock.jsonl)" = "input_image image/png png-bytes" ]'
check "done: nothing of the worker is left" 'no_worker_left $d/summary.json'

# The cancel: the model stalls after the tool's output; once the mock
# shows it, the group's environments are read and SIGUSR1 cancels.
start_mock cancel hang
# The interrupt must end the turn, however slow the machine: the grace
# before the group is killed (200 ms) is made long here.
HB_WORKER_CANCEL_GRACE_MS=30000 start_drive cancel
d=$tmp/cancel
wait_for 60 'grep -q "\"kind\":\"hang\"" $d/mock.jsonl 2>/dev/null'
want_pgid=$(ps -o pid= --ppid "$drive" | tr -d ' ')
check "cancel: the driver holds the Gemini key" 'has_key "$drive"'
check "cancel: no process of the worker's group has it" 'group_without_key'
sent=$(date +%s%N)
kill -USR1 "$drive"
wait "$drive"
echo $? >"$d/rc"
desktop=
took_ms=$((($(date +%s%N) - sent) / 1000000))
stop_mock
check "cancel: worker-drive ended by the cancel" '[ "$(cat $d/rc)" = 0 ] && [ "$(field $d/summary.json end)" = cancelled ]'
check "cancel: the turn ended interrupted" '[ "$(field $d/summary.json status)" = interrupted ]'
echo "info cancel: the worker stopped $took_ms ms after the cancel"
check "cancel: nothing of the worker is left" 'no_worker_left $d/summary.json'

# The service killed outright (no stop): the parent-death signal ends
# codex, and so does the end of its input.  (This does not tell the two
# apart.)  The group is codex's pid, read while it runs: the summary is
# never written.
start_mock orphan hang
start_drive orphan
d=$tmp/orphan
wait_for 60 'grep -q "\"kind\":\"hang\"" $d/mock.jsonl 2>/dev/null'
want_pgid=$(ps -o pid= --ppid "$drive" | tr -d ' ')
check "orphan: codex was the worker's child, leading its group" '[ -n "$want_pgid" ] && group_alive'
{ kill -KILL "$drive"; wait "$drive"; } 2>/dev/null # no "Killed" report from bash
desktop=
check "orphan: a killed service leaves nothing of its worker" 'wait_for 10 "! group_alive"'
stop_mock

check "no sanitizer report from the worker" \
	'! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/*/drive.err'

if [ $fail -ne 0 ]; then
	for s in done cancel; do echo "--- $s"; cat "$tmp/$s/summary.json" "$tmp/$s/drive.err" 2>/dev/null | tail -30; done
fi
exit $fail
