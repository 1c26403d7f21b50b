#!/usr/bin/env bash
# End to end for svc-explainer's Claude worker (svc-explainer/worker_claude.c)
# through tests/worker-drive: worker_claude -> the reference agent host
# (agent-host: the real Claude Agent SDK 0.3.332 and its Claude
# Code) -> a mock Messages API on 127.0.0.1; the worker's tool (echo) is
# answered by worker-drive's callback, with no broker and no bridge.
# Checks: the turn completes with the run's model, the brief reached the
# model, the model got the tool's output and its PNG as an image block,
# and no process of the worker's group is left; a tool of Claude Code's
# own (Bash) is refused without running; a cancel while the model stalls
# ends the turn interrupted (how long the stop took is printed, not
# asserted), with nothing left, and no process of the worker's group has
# the Gemini key that the driver's environment holds; a killed driver
# leaves nothing either.  Usage: worker-claude.sh BUILD (needs `npm ci`
# in agent-host).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/agent-host
hosts=$(cd "$here/../agent-host" && pwd)   # the agent host, a product part
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/worker-lib.sh"
require claude
unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy

cat >"$tmp/tools.json" <<'EOF'
[{"name":"echo","description":"Echo the arguments back.",
  "inputSchema":{"type":"object","properties":{"word":{"type":"string"}},"required":["word"],
    "additionalProperties":false},
  "approval":"read-only"}]
EOF
brief="Make a short explainer about marmalade; call echo with the word first."

# A scenario's mock: $1 name, $2 its script (JSON steps).  Sets port.
start_mock() {
	local dir=$tmp/$1
	mkdir -p "$dir/home/.claude" "$dir/work"
	printf '%s\n' "$2" >"$dir/script.json"
	node "$rig/mock-messages.mjs" --log "$dir/mock.jsonl" --script "$dir/script.json" \
		>"$dir/mock.out" 2>"$dir/mock.err" &
	mock=$!
	for _ in $(seq 100); do [ -s "$dir/mock.out" ] && break; sleep 0.05; done
	port=$(sed -n 's/^PORT //p' "$dir/mock.out" | head -1)
}
stop_mock() { kill "$mock" 2>/dev/null; wait "$mock" 2>/dev/null; mock=; }

# worker-drive for scenario $1 in the background (pid in drive), with a
# fresh Claude home and the switches that keep Claude Code on the mock;
# $2... more options of worker-drive.  The Gemini key is in its
# environment, for worker-drive to keep from the host.
start_drive() {
	local dir=$tmp/$1
	shift
	env -i PATH="$PATH" HOME="$dir/home" CLAUDE_CONFIG_DIR="$dir/home/.claude" \
		ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=test DISABLE_TELEMETRY=1 \
		DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
		GEMINI_API_KEY="$gemini_key" \
		${LSAN_OPTIONS:+LSAN_OPTIONS="$LSAN_OPTIONS"} ${ASAN_OPTIONS:+ASAN_OPTIONS="$ASAN_OPTIONS"} \
		${HB_WORKER_CANCEL_GRACE_MS:+HB_WORKER_CANCEL_GRACE_MS=$HB_WORKER_CANCEL_GRACE_MS} \
		"$build/tests/worker-drive" --agent claude --cwd "$dir/work" --tools "$tmp/tools.json" \
		--brief "$brief" --timeout-ms 60000 "$@" -- node "$hosts/host.mjs" \
		>"$dir/summary.json" 2>"$dir/drive.err" &
	drive=$!
	desktop=$drive # lib.sh stops it if we exit early
}

