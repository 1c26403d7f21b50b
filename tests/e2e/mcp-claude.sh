#!/usr/bin/env bash
# End to end: the real Claude Code calls the hbcode tools through hb-mcp.
#   mcp-claude.mjs (the Claude Agent SDK of agent-host/, its Claude Code;
#   the mock Messages API on 127.0.0.1) -> Claude Code's MCP client ->
#   hb-mcp (a stdio server "hbcode" in the query's mcpServers) ->
#   hb-broker -> svc-sessions; and the bundled `claude` CLI set up with
#   `claude mcp add`, the line docs/mcp.md gives.  Claude Code names an
#   MCP server's tools mcp__<server>__<tool>, so the mock model calls
#   mcp__hbcode__maintain_sessions.  Checks:
#   sdk      hb-mcp is connected and its tools are offered; the model's
#            maintain_sessions goes through hb-mcp to the broker (a
#            call.end event of the session hb-mcp made for the project,
#            agent external) and the broker's answer, which lists that
#            session, is the tool_result of the model's next request;
#            HB_HOME reaches hb-mcp only through the server's env
#   denied   without allowedTools the SDK's default mode denies the call
#            with its sentence, and the broker sees no call
#   approve  manage_sessions (agent class) raises HB Code's approval card
#            of the session while Claude Code waits; hbctl approve runs
#            it, the answer reaches the model, the session is renamed;
#            hb-mcp offered Claude Code the card too (elicitation: the
#            driver leaves it open) and withdrew it once answered
#   elicit   the same call approved in Claude Code (the driver accepts
#            the elicitation, as a person in its dialog): the card is
#            resolved allow and the call runs
#   decline  an SDK program without onElicitation: the SDK declines the
#            offered card at once and the model reads the decline
#   cli      `claude mcp add hbcode -e HB_HOME=... -- hb-mcp ...` in the
#            project: `claude mcp list` health-checks it (Connected), and
#            `claude -p --allowedTools mcp__hbcode__maintain_sessions`
#            makes the call through it, its answer in the result
# Usage: mcp-claude.sh BUILD (needs make npm-deps).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/claude-lib.sh"
. "$(dirname "$0")/mcp-lib.sh"
sessions_conf | start_broker
watch_events
start_claude_mock
# The Claude Code executable the SDK installed (its platform package).
claude_cli=$(ls "$hosts"/node_modules/@anthropic-ai/claude-agent-sdk-*/claude 2>/dev/null | head -1)

# claude_env COMMAND...: COMMAND in $tmp/project with Claude Code's
# environment on the mock; a sanitizer's report of hb-mcp (which gets
# this environment from Claude Code) goes to a file.
claude_env() {
	(
		export_claude_env
		export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}:log_path=$tmp/sanitizer" \
			UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}:log_path=$tmp/sanitizer"
		cd "$tmp/project" && exec "$@"
	)
}
# sdk_turn NAME PROMPT [DRIVER OPTIONS] -- HB-MCP OPTIONS: one turn through
# mcp-claude.mjs; its summary in $tmp/NAME.json, stderr in .err, status in
# .rc.  In the background when $background is set (its pid in sdk_pid).
sdk_turn() {
	local name=$1 prompt=$2
	shift 2
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	claude_env timeout 120 node "$here/e2e/mcp-claude.mjs" --cwd "$tmp/project" --prompt "$prompt" --timeout 100 \
		--drop-env HB_HOME --server-env "HB_HOME=$HB_HOME" "${opts[@]}" -- "$build/hb-mcp" "$@" \
		>"$tmp/$name.json" 2>"$tmp/$name.err" &
	sdk_pid=$!
	[ -n "${background:-}" ] && return 0
	wait "$sdk_pid"
	echo $? >"$tmp/$name.rc"
}
field() { json_field "$2" <"$tmp/$1.json"; }
# The tool_result blocks the model received, from the mock's log.
tool_results() {
	js_args '
		for (const l of require("fs").readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			for (const m of (JSON.parse(l).body || {}).messages || [])
				for (const c of Array.isArray(m.content) ? m.content : [])
					if (c.type === "tool_result") print(JSON.stringify(c));
		}' "$tmp/mock.jsonl"
}

