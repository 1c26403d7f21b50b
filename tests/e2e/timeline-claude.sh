#!/usr/bin/env bash
# End to end: a Claude session's saved timeline replaces its live one.
# Three runs of one session through hb-claude-bridge and the real Claude
# Agent SDK (the mock Messages API behind it): an hbcode tool call, then
# an Agent call whose subagent calls an hbcode tool itself, then an hbcode
# tool call the person declines, then a run opened only to receive, into
# which svc-messages delivers another session's message.  The live rows
# come out as timeline.row events; then `hbctl timeline` reads the saved
# conversation and its subagent through a one-shot agent host and
# projects it.  Checks:
#   person     live, each prompt is a user row and the delivered message an
#              agent communication row, under the ids of their saved
#              messages; the message's row is published again once the
#              bridge's transcript read found it (the saved row in place),
#              and a viewer never holds two rows of one message
#   turns      live, each turn is turn_started, the prompt's or message's
#              row, ..., turn_completed with its duration, tokens and cost:
#              the kinds timeline-codex.sh checks for Codex
#   same ids   every row the live runs published has a saved row with the
#              same id and kind (but a turn's end: the transcript keeps no
#              result) (the saved row replaces it in place), and
#              the saved tool rows are completed as the live ones ended
#              (the declined call stays declined)
#   saved only the prompts, which Claude's live stream never echoes (a
#              subagent's prompt it forwards)
#   subagent   live, the spawn row follows Claude's task events (its agent
#              id, tool uses, last tool, summary) to completed; live and
#              saved, the subagent's rows have depth 1, and the saved ones
#              come right after the parent's spawn row
#   text       --plain prints the rows for a person, the subagent's indented;
#              --thread the subagent's own view
#   by session --session reads the same conversation by its HB Code
#              session; --since leaves out what is older
#   errors     an unknown conversation, a bad id, no --cwd: a sentence and
#              a failing exit status, nothing on stdout
# Usage: timeline-claude.sh BUILD (needs npm ci in agent-host).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/claude-lib.sh"

start_claude_mock
{ sessions_conf; messages_conf; } | start_broker
watch_events
session=$(full_auto_session "Timeline" claude)
check "a session for the runs" '[ -n "$session" ]'

prompt_tool='@tool maintain_sessions {"action":"guide"}'
prompt_agent='@tool Agent {"description":"List sessions","prompt":"@tool maintain_sessions {\"action\":\"listSessions\",\"limit\":3}","subagent_type":"general-purpose","run_in_background":false}'
export P1=$prompt_tool P2=$prompt_agent # for compare
claude_run tool "$prompt_tool"
check "the tool run ended" '[ "$(cat $tmp/tool.rc)" = 0 ]'
cid=$(claude_session)
check "the session has its Claude conversation" '[ -n "$cid" ] && [ "$cid" != null ]'
# The second run continues the conversation, as the desktop opens it.
claude_run agent "$prompt_agent" --claude-session "$cid"
check "the Agent run ended, in the same conversation" '[ "$(cat $tmp/agent.rc)" = 0 ] && [ "$(claude_session)" = "$cid" ]'
prompt_decline='@tool manage_sessions {"action":"archive","targetSessionId":"'"$session"'"}'
decline="Not now, please." claude_run decline "$prompt_decline" --claude-session "$cid"
check "the declined run ended, in the same conversation" '[ "$(cat $tmp/decline.rc)" = 0 ] && [ "$(claude_session)" = "$cid" ]'

# Another session's message goes into a run whose desktop sends nothing
# (after HB_CLAUDE_FIRST_SEND_MS).  It is sent once the run carries the
# session: queued before, the broker would launch a run of its own for it.
require sqlite3
sender=$(full_auto_session "Docs & site" codex)
"$build/hbctl" run open run-sender --session "$sender" --project "$tmp/project" --agent codex --access full-auto >/dev/null
# session.attached names no run: one more than the earlier runs made.
attaches() { events "e.event === \"session.attached\" && e.session === \"$session\" && e.agent === \"claude\""; }
attached_before=$(attaches)
HB_CLAUDE_FIRST_SEND_MS=1000 claude_stay message "" --claude-session "$cid"
attached() { [ "$(attaches)" -gt "$attached_before" ]; }
check "message: the run carries the session" 'wait_for 60 attached'
body='Please say OK when the docs are rebuilt.'
"$build/hbctl" call send_session_message \
	"$(js_args 'print(JSON.stringify({recipientSessionId: argv[0], message: argv[1]}))' "$session" "$body")" \
	--run run-sender --call-id call-tl --timeout 20000 >"$tmp/receipt.txt"