# The tool results the model received (a JSON line each), and the images
# among them: a line each with the block's type, its source's type and
# media type, and whether its bytes are a PNG.
tool_results() {
	js_args '
		for (const l of require("fs").readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l);
			for (const m of (r.body && r.body.messages) || [])
				for (const c of Array.isArray(m.content) ? m.content : [])
					if (c.type === "tool_result") print(JSON.stringify(c));
		}' "$1" | sort -u
}
tool_images() {
	js_args '
		for (const l of require("fs").readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l);
			for (const m of (r.body && r.body.messages) || [])
				for (const c of Array.isArray(m.content) ? m.content : [])
					for (const b of c.type === "tool_result" && Array.isArray(c.content) ? c.content : []) {
						if (b.type === "text") continue;
						const s = b.source || {};
						const png = Buffer.from(s.data || "", "base64").subarray(0, 8)
							.equals(Buffer.from("89504e470d0a1a0a", "hex"));
						print(b.type, s.type, s.media_type, png ? "png-bytes" : "other-bytes");
					}
		}' "$1" | sort -u
}
run_drive() {
	start_drive "$@"
	wait "$drive"
	echo $? >"$tmp/$1/rc"
	desktop=
	stop_mock
}

# The whole turn: the model calls echo, then answers with a text.
start_mock done '{"steps":[{"tool":"echo","input":{"word":"marmalade-42"}}]}'
run_drive done --png "$png" --model claude-e2e-worker
d=$tmp/done
check "done: worker-drive ran the turn" '[ "$(cat $d/rc)" = 0 ]'
check "done: the turn completed" '[ "$(field $d/summary.json status)" = completed ]'
check "done: the worker answered its one tool call" '[ "$(field $d/summary.json toolCalls)" = 1 ]'
check "done: the brief reached the model" 'grep -qF "$brief" $d/mock.jsonl'
check "done: Claude Code asked the API with the worker's model" 'grep -q "\"model\":\"claude-e2e-worker\"" $d/mock.jsonl'
check "done: the model got echo's output" \
	'tool_results $d/mock.jsonl | grep -qF "{\\\"word\\\":\\\"marmalade-42\\\"}"'
check "done: the model got the PNG as an image block of the tool result" \
	'[ "$(tool_images $d/mock.jsonl)" = "image base64 image/png png-bytes" ]'
check "done: nothing of the worker is left" 'no_worker_left $d/summary.json'

# Claude Code's own tools are not the worker's: a Bash call is refused
# (dontAsk) and does not run.
start_mock deny "{\"steps\":[{\"tool\":\"Bash\",\"input\":{\"command\":\"touch $tmp/deny/work/ran\",\"description\":\"x\"}}]}"
run_drive deny
d=$tmp/deny
check "deny: the turn completed" '[ "$(cat $d/rc)" = 0 ] && [ "$(field $d/summary.json status)" = completed ]'
check "deny: the model got the refusal as an error" \
	'tool_results $d/mock.jsonl | grep "Permission to use Bash has been denied" | grep -q "\"is_error\":true"'
check "deny: the command did not run" '[ ! -e $d/work/ran ]'
check "deny: no tool call reached the worker" '[ "$(field $d/summary.json toolCalls)" = 0 ]'

# The cancel: the model stalls after the tool's output; once the mock
# shows it, the group's environments are read and SIGUSR1 cancels.
start_mock cancel '{"steps":[{"tool":"echo","input":{"word":"marmalade-42"}},{"hang":true}]}'
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

# The service killed outright (no stop): the parent-death signal ends the
# host, and so does the end of its input; Claude Code goes with it.  The
# group is the host's pid, read while it runs.
start_mock orphan '{"steps":[{"tool":"echo","input":{"word":"marmalade-42"}},{"hang":true}]}'
start_drive orphan
d=$tmp/orphan
wait_for 60 'grep -q "\"kind\":\"hang\"" $d/mock.jsonl 2>/dev/null'
want_pgid=$(ps -o pid= --ppid "$drive" | tr -d ' ')
check "orphan: the host was the worker's child, leading its group" '[ -n "$want_pgid" ] && group_alive'
{ kill -KILL "$drive"; wait "$drive"; } 2>/dev/null # no "Killed" report from bash
desktop=
check "orphan: a killed service leaves nothing of its worker" 'wait_for 10 "! group_alive"'
stop_mock

check "no sanitizer report from the worker" \
	'! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/*/drive.err'

if [ $fail -ne 0 ]; then
	for s in done deny cancel; do echo "--- $s"; cat "$tmp/$s/summary.json" "$tmp/$s/drive.err" 2>/dev/null | tail -30; done
fi
exit $fail
