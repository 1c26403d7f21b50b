#!/usr/bin/env bash
# End to end: an agent in a real Codex session sends a phone alert.
#   drive.mjs (the desktop) -> hb-codex-bridge -> codex app-server (the
#   mock model calls send_mobile_notification) -> hb-broker -> svc-alerts
#   -> its device link (wss, the test's CA) -> the fake relay on 127.0.0.1.
# Checks: the catalog offered the tool (notifications on), the call ran at
# once with no approval card (class agent: Codex runs it), the model got the
# receipt (queued for the relay, delivery not confirmed); the relay got
# exactly one event with the multibyte title and body byte for byte, the
# session's id and title and the run the broker bound the call to (the
# session's active run, which the desktop opened); the hello carried the
# right credential, and the credential is in no file of the test but its
# own.  Usage: alerts-codex.sh BUILD (needs make npm-deps and openssl).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/alerts-lib.sh"
require codex

make_certs
start_relay
# Before the thread starts: a Codex thread fixes its tool list then.
alerts_settings
start_alerts_broker
watch_events
check "the device link is ready" 'wait_for 30 link_ready'
check "the Codex catalog lists send_mobile_notification (notifications on)" \
	'"$build/hbctl" catalog --for codex | grep -q "\"send_mobile_notification\""'
session=$(new_alert_session codex)
check "a Codex session" '[ -n "$session" ]'
# The desktop opens a run for the turn; a Codex call is bound to the
# session's active run.
run=run-alerts-codex
opened=$("$build/hbctl" run open "$run" --session "$session" --project "$tmp/project" --agent codex --access full-auto)
check "the desktop's run is open" '[ "$(printf %s "$opened" | json_field run)" = "$run" ]'

dir=$tmp/agent
mkdir -p "$dir"
MOCK_SCRIPT_JSON="{\"scenario\":\"tool\",\"tool\":{\"namespace\":\"hbcode\",\"name\":\"send_mobile_notification\",\"arguments\":$(alert_args),\"callId\":\"call_alert\"},\"finalText\":\"Done. The tool said: {{output}}\",\"deltaChunks\":0}" \
	node "$rig/mock-responses.mjs" --port 0 --log "$dir/mock.jsonl" --quiet >"$dir/mock.out" 2>"$dir/mock.err" &
mock=$!
wait_for 10 'grep -qs "^PORT" "$dir/mock.out"' || { echo "FAIL the mock model did not start"; exit 1; }
port=$(sed -n 's/^PORT //p' "$dir/mock.out" | head -1)
timeout 100 node "$rig/drive.mjs" --mock-port "$port" --mode bridge --timeout 90 \
	--work-dir "$dir/work" --cwd "$tmp/project" --quiet --env "HB_HOME=$HB_HOME" \
	-- "$build/hb-codex-bridge" --session "$session" -- codex app-server \
	>"$dir/summary.json" 2>"$dir/drive.err"
echo $? >"$dir/rc"

# What the model received as the tool's output.
output=$(js_args '
	for (const l of require("fs").readFileSync(argv[0], "utf8").split("\n")) {
		if (!l) continue;
		const r = JSON.parse(l);
		if (r.toolOutput) { print(r.toolOutput.text); exit(0); }
	}' "$dir/mock.jsonl")
check "the turn completed" '[ "$(cat $dir/rc)" = 0 ] && [ "$(json_field turnStatus <$dir/summary.json)" = completed ]'
check "the model got the receipt: queued for the relay, not confirmed ($output)" 'receipt_ok "$output"'
check "the call ran at once: no approval card, none left" \
	'[ "$(events "e.event===\"approval.requested\"")" = 0 ] && [ -z "$("$build/hbctl" approvals 2>/dev/null | grep "^a[0-9]")" ]'
check "the broker bound the call to the session's run" \
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
check "no sanitizer report" '! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $dir/drive.err $tmp/broker.log'

if [ $fail -ne 0 ]; then
	cat "$dir/drive.err" "$dir/summary.json" 2>/dev/null | tail -20
	echo "--- relay"; cat "$tmp/relay.jsonl" "$tmp/relay.err" 2>/dev/null
	echo "--- broker"; tail -40 "$tmp/broker.log"
fi
exit $fail
