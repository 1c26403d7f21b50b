#!/usr/bin/env bash
# End to end: a session message to a Claude session whose agent does not
# run starts a turn of its own (page 000), through `hb-claude-bridge
# --once` (contract (2): the command line the broker's launcher uses),
# with the real Claude Agent SDK (agent-host/host.mjs) on the mock
# Messages API on 127.0.0.1.  Until "launched", the broker cannot start an
# agent (its agentHost names no program) and the bridge is started by
# hand, with stdin from /dev/null, as the launcher starts it; in
# "launched" the broker starts both bridges itself.
# Checks:
#   saved    a Claude session with a saved conversation: one turn through
#            the bridge as a desktop runs it (claude-drive.mjs), then closed
#   once     a message queued while nothing runs goes into the resumed
#            conversation at once after the open (the model's request has
#            the earlier turn before the envelope; the SDK's transcript has
#            it under the message's uuid); the model answers the sender
#            with send_session_message, which is queued for the sender as a
#            new message from the Claude session, bound to the --once run
#            and its --access; the bridge ends by itself after the turn
#            (status 0, nothing on stdout), the run is closed and the
#            session detached
#   approve  a message whose turn asks for an approval card: with nobody
#            watching, the card waits in `hbctl approvals` and the bridge
#            with it; approved there, the tool runs and the bridge ends
#   term     SIGTERM while the card waits: the card is cancelled, the run
#            closed, the session detached
#   cancel   SIGTERM while an approved tool call runs (svc-echo's slow
#            stand-in): the call's handler sees the cancel
#   idle     a --once bridge that is handed nothing ends HB_ONCE_IDLE_MS
#            after its open (not before) and detaches; without
#            --claude-session its host starts a new conversation
#   failed   a host that cannot start Claude Code: the bridge says why on
#            stderr, ends with status 1, and the run is closed
#   launched a message from one Claude session to another, neither
#            running: the broker starts the recipient's bridge, the message
#            goes into its resumed conversation, its model answers with
#            send_session_message, the broker starts the sender's bridge,
#            and the answer goes into the sender's resumed conversation as
#            a new message; both bridges end by themselves, their runs
#            closed and their sessions detached; the answerer's run opens
#            with the answerer's model and effort (setModel): its model's
#            requests name them
#   new      a message to a Claude session never opened (no
#            conversation): the broker starts its bridge all the same, on
#            a new conversation with the session's model and effort, links
#            it to the session, and the message goes in
#   automode a full-access session on a model without Auto mode: its
#            launched run fails at the open with the page's sentence,
#            which hbctl messages gives as the reason, and nothing reaches
#            the model
#   stopped  a launched run whose model hangs: hbctl run stop ends the
#            bridge the broker started (SIGTERM: its own close), the run
#            closes, the session detaches, and the message is not lost
#   desktop  a desktop's run on a session with a model and effort, the
#            bridge given neither: the run opens with the session's
# Usage: launch-claude.sh BUILD (needs npm ci in agent-host, sqlite3).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/claude-lib.sh"
require sqlite3
db=$HB_HOME/data/appdata.db

