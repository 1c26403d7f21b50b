#!/usr/bin/env bash
# End to end with the real Codex: drive.mjs (the desktop's JSON-RPC side)
# -> hb-codex-bridge -> the real `codex app-server` 0.171.0 (tests/codex)
# -> a mock Responses API on 127.0.0.1; tool calls go bridge -> hb-broker
# -> svc-sessions -> back.  Checks: the turn completes, the model's next
# request carries the tool's output text, and a thread with no link gets
# the exact tool error; the turn's rows of the shared timeline come out as
# timeline.row events of the session (the user's message, the hbcode tool
# row completed in place with its output, the reply; an interrupted
# turn's marker) and none for the unlinked thread; a tool's image reaches
# the model as an input_image of the function_call_output, and the service saw the thread's model (a
# turn/start's, once it names one).
# Usage: codex.sh BUILD (needs `npm ci` in tests/codex).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/codex-lib.sh"
require codex
{ sessions_conf; slow_tool_conf; } | start_broker
session=$("$build/hbctl" call manage_sessions \
	'{"action":"create","title":"E2E","agent":"codex","projectPath":"/tmp"}' |
	js 'const s = input; print(JSON.parse(s).id)')
check "a session to link the thread to" '[ -n "$session" ]'
watch_events # timeline.row among them

# One scenario: $1 name, $2 bridge args ("" or "--session ID"), $3 the
# tool call as mock script JSON, then drive.mjs options.
run() {
	local name=$1 bridge_args=$2 tool=$3 dir=$tmp/$1
	shift 3
	mkdir -p "$dir"
	local script="{\"scenario\":\"tool\",\"tool\":$tool,\"finalText\":\"Done. The tool said: {{output}}\",\"deltaChunks\":0}"
	MOCK_SCRIPT_JSON=$script node "$rig/mock-responses.mjs" --port 0 --log "$dir/mock.jsonl" --quiet \
		>"$dir/mock.out" 2>"$dir/mock.err" &
	mock=$!
	for _ in $(seq 100); do [ -s "$dir/mock.out" ] && break; sleep 0.05; done
	local port
	port=$(sed -n 's/^PORT //p' "$dir/mock.out" | head -1)
	# shellcheck disable=SC2086
	timeout 90 node "$rig/drive.mjs" --mock-port "$port" --mode bridge --timeout 60 \
		--work-dir "$dir/work" --quiet --env "HB_HOME=$HB_HOME" "$@" \
		-- "$build/hb-codex-bridge" $bridge_args -- codex app-server \
		>"$dir/summary.json" 2>"$dir/drive.err"
	echo $? >"$dir/rc"
	kill "$mock" 2>/dev/null; wait "$mock" 2>/dev/null
	mock=
}

# The images of the tool output the model received, a line each: the
# item's type, the data URL's media type, and whether its bytes are a PNG.
tool_images() {
	js_args '
		const fs = require("fs");
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l), raw = r.toolOutput && r.toolOutput.raw;
			for (const c of Array.isArray(raw) ? raw : []) {
				if (!c || c.type === "input_text") continue;
				const m = /^data:([^;]+);base64,(.*)$/.exec(c.image_url || "");
				const png = m && Buffer.from(m[2], "base64").subarray(0, 8).equals(Buffer.from("89504e470d0a1a0a", "hex"));
				print(c.type, m ? m[1] : "no-data-url", png ? "png-bytes" : "other-bytes");
			}
		}' "$1"
}
field() { json_field "$2" <"$1"; }

guide='{"namespace":"hbcode","name":"maintain_sessions","arguments":{"action":"guide","sessionId":"s-from-old-thread"},"callId":"call_guide"}'
run linked "--session $session" "$guide"
d=$tmp/linked
check "linked: drive.mjs ran the turn" '[ "$(cat $d/rc)" = 0 ]'
check "linked: the turn completed" '[ "$(field $d/summary.json turnStatus)" = completed ]'
check "linked: the model got the tool output (maintain_sessions guide)" \
	'tool_output $d/mock.jsonl | grep -q "read-only view of the HB Code sessions"'
check "linked: the caller never saw item/tool/call" \
	'[ "$(field $d/summary.json toolCalls.0.requestSeen)" != true ]'