# ---------------------------------------------------------------- sdk --
sdk_turn sdk '@tool maintain_sessions {"action":"listSessions"}' --allow mcp__hbcode__maintain_sessions -- --access full-auto
session=$(external_sessions | head -1)
check "sdk: the turn ended with a result" '[ "$(cat $tmp/sdk.rc)" = 0 ] && [ "$(field sdk result)" = success ]'
check "sdk: hb-mcp is connected, and its tools are offered as mcp__hbcode__*" \
	'[ "$(field sdk mcpServers.0.status)" = connected ] &&
	 field sdk hbcodeTools | grep -q "\"mcp__hbcode__maintain_sessions\"" && field sdk hbcodeTools | grep -q "\"mcp__hbcode__manage_sessions\""'
check "sdk: hb-mcp made one session of agent external for the project" \
	'[ -n "$session" ] && [ "$(external_sessions | wc -l)" = 1 ]'
check "sdk: the model called mcp__hbcode__maintain_sessions" '[ "$(field sdk toolUses)" = "[\"mcp__hbcode__maintain_sessions\"]" ]'
check "sdk: the broker ran the call for that session" '[ "$(calls_ok maintain_sessions "$session")" = 1 ]'
check "sdk: the model got the broker's answer, which lists that session, as the tool_result" \
	'tool_results | grep -v "\"is_error\":true" | grep -qF "\\\"id\\\":\\\"$session\\\""'

# ------------------------------------------------------------- denied --
sdk_turn denied '@tool maintain_sessions {"action":"guide"}' -- --session "$session" --access full-auto
check "denied: the turn ended with a result" '[ "$(cat $tmp/denied.rc)" = 0 ]'
check "denied: the SDK denied the call with its sentence" \
	'[ "$(field denied permissionDenials)" = "[\"mcp__hbcode__maintain_sessions\"]" ] &&
	 field denied toolResults | grep -qF "Claude requested permissions to use mcp__hbcode__maintain_sessions, but you haven'"'"'t granted it yet."'
check "denied: the broker saw no call (only sdk's)" '[ "$(calls_of maintain_sessions "$session")" = 1 ]'

# ------------------------------------------------------------ approve --
title_before=$(title_of "$session")
rename='@tool manage_sessions {"action":"rename","targetSessionId":"'"$session"'","title":"Renamed through MCP"}'
background=1 sdk_turn approve "$rename" --allow mcp__hbcode__manage_sessions --elicitation wait -- --session "$session" --access full-auto
check "approve: HB Code's approval card for manage_sessions of the session is up" \
	'wait_for 60 "[ -n \"\$(card_of manage_sessions $session)\" ]"'
check "approve: Claude Code waits: the session keeps its title" \
	'kill -0 $sdk_pid && [ "$(title_of "$session")" = "$title_before" ]'
"$build/hbctl" approve "$(card_of manage_sessions "$session")" >/dev/null
wait "$sdk_pid"
echo $? >"$tmp/approve.rc"
check "approve: the turn ended with a result" '[ "$(cat $tmp/approve.rc)" = 0 ]'
check "approve: the call ran after the approval, and the session is renamed" \
	'[ "$(calls_ok manage_sessions "$session")" = 1 ] && [ "$(title_of "$session")" = "Renamed through MCP" ]'
check "approve: the model got the broker's answer" \
	'tool_results | grep -F "Renamed through MCP" | grep -qv "\"is_error\":true"'
check "approve: hb-mcp offered Claude Code the card too (the text its dialog shows), and withdrew it" \
	'field approve elicitations.0.message | grep -qF "HB Code asks before manage_sessions runs (approval card " &&
	 [ "$(field approve elicitations.0.withdrawn)" = true ] && [ "$(field approve elicitations.1)" = undefined ]'