sent_by() { sqlite3 -cmd ".timeout 5000" "$db" "SELECT sender_run_id || ' ' || sender_access FROM chat_session_messages WHERE sender_session_id = '$1'"; }
envelope() {
	printf 'Message from another HB Code session. Answer this message in one of three ways: do it, ask one question, or object with the reason.\n<session_message from_session_id="%s" from_title="Sender" from_agent="codex">\n%s\n</session_message>' \
		"$sender" "$1"
}
# send CALL-ID MESSAGE: from the sender's open run to the recipient.
send() { send_from run-sender "$recipient" "$@"; }
# send_from RUN RECIPIENT CALL-ID MESSAGE
send_from() {
	"$build/hbctl" call send_session_message \
		"$(js_args 'print(JSON.stringify({recipientSessionId: argv[0], message: argv[1]}))' "$2" "$4")" \
		--run "$1" --call-id "$3" --timeout 20000
}
# Claude Code against the mock only (docs/agent-host-pipe.md).
claude_vars() {
	vars=(HOME="$tmp/home" CLAUDE_CONFIG_DIR="$tmp/home/.claude" ANTHROPIC_BASE_URL="http://127.0.0.1:$port"
		ANTHROPIC_API_KEY=test DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1)
}
claude_env() { claude_vars; env "${vars[@]}" "$@"; }
# once NAME RUN [VAR=VALUE...]: hb-claude-bridge --once for the recipient,
# in the background (pid in $bridge, and in $desktop for the clean-up),
# with contract (2)'s command line and stdin from /dev/null.  The saved
# conversation's --claude-session is in $resume, the host's arguments in
# $host_args.
resume=()
host_args=()
once() {
	local name=$1 run=$2
	shift 2
	claude_vars
	# An hour of both limits unless the caller sets them: a message that
	# waited for a desktop's first prompt would never go in, and a run
	# would end for its turns, never for the idle limit.
	# env execs the bridge: $! is the bridge itself, for the SIGTERM below.
	env "${vars[@]}" HB_CLAUDE_FIRST_SEND_MS=3600000 HB_ONCE_IDLE_MS=3600000 "$@" "$build/hb-claude-bridge" --session "$recipient" --run "$run" --project "$tmp/project" \
		--access full-auto "${resume[@]}" --once -- node "$hosts/host.mjs" "${host_args[@]}" \
		</dev/null >"$tmp/$name.out" 2>"$tmp/$name.err" &
	bridge=$!
	desktop=$bridge
}
# ended SECONDS: true once the bridge has ended by itself within SECONDS;
# its status in $rc.  Killed (and false) otherwise.
ended() {
	if wait_for "$1" '! kill -0 "$bridge" 2>/dev/null'; then
		wait "$bridge"
		rc=$?
		desktop=
		return 0
	fi
	rc=timeout
	return 1
}
# How many events of the recipient's session: attached | detached.
session_events() { events "e.event===\"session.$1\" && e.session===\"$recipient\""; }
# The run is closed: the broker says so, and a call bound to it is refused.
run_closed() {
	grep -q "run $1 closed" "$tmp/broker.log" &&
		"$build/hbctl" call maintain_sessions '{"action":"guide"}' --run "$1" 2>&1 | grep -q "is not an open run"
}
approval_id() { "$build/hbctl" approvals 2>/dev/null | sed -n 's/^\(a[0-9]*\)[[:space:]].*/\1/p' | head -1; }
# The first request to the mock whose last user message has a text block
# equal to file $1, as "SEQ EARLIER": EARLIER is 1 when an earlier user
# message of that request contains text $2 and an assistant message lies
# between the two ("0 0": no such request).
# model_effort FILE: "MODEL EFFORT" of the requests to the mock whose last
# user message has a text block equal to file FILE, one line per pair.
model_effort() {
	js_args '
		const fs = require("fs");
		const want = fs.readFileSync(argv[1], "utf8");
		const texts = (m) => typeof m.content === "string" ? [m.content] :
			m.content.filter((c) => c.type === "text").map((c) => c.text);
		const seen = new Set();
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const b = JSON.parse(l).body, msgs = (b && b.messages) || [];
			const last = msgs.map((m) => m.role).lastIndexOf("user");
			if (last >= 0 && texts(msgs[last]).includes(want))
				seen.add(b.model + " " + (b.output_config && b.output_config.effort));
		}
		print([...seen].join("\n"));' "$tmp/mock.jsonl" "$1"
}
resumed_with() {
	js_args '
		const fs = require("fs");
		const want = fs.readFileSync(argv[1], "utf8"), earlier = argv[2];
		const texts = (m) => typeof m.content === "string" ? [m.content] :
			m.content.filter((c) => c.type === "text").map((c) => c.text);
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l), msgs = (r.body && r.body.messages) || [];
			const last = msgs.map((m) => m.role).lastIndexOf("user");
			if (last < 0 || !texts(msgs[last]).includes(want)) continue;
			const before = msgs.findIndex((m) => m.role === "user" && texts(m).some((t) => t.includes(earlier)));
			const between = before >= 0 && msgs.slice(before + 1, last).some((m) => m.role === "assistant");
			print(r.seq + " " + (between ? 1 : 0));
			exit(0);
		}
		print("0 0");' "$tmp/mock.jsonl" "$1" "$2"
}
# The SDK's own reading of the saved conversation (getSessionMessages):
# "AT BEFORE" where AT is the index of the user message whose uuid is the
# one the bridge derives from operation id $1 (SHA-256, version 8) and
# whose text is file $2 (-1: none), BEFORE the index of the first user
# message containing text $3; in conversation $4 (default: the recipient's).
in_transcript() {
	claude_env node --input-type=module -e '
		import fs from "node:fs";
		import crypto from "node:crypto";
		const { getSessionMessages } = await import(process.argv[1]);
		const [conversation, dir, op, file, earlier] = process.argv.slice(2);
		const h = crypto.createHash("sha256").update(op).digest();
		h[6] = (h[6] & 0x0f) | 0x80;
		h[8] = (h[8] & 0x3f) | 0x80;
		const x = h.subarray(0, 16).toString("hex");
		const uuid = [x.slice(0, 8), x.slice(8, 12), x.slice(12, 16), x.slice(16, 20), x.slice(20)].join("-");
		const want = fs.readFileSync(file, "utf8");
		const texts = (m) => typeof m.message.content === "string" ? [m.message.content] :
			m.message.content.filter((c) => c.type === "text").map((c) => c.text);
		const msgs = (await getSessionMessages(conversation, { dir })).filter((m) => m.type === "user");
		const at = msgs.findIndex((m) => m.uuid === uuid && texts(m).includes(want));
		const before = msgs.findIndex((m) => texts(m).some((t) => t.includes(earlier)));
		console.log(at + " " + before);' \
		"$hosts/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs" "${4:-$conversation}" "$tmp/project" "$1" "$2" "$3"
}

