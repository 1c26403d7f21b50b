#!/usr/bin/env bash
# The end-to-end scripts' evaluator (evaluator.mjs, lib.sh's evaluate) on
# its own: events counts lines of a growing file the way node -e did (a
# line that is not JSON skipped, a last line without its newline not yet
# counted), a condition that throws fails with its message on stderr, js
# answers with its output and exit status, and a request without the
# script's token is closed unanswered.
# Usage: evaluator.sh BUILD
set -u
build=${1:-build}
. "$(dirname "$0")/lib.sh"

printf '%s\n' '{"event":"a","x":1}' 'not json' \
	'{"event":"timeline.row","session":"s","row":{"status":"call","id":"r1"}}' \
	'{"event":"timeline.row","session":"s","row":{"status":"completed","id":"r1","kind":"tool"}}' \
	'{"event":"timeline.row","session":"s","row":{"status":"completed","id":"r2","kind":"tool"}}' >"$tmp/events.jsonl"
printf '{"event":"a","x":2' >>"$tmp/events.jsonl"
check "events: the JSON lines that hold, not the one still being written" '[ "$(events "e.event === \"a\"")" = 1 ]'
printf '}\n' >>"$tmp/events.jsonl"
check "events: the line once it has its newline" '[ "$(events "e.event === \"a\" && e.x > 0")" = 2 ]'
check "events: require at hand, as under node -e" '[ "$(events "e.event === \"a\" && typeof require(\"fs\").readFileSync === \"function\"")" = 2 ]'
check "timeline_completed: only a row that came as a call first" '[ "$(timeline_completed s "r.kind === \"tool\"")" = 1 ]'
: >"$tmp/events.jsonl"
check "events: a file written again from the start is read again" '[ "$(events "true")" = 0 ]'
check "a condition that throws: status 1, nothing on stdout, the message on stderr" \
	'printf "{\"event\":\"b\"}\n" >"$tmp/events.jsonl"; out=$(events "e.row.kind" 2>"$tmp/err"); rc=$?; [ $rc = 1 ] && [ -z "$out" ] && grep -q "evaluator: events: .*kind" "$tmp/err"'
check "js: input, argv and print as console.log prints" \
	'[ "$(echo "{\"id\":\"é 🚀\"}" | js "print(JSON.parse(input).id, argv.length, argv[1])" one "two words")" = "é 🚀 2 two words" ]'
check "js_args: exit(N) is the status, and what was printed before it is kept" \
	'out=$(js_args "print(\"kept\"); exit(3); print(\"not\")"); [ $? = 3 ] && [ "$out" = kept ]'
check "js_args: a throw is status 1 with its message" \
	'! js_args "throw new Error(\"boom\")" 2>"$tmp/err" && grep -q "evaluator: js: boom" "$tmp/err"'
check "a question the evaluator does not know: status 2" '! evaluate nothing 2>/dev/null'
read -r port token <"$tmp/evaluator.addr"
asked_without_token() {
	local fd answer=
	exec {fd}<>"/dev/tcp/127.0.0.1/$port" || return 1
	printf '%s\0' "not-the-token" 3 js 'print("ran")' "" >&"$fd"
	IFS= read -r -d '' answer <&"$fd"
	exec {fd}<&-
	[ -z "$answer" ]
}
check "a request without the token is closed unanswered" asked_without_token
check "the evaluator's address is the script's only (mode 0600)" '[ "$(stat -c %a "$tmp/evaluator.addr")" = 600 ]'
exit $fail