# ------------------------------------------------------------- elicit --
# The person answers in Claude Code's dialog instead (the driver accepts).
rename='@tool manage_sessions {"action":"rename","targetSessionId":"'"$session"'","title":"Approved in Claude Code"}'
sdk_turn elicit "$rename" --allow mcp__hbcode__manage_sessions --elicitation accept -- --session "$session" --access full-auto
check "elicit: the turn ended with a result" '[ "$(cat $tmp/elicit.rc)" = 0 ]'
check "elicit: Claude Code's answer approved HB Code's card, and the call ran" \
	'[ "$(events "e.event === \"approval.resolved\" && e.session === \"$session\" && e.decision === \"allow\"")" = 2 ] &&
	 [ "$(title_of "$session")" = "Approved in Claude Code" ] && [ "$("$build/hbctl" approvals --json)" = "[]" ]'
check "elicit: the model got the broker's answer" \
	'tool_results | grep -F "Approved in Claude Code" | grep -qv "\"is_error\":true"'

# ------------------------------------------------------------ decline --
# An SDK program without onElicitation: the SDK declines the question at once.
rename='@tool manage_sessions {"action":"rename","targetSessionId":"'"$session"'","title":"Renamed with nobody asked"}'
sdk_turn decline "$rename" --allow mcp__hbcode__manage_sessions -- --session "$session" --access full-auto
check "decline: the turn ended with a result" '[ "$(cat $tmp/decline.rc)" = 0 ]'
check "decline: the SDK's answer declined HB Code's card at once" \
	'[ "$(events "e.event === \"approval.resolved\" && e.session === \"$session\" && e.decision === \"deny\"")" = 1 ] &&
	 [ "$("$build/hbctl" approvals --json)" = "[]" ]'
check "decline: the model read the bridges' decline sentence; nothing ran" \
	'field decline toolResults | grep -qF "The user declined this tool call." &&
	 [ "$(calls_ok manage_sessions "$session")" = 2 ] && [ "$(title_of "$session")" = "Approved in Claude Code" ]'

# ---------------------------------------------------------------- cli --
served=$(calls_ok maintain_sessions "$session")
claude_env "$claude_cli" mcp add hbcode -e "HB_HOME=$HB_HOME" -- "$build/hb-mcp" --session "$session" --access full-auto \
	>"$tmp/cli-add.out" 2>&1
claude_env "$claude_cli" mcp list >"$tmp/cli-list.out" 2>&1
# The mock model cannot search for a deferred tool (Claude Code's
# ToolSearch): ENABLE_TOOL_SEARCH=false puts the tools in the request.
claude_env env -u HB_HOME ENABLE_TOOL_SEARCH=false timeout 100 "$claude_cli" -p --output-format json \
	--allowedTools mcp__hbcode__maintain_sessions -- '@tool maintain_sessions {"action":"resolveSession","targetSessionId":"'"$session"'"}' \
	</dev/null >"$tmp/cli.json" 2>"$tmp/cli.err"
echo $? >"$tmp/cli.rc"
check "cli: the bundled claude is there" '[ -x "$claude_cli" ]'
check "cli: claude mcp add wrote the server to the project's local config" \
	'grep -qF "Added stdio MCP server hbcode with command: $build/hb-mcp --session $session --access full-auto to local config" $tmp/cli-add.out'
check "cli: claude mcp list: hbcode is connected" 'grep -qF "hbcode: $build/hb-mcp --session $session --access full-auto - ✔ Connected" $tmp/cli-list.out'
check "cli: claude -p ended with a result" '[ "$(cat $tmp/cli.rc)" = 0 ] && [ "$(field cli subtype)" = success ]'
check "cli: the broker ran the call for the session" '[ "$(calls_ok maintain_sessions "$session")" = $((served + 1)) ]'
check "cli: the broker's answer reached the model and the result" \
	'field cli result | grep -qF "Approved in Claude Code"'

check "no sanitizer report" \
	'! cat $tmp/broker.log $tmp/sanitizer.* 2>/dev/null | grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:"'

if [ $fail -ne 0 ]; then
	for s in sdk denied approve elicit decline cli; do echo "--- $s"; cat "$tmp/$s.json"; tail -15 "$tmp/$s.err"; done
	cat "$tmp"/cli-*.out "$tmp"/sanitizer.* 2>/dev/null | head -60
	tail -40 "$tmp/broker.log"
fi
exit $fail