# desktop_turn NAME SESSION CONVERSATION PROMPT: one turn of a desktop in
# a new conversation of SESSION (run NAME), then closed; its status in $rc.
desktop_turn() {
	claude_env timeout 170 node "$here/e2e/claude-drive.mjs" --hbctl "$build/hbctl" --timeout 150 \
		--transcript "$tmp/$1.transcript" --prompt "$4" \
		-- "$build/hb-claude-bridge" --session "$2" --run "$1" --project "$tmp/project" \
		--access full-auto --claude-session "$3" -- node "$hosts/host.mjs" \
		>"$tmp/$1.json" 2>"$tmp/$1.err"
	rc=$?
}

start_claude_mock
# The broker's environment is that of the bridges it starts.
claude_vars
export "${vars[@]}"
{ sessions_conf; messages_conf; slow_tool_conf; } | start_broker
watch_events
# No agent host for the broker until "launched": the bridges are started
# by hand.
"$build/hbctl" settings agent-host set "no-such-node /nowhere/host.mjs" >/dev/null

recipient=$(full_auto_session "Claude recipient" claude)
sender=$(full_auto_session Sender codex)
check "two sessions" '[ -n "$recipient" ] && [ -n "$sender" ]'
"$build/hbctl" run open run-sender --session "$sender" --project "$tmp/project" --agent codex --access full-auto >/dev/null
conversation=$(js_args 'print(require("crypto").randomUUID())')
resume=(--claude-session "$conversation")

# --------------------------------------------------------------- saved --
earlier='Remember the word PELICAN for later.'
desktop_turn saved "$recipient" "$conversation" "$earlier"
check "saved: a desktop's turn in a new conversation, closed" \
	'[ $rc = 0 ] && grep -q "\"resumed\":false" "$tmp/saved.json" && grep -q "\"sessionId\":\"$conversation\"" "$tmp/saved.json"'
check "saved: the SDK has the conversation" \
	'claude_env node --input-type=module -e "const { getSessionMessages } = await import(process.argv[1]); process.exit((await getSessionMessages(process.argv[2], { dir: process.argv[3] })).length >= 2 ? 0 : 1)" \
		"$hosts/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs" "$conversation" "$tmp/project"'
check "saved: its run closed, its session detached" 'run_closed saved && wait_for 20 "[ \$(session_events detached) = 1 ]"'

# ---------------------------------------------------------------- once --
body='Please confirm, then answer me: @tool send_session_message {"recipientSessionId":"'"$sender"'","message":"Reply from Claude: got it."}'
envelope "$body" >"$tmp/once.envelope"
receipt=$(send call-once "$body")
body2='And a second one, queued with it.'
envelope "$body2" >"$tmp/once2.envelope"
receipt2=$(send call-once-2 "$body2")
check "once: both queued while no agent runs for the recipient" \
	'[ "${receipt#queued:}" != "$receipt" ] && [ "${receipt2#queued:}" != "$receipt2" ] && state_is call-once queued'
