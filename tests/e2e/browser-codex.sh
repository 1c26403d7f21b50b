#!/usr/bin/env bash
# End to end: an agent in a real Codex session looks at a web page in the
# user's browser, here a real headless Chromium.
#   drive.mjs (the desktop) -> hb-codex-bridge -> codex app-server (the
#   mock model calls use_user_browser seven times in one turn: open the
#   /button test page, screenshot, then open /tour, select, click,
#   dialog, a click in its iframe) -> hb-broker -> svc-browser ->
#   Chromium's DevTools, found through
#   $XDG_CONFIG_HOME/chromium/DevToolsActivePort.
# Checks: the calls ran at once with no approval card (class agent: Codex
# runs it), bound to the session's run; the model received the snapshot
# text with the button and its ref, and the screenshot as an input_image
# with a PNG data URL, 1280 pixels wide, the very bytes saved under the
# cache; Chromium lists the tab; the /tour page's own state (read over
# DevTools) has the option chosen and the confirm accepted.
# Usage: browser-codex.sh BUILD (needs make npm-deps and chromium).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/browser-lib.sh"
require codex

start_pages
start_chromium
"$build/hbctl" settings browser on >/dev/null || { echo "FAIL hbctl settings browser on"; exit 1; }
start_browser_broker
watch_events
check "the Codex catalog lists use_user_browser" \
	'"$build/hbctl" catalog --for codex | grep -q "\"use_user_browser\""'
session=$(new_browser_session codex)
check "a Codex session" '[ -n "$session" ]'
run=run-browser-codex
opened=$("$build/hbctl" run open "$run" --session "$session" --project "$tmp/project" --agent codex --access full-auto)
check "the desktop's run is open" '[ "$(printf %s "$opened" | json_field run)" = "$run" ]'

dir=$tmp/agent
mkdir -p "$dir"
browser_steps hbcode >"$dir/steps.json"
node "$rig/mock-responses.mjs" --port 0 --script "$dir/steps.json" --log "$dir/mock.jsonl" --quiet \
	>"$dir/mock.out" 2>"$dir/mock.err" &
mock=$!
wait_for 10 'grep -qs "^PORT" "$dir/mock.out"' || { echo "FAIL the mock model did not start"; exit 1; }
port=$(sed -n 's/^PORT //p' "$dir/mock.out" | head -1)
timeout 100 node "$rig/drive.mjs" --mock-port "$port" --mode bridge --timeout 90 \
	--work-dir "$dir/work" --cwd "$tmp/project" --quiet --env "HB_HOME=$HB_HOME" \
	-- "$build/hb-codex-bridge" --session "$session" -- codex app-server \
	>"$dir/summary.json" 2>"$dir/drive.err"
echo $? >"$dir/rc"
received "$dir/mock.jsonl"

check "the turn completed" '[ "$(cat $dir/rc)" = 0 ] && [ "$(json_field turnStatus <$dir/summary.json)" = completed ]'
check "the mock model's own checks passed (snapshot text, then a PNG)" \
	'! grep -q "playerFailure" "$dir/mock.jsonl" && grep -q "I opened the page and looked at it." "$dir/mock.jsonl"'
check "the model got all seven answers" '[ "$(rfield results)" = 7 ]'
check "the model got the snapshot: the page's title and the button with its ref" \
	'rfield snapshot | grep -qF "$button_line" && rfield snapshot | grep -qF "(http://127.0.0.1:$pages_port/button)"'
check "the open answer carries no image" '[ "$(rfield snapshotImages)" = 0 ]'
size=$(png_check)
check "the model got the screenshot as an input_image: a PNG data URL, 1280 wide ($size)" 'png_check >/dev/null'
check "the screenshot is saved under the cache with those very bytes" 'saved_same "$HB_HOME/cache/browser/$session"'
check "Chromium lists the tab of the /button page" 'tab_listed'
state=$(tour_state)
check "the tour's page, read over DevTools: Green chosen, the confirm accepted, the iframe's button pressed ($state)" \
	'[ "$state" = "Value: g|Yes|Tour frame pressed" ]'
check "the calls ran at once: no approval card, none left" \
	'[ "$(events "e.event===\"approval.requested\"")" = 0 ] && [ -z "$("$build/hbctl" approvals 2>/dev/null | grep "^a[0-9]")" ]'
check "the broker bound all seven calls to the session's run" \
	'[ "$(events "e.event===\"call.start\" && e.tool===\"use_user_browser\" && e.session===\"$session\" && e.run===\"$run\"")" = 7 ]'
check "no sanitizer report" '! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $dir/drive.err $tmp/broker.log'

if [ $fail -ne 0 ]; then
	cat "$dir/drive.err" "$dir/summary.json" 2>/dev/null | tail -20
	echo "--- received"; cut -c1-600 "$tmp/received.json"; echo
	echo "--- broker"; tail -40 "$tmp/broker.log"
	echo "--- chromium"; tail -10 "$chromium_dir/chromium.log"
fi
exit $fail
