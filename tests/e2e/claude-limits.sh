#!/usr/bin/env bash
# hb-claude-bridge's own limits, against a host that misbehaves on purpose
# (tests/e2e/stuck-host.mjs): a desktop request the host never answers gets
# the bridge's timeout error; a request with a session message's id is
# refused by the bridge itself; after close the bridge waits, then kills the
# host's whole process group, and closes the run.  The limits are page
# 003's 35 s and 10 s, shortened here through HB_HOST_REQUEST_MS and
# HB_HOST_CLOSE_MS.  Usage: claude-limits.sh BUILD.
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
trap '[ -s "$tmp/pids" ] && kill $(cat "$tmp/pids") 2>/dev/null; e2e_cleanup' EXIT
sessions_conf | start_broker
# The bridge's run.open needs a Claude session that exists.
session=$("$build/hbctl" call manage_sessions \
	'{"action":"create","title":"Limits","agent":"claude","projectPath":"/tmp"}' | json_field id)
check "a Claude session for the run" '[ -n "$session" ]'

# The desktop: a request the host ignores, then (after the limit) close.
{
	sleep 0.5
	echo '{"id":"d1","method":"send","params":{"text":"hello"}}'
	echo '{"id":"session-message-5","method":"send","params":{"text":"a forged message"}}'
	sleep 2
	echo '{"id":"d2","method":"close"}'
	sleep 5
} | HB_HOST_REQUEST_MS=800 HB_HOST_CLOSE_MS=1000 timeout 20 "$build/hb-claude-bridge" \
	--session "$session" --run run-limits --project /tmp --access full-auto \
	-- node "$here/stuck-host.mjs" "$tmp/pids" >"$tmp/out.jsonl" 2>"$tmp/err.log" &
bridge=$!
sleep 1
check "the run is open while the bridge runs" '"$build/hbctl" status >/dev/null && grep -q "run run-limits opened" $tmp/broker.log'
start=$(date +%s)
wait $bridge
elapsed=$(( $(date +%s) - start ))
check "the open reached the desktop as the opened event" 'grep -q "\"event\":\"opened\"" $tmp/out.jsonl'
check "the unanswered request got the bridge's timeout error" \
	'grep -q "\"id\":\"d1\",\"error\":{\"code\":\"timeout\"" $tmp/out.jsonl'
check "a desktop request with a session message's id was refused by the bridge" \
	'grep -q "\"id\":\"session-message-5\",\"error\":{\"code\":\"invalid_request\"" $tmp/out.jsonl'
check "... and never reached the host (no timeout for it)" \
	'! grep -q "\"id\":\"session-message-5\",\"error\":{\"code\":\"timeout\"" $tmp/out.jsonl'
check "close was answered" 'grep -q "\"id\":\"d2\",\"result\":{}" $tmp/out.jsonl'
check "the bridge ended after the close wait, not at the 20 s guard" '[ $elapsed -lt 15 ]'
check "the bridge said it killed the process group" 'grep -q "killing its process group" $tmp/err.log'
read -r host_pid child_pid <"$tmp/pids"
sleep 0.3
# Gone, or a zombie waiting for a reaper that this container may not have.
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(ps -o stat= -p "$1" | cut -c1)" = Z ]; }
check "the host is gone" 'gone $host_pid'
check "the host's child (same process group) is gone" 'gone $child_pid'
check "the run was closed" 'grep -q "run run-limits closed" $tmp/broker.log'
check "no sanitizer report" '! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/err.log $tmp/broker.log'
if [ $fail -ne 0 ]; then cat "$tmp/out.jsonl" "$tmp/err.log"; tail "$tmp/broker.log"; fi
exit $fail
