#!/usr/bin/env bash
# A turn that waits, as it happens: the model API answers 529
# (overloaded) once, then answers; the real agent retries, and its retry
# is a live `retry` row of the session that a person sees in
# `hbctl watch --timeline` (docs/timeline.md, "Waits").  For both agents:
#   Claude  hb-claude-bridge -> the agent host -> the real Claude Agent SDK
#           0.3.332, the mock Messages API refusing the turn's first call
#           with 529 and x-should-retry: true; Claude Code sends an
#           api_retry system message (attempt 1 of 10, its delay), then
#           the turn completes
#   Codex   hb-codex-bridge --session -> the real codex app-server 0.171.0
#           with stream_max_retries = 2, the mock Responses API answering
#           its first request with 529; codex sends an `error`
#           notification with willRetry ("Reconnecting... 1/2"), then the
#           turn completes
# Checks: the retry row (attempt, of how many, reason overloaded, HTTP
# 529, Claude's delay), live only (its id is no saved row's), before the
# turn's end, which completed; the view's line "retrying … (attempt 1 of
# N): overloaded"; none in the saved conversation (hbctl timeline).  (A 429 codex does not retry: with the rig's
# request_max_retries it ends the turn at once, "exceeded retry limit,
# last status: 429", an `error` without willRetry, so no retry row.)
# Usage: timeline-retry.sh BUILD (needs npm ci in agent-host and tests/codex).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/claude-lib.sh"
require codex

echo '[{"apiError": {"status": 529, "type": "overloaded_error", "message": "Overloaded", "retry": true}}]' \
	>"$tmp/claude-script.json"
start_claude_mock --script "$tmp/claude-script.json"
sessions_conf | start_broker
watch_events
"$build/hbctl" watch --timeline --text >"$tmp/timeline.txt" 2>"$tmp/timeline.err" &
plain_watcher=$!
claude_s=$(full_auto_session "Retry Claude" claude)
codex_s=$(full_auto_session "Retry Codex" codex)
check "a session for each agent" '[ -n "$claude_s" ] && [ -n "$codex_s" ]'

# Claude: one turn, its first model call refused with 529.
(
	export_claude_env
	exec timeout 120 node "$here/e2e/claude-drive.mjs" --hbctl "$build/hbctl" --prompt "Say OK." \
		--transcript "$tmp/claude.transcript" \
		-- "$build/hb-claude-bridge" --session "$claude_s" --run run-retry --project "$tmp/project" \
		--access full-auto -- node "$hosts/host.mjs"
) >"$tmp/claude.json" 2>"$tmp/claude.err"
check "Claude: the run ended" '[ $? = 0 ]'
check "Claude: the mock refused one call with 529, and was asked again" \
	'[ "$(grep -c "\"kind\":\"apiError\",\"status\":529" "$tmp/mock.jsonl")" = 1 ] &&
	 [ "$(grep -c "\"url\":\"/v1/messages" "$tmp/mock.jsonl")" -ge 2 ]'
check "Claude: the SDK reported the retry (an api_retry system message)" 'grep -q "api_retry" "$tmp/claude.transcript"'

# Codex: one turn, its first request answered 529; codex retries its stream.
dir=$tmp/codex
mkdir -p "$dir"
sed 's/^stream_max_retries = 0/stream_max_retries = 2/' "$rig/config.toml.in" >"$dir/config.toml.in"
echo '{"scenario": "message", "deltaChunks": 0, "finalText": "OK.",
       "httpErrors": [{"status": 529, "message": "Overloaded"}]}' >"$dir/script.json"
node "$rig/mock-responses.mjs" --port 0 --script "$dir/script.json" --log "$dir/mock.jsonl" --quiet \
	>"$dir/mock.out" 2>"$dir/mock.err" &
codex_mock=$!
for _ in $(seq 100); do [ -s "$dir/mock.out" ] && break; sleep 0.05; done
cport=$(sed -n 's/^PORT //p' "$dir/mock.out" | head -1)
timeout 150 node "$rig/drive.mjs" --mock-port "$cport" --mode bridge --timeout 120 \
	--config "$dir/config.toml.in" --work-dir "$dir/work" --quiet --env "HB_HOME=$HB_HOME" \
	--text "Say OK." --transcript "$dir/transcript.jsonl" \
	-- "$build/hb-codex-bridge" --session "$codex_s" -- codex app-server \
	>"$dir/summary.json" 2>"$dir/drive.err"
