#!/usr/bin/env bash
# End to end for svc-explainer's Codex worker (svc-explainer/worker_codex.c)
# through tests/worker-drive: worker_codex -> hb-codex-bridge -> the real
# `codex app-server` 0.171.0 (tests/codex) -> a mock Responses API on
# 127.0.0.1; the worker's dynamic tool (svc-echo's echo, in the hbcode
# namespace) goes bridge -> hb-broker -> svc-echo -> back.  Checks: the
# turn completes, the brief reached the model, the model got the tool's
# output, and no process of the worker's group is left; then a cancel
# while the model stalls ends the turn interrupted, again with nothing
# left (how long the stop took is printed, not asserted: shared machines
# are noisy; the code bounds it by the 1 s interrupt grace and a kill).
# Usage: worker-codex.sh BUILD (needs `npm ci` in tests/codex).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
. "$(dirname "$0")/lib.sh"
require codex
{
	sessions_conf
	printf '[service svc-echo]\nexec = %s/tests/svc-echo\ntools = echo\n' "$build"
} | start_broker
session=$("$build/hbctl" call manage_sessions \
	'{"action":"create","title":"Worker","agent":"codex","projectPath":"/tmp"}' | json_field id)
check "a session for the worker" '[ -n "$session" ]'

cat >"$tmp/tools.json" <<'EOF'
[{"type":"namespace","name":"hbcode","description":"The explainer worker's tools.",
  "tools":[{"type":"function","name":"echo","description":"Echo the arguments back.",
    "inputSchema":{"type":"object","properties":{"word":{"type":"string"}},"required":["word"],
      "additionalProperties":false}}]}]
EOF
brief="Make a short explainer about marmalade; call echo with the word first."

# A scenario's mock: $1 name, $2 mock scenario (tool|hang).  Sets port.
start_mock() {
	local dir=$tmp/$1
	mkdir -p "$dir/codex-home" "$dir/home" "$dir/work"
	MOCK_SCRIPT_JSON="{\"scenario\":\"$2\",\"tool\":{\"namespace\":\"hbcode\",\"name\":\"echo\",\"arguments\":{\"word\":\"marmalade-42\"},\"callId\":\"call_echo\"},\"finalText\":\"Done. The tool said: {{output}}\",\"deltaChunks\":0}" \
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
# beyond the mock.
start_drive() {
	local dir=$tmp/$1
	env -i PATH="$rig/node_modules/.bin:$PATH" HOME="$dir/home" CODEX_HOME="$dir/codex-home" \
		HB_HOME="$HB_HOME" MOCK_API_KEY=mock-key-not-a-secret RUST_LOG=warn \
		NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost OTEL_SDK_DISABLED=true \
		${LSAN_OPTIONS:+LSAN_OPTIONS="$LSAN_OPTIONS"} ${ASAN_OPTIONS:+ASAN_OPTIONS="$ASAN_OPTIONS"} \
		"$build/tests/worker-drive" --bridge "$build/hb-codex-bridge" --codex codex \
		--session "$session" --cwd "$dir/work" --tools "$tmp/tools.json" --brief "$brief" \
		--timeout-ms 60000 >"$dir/summary.json" 2>"$dir/drive.err" &
	drive=$!
	desktop=$drive # lib.sh stops it if we exit early
}

field() { json_field "$2" <"$1"; }
# Whether any live process has process group $want_pgid (from /proc: no
# pgrep needed; the fields after the command's closing parenthesis are
# state, parent and group; a zombie is dead, waiting for init to reap it).
group_alive() {
	local f s
	for f in /proc/[0-9]*/stat; do
		s=$(cat "$f" 2>/dev/null) || continue
		s=${s##*) }
		# shellcheck disable=SC2086
		set -- $s
		[ "${3:-}" = "$want_pgid" ] && [ "$1" != Z ] && return 0
	done
	return 1
}
no_worker_left() { want_pgid=$(field "$1" pgid); [ -n "$want_pgid" ] && [ "$want_pgid" != null ] && ! group_alive; }
# The first request's body, and the tool output the model received.
first_body() { node -e 'const l=require("fs").readFileSync(process.argv[1],"utf8").split("\n").filter(Boolean); console.log(JSON.stringify(JSON.parse(l[0]).body))' "$1"; }
tool_output() {
	node -e '
		for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l);
			if (r.toolOutput) { console.log(r.toolOutput.text); process.exit(0); }
		}' "$1"
}

# The whole turn: the model calls echo, then answers with a text.
start_mock done tool
start_drive done
wait "$drive"
echo $? >"$tmp/done/rc"
desktop=
stop_mock
d=$tmp/done
check "done: worker-drive ran the turn" '[ "$(cat $d/rc)" = 0 ]'
check "done: the turn completed" '[ "$(field $d/summary.json status)" = completed ]'
check "done: the worker saw its one tool call pass by" '[ "$(field $d/summary.json toolCalls)" = 1 ]'
check "done: the brief reached the model" 'first_body $d/mock.jsonl | grep -qF "$brief"'
check "done: the model got echo's output" 'tool_output $d/mock.jsonl | grep -qF marmalade-42'
check "done: nothing of the worker is left" 'no_worker_left $d/summary.json'

# The cancel: the model stalls after the tool's output; once the mock
# shows it, SIGUSR1 cancels.
start_mock cancel hang
start_drive cancel
d=$tmp/cancel
wait_for 60 'grep -q "\"kind\":\"hang\"" $d/mock.jsonl 2>/dev/null'
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

# The service killed outright (no stop): the parent-death signal and the
# end of the bridge's input both end the bridge, and codex ends with it.
# (This does not tell the two apart.)  The group is the bridge's pid, read
# while it runs: the summary is never written.
start_mock orphan hang
start_drive orphan
d=$tmp/orphan
wait_for 60 'grep -q "\"kind\":\"hang\"" $d/mock.jsonl 2>/dev/null'
want_pgid=$(ps -o pid= --ppid "$drive" | tr -d ' ')
check "orphan: the bridge was the worker's child, leading its group" '[ -n "$want_pgid" ] && group_alive'
kill -KILL "$drive"
{ wait "$drive"; } 2>/dev/null # no "Killed" report from bash
desktop=
check "orphan: a killed service leaves nothing of its worker" 'wait_for 10 "! group_alive"'
stop_mock

check "no sanitizer report from the worker, the bridge, the broker or the service" \
	'! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/*/drive.err $tmp/broker.log'

if [ $fail -ne 0 ]; then
	for s in done cancel; do echo "--- $s"; cat "$tmp/$s/summary.json" "$tmp/$s/drive.err" 2>/dev/null | tail -30; done
	tail -20 "$tmp/broker.log"
fi
exit $fail