check "message: delivered (a transcript read found it)" 'wait_for 90 "state_is call-tl sent"'
touch "$tmp/message.stop"
wait "$desktop"
rc=$?
desktop=
check "message: the run ended cleanly, in the same conversation" '[ $rc = 0 ] && [ "$(claude_session)" = "$cid" ]'

# The live rows: the last of each id, as a viewer holds them.
wait_for 10 '[ "$(timeline_rows "$session" "r.depth === 1")" -ge 1 ]'
js_args '
	const fs = require("fs"), rows = new Map();
	for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
		let e; try { e = JSON.parse(l); } catch { continue; }
		if (e.event === "timeline.row" && e.session === argv[1]) rows.set(e.row.id, e.row);
	}
	for (const r of rows.values()) print(JSON.stringify(r));' "$tmp/events.jsonl" "$session" >"$tmp/live.jsonl"
check "live rows were published" '[ "$(wc -l <"$tmp/live.jsonl")" -ge 4 ]'

(export_claude_env && exec timeout 120 "$build/hbctl" timeline "$cid" --cwd "$tmp/project" --json) \
	>"$tmp/saved.jsonl" 2>"$tmp/saved.err"
rc=$?
check "hbctl timeline --json: exit status 0" '[ $rc = 0 ]'
check "hbctl timeline --json: nothing on stderr" '[ ! -s "$tmp/saved.err" ]' || cat "$tmp/saved.err"

# compare JS: the rows of both files as arrays live and saved; prints what
# the condition returns.  env: the prompts and the message (the evaluator
# started before they were set, so not process.env).
compare() {
	js_args '
		const fs = require("fs");
		const read = (f) => fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
		const live = read(argv[0]), saved = read(argv[1]);
		const byId = new Map(saved.map((r) => [r.id, r]));
		const env = { P1: argv[3], P2: argv[4], P3: argv[5], BODY: argv[6], SENDER: argv[7] };
		print(eval(argv[2]));' "$tmp/live.jsonl" "$tmp/saved.jsonl" "$1" \
		"${P1-}" "${P2-}" "${P3-}" "${BODY-}" "${SENDER-}"
}
check "same ids: every live row has its saved row, of the same kind (a turn's end, a retry, a rate limit are live only)" \
	'[ "$(compare "live.filter((r) => ![\"turn_completed\", \"retry\", \"rate_limit\"].includes(r.kind) && (!byId.has(r.id) || byId.get(r.id).kind !== r.kind)).map((r) => r.id).join(\" \")")" = "" ]'
check "same ids: no id twice among the saved rows" '[ "$(compare "saved.length - byId.size")" = 0 ]'
check "same ids: each live tool row ended as its saved row (status, output)" \
	'[ "$(compare "live.filter((r) => r.kind === \"tool\" && (byId.get(r.id).status !== r.status || byId.get(r.id).output !== r.output)).length")" = 0 ]'
check "same ids: the declined call, declined live and still declined saved" \
	'[ "$(compare "[live, saved].map((rows) => rows.filter((r) => r.kind === \"tool\" && r.label === \"hbcode: manage_sessions\" && r.status === \"declined\" && r.output.includes(\"Not now, please.\")).length).join(\" \")")" = "1 1" ]'
check "same ids: the hbcode tool row, completed with its output" \
	'[ "$(compare "saved.filter((r) => r.kind === \"tool\" && r.label === \"hbcode: maintain_sessions\" && r.status === \"output\" && r.depth === 0 && r.output.includes(\"read-only view of the HB Code sessions\")).length")" = 1 ]'
export P3=$prompt_decline BODY=$body SENDER=$sender
check "person: the three prompts as user rows live (the bridge's, the stream never echoes them), each with its saved row" \
	'[ "$(compare "live.filter((r) => r.kind === \"user\" && r.depth === 0 && [env.P1, env.P2, env.P3].includes(r.text) && byId.get(r.id).text === r.text).length + \" \" + live.filter((r) => r.kind === \"user\" && r.depth === 0).length")" = "3 3" ]'
