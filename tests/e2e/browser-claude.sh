#!/usr/bin/env bash
# End to end: an agent in a real Claude session looks at a web page in the
# user's browser, here a real headless Chromium.
#   claude-drive.mjs (the desktop) -> hb-claude-bridge -> the agent host
#   (the real Claude Agent SDK; the mock model calls use_user_browser seven
#   times in one turn: open the /button test page, screenshot, then open
#   /tour, select, click, dialog, a click in its iframe) -> hb-broker
#   -> svc-browser -> Chromium's DevTools, found through
#   $XDG_CONFIG_HOME/chromium/DevToolsActivePort.
# Checks: each call waited on an approval card (an agent-class tool asks
# in a Claude run, full-auto too) with its input, and Chromium had no tab
# of the page before the first `hbctl approve`; the model received the
# snapshot text with the button and its ref, and the screenshot as an
# image block (image/png) in the tool_result, 1280 pixels wide, the very
# bytes saved under the cache; Chromium lists the tab; the /tour page's
# own state (read over DevTools) has the option chosen and the confirm
# accepted.
# Usage: browser-claude.sh BUILD (needs make npm-deps and chromium).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
host=$here/agent-host
hosts=$(cd "$here/../agent-host" && pwd)   # the agent host, a product part
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/browser-lib.sh"
require claude

start_pages
start_chromium
"$build/hbctl" settings browser on >/dev/null || { echo "FAIL hbctl settings browser on"; exit 1; }
start_browser_broker
watch_events
check "the Claude catalog lists use_user_browser" \
	'"$build/hbctl" catalog --for claude | grep -q "\"use_user_browser\""'
session=$(new_browser_session claude)
check "a Claude session" '[ -n "$session" ]'

browser_steps "" >"$tmp/steps.json"
node "$host/mock-messages.mjs" --script "$tmp/steps.json" --log "$tmp/mock.jsonl" >"$tmp/mock.out" 2>"$tmp/mock.err" &
mock=$!
wait_for 10 'grep -qs "^PORT" "$tmp/mock.out"' || { echo "FAIL the mock model did not start"; exit 1; }
port=$(sed -n 's/^PORT //p' "$tmp/mock.out" | head -1)
mkdir -p "$tmp/home/.claude"
run=run-browser-claude
approval_id() { "$build/hbctl" approvals 2>/dev/null | sed -n 's/^\(a[0-9]*\)[[:space:]].*/\1/p' | head -1; }
# The desktop in the background: it answers no card itself.
env HOME="$tmp/home" CLAUDE_CONFIG_DIR="$tmp/home/.claude" ANTHROPIC_BASE_URL="http://127.0.0.1:$port" \
	ANTHROPIC_API_KEY=test DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1 \
	CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
	timeout 100 node "$here/e2e/claude-drive.mjs" --hbctl "$build/hbctl" --timeout 90 \
	--prompt "Open the test page in my browser and look at it." \
	-- "$build/hb-claude-bridge" --session "$session" --run "$run" --project "$tmp/project" \
	--access full-auto -- node "$hosts/host.mjs" >"$tmp/drive.json" 2>"$tmp/drive.err" &
desktop=$!
# card ACTION: how many approval cards of this run asked for
# use_user_browser with that action (open: with the page's URL).
card() {
	events 'e.event==="approval.requested" && e.tool==="mcp__hbcode__use_user_browser" && e.run==="'"$run"'" &&
		e.input && e.input.action==="'"$1"'" && ("'"$1"'"!=="open" || e.input.url==="'"$(button_url)"'")'
}
# tour_card ACTION: how many cards of this run asked for that action at all.
tour_card() {
	events 'e.event==="approval.requested" && e.tool==="mcp__hbcode__use_user_browser" && e.run==="'"$run"'" &&
		e.input && e.input.action==="'"$1"'"'
}
check "an approval card for use_user_browser open in the run, with the URL" \
	'wait_for 60 "[ -n \"\$(approval_id)\" ]" && wait_for 10 "[ \$(card open) = 1 ]"'
check "nothing reached the browser before the approval" \
	'[ "$(events "e.event===\"call.start\"&&e.tool===\"use_user_browser\"")" = 0 ] && ! tab_listed'
"$build/hbctl" approve "$(approval_id)" >/dev/null
check "then an approval card for use_user_browser screenshot" \
	'wait_for 60 "[ \$(card screenshot) = 1 ] && [ -n \"\$(approval_id)\" ]"'
"$build/hbctl" approve "$(approval_id)" >/dev/null
# The tour: one card each for open, select, click and dialog, then the
# click in its iframe.
clicks=0
for action in open select click dialog click; do
	want=1
	[ "$action" = open ] && want=2
	[ "$action" = click ] && clicks=$((clicks + 1)) && want=$clicks
	wait_for 60 "[ \$(tour_card $action) = $want ] && [ -n \"\$(approval_id)\" ]" || break
	"$build/hbctl" approve "$(approval_id)" >/dev/null
done
check "then cards for the tour's open, select, click, dialog and the click in its iframe, in turn" \
	'[ "$(tour_card open)" = 2 ] && [ "$(tour_card select)" = 1 ] && [ "$(tour_card click)" = 2 ] && [ "$(tour_card dialog)" = 1 ]'
wait "$desktop"
echo $? >"$tmp/drive.rc"
desktop=
received "$tmp/mock.jsonl"

check "the run ended idle" '[ "$(cat $tmp/drive.rc)" = 0 ]'
check "the mock model's own checks passed (snapshot text, then a PNG)" \
	'! grep -q "playerFailure" "$tmp/mock.jsonl" && grep -q "\"playerDone\":true" "$tmp/mock.jsonl"'
check "the model called the tool through the hbcode server" \
	'grep -q "\"name\":\"mcp__hbcode__use_user_browser\"" "$tmp/mock.jsonl"'
check "the model got all seven results" '[ "$(rfield results)" = 7 ]'
check "the model got the snapshot: the page's title and the button with its ref" \
	'rfield snapshot | grep -qF "$button_line" && rfield snapshot | grep -qF "(http://127.0.0.1:$pages_port/button)"'
check "the open result carries no image" '[ "$(rfield snapshotImages)" = 0 ]'
size=$(png_check)
check "the model got the screenshot as an image block, image/png, 1280 wide ($size)" 'png_check >/dev/null'
check "the screenshot is saved under the cache with those very bytes" 'saved_same "$HB_HOME/cache/browser/$session"'
check "Chromium lists the tab of the /button page" 'tab_listed'
state=$(tour_state)
check "the tour's page, read over DevTools: Green chosen, the confirm accepted, the iframe's button pressed ($state)" \
	'[ "$state" = "Value: g|Yes|Tour frame pressed" ]'
check "the broker bound all seven calls to the bridge's run" \
	'[ "$(events "e.event===\"call.start\" && e.tool===\"use_user_browser\" && e.session===\"$session\" && e.run===\"$run\"")" = 7 ]'
check "no approval card is left" '[ -z "$(approval_id)" ]'
check "no sanitizer report" '! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/drive.err $tmp/broker.log'

if [ $fail -ne 0 ]; then
	tail -30 "$tmp/drive.err"; cat "$tmp/drive.json"
	echo "--- received"; cut -c1-600 "$tmp/received.json"; echo
	echo "--- broker"; tail -40 "$tmp/broker.log"
	echo "--- chromium"; tail -10 "$chromium_dir/chromium.log"
fi
exit $fail
