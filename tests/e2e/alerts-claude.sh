#!/usr/bin/env bash
# End to end: an agent in a real Claude session sends a phone alert.
#   claude-drive.mjs (the desktop) -> hb-claude-bridge -> the agent host
#   (the real Claude Agent SDK; the mock model calls
#   send_mobile_notification) -> hb-broker -> svc-alerts -> its device link
#   (wss, the test's CA) -> the fake relay on 127.0.0.1.
# Checks: the catalog offered the tool (notifications on); the call waited
# on an approval card (an agent-class tool asks in a Claude run, full-auto
# too), which the relay showed the phone (approval-requested, a tool card
# of the run) and the phone allowed (approval-resolve, then
# approval-result ok: run.chatResolveApproval), and nothing reached the
# relay before that answer; the model got
# the receipt (queued for the relay, delivery not
# confirmed); the relay got exactly one event with the multibyte title and
# body byte for byte, the session's id and title and the bridge's run; the
# hello carried the right credential, and the credential is in no file of
# the test but its own.
# Usage: alerts-claude.sh BUILD (needs make npm-deps and openssl).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
host=$here/agent-host
hosts=$(cd "$here/../agent-host" && pwd)   # the agent host, a product part
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/alerts-lib.sh"
require claude

make_certs
start_relay --answer allow # the phone answers the card
alerts_settings
start_alerts_broker
watch_events
check "the device link is ready" 'wait_for 30 link_ready'
check "the Claude catalog lists send_mobile_notification (notifications on)" \
	'"$build/hbctl" catalog --for claude | grep -q "\"send_mobile_notification\""'
session=$(new_alert_session claude)
check "a Claude session" '[ -n "$session" ]'

node "$host/mock-messages.mjs" --log "$tmp/mock.jsonl" >"$tmp/mock.out" 2>"$tmp/mock.err" &
mock=$!
wait_for 10 'grep -qs "^PORT" "$tmp/mock.out"' || { echo "FAIL the mock model did not start"; exit 1; }
port=$(sed -n 's/^PORT //p' "$tmp/mock.out" | head -1)
mkdir -p "$tmp/home/.claude"
run=run-alerts-claude
# The desktop in the background: it answers no card itself; the phone does.
env HOME="$tmp/home" CLAUDE_CONFIG_DIR="$tmp/home/.claude" ANTHROPIC_BASE_URL="http://127.0.0.1:$port" \
	ANTHROPIC_API_KEY=test DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1 \
	CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
	timeout 100 node "$here/e2e/claude-drive.mjs" --hbctl "$build/hbctl" --timeout 90 \
	--prompt "@tool send_mobile_notification $(alert_args)" \
	-- "$build/hb-claude-bridge" --session "$session" --run "$run" --project "$tmp/project" \
	--access full-auto -- node "$hosts/host.mjs" >"$tmp/drive.json" 2>"$tmp/drive.err" &
desktop=$!
# An agent-class tool asks first even in a full-auto run (the host leaves
# it out of allowedTools, as claude.sh shows for manage_sessions): the
# card is the person's, and nothing may reach the relay before it.
# (the title and body as a JSON literal: the script's evaluator has not its
# environment)
card() { events 'e.event==="approval.requested" && e.tool==="mcp__hbcode__send_mobile_notification" && e.run==="'"$run"'" && e.input && ((a) => e.input.title===a.title && e.input.body===a.body)('"$want_args"')'; }
want_args=$(alert_args)
check "an approval card for send_mobile_notification in the run, with the title and body" \
	'wait_for 60 "[ \$(card) = 1 ]"'
# The relay's records in order: the card shown, the phone's answer, its
# outcome ok, and only then the alert.
phone_answered() {
	js_args '
		const recs = require("fs").readFileSync(argv[0], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
		const at = (f) => recs.findIndex(f);
		const card = at((r) => r.kind === "approval" && r.tool === "mcp__hbcode__send_mobile_notification" &&
			r.cardKind === "tool" && r.runId === argv[1] && r.text.includes("\"title\""));
		const answer = at((r) => r.kind === "answer" && card >= 0 && r.approvalId === recs[card].approvalId && r.decision === "allow");
		const result = at((r) => r.kind === "result" && answer >= 0 && r.id === recs[answer].id && r.ok === true);
		const ev = at((r) => r.kind === "event");
		exit(card >= 0 && answer > card && result > answer && (ev < 0 || ev > result) ? 0 : 1);
	' "$tmp/relay.jsonl" "$run"
}
check "the phone was shown the card and allowed it (approval-result ok), before any alert" \
	'wait_for 30 phone_answered'
resolved_allow() { events 'e.event==="approval.resolved" && e.decision==="allow" && e.run==="'"$run"'"'; }
check "the card was settled as allowed, and none is left" \
	'wait_for 10 "[ \$(resolved_allow) = 1 ]" && [ -z "$("$build/hbctl" approvals 2>/dev/null | grep "^a[0-9]")" ]'
wait "$desktop"
echo $? >"$tmp/drive.rc"
desktop=

# What the model received as the tool's result (its text blocks).
output=$(js_args '
	let last = null;
	for (const l of require("fs").readFileSync(argv[0], "utf8").split("\n")) {
		if (!l) continue;
		for (const m of JSON.parse(l).body?.messages ?? [])
			for (const b of Array.isArray(m.content) ? m.content : [])
				if (b.type === "tool_result") last = typeof b.content === "string" ? b.content :
					b.content.filter((c) => c.type === "text").map((c) => c.text).join("");
	}
	if (last !== null) print(last);' "$tmp/mock.jsonl")
check "the run ended idle" '[ "$(cat $tmp/drive.rc)" = 0 ]'
check "the model called the tool through the hbcode server" \
	'grep -q "\"name\":\"mcp__hbcode__send_mobile_notification\"" "$tmp/mock.jsonl"'
check "the model got the receipt: queued for the relay, not confirmed ($output)" 'receipt_ok "$output"'
check "the broker bound the call to the bridge's run" \
	'[ "$(events "e.event===\"call.start\" && e.tool===\"send_mobile_notification\" && e.session===\"$session\"")" = 1 ] &&
	 [ "$(call_run)" = "$run" ]'
check "the relay got exactly one event: title and body byte-exact, session, run, title" \
	'wait_for 10 "grep -q \"\\\"kind\\\":\\\"event\\\"\" $tmp/relay.jsonl" && relay_check one-event "$session" "$run"'
check "the receipt names the alert the relay got" \
	'id=$(relay_event_id) && [ -n "$id" ] && case $output in *"$id"*) true ;; *) false ;; esac'
check "the relay's hello had the right credential" 'relay_check hello'
check "the credential is saved where signing in keeps it (the search finds it)" \
	'grep -rlF -- "$credential" "$HB_HOME" | grep -q "/device-credential$"'
leaks=$(credential_files)
check "the credential is in no log, event, status or record ($leaks)" '[ -z "$leaks" ]'
check "no sanitizer report" '! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/drive.err $tmp/broker.log'

if [ $fail -ne 0 ]; then
	tail -30 "$tmp/drive.err"; cat "$tmp/drive.json"
	echo "--- relay"; cat "$tmp/relay.jsonl" "$tmp/relay.err" 2>/dev/null
	echo "--- broker"; tail -40 "$tmp/broker.log"
fi
exit $fail