# The bridge publishes the rows once per wake-up: the last may come just
# after drive.mjs has its answer.
tl_user() { [ "$(timeline_rows "$session" "r.kind === 'user' && r.agent === 'codex' && r.depth === 0 && r.text.length > 0")" -ge 1 ]; }
tl_tool() { [ "$(timeline_completed "$session" "r.kind === 'tool' && r.label === 'hbcode: maintain_sessions' && r.status === 'output' && r.output.includes('read-only view of the HB Code sessions')")" -ge 1 ]; }
tl_reply() { [ "$(timeline_rows "$session" "r.kind === 'assistant' && r.text.startsWith('Done. The tool said: ')")" -ge 1 ]; }
tl_aborted() { [ "$(timeline_rows "$session" "r.kind === 'turn_aborted' && r.id.endsWith('#aborted')")" -ge 1 ]; }
check "linked timeline: the user's message row" 'wait_for 20 tl_user'
check "linked timeline: the hbcode tool row, completed in place with its output" 'wait_for 20 tl_tool'
check "linked timeline: the reply's assistant row" 'wait_for 20 tl_reply'

run unlinked "" "$guide"
d=$tmp/unlinked
check "unlinked: the turn completed" '[ "$(field $d/summary.json turnStatus)" = completed ]'
check "unlinked: the exact tool error reached the model" \
	'[ "$(tool_output $d/mock.jsonl)" = "is not linked to a HB Code session yet. Try the call again." ]'

# turn/interrupt during a slow call: the stand-in sleeps 30 s unless its
# handler sees the cancel the bridge sends for the interrupted turn.
run interrupt "--session $session" \
	'{"namespace":"hbcode","name":"use_user_browser","arguments":{"action":"open"},"callId":"call_slow"}' \
	--interrupt-on turn-started --interrupt-delay 1500 --expect-status interrupted
d=$tmp/interrupt
check "interrupt: the turn ended interrupted" '[ "$(field $d/summary.json turnStatus)" = interrupted ]'
check "interrupt: the slow call stopped in its service" slots_free_soon
check "interrupt timeline: the turn's aborted marker" 'wait_for 20 tl_aborted'
check "unlinked timeline: no row of any other session (the unlinked bridge publishes none)" \
	'[ "$(events "e.event === \"timeline.row\" && e.session !== \"$session\"")" = 0 ]'

# The stand-in's screenshot: a PNG beside its text, which names the model
# the service saw (the thread's, from codex's own thread/start answer).
run screenshot "--session $session" \
	'{"namespace":"hbcode","name":"use_user_browser","arguments":{"action":"screenshot"},"callId":"call_shot"}'
d=$tmp/screenshot
check "screenshot: the turn completed" '[ "$(field $d/summary.json turnStatus)" = completed ]'
check "screenshot: the service saw the thread's model (mock-model)" \
	'[ "$(tool_output $d/mock.jsonl)" = "the stand-in'"'"'s screenshot, taken for model \"mock-model\"" ]'
check "screenshot: the model got the PNG as an input_image of the tool output" \
	'[ "$(tool_images $d/mock.jsonl)" = "input_image image/png png-bytes" ]'
# A turn/start that names another model: the service sees that one, as
# the Responses API does.
run turn-model "--session $session" \
	'{"namespace":"hbcode","name":"use_user_browser","arguments":{"action":"screenshot"},"callId":"call_shot2"}' \
	--turn-model mock-model-of-the-turn
d=$tmp/turn-model
check "turn-model: the turn completed" '[ "$(field $d/summary.json turnStatus)" = completed ]'
check "turn-model: codex asked the Responses API with the turn's model" \
	'grep -q "\"model\":\"mock-model-of-the-turn\"" $d/mock.jsonl'
check "turn-model: the service saw the turn's model" \
	'[ "$(tool_output $d/mock.jsonl)" = "the stand-in'"'"'s screenshot, taken for model \"mock-model-of-the-turn\"" ]'

check "no sanitizer report from the bridge, the broker or the service" \
	'! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/*/drive.err $tmp/broker.log'

if [ $fail -ne 0 ]; then
	for s in linked unlinked interrupt screenshot turn-model; do echo "--- $s"; cat "$tmp/$s/drive.err" "$tmp/$s/summary.json" 2>/dev/null | tail -20; done
	tail -20 "$tmp/broker.log"
fi
exit $fail
