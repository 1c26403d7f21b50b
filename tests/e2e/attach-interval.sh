#!/usr/bin/env bash
# A bridge repeats session.attach as often as the broker's answer says (a
# third of HB_ATTACH_TTL_MS), so a short expiry never drops a live bridge:
# the two timings are coupled through the protocol, not by two constants
# that happen to fit.  With a 600 ms expiry (the bridges' own default of
# one attach a second would miss it), a Codex and a Claude bridge with a
# quiet stand-in agent stay attached for 4 s: one session.attached each,
# no session.detached "it stopped attaching".  Usage: attach-interval.sh BUILD
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
export HB_ATTACH_TTL_MS=600 HB_CLAUDE_FIRST_SEND_MS=0
mkdir -p "$tmp/project"
sessions_conf | start_broker
watch_events
codex_s=$(full_auto_session "Codex" codex)
claude_s=$(full_auto_session "Claude" claude)
check "two sessions" '[ -n "$codex_s" ] && [ -n "$claude_s" ]'
desktop() {
	[ "$1" = codex ] && printf '%s\n' '{"id":1,"method":"initialize","params":{"clientInfo":{"name":"test","version":"1"}}}' \
		'{"id":2,"method":"thread/start","params":{}}'
	while [ ! -e "$tmp/close" ]; do sleep 0.1; done
}
desktop codex | "$build/hb-codex-bridge" --session "$codex_s" \
	-- node "$here/quiet-agent.mjs" codex "$tmp/agent-exit" >"$tmp/codex.out" 2>>"$tmp/bridges.err" &
codex_bridge=$!
desktop claude | "$build/hb-claude-bridge" --session "$claude_s" --run run-1 --project "$tmp/project" \
	--access full-auto -- node "$here/quiet-agent.mjs" claude "$tmp/agent-exit" >"$tmp/claude.out" 2>>"$tmp/bridges.err" &
claude_bridge=$!
attached_n() { events "e.event===\"session.attached\" && e.session===\"$1\""; }
expired_n() { events "e.event===\"session.detached\" && e.reason===\"it stopped attaching\""; }
check "both bridges attached" 'wait_for 30 "[ \$(attached_n $codex_s) -ge 1 ] && [ \$(attached_n $claude_s) -ge 1 ]"'
sleep 4
check "no attachment expired in 4 s of a 600 ms expiry" '[ "$(expired_n)" = 0 ]'
check "each attached once, and stayed" '[ "$(attached_n "$codex_s")" = 1 ] && [ "$(attached_n "$claude_s")" = 1 ]'
touch "$tmp/close"
wait $codex_bridge $claude_bridge 2>/dev/null
check "no sanitizer report" '! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/bridges.err $tmp/broker.log'
[ $fail -ne 0 ] && { tail -20 "$tmp/bridges.err"; tail -30 "$tmp/broker.log"; }
exit $fail