check "subagent: the live spawn row updated by Claude's task events (agent id, tool uses), then completed" \
	'[ "$(timeline_rows "$session" "r.kind === \"spawn\" && /^a[0-9a-f]+$/.test(r.agentId) && r.toolUses >= 1 && r.lastTool === \"hbcode: maintain_sessions\"")" -ge 1 ] &&
	 [ "$(compare "live.filter((r) => r.kind === \"spawn\" && r.status === \"completed\" && r.summary.length > 0).length")" = 1 ]'
check "subagent: the live subagent rows have depth 1" \
	'[ "$(compare "live.filter((r) => r.depth === 1).length > 0 && live.every((r) => r.depth === 0 || r.depth === 1)")" = true ]'
check "subagent: its saved tool row (listSessions), depth 1, completed" \
	'[ "$(compare "saved.filter((r) => r.depth === 1 && r.kind === \"tool\" && r.label === \"hbcode: maintain_sessions\" && r.status === \"output\").length")" = 1 ]'
check "subagent: the spawn row, completed, and the subagent's rows right after it" \
	'[ "$(compare "(() => { const i = saved.findIndex((r) => r.kind === \"spawn\"); const sub = saved.filter((r) => r.depth === 1).length;
		return i >= 0 && saved[i].status !== \"running\" && sub > 0 && saved.slice(i + 1, i + 1 + sub).every((r) => r.depth === 1 && r.thread === saved[i].id.slice(7)); })()")" = true ]'

check "person: the delivered message, live and saved, as an agent communication row from its sender" \
	'[ "$(compare "[live, saved].map((rows) => rows.filter((r) => r.kind === \"agent_message\" && r.depth === 0 && r.text === env.BODY && r.fromSession === env.SENDER && r.fromTitle === \"Docs & site\" && r.fromAgent === \"codex\").length).join(\" \")")" = "1 1" ]'
# flicker: every timeline.row event of the session in order, as a viewer
# places them by id; prints "MESSAGE-EVENTS WORST": how often the message's
# row was published (live, then saved once the read found it), and the most
# rows a viewer ever held for one text of a user or agent_message row.
flicker() {
	js_args '
		const fs = require("fs"), held = new Map();
		let worst = 0, msg = 0;
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			let e; try { e = JSON.parse(l); } catch { continue; }
			if (e.event !== "timeline.row" || e.session !== argv[1]) continue;
			const r = e.row;
			if (r.kind === "agent_message") msg++;
			held.set(r.id, r);
			const byText = new Map();
			for (const h of held.values())
				if (h.kind === "user" || h.kind === "agent_message") byText.set(h.text, (byText.get(h.text) || 0) + 1);
			worst = Math.max(worst, ...byText.values(), 0);
		}
		print(msg, worst);' "$tmp/events.jsonl" "$session"
}
check "person: the message row published live, then again saved in its place; never two rows of one message" \
	'[ "$(flicker)" = "2 1" ]'