op=$(op_of call-once)
once once run-once
check "once: the bridge ended by itself after the turns, status 0" 'ended 120 && [ "$rc" = 0 ]'
check "once: both messages were delivered, by this one bridge" \
	'state_is call-once sent && state_is call-once-2 sent && [ "$(grep -c "sent into the Claude conversation" "$tmp/once.err")" = 2 ]'
read -r seq between <<<"$(resumed_with "$tmp/once.envelope" "$earlier")"
check "once: the model got the envelope in the resumed conversation, the earlier turn before it" \
	'[ "$seq" -gt 0 ] && [ "$between" = 1 ]'
read -r seq2 between2 <<<"$(resumed_with "$tmp/once2.envelope" "$earlier")"
check "once: the second in a turn of its own, after the first's" '[ "$seq2" -gt "$seq" ] && [ "$between2" = 1 ]'
read -r at before <<<"$(in_transcript "$op" "$tmp/once.envelope" "$earlier")"
check "once: the SDK's transcript has it, under the message's uuid, after the earlier turn" \
	'[ "$before" -ge 0 ] && [ "$at" -gt "$before" ]'
check "once: the host resumed the saved conversation" 'grep -q "Claude session $conversation open (resumed: yes)" "$tmp/once.err"'
check "once: nothing on stdout" '[ ! -s "$tmp/once.out" ]'
check "once: the run is closed" 'run_closed run-once'
check "once: the session attached, then detached" \
	'[ "$(session_events attached)" -ge 2 ] && wait_for 20 "[ \$(session_events detached) = 2 ]"'
check "once: the model's send_session_message got its receipt" \
	'grep -q "^queued: the message session-message-" <(js_args "for (const l of require(\"fs\").readFileSync(argv[0],\"utf8\").split(\"\n\")) if (l) for (const m of JSON.parse(l).body.messages || []) for (const c of Array.isArray(m.content) ? m.content : []) if (c.type === \"tool_result\") for (const t of c.content) print(t.text)" "$tmp/mock.jsonl")'
check "once: the answer is queued for the sender, from the Claude session, by the --once run at its --access" \
	'"$build/hbctl" messages --session "$sender" --json | js "const s = input; const m=JSON.parse(s).messages;exit(m.length===1&&m[0].fromSessionId===\"$recipient\"&&m[0].fromAgent===\"claude\"&&m[0].message===\"Reply from Claude: got it.\"&&m[0].status===\"queued\"?0:1)" &&
	 [ "$(sent_by "$recipient")" = "run-once full-auto" ]'

# ------------------------------------------------------------- approve --
body='Rename yourself: @tool manage_sessions {"action":"rename","targetSessionId":"'"$recipient"'","title":"Renamed while nobody watched"}'
receipt=$(send call-approve "$body")
check "approve: queued" '[ "${receipt#queued:}" != "$receipt" ]'
once approve run-approve
check "approve: the turn waits on an approval card in hbctl approvals" 'wait_for 90 "[ -n \"\$(approval_id)\" ]"'
check "approve: the card is the --once run's, on the broker's events too, and the bridge waits with it" \
	'"$build/hbctl" approvals | grep -q "run-approve" && kill -0 "$bridge" &&
	 [ "$(events "e.event===\"approval.requested\" && e.run===\"run-approve\"")" = 1 ]'
"$build/hbctl" approve "$(approval_id)" >/dev/null
check "approve: after the approval the bridge ended by itself, status 0" 'ended 90 && [ "$rc" = 0 ]'
check "approve: the tool ran" \
	'"$build/hbctl" call maintain_sessions "{\"action\":\"listSessions\"}" | grep -q "Renamed while nobody watched"'
check "approve: the run is closed and the session detached" \
	'run_closed run-approve && wait_for 20 "[ \$(session_events detached) = 3 ]"'

