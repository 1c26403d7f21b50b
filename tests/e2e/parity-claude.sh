#!/usr/bin/env bash
# End to end: parity-lib.sh's scenario with Claude - one HB Code session,
# its runs through claude-drive.mjs (the desktop) -> hb-claude-bridge ->
# the agent host (the real Claude Agent SDK) -> the mock Messages API; the
# broker runs svc-sessions, svc-messages and svc-alerts, whose link goes
# to the fake relay, where the phone declines every approval card.
# The steps, a run each, continuing one Claude conversation: tool,
# subagent (foreground), background (a subagent in the background),
# message, declined (parity-lib.sh); the declined
# call asks in a desktop-driven run (an agent-class tool asks in full-auto
# too), whose desktop answers no card: the phone does.
# Exceptions, and why:
#   turn_completed  live only: Claude's saved conversation keeps no
#              result message, so a saved turn has no end row
#              (timeline-claude.sh shows it); the saved turns are
#              compared without it
#   retry, rate_limit  live only for both agents: no saved turn keeps them
#   background  a step of Claude's alone (Codex has no background
#              subagent): the Agent call returns at once, the subagent runs
#              on, and its end comes back as a <task-notification> the SDK
#              answers in a turn of its own within the same run.  That
#              turn has no turn_started row, live or saved (the bridge
#              starts a turn's rows at a prompt or message it sends; this
#              one the SDK starts), only its answer and, live, its end -
#              a gap, asserted as it is so a change shows; the
#              notification itself is saved only, as a hidden row (no
#              live message carries it)
#   a subagent's rows  the SDK's live stream carries a foreground
#              subagent's messages without their text blocks (its tool
#              calls only) and not its last message (its answer comes
#              back as the Agent call's result), and a background
#              subagent's without its prompt: saved only
# Checks: kinds (live = saved, per level), parity (each step's kinds are
# the scenario's), screen (the live view on a pseudo-terminal shows each
# row: the prompts, the tool with its arguments and its outcome, the
# subagent's spawn and its tool with its arguments, the message, the card
# with hbctl approve/decline and then declined, the declined call with
# its arguments, each turn's end).
# The mock Messages API writes "I will call X." before each call, the
# Codex mock nothing: parity-lib.sh compares the turns without that text.
# Usage: parity-claude.sh BUILD (needs make npm-deps, openssl, python3).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/claude-lib.sh"
. "$(dirname "$0")/alerts-lib.sh"
. "$(dirname "$0")/parity-lib.sh"
require sqlite3
export LIVE_ONLY="retry rate_limit turn_completed"
# the turn of a background subagent's end has no start row (see above)
STEP_KINDS_BACKGROUND="turn_started user spawn assistant turn_completed assistant turn_completed"

make_certs
start_relay --answer deny # the phone declines each card
alerts_settings
start_alerts_broker "$(messages_conf)"
watch_events
check "the device link is ready" 'wait_for 30 link_ready'
session=$(full_auto_session "Parity" claude)
check "a session for the runs" '[ -n "$session" ]'
pty_watch_start --session "$session"
start_claude_mock

# tool
prompt_tool='@tool maintain_sessions {"action":"guide"}'
claude_run tool "$prompt_tool"
cid=$(claude_session)
check "tool: the run ended, the session has its conversation" '[ "$(cat $tmp/tool.rc)" = 0 ] && [ -n "$cid" ] && [ "$cid" != null ]'

# subagent, in the foreground
prompt_agent='@tool Agent {"description":"List sessions","prompt":"@tool maintain_sessions {\"action\":\"listSessions\",\"limit\":3}","subagent_type":"general-purpose","run_in_background":false}'
claude_run agent "$prompt_agent" --claude-session "$cid"
check "subagent: the run ended, in the same conversation" '[ "$(cat $tmp/agent.rc)" = 0 ] && [ "$(claude_session)" = "$cid" ]'

# subagent, in the background: the run stays (--stay-until) until the
# turn the SDK runs for the subagent's end has ended too
prompt_bg='@tool Agent {"description":"List sessions later","prompt":"@tool maintain_sessions {\"action\":\"listSessions\",\"limit\":2}","subagent_type":"general-purpose","run_in_background":true}'
ends() { timeline_rows "$session" "r.kind === \"turn_completed\""; }
ends_before=$(ends)
claude_stay background "$prompt_bg" --claude-session "$cid"
check "background: the prompt's turn and the turn of the subagent's end both ended" \
	'wait_for 60 "[ \$(ends) -ge $((ends_before + 2)) ]"'