echo $? >"$dir/rc"
kill "$codex_mock" 2>/dev/null
check "Codex: the turn completed" '[ "$(cat $dir/rc)" = 0 ] && [ "$(json_field turnStatus <"$dir/summary.json")" = completed ]'
check "Codex: codex reported the retry (error, willRetry)" \
	'grep "\"method\":\"error\"" "$dir/transcript.jsonl" | grep -q "\"willRetry\":true"'

# The live rows: one retry row each, before the turn's end.
retry_row() {	# SESSION COND
	timeline_rows "$1" "r.kind === 'retry' && r.attempt === 1 && r.reason === 'overloaded' && r.httpStatus === 529 && $2"
}
claude_retry() { [ "$(retry_row "$claude_s" "r.maxAttempts === 10 && r.delayMs > 0 && /#retry$/.test(r.id)")" = 1 ]; }
codex_retry() { [ "$(retry_row "$codex_s" "r.maxAttempts === 2 && /529/.test(r.detail) && /#retry1$/.test(r.id)")" = 1 ]; }
check "Claude: a live retry row (attempt 1 of 10, overloaded, HTTP 529, its delay)" 'wait_for 10 claude_retry'
check "Codex: a live retry row (attempt 1 of 2, overloaded, HTTP 529, codex's sentence)" 'wait_for 10 codex_retry'
# kinds SESSION: the depth-0 row kinds of a session in order, the last row of each id.
kinds() {
	js_args '
		const fs = require("fs"), rows = new Map();
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			let e; try { e = JSON.parse(l); } catch { continue; }
			if (e.event === "timeline.row" && e.session === argv[1] && !(e.row.depth > 0)) rows.set(e.row.id, e.row);
		}
		print([...rows.values()].map((r) => r.kind + (r.kind === "turn_completed" ? ":" + r.status : "")).join(" "));' \
		"$tmp/events.jsonl" "$1"
}
check "Claude: turn_started, the prompt, the retry, ..., the turn completed" \
	'[[ "$(kinds $claude_s)" =~ ^turn_started\ user\ retry\ .*turn_completed:completed$ ]]' || echo "  kinds: $(kinds $claude_s)"
check "Codex: turn_started, the prompt, the retry, ..., the turn completed" \
	'[[ "$(kinds $codex_s)" =~ ^turn_started\ user\ retry\ .*turn_completed:completed$ ]]' || echo "  kinds: $(kinds $codex_s)"

# Live only: the saved conversations (hbctl timeline) have no retry row,
# so no saved row replaces one.
saved_retries() {	# the saved rows of session $1 that are retries or have a live retry's id
	(export_claude_env
	 HOME=$dir/work/home CODEX_HOME=$dir/work/codex-home HB_CODEX=$rig/node_modules/.bin/codex \
		exec timeout 120 "$build/hbctl" timeline --session "$1" --json) >"$tmp/saved-$1.jsonl" 2>>"$tmp/saved.err" ||
		{ echo failed; return; }
	js_args '
		const fs = require("fs"), live = new Set();
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			let e; try { e = JSON.parse(l); } catch { continue; }
			if (e.event === "timeline.row" && e.row.kind === "retry") live.add(e.row.id);
		}
		const saved = fs.readFileSync(argv[1], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
		print(saved.length > 1 ? saved.filter((r) => r.kind === "retry" || live.has(r.id)).length : "no rows");' \
		"$tmp/events.jsonl" "$tmp/saved-$1.jsonl"
}
check "Claude: the saved conversation has no retry row (live only)" '[ "$(saved_retries $claude_s)" = 0 ]'
check "Codex: the saved thread has no retry row (live only)" '[ "$(saved_retries $codex_s)" = 0 ]' || cat "$tmp/saved.err"

# What a person reads.
shown() { grep -q "Retry Claude .* claude  — retrying in [0-9.]* s (attempt 1 of 10): overloaded" "$tmp/timeline.txt" &&
	  grep -q "Retry Codex .* codex   — retrying (attempt 1 of 2): overloaded" "$tmp/timeline.txt"; }
check "hbctl watch --timeline: the retry lines of both agents" 'wait_for 10 shown' || cat "$tmp/timeline.txt"
kill "$plain_watcher" 2>/dev/null
# the bridges' stderr: Claude's in claude.err, codex's in drive.mjs's stderr.log
check "no sanitizer report" '! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/*.err $dir/drive.err $dir/work/stderr.log $tmp/broker.log'

exit $fail