# ---------------------------------------------------------------- term --
body='Rename yourself again: @tool manage_sessions {"action":"rename","targetSessionId":"'"$recipient"'","title":"Never renamed"}'
receipt=$(send call-term "$body")
once term run-term
check "term: the turn waits on an approval card" 'wait_for 90 "[ -n \"\$(approval_id)\" ]"'
card=$(approval_id)
kill -TERM "$bridge"
check "term: SIGTERM ends the bridge" 'ended 60'
check "term: the card was cancelled" \
	'wait_for 20 "[ \$(events \"e.event===\\\"approval.cancelled\\\" && e.id===\\\"$card\\\"\") -ge 1 ]" && [ -z "$(approval_id)" ]'
check "term: the tool never ran" \
	'! "$build/hbctl" call maintain_sessions "{\"action\":\"listSessions\"}" | grep -q "Never renamed"'
check "term: the run is closed and the session detached" \
	'run_closed run-term && wait_for 20 "[ \$(session_events detached) = 4 ]"'

# -------------------------------------------------------------- cancel --
body='Open a page: @tool use_user_browser {"action":"open","url":"http://127.0.0.1/"}'
receipt=$(send call-cancel "$body")
once cancel run-cancel
check "cancel: the slow call waits on an approval card" 'wait_for 90 "[ -n \"\$(approval_id)\" ]"'
"$build/hbctl" approve "$(approval_id)" >/dev/null
echo_busy() { "$build/hbctl" status --json | grep -q '"name":"svc-echo"[^}]*"slotsBusy":1'; }
check "cancel: approved, the call runs in its service" 'wait_for 30 echo_busy'
kill -TERM "$bridge"
check "cancel: SIGTERM ends the bridge" 'ended 60'
check "cancel: the cancel reached the service (its handler stopped)" slots_free_soon
check "cancel: the run is closed and the session detached" \
	'run_closed run-cancel && wait_for 20 "[ \$(session_events detached) = 5 ]"'

# ---------------------------------------------------------------- idle --
check "idle: nothing waits for the recipient" \
	'[ "$("$build/hbctl" messages --session "$recipient" --json | js "const s = input; print(JSON.parse(s).messages.length)")" = 0 ]'
attached_before=$(session_events attached)
start=$(date +%s%3N)
resume=()
once idle run-idle HB_ONCE_IDLE_MS=3000
check "idle: a bridge handed nothing ended by itself, status 0" 'ended 60 && [ "$rc" = 0 ]'
elapsed=$(($(date +%s%3N) - start))
check "idle: it attached first, and ended for the idle limit" \
	'[ "$(session_events attached)" -gt "$attached_before" ] && grep -q "nothing was handed to this run within 3000 ms" "$tmp/idle.err"'
check "idle: not before HB_ONCE_IDLE_MS" '[ "$elapsed" -ge 3000 ]'
check "idle: the run is closed and the session detached" \
	'run_closed run-idle && wait_for 20 "[ \$(session_events detached) = 6 ]"'
check "idle: without --claude-session, a new conversation" \
	'grep -q "Claude session [0-9a-f-]* open (resumed: no)" "$tmp/idle.err" && ! grep -q "$conversation" "$tmp/idle.err"'

# -------------------------------------------------------------- failed --
host_args=(/nonexistent/claude)
once failed run-failed
check "failed: the bridge ended by itself with status 1" 'ended 60 && [ "$rc" = 1 ]'
check "failed: it said why on stderr, and nothing on stdout" \
	'grep -q "the agent host failed: Claude Code native binary not found at /nonexistent/claude" "$tmp/failed.err" && [ ! -s "$tmp/failed.out" ]'
check "failed: the run is closed" 'run_closed run-failed'

# ------------------------------------------------------------ launched --
"$build/hbctl" settings agent-host set "node $hosts/host.mjs" >/dev/null
asker=$(full_auto_session "Claude asker" claude)
answerer=$(full_auto_session "Claude answerer" claude)
asker_conv=$(js_args 'print(require("crypto").randomUUID())')
answerer_conv=$(js_args 'print(require("crypto").randomUUID())')
desktop_turn asker-desktop "$asker" "$asker_conv" "Remember the word HERON for later."
rc_asker=$rc
desktop_turn answerer-desktop "$answerer" "$answerer_conv" "Remember the word OSPREY for later."
check "launched: two Claude sessions with a saved conversation each, not running" \
	'[ -n "$asker" ] && [ -n "$answerer" ] && [ "$rc_asker" = 0 ] && [ "$rc" = 0 ] &&
	 run_closed asker-desktop && run_closed answerer-desktop'
