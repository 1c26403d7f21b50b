#!/usr/bin/env bash
# Both bridges say session.detach when they end, so that the broker stops
# taking them for the carriers of their session at once, not when the
# attachment expires (HB_ATTACH_TTL_MS, two minutes here, so an expiry
# cannot pass for a detach).  hb-claude-bridge and hb-codex-bridge each
# run a quiet stand-in agent (quiet-agent.mjs) and are ended in the four
# ways a bridge ends: the desktop's end of input, SIGTERM, SIGINT, and the
# agent's own exit.  Checks, for each: the bridge ended, and the broker
# published session.detached "the bridge said so" for its session within
# 5 s (and the Claude bridge closed its run).  Then a message sent to the session stays queued with nobody to
# hand it to (no message.delivery), and the next bridge of the session
# carries it in.  Usage: bridge-detach.sh BUILD (needs sqlite3).
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require sqlite3
export HB_ATTACH_TTL_MS=120000 HB_CLAUDE_FIRST_SEND_MS=0
mkdir -p "$tmp/project"
{ sessions_conf; messages_conf; } | start_broker
watch_events
# The message below waits for the next bridge: the broker must not start
# one of its own meanwhile (launch-claude.sh tests that), which the long
# attach expiry alone prevents only for the broker's first two minutes.
"$build/hbctl" settings agent-host set "no-such-node /nowhere/host.mjs" >/dev/null

session_claude=$(full_auto_session "Claude recipient" claude)
session_codex=$(full_auto_session "Codex recipient" codex)
sender=$(full_auto_session Sender codex)
"$build/hbctl" run open run-sender --session "$sender" --project "$tmp/project" --agent codex --access full-auto >/dev/null
check "three sessions and the sender's run" '[ -n "$session_claude" ] && [ -n "$session_codex" ] && [ -n "$sender" ]'

attached_n() { events "e.event===\"session.attached\" && e.session===\"$1\""; }
detached_n() { events "e.event===\"session.detached\" && e.session===\"$1\" && e.reason===\"the bridge said so\""; }
delivery_n() { events "e.event===\"message.delivery\" && e.session===\"$1\""; }
# The desktop: a Codex one starts a thread; both then stay until $tmp/close.
desktop() {
	[ "$1" = codex ] && printf '%s\n' '{"id":1,"method":"initialize","params":{"clientInfo":{"name":"test","version":"1"}}}' \
		'{"id":2,"method":"thread/start","params":{}}'
	while [ ! -e "$tmp/close" ]; do sleep 0.1; done
}
# start_bridge KIND N: a bridge of KIND's session in the background, its pid
# in $bridge.
start_bridge() {
	rm -f "$tmp/close" "$tmp/agent-exit"
	if [ "$1" = claude ]; then
		desktop claude | "$build/hb-claude-bridge" --session "$session_claude" --run "run-$2" \
			--project "$tmp/project" --access full-auto -- node "$here/quiet-agent.mjs" claude "$tmp/agent-exit" \
			>>"$tmp/claude.out" 2>>"$tmp/bridges.err" &
	else
		desktop codex | "$build/hb-codex-bridge" --session "$session_codex" \
			-- node "$here/quiet-agent.mjs" codex "$tmp/agent-exit" >>"$tmp/codex.out" 2>>"$tmp/bridges.err" &
	fi
	bridge=$!
}
# Gone, or a zombie of this shell (reaped by the wait after).
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(ps -o stat= -p "$1" | cut -c1)" = Z ]; }

n=0
for kind in claude codex; do
	[ $kind = claude ] && s=$session_claude || s=$session_codex
	for how in close term int agent; do
		n=$((n + 1))
		att=$(attached_n "$s")
		det=$(detached_n "$s")
		# A shell leaves SIGINT ignored for a job in the background unless
		# it controls jobs; a bridge keeps an ignored SIGINT ignored.
		[ $how = int ] && set -m
		start_bridge $kind $n
		[ $how = int ] && set +m
		check "$kind, $how: the bridge attached its session" 'wait_for 30 "[ \$(attached_n $s) -gt $att ]"'
		case $how in
		close) touch "$tmp/close" ;;
		term) kill -TERM $bridge ;;
		int) kill -INT $bridge ;;
		agent) touch "$tmp/agent-exit" ;;
		esac
		check "$kind, $how: the bridge ended" 'wait_for 20 "gone $bridge"'
		check "$kind, $how: it detached its session at once" 'wait_for 5 "[ \$(detached_n $s) -gt $det ]"'
		[ $kind = claude ] && check "$kind, $how: it closed its run" 'grep -q "run run-$n closed" "$tmp/broker.log"'
		touch "$tmp/close"
		wait $bridge 2>/dev/null
	done

	# Nobody carries the session now: a message waits for the next bridge.
	receipt=$("$build/hbctl" call send_session_message \
		"{\"recipientSessionId\":\"$s\",\"message\":\"Hello, $kind.\"}" --run run-sender --call-id "call-$kind")
	check "$kind: the message is queued" '[ "${receipt#queued:}" != "$receipt" ]'
	sleep 2
	check "$kind: ... and stays queued, handed to no bridge" 'state_is call-$kind queued && [ "$(delivery_n "$s")" = 0 ]'
	n=$((n + 1))
	start_bridge $kind $n
	check "$kind: the next bridge of the session carries it in" 'wait_for 30 "state_is call-$kind sent"'
	touch "$tmp/close"
	check "$kind: that bridge ended too" 'wait_for 20 "gone $bridge"'
	wait $bridge 2>/dev/null
done
check "every Claude run opened (its link was accepted)" '[ "$(grep -c "\"event\":\"opened\"" "$tmp/claude.out")" = 5 ]'
check "no sanitizer report" '! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/bridges.err $tmp/broker.log'
if [ $fail -ne 0 ]; then
	tail -30 "$tmp/bridges.err"
	tail -40 "$tmp/broker.log"
fi
exit $fail
