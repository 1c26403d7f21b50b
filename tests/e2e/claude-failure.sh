#!/usr/bin/env bash
# A failed Claude run keeps its reason in the error log (docs/agents.md,
# "Failed Claude runs"): the real Claude Agent SDK against the mock
# Messages API, which refuses the turn's request as the real API refuses a
# bad key (401 authentication_error, request-id, x-should-retry: false).
# hb-claude-bridge's stderr and the data folder's errors.log (kept: a
# packaged app discards stderr) then have one `[claude_run]` line with the session, the run, the
# operation (the desktop's send id) and Claude's reason; a turn that
# succeeds writes none.  A host that cannot start Claude Code (its `failed`
# event) gets the line too, with no operation yet (op=-).
# Usage: claude-failure.sh BUILD.
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/claude-lib.sh"

sessions_conf | start_broker
session=$("$build/hbctl" call manage_sessions \
	"{\"action\":\"create\",\"title\":\"Claude failure\",\"agent\":\"claude\",\"projectPath\":\"$tmp/project\"}" | json_field id)
check "a session for the runs" '[ -n "$session" ]'

start_claude_mock

# $1 name, $2 prompt: one run of one turn (the driver's send has id 1).
run() {
	(
		export_claude_env
		exec timeout 120 node "$here/e2e/claude-drive.mjs" --hbctl "$build/hbctl" --prompt "$2" \
			--transcript "$tmp/$1.transcript" -- "$build/hb-claude-bridge" --session "$session" --run "run-$1" \
			--project "$tmp/project" --access full-auto -- node "$hosts/host.mjs" ${claude_exe:-}
	) >"$tmp/$1.json" 2>"$tmp/$1.err"
	echo $? >"$tmp/$1.rc"
}

run good 'Say something.'
check "a turn that succeeds: the run ended" '[ "$(cat $tmp/good.rc)" = 0 ]'
check "a turn that succeeds: no claude_run line" '! grep -q "\[claude_run\]" $tmp/good.err'
check "a turn that succeeds: nothing in errors.log" '! grep -qs "\[claude_run\]" "$HB_HOME/data/errors.log"'

curl -s -X POST "http://127.0.0.1:$port/_mock/script" -H 'content-type: application/json' \
	-d '{"steps":[{"apiError":{"status":401,"type":"authentication_error","message":"invalid x-api-key"}}]}' >/dev/null
run refused 'Say something else.'
check "the mock refused the turn's request with 401" 'grep -q "\"kind\":\"apiError\",\"status\":401" $tmp/mock.jsonl'
# Claude's own words for it, from the result message the host passed on.
result_text=$(js_args '
	const fs = require("fs");
	for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
		if (!l) continue;
		let e; try { e = JSON.parse(JSON.parse(l).line); } catch { continue; }
		const m = e.message;
		if (e.event === "message" && m && m.type === "result" && m.is_error) { print(m.result); break; }
	}' "$tmp/refused.transcript" 2>/dev/null)
line=$(grep "\[claude_run\]" "$tmp/refused.err")
echo "log: $line"
check "a failed turn: one claude_run line" '[ "$(grep -c "\[claude_run\]" $tmp/refused.err)" = 1 ]'
check "it is an error line of hb-claude-bridge" 'echo "$line" | grep -q " error hb-claude-bridge\[[0-9]*\] \[claude_run\] "'
check "it names the session, run and operation" 'echo "$line" | grep -q "\[claude_run\] session=$session run=run-refused op=1 "'
check "its reason is Claude's sentence for the refused key" 'echo "$line" | grep -q "op=1 Invalid API key"'
kept=$HB_HOME/data/errors.log
check "the same line is kept in the data folder's errors.log" '[ "$(grep "\[claude_run\]" "$kept")" = "$line" ]'
check "errors.log is mode 0600" '[ "$(stat -c %a "$kept")" = 600 ]'
check "the reason is the result text Claude gave the desktop" '[ -n "$result_text" ] && case $line in *"$result_text"*) true ;; *) false ;; esac'

# The host's failed: Claude Code is not at the path the desktop gave.
claude_exe=$tmp/no-such-claude run missing 'Never sent.'
line=$(grep "\[claude_run\]" "$tmp/missing.err")
echo "log: $line"
check "a host that failed: one claude_run line" '[ "$(grep -c "\[claude_run\]" $tmp/missing.err)" = 1 ]'
check "it names the run, no operation, and the host's reason" \
	'echo "$line" | grep -q "\[claude_run\] session=$session run=run-missing op=- .*$tmp/no-such-claude"'
check "errors.log keeps both failures, in order" \
	'[ "$(grep -c "\[claude_run\]" "$kept")" = 2 ] && [ "$(grep "\[claude_run\]" "$kept" | tail -1)" = "$line" ]'
check "the bridges reported no sanitizer error" '! grep -E "Sanitizer|runtime error" $tmp/*.err'
exit $fail