# The asker's message, from a run of its own (hbctl, closed at once: no
# bridge of the asker runs when the answer comes).
answer='Answer from the answerer: all done.'
body='Please do it, then tell me: @tool send_session_message {"recipientSessionId":"'"$asker"'","message":"'"$answer"'"}'
printf 'Message from another HB Code session. Answer this message in one of three ways: do it, ask one question, or object with the reason.\n<session_message from_session_id="%s" from_title="Claude asker" from_agent="claude">\n%s\n</session_message>' \
	"$asker" "$body" >"$tmp/ask.envelope"
printf 'Message from another HB Code session. Answer this message in one of three ways: do it, ask one question, or object with the reason.\n<session_message from_session_id="%s" from_title="Claude answerer" from_agent="claude">\n%s\n</session_message>' \
	"$answerer" "$answer" >"$tmp/answer.envelope"
# The answerer's runs open with its own model and effort (page 003).
"$build/hbctl" call manage_sessions "{\"action\":\"setModel\",\"targetSessionId\":\"$answerer\",\"model\":\"haiku\",\"effort\":\"low\"}" >/dev/null
"$build/hbctl" run open run-ask --session "$asker" --project "$tmp/project" --agent claude --access full-auto >/dev/null
receipt=$(send_from run-ask "$answerer" call-ask "$body")
"$build/hbctl" run close run-ask >/dev/null
check "launched: the message is queued" '[ "${receipt#queued:}" != "$receipt" ]'
started() { grep -c "\[$1\] no bridge carries this session: started $build/hb-claude-bridge (pid [0-9]*, full-auto, conversation $2[,)]" "$tmp/broker.log"; }
ended_ok() { grep -c "\[$1\] the Claude bridge started for it (pid [0-9]*) exited with status 0" "$tmp/broker.log"; }
answer_state() { sqlite3 -cmd ".timeout 5000" "$db" "SELECT state FROM chat_session_messages WHERE sender_session_id = '$answerer'"; }
check "launched: the broker started the answerer's bridge, on its saved conversation" \
	'wait_for 60 "[ \$(started $answerer $answerer_conv) = 1 ]"'
check "launched: the message was delivered" 'wait_for 90 "state_is call-ask sent"'
check "launched: its answer (send_session_message) was queued for the asker" \
	'wait_for 60 "[ -n \"\$(answer_state)\" ]"'
# (One start, unless it came before run-ask was closed: that one fails
# at run.open, and the next start after HB_LAUNCH_RETRY_MS goes.)
check "launched: the broker started the asker's bridge, on its saved conversation" \
	'wait_for 60 "[ \$(started $asker $asker_conv) -ge 1 ]"'
check "launched: the answer was delivered to the asker" 'wait_for 90 "[ \"\$(answer_state)\" = sent ]"'
# Each bridge ends after its turn: then the mock has every request of it.
check "launched: both bridges ended by themselves (status 0)" \
	'wait_for 60 "[ \$(ended_ok $answerer) = 1 ] && [ \$(ended_ok $asker) = 1 ]"'
read -r seq between <<<"$(resumed_with "$tmp/ask.envelope" "OSPREY")"
check "launched: the answerer's model got it in its resumed conversation, its earlier turn before it" \
	'[ "$seq" -gt 0 ] && [ "$between" = 1 ]'
check "launched: the answerer's run opened with its model and effort" \
	'grep -q "\[$answerer\] no bridge carries this session: started .*conversation $answerer_conv, model haiku, effort low)" "$tmp/broker.log" &&
	 [ "$(model_effort "$tmp/ask.envelope")" = "claude-haiku-5-5 low" ]'
answer_op=session-message-$(sqlite3 -cmd ".timeout 5000" "$db" "SELECT id FROM chat_session_messages WHERE sender_session_id = '$answerer'")
read -r seq2 between2 <<<"$(resumed_with "$tmp/answer.envelope" "HERON")"
check "launched: the asker's model got the answer as a new message in its resumed conversation" \
	'[ "$seq2" -gt "$seq" ] && [ "$between2" = 1 ]'