# turns: the kinds of the live depth-0 rows, each turn on a line of its own.
turns() {
	compare "(() => { const t = []; for (const r of live.filter((r) => r.depth === 0)) { if (r.kind === \"turn_started\") t.push([]); if (t.length) t[t.length - 1].push(r); }
		return t.map((rows) => { const end = rows[rows.length - 1];
			return rows[0].kind + \" \" + rows[1].kind + \" \" + end.kind + \" \" + end.status + \" \" + (end.turn === rows[0].turn && rows[1].id === \"claude:\" + end.turn + \"#0\") + \" \" +
				[end.durationMs, end.tokensIn, end.tokensOut].every((n) => Number.isInteger(n) && n > 0) + \" \" + (end.costUsd > 0); }).join(\"\\n\"); })()"
}
check "turns: four live turns, each turn_started, its prompt or message, ..., turn_completed with duration, tokens and cost" \
	'[ "$(turns)" = "$(printf "turn_started user turn_completed completed true true true\nturn_started user turn_completed completed true true true\nturn_started user turn_completed completed true true true\nturn_started agent_message turn_completed completed true true true")" ]'
check "turns: the saved conversation starts each turn as live (turn_started under the same id)" \
	'[ "$(compare "saved.filter((r) => r.kind === \"turn_started\").length + \" \" + live.filter((r) => r.kind === \"turn_started\" && byId.has(r.id)).length")" = "4 4" ]'

# ids_of FILE: the ids of a file of rows, in order, on one line.
ids_of() { js_args 'print(require("fs").readFileSync(argv[0], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l).id).join(" "))' "$1"; }
spawn=$(compare "saved.find((r) => r.kind === \"spawn\").link.thread")
(export_claude_env && exec timeout 120 "$build/hbctl" timeline "$cid" --cwd "$tmp/project" --thread "$spawn" --json) \
	>"$tmp/view.jsonl" 2>"$tmp/view.err"
rc=$?
check "subagent: --thread prints its own view, exactly its saved rows" \
	'[ $rc = 0 ] && [ "$(ids_of "$tmp/view.jsonl")" = "$(compare "saved.filter((r) => r.depth === 1).map((r) => r.id).join(\" \")")" ]'
# The same conversation named by its HB Code session; --since: every row
# since an hour ago, none since tomorrow.
(export_claude_env && exec timeout 120 "$build/hbctl" timeline --session "$session" --json) \
	>"$tmp/by-session.jsonl" 2>"$tmp/by-session.err"
check "--session: the session's own conversation, the same rows" 'cmp -s "$tmp/saved.jsonl" "$tmp/by-session.jsonl"'
(export_claude_env && exec timeout 120 "$build/hbctl" timeline "$cid" --cwd "$tmp/project" --json --since 1h) \
	>"$tmp/hour.jsonl" 2>"$tmp/hour.err"
(export_claude_env && exec timeout 120 "$build/hbctl" timeline "$cid" --cwd "$tmp/project" --json \
	--since "$(date -d tomorrow +%Y-%m-%d)") >"$tmp/tomorrow.jsonl" 2>"$tmp/tomorrow.err"
check "--since: every row since an hour ago, none since tomorrow" \
	'cmp -s "$tmp/saved.jsonl" "$tmp/hour.jsonl" && [ -f "$tmp/tomorrow.jsonl" ] && [ ! -s "$tmp/tomorrow.jsonl" ]'
(export_claude_env && exec timeout 120 "$build/hbctl" timeline "$cid" --cwd "$tmp/project" --thread toolu_none) \
	>"$tmp/noview.out" 2>"$tmp/noview.err"
rc=$?
check "subagent: --thread of no subagent says so" '[ $rc = 1 ] && grep -q "no subagent of this conversation was started by call toolu_none" "$tmp/noview.err"'
(export_claude_env && exec timeout 120 "$build/hbctl" timeline "$cid" --cwd "$tmp/project" --plain) \
	>"$tmp/saved.txt" 2>"$tmp/saved-text.err"
rc=$?
check "text: exit status 0, the prompt and the tool's label, no colour" \
	'[ $rc = 0 ] && grep -qF "$prompt_tool" "$tmp/saved.txt" && grep -q "hbcode: maintain_sessions" "$tmp/saved.txt" && ! grep -q $'"'"'\033'"'"' "$tmp/saved.txt"'
check "text: the subagent's rows indented" 'grep -q "^  " "$tmp/saved.txt"'

# errors
(export_claude_env && exec timeout 120 "$build/hbctl" timeline 00000000-0000-4000-8000-000000000000 --cwd "$tmp/project") \
	>"$tmp/none.out" 2>"$tmp/none.err"
rc=$?
check "errors: an unknown conversation fails with not_found, nothing on stdout" \
	'[ $rc = 1 ] && grep -q "no saved Claude conversation 00000000-0000-4000-8000-000000000000 in $tmp/project (not_found)" "$tmp/none.err" && [ ! -s "$tmp/none.out" ]'
(export_claude_env && exec timeout 120 "$build/hbctl" timeline "not-a-uuid" --cwd "$tmp/project") >"$tmp/bad.out" 2>"$tmp/bad.err"
rc=$?
check "errors: a bad id fails with the host's sentence" '[ $rc = 1 ] && grep -q "invalid_request" "$tmp/bad.err" && [ ! -s "$tmp/bad.out" ]'
"$build/hbctl" timeline "$cid" >"$tmp/usage.out" 2>"$tmp/usage.err"
rc=$?
check "errors: no --cwd is a usage error" '[ $rc = 100 ] && grep -q "usage: hbctl timeline" "$tmp/usage.err"'
check "no sanitizer report" '! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/*.err $tmp/broker.log'
exit $fail