touch "$tmp/background.stop"
wait "$desktop"
rc=$?
desktop=
check "background: the run ended, in the same conversation" '[ $rc = 0 ] && [ "$(claude_session)" = "$cid" ]'

# message: a run that only receives (after HB_CLAUDE_FIRST_SEND_MS), sent
# to once it carries the session
sender=$(full_auto_session "Docs & site" codex)
"$build/hbctl" run open run-sender --session "$sender" --project "$tmp/project" --agent codex --access full-auto >/dev/null
HB_CLAUDE_FIRST_SEND_MS=1000 claude_stay message "" --claude-session "$cid"
# session.attached names no run: one more than the earlier runs made
attached_before=$(attaches "$session")
attached() { [ "$(attaches "$session")" -gt "$attached_before" ]; }
check "message: the run carries the session" 'wait_for 60 attached'
body='Please say OK when the docs are rebuilt.'
"$build/hbctl" call send_session_message \
	"$(js_args 'print(JSON.stringify({recipientSessionId: argv[0], message: argv[1]}))' "$session" "$body")" \
	--run run-sender --call-id call-parity --timeout 20000 >"$tmp/receipt.txt"
check "message: delivered" 'wait_for 90 "state_is call-parity sent"'
touch "$tmp/message.stop"
wait "$desktop"
rc=$?
desktop=
check "message: the run ended, in the same conversation" '[ $rc = 0 ] && [ "$(claude_session)" = "$cid" ]'

# declined: an agent-class tool asks even in a full-auto run; the desktop
# answers no card, the phone declines it
prompt_decline='@tool manage_sessions {"action":"archive","targetSessionId":"'"$session"'"}'
claude_run decline "$prompt_decline" --claude-session "$cid"
check "declined: the run ended, in the same conversation" '[ "$(cat $tmp/decline.rc)" = 0 ] && [ "$(claude_session)" = "$cid" ]'
phone_declined() {
	js_args '
		const recs = require("fs").readFileSync(argv[0], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
		const card = recs.find((r) => r.kind === "approval" && r.tool === "mcp__hbcode__manage_sessions" && r.runId === "run-decline");
		const answer = card && recs.findIndex((r) => r.kind === "answer" && r.approvalId === card.approvalId && r.decision === "deny");
		exit(card && answer >= 0 && recs.some((r) => r.kind === "result" && r.id === recs[answer].id && r.ok === true) ? 0 : 1);
	' "$tmp/relay.jsonl"
}
check "declined: the phone was shown the card and declined it (approval-result ok)" 'wait_for 30 phone_declined'
check "declined: the card settled as declined, none left" \
	'[ "$(events "e.event===\"approval.resolved\" && e.decision===\"deny\" && e.run===\"run-decline\"")" = 1 ] &&
	 [ -z "$("$build/hbctl" approvals 2>/dev/null | grep "^a[0-9]")" ]'

# The live rows, and the saved ones.  The subagents' threads: their spawn
# rows' links.
wait_for 10 '[ "$(timeline_rows "$session" "r.kind === \"turn_completed\"")" -ge 4 ]'
live_rows "$session" >"$tmp/live.jsonl"
(export_claude_env && exec timeout 120 "$build/hbctl" timeline --session "$session" --json) \
	>"$tmp/saved.jsonl" 2>"$tmp/saved.err"
rc=$?
check "saved: hbctl timeline --session read the conversation" '[ $rc = 0 ] && [ -s "$tmp/saved.jsonl" ] && [ ! -s "$tmp/saved.err" ]'
thread_of() { js_args 'for (const l of require("fs").readFileSync(argv[0], "utf8").split("\n").filter(Boolean)) { const r = JSON.parse(l); if (r.kind === "spawn" && r.title === argv[1]) print(r.link.thread); }' "$tmp/live.jsonl" "$1"; }
fg=$(thread_of "List sessions") bg=$(thread_of "List sessions later")
check "the two subagents' threads" '[ -n "$fg" ] && [ -n "$bg" ] && [ "$fg" != "$bg" ]'
SAVED_ONLY_ROWS="r.kind === 'hidden' || (r.thread === '$fg' && r.kind === 'assistant') || (r.thread === '$bg' && r.kind === 'user')"

agent=claude PTY_TOOL='hbcode\.maintain_sessions \{action: "guide"\}' \
	PTY_CHILD='hbcode\.maintain_sessions \{action: "listSessions", limit: 3\}' \
	PTY_DECLINED='hbcode\.manage_sessions \{action: "archive", targetSessionId: "[^"]+"\}'
parity_checks
check "screen: the background subagent's spawn, completed" 'pty_shows "^[0-9:]+  Parity +claude +Subagent List sessions later .* +completed$"'
exit $fail