read -r at before <<<"$(in_transcript "$answer_op" "$tmp/answer.envelope" "HERON" "$asker_conv")"
check "launched: the asker's transcript has the answer under its uuid, after its earlier turn" \
	'[ "$before" -ge 0 ] && [ "$at" -gt "$before" ]'
check "launched: the answer came from the answerer's launched run, at its stored access" \
	'sent_by "$answerer" | grep -qx "launch-[0-9]*-[0-9]* full-auto"'
check "launched: their runs were closed and their sessions detached" \
	'[ "$(grep -c "run launch-[0-9]*-[0-9]* closed" "$tmp/broker.log")" = 2 ] &&
	 [ "$(events "e.event===\"session.detached\" && (e.session===\"$asker\" || e.session===\"$answerer\")")" = 4 ]'
queued_for() { "$build/hbctl" messages --session "$1" --json | js 'const s = input; print(JSON.parse(s).messages.length)'; }
check "launched: nothing waits for either any more" '[ "$(queued_for "$asker")" = 0 ] && [ "$(queued_for "$answerer")" = 0 ]'

# ------------------------------------------------------------- stopped --
# A launched run whose model hangs: nobody but the broker can end its
# turn, so hbctl run stop ends the bridge it started.
curl -s -X POST "http://127.0.0.1:$port/_mock/script" -H 'content-type: application/json' -d '{"steps":[{"hang":true}]}' >/dev/null
hangs() { grep -c '"kind":"hang"' "$tmp/mock.jsonl"; }
"$build/hbctl" run open run-ask2 --session "$asker" --project "$tmp/project" --agent claude --access full-auto >/dev/null
receipt=$(send_from run-ask2 "$answerer" call-stop "Think about this for a long time.")
"$build/hbctl" run close run-ask2 >/dev/null
check "stopped: the broker started the answerer's bridge again, and its model hangs" \
	'wait_for 60 "[ \$(started $answerer $answerer_conv) = 2 ]" && wait_for 60 "[ \$(hangs) -ge 1 ]"'
stop_run=$(sed -n "s/.*run \(launch-[0-9]*-[0-9]*\) opened for session $answerer .*/\1/p" "$tmp/broker.log" | tail -1)
"$build/hbctl" run stop "$stop_run" >"$tmp/stop.out" 2>&1
check "stopped: hbctl run stop of the launched run" '[ -n "$stop_run" ] && grep -q stopped "$tmp/stop.out"'
check "stopped: the broker ended the bridge it started for that run" \
	'grep -q "\[$answerer\] run $stop_run stopped: ending the bridge started for it (pid [0-9]*)" "$tmp/broker.log"'
stopped_ended() { grep -c "\[$answerer\] the Claude bridge started for it (pid [0-9]*) exited with status 0" "$tmp/broker.log"; }
check "stopped: the bridge ended (status 0: its own close), the run closed, the session detached" \
	'wait_for 30 "[ \$(stopped_ended) = 2 ]" && wait_for 10 "grep -q \"run $stop_run closed\" $tmp/broker.log" &&
	 [ "$(events "e.event===\"session.detached\" && e.session===\"$answerer\"")" -ge 3 ]'
check "stopped: the message is not lost (delivered: it is in the conversation)" 'wait_for 90 "state_is call-stop sent"'

# ------------------------------------------------------------- desktop --
# Every run opens with the session's model and effort, not only the
# launcher's: the bridge takes them from the broker's answer to run.open.
printf 'A desktop turn on the session model.' >"$tmp/desktop-model.prompt"
desktop_turn desktop-model "$answerer" "$answerer_conv" "$(cat "$tmp/desktop-model.prompt")"
check "desktop: a desktop's run without --model and --effort opened with the session's" \
	'[ $rc = 0 ] && [ "$(model_effort "$tmp/desktop-model.prompt")" = "claude-haiku-5-5 low" ] &&
	 grep -q "run desktop-model opened for session $answerer (claude, full-auto, haiku)" "$tmp/broker.log"'

# ----------------------------------------------------------------- new --
# A Claude session never opened: what the person expects is the message
# answered, so the launcher starts a new conversation for it.
fresh=$(full_auto_session "Claude never opened" claude)
"$build/hbctl" call manage_sessions "{\"action\":\"setModel\",\"targetSessionId\":\"$fresh\",\"model\":\"sonnet\",\"effort\":\"medium\"}" >/dev/null
check "new: the session has no conversation" \
	'[ "$("$build/hbctl" call maintain_sessions "{\"action\":\"resolveSession\",\"targetSessionId\":\"$fresh\"}" | json_field claudeSessionId)" = null ]'
fresh_body='Hello, new session: remember the word ALBATROSS.'
printf 'Message from another HB Code session. Answer this message in one of three ways: do it, ask one question, or object with the reason.\n<session_message from_session_id="%s" from_title="Claude asker" from_agent="claude">\n%s\n</session_message>' \
	"$asker" "$fresh_body" >"$tmp/fresh.envelope"
"$build/hbctl" run open run-ask3 --session "$asker" --project "$tmp/project" --agent claude --access full-auto >/dev/null
receipt=$(send_from run-ask3 "$fresh" call-new "$fresh_body")
"$build/hbctl" run close run-ask3 >/dev/null
check "new: queued" '[ "${receipt#queued:}" != "$receipt" ]'
check "new: the broker started its bridge on a new conversation, with its model and effort" \
	'wait_for 60 "grep -q \"\[$fresh\] no bridge carries this session: started $build/hb-claude-bridge (pid [0-9]*, full-auto, conversation (a new one), model sonnet, effort medium)\" $tmp/broker.log"'
check "new: the message was delivered" 'wait_for 90 "state_is call-new sent"'
fresh_conv=$("$build/hbctl" call maintain_sessions "{\"action\":\"resolveSession\",\"targetSessionId\":\"$fresh\"}" | json_field claudeSessionId)
check "new: the session is linked to the new conversation" \
	'[[ "$fresh_conv" =~ ^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$ ]]'
read -r at before <<<"$(in_transcript "$(op_of call-new)" "$tmp/fresh.envelope" "ALBATROSS" "$fresh_conv")"
check "new: the SDK's transcript of that conversation has the message under its uuid, as its first" \
	'[ "$at" = 0 ] && [ "$before" = 0 ]'
check "new: its model got it with the session's model and effort" \
	'[ "$(model_effort "$tmp/fresh.envelope")" = "claude-sonnet-5-5 medium" ]'
check "new: the bridge ended by itself (status 0), nothing waits" \
	'wait_for 60 "[ \$(ended_ok $fresh) = 1 ]" && [ "$(queued_for "$fresh")" = 0 ]'

# ------------------------------------------------------------ automode --
# Page 003: full access runs in Auto mode, and the open fails when the
# model doesn't support it (Claude Code 2.1.332 lists claude-opus-4-5
# without it).  The sender runs at full access too, so the hold rules let
# the message through to the launcher.
noauto=$("$build/hbctl" call manage_sessions "{\"action\":\"create\",\"title\":\"No Auto mode\",\"agent\":\"claude\",\"projectPath\":\"$tmp/project\",\"accessLevel\":\"full-access\",\"model\":\"claude-opus-4-5\"}" | json_field id)
"$build/hbctl" run open run-ask4 --session "$asker" --project "$tmp/project" --agent claude --access full-access >/dev/null
receipt=$(send_from run-ask4 "$noauto" call-noauto "This must not reach a model.")
"$build/hbctl" run close run-ask4 >/dev/null
noauto_reason() { "$build/hbctl" messages --session "$noauto" --json 2>/dev/null; }
check "automode: the launched run fails at the open, and hbctl messages says why" \
	'[ "${receipt#queued:}" != "$receipt" ] &&
	 wait_for 90 "noauto_reason | grep -qF \"support Auto mode, which the session\""'
check "automode: the reason names the model, and the message still waits" \
	'noauto_reason | grep -qF "Opus 4.5 (claude-opus-4-5)" && state_is call-noauto queued'
check "automode: nothing reached the model" \
	'! grep -qF "This must not reach a model." "$tmp/mock.jsonl"'

check "no sanitizer report" '! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/*.err $tmp/broker.log'

if [ $fail -ne 0 ]; then
	for t in saved once approve term cancel idle failed asker-desktop answerer-desktop; do echo "--- $t"; cat "$tmp/$t.json" "$tmp/$t.out" 2>/dev/null; tail -30 "$tmp/$t.err"; done
	tail -60 "$tmp/broker.log"
fi
exit $fail
