#!/usr/bin/env bash
# End to end: messages between sessions into the real Claude Agent SDK.
# Another session's run calls send_session_message (hbctl, bound to that
# run) -> hb-broker -> svc-messages -> the broker -> hb-claude-bridge ->
# the agent host (agent-host) -> the mock Messages API on
# 127.0.0.1.  claude-drive.mjs plays the desktop and keeps the run open.
# Checks:
#   open   a message queued before the run opens waits for the run's own
#          first prompt (sent 2 s after `opened`, as a desktop does after
#          recording the operation): the prompt is accepted, not `busy`,
#          its turn runs, and the message follows as a turn of its own
#   grace  a run whose desktop sends nothing gets a waiting message once
#          HB_CLAUDE_FIRST_SEND_MS has passed, not before (the broker
#          cannot start an agent host meanwhile)
#   busy   a message sent while the run's turn runs (it waits on an
#          approval card that the test answers when it wants) is carried in
#          only after that turn ended: a `send` whose text is the envelope;
#          the model gets it as a user message exactly once, after the
#          first turn's last request
#   held   a message held by the access rule (the sender's run is
#          read-only, the recipient's full-auto) waits in hbctl messages,
#          is delivered after `hbctl messages send`; a discarded one never is
#   proof  a message counts as delivered only after a read of the saved
#          transcript (the host's `history`) found its uuid: in the
#          bridge's log the read and the find come between the send and the
#          report, and the recorded turn is the message uuid
#   crash  the bridge is SIGKILLed after the host took the message and a
#          read found it, before its report (failpoint bridge.before-report);
#          a new bridge for the session (the same Claude conversation) finds
#          it in the transcript and reports it without sending it again: the
#          model saw it exactly once
#   unconfirmed  Claude Code is stopped (SIGSTOP) before the message goes
#          in, so it never saves it; the host still takes the send.  No read
#          finds it, the run closes, and the message is held for the user
#          with a reason, never sent again on its own (a new bridge of the
#          session does not get it).  Then the same with a host that dies
#          (SIGKILL) after it took a message: a new host makes the final
#          read.  After `hbctl messages send` a bridge looks for each, does
#          not find it, and carries it in once
#   late   Claude Code is stopped while a message goes in and continued
#          after the close's live read found nothing: it saves the message
#          as it ends, and the read a new host makes then finds it
#          (delivered, not held)
# Usage: messages-claude.sh BUILD (needs npm ci in agent-host, sqlite3).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/claude-lib.sh"
require sqlite3
require jq
db=$HB_HOME/data/appdata.db

sent_by() { sqlite3 -cmd ".timeout 5000" "$db" "SELECT sender_run_id || ' ' || sender_access FROM chat_session_messages WHERE sender_session_id = '$1'"; }
new_session() {
	"$build/hbctl" call manage_sessions \
		"{\"action\":\"create\",\"title\":\"$1\",\"agent\":\"$2\",\"projectPath\":\"$tmp/project\",\"accessLevel\":\"full-auto\"}" |
		json_field id
}
envelope() {
	printf 'Message from another HB Code session. Answer this message in one of three ways: do it, ask one question, or object with the reason.\n<session_message from_session_id="%s" from_title="Sender" from_agent="codex">\n%s\n</session_message>' \
		"$sender" "$1"
}
# send CALL-ID RUN MESSAGE [RECIPIENT]
send() {
	"$build/hbctl" call send_session_message \
		"$(jq -nc --arg to "${4:-$recipient}" --arg m "$3" '{recipientSessionId: $to, message: $m}')" \
		--run "$2" --call-id "$1" --timeout 20000
}
# What the mock model got, for the envelope in file $1: "TURNS MAX FIRST"
# TURNS = requests whose last user message has a text block exactly equal
# to it, MAX = the most such blocks in one request, FIRST = the seq of the
# first request with it (0: none).
envelope_count() {
	[ -r "$tmp/mock.jsonl" ] || { echo "envelope_count: $tmp/mock.jsonl is not there" >&2; return 1; }
	jq -rn --rawfile want "$1" '
		def blocks: if .role != "user" then 0
			elif (.content | type) == "string" then (if .content == $want then 1 else 0 end)
			else [.content[] | select(.type == "text" and .text == $want)] | length end;
		reduce (inputs | ((.body // {}).messages // []) as $m
			| { n: ([$m[] | blocks] | add // 0),
			    last: ([$m[] | select(.role == "user")] | if length > 0 then (last | blocks) else 0 end),
			    seq }) as $r
			({ turns: 0, max: 0, first: 0 };
			 .max = ([.max, $r.n] | max)
			 | if $r.last > 0 then .turns += 1 | (if .first == 0 then .first = $r.seq else . end) else . end)
		| "\(.turns) \(.max) \(.first)"' "$tmp/mock.jsonl"
}
# The seq of the last request whose last user message carries a tool result.
last_tool_result_seq() {
	js_args '
		const fs = require("fs");
		let seq = 0;
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l), msgs = (r.body && r.body.messages) || [];
			const u = msgs.filter((m) => m.role === "user").pop();
			if (u && Array.isArray(u.content) && u.content.some((c) => c.type === "tool_result")) seq = r.seq;
		}
		print(seq);' "$tmp/mock.jsonl"
}
# The time of the first "idle" of the Claude run after it was running (in
# transcript $1, by default the busy run's).
first_idle_t() {
	js_args '
		const fs = require("fs");
		let running = false;
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const { t, line } = JSON.parse(l);
			let m; try { m = JSON.parse(line).message; } catch { continue; }
			if (!m || m.subtype !== "session_state_changed") continue;
			if (m.state === "running") running = true;
			else if (m.state === "idle" && running) { print(t); exit(0); }
		}
		print(0);' "${1:-$tmp/drive.transcript}"
}
# How many times the run went idle (transcript $1, by default the busy run's).
idles() {
	local f=${1:-$tmp/drive.transcript}
	[ -r "$f" ] || { echo 0; return; }   # not written yet: none
	jq -Rn '[inputs | fromjson? | .line | strings | fromjson? | .message | objects
		| select(.subtype == "session_state_changed" and .state == "idle")] | length' "$f" 2>/dev/null || echo 0
}
# The time the bridge's "opened" event reached the desktop (transcript $1).
opened_t() { js_args 'for (const l of require("fs").readFileSync(argv[0],"utf8").split("\n")) if (l) { const r = JSON.parse(l); if (/"event":"opened"/.test(r.line)) { print(r.t); break; } }' "$1"; }
# What the bridge answered the desktop's request id 1 (transcript $1):
# "result", the error's code, or nothing (also while it is not written).
answer_1() { js_args 'for (const l of require("fs").readFileSync(argv[0],"utf8").split("\n")) if (l) { const m = JSON.parse(JSON.parse(l).line); if (m.id === 1) print(m.error ? m.error.code : "result"); }' "$1" 2>/dev/null; }   # not written yet: nothing
# drive TRANSCRIPT STOP-FILE SESSION RUN [DRIVER OPTIONS]: the desktop of a
# Claude run of SESSION, in the background (its pid in $desktop); the run
# stays open until STOP-FILE exists.
drive() {
	local transcript=$1 stop=$2 session=$3 run=$4
	shift 4
	env HOME="$tmp/home" CLAUDE_CONFIG_DIR="$tmp/home/.claude" ANTHROPIC_BASE_URL="http://127.0.0.1:$port" \
		ANTHROPIC_API_KEY=test DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1 \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
		timeout 170 node "$here/e2e/claude-drive.mjs" --hbctl "$build/hbctl" --timeout 150 \
		--transcript "$transcript" --stay-until "$stop" "$@" \
		-- "$build/hb-claude-bridge" --session "$session" --run "$run" --project "$tmp/project" \
		--access full-auto ${resume:+--claude-session "$resume"} -- node "$hosts/host.mjs" \
		>"$transcript.json" 2>"$transcript.err" &
	desktop=$!
}
attached() { [ "$(events "e.event===\"session.attached\" && e.session===\"$1\" && e.agent===\"claude\"")" -ge 1 ]; }
mock_t() { js_args 'for (const l of require("fs").readFileSync(argv[0],"utf8").split("\n")) if (l) { const r = JSON.parse(l); if (r.seq === +argv[1]) print(r.t); }' "$tmp/mock.jsonl" "$1"; }
approval_id() { "$build/hbctl" approvals 2>/dev/null | sed -n 's/^\(a[0-9]*\)[[:space:]].*/\1/p' | head -1; }

{ sessions_conf; printf '[service svc-messages]\nexec = %s/svc-messages\nconcurrency = 2\ntools = send_session_message _messages_list _messages_send _messages_discard\n' "$build"; } |
	start_broker
"$build/hbctl" watch >"$tmp/events.jsonl" 2>/dev/null &
watcher=$!
for i in $(seq 50); do
	"$build/hbctl" call maintain_sessions '{"action":"guide"}' >/dev/null 2>&1
	sleep 0.1
	grep -q '"maintain_sessions"' "$tmp/events.jsonl" && break
done

recipient=$(new_session "Claude recipient" claude)
sender=$(new_session Sender codex)
other=$(new_session "To be renamed" codex)
check "three sessions" '[ -n "$recipient" ] && [ -n "$sender" ] && [ -n "$other" ]'
# Every run here is a desktop's: the broker must start no bridge of its
# own (launch-claude.sh tests those), or a message waiting for a session
# whose desktop has not opened it yet (open, grace), or whose bridge was
# killed (crash), would start one once the broker is past its first
# attach expiry, and the desktop's run.open would be refused.
"$build/hbctl" settings agent-host set "no-such-node /nowhere/host.mjs" >/dev/null
"$build/hbctl" run open run-sender --session "$sender" --project "$tmp/project" --agent codex --access full-auto >/dev/null
"$build/hbctl" run open run-sender-ro --session "$sender" --project "$tmp/project" --agent codex --access read-only >/dev/null

start_claude_mock

# ---------------------------------------------------------------- open --
# The message asks for an agent-class tool, so the turn it starts runs
# until the test answers the approval card: delivered too early, it would
# hold the desktop's own prompt off with `busy`.
early=$(new_session "Claude opened later" claude)
body_open='Sent before your run opened: @tool manage_sessions {"action":"rename","targetSessionId":"'"$early"'","title":"Renamed by a message"}'
envelope "$body_open" >"$tmp/open.envelope"
printf 'Say hello.' >"$tmp/open.prompt"
receipt=$(send call-open run-sender "$body_open" "$early")
check "open: queued while no bridge carries the session" '[ "${receipt#queued:}" != "$receipt" ] && state_is call-open queued'
drive "$tmp/open.transcript" "$tmp/open.stop" "$early" run-open --prompt "$(cat "$tmp/open.prompt")" --send-after 2000
wait_for 90 '[ -n "$(answer_1 "$tmp/open.transcript")" ]'
check "open: the desktop's first prompt was accepted, not busy" '[ "$(answer_1 "$tmp/open.transcript")" = result ]'
check "open: the message went in after the prompt's turn; its own turn asks for approval" \
	'wait_for 60 "[ -n \"\$(approval_id)\" ]"'
"$build/hbctl" approve "$(approval_id)" >/dev/null
# Proven by a transcript read at the latest when its turn ended: the reads
# during the turn may come before Claude Code has written its transcript.
check "open: the message was delivered (a transcript read found it)" 'wait_for 60 "state_is call-open sent"'
check "open: two turns, the prompt's and the message's (two idles)" 'wait_for 60 "[ \$(idles "$tmp/open.transcript") -ge 2 ]"'
read -r _ _ prompt_seq <<<"$(envelope_count "$tmp/open.prompt")"
read -r turns max first <<<"$(envelope_count "$tmp/open.envelope")"
check "open: the model got the message exactly once" '[ "$max" = 1 ] && [ "$first" -gt 0 ]'
check "open: the prompt reached the model first, the message after the prompt's turn went idle" \
	'[ "$prompt_seq" -gt 0 ] && [ "$first" -gt "$prompt_seq" ] && [ "$(first_idle_t "$tmp/open.transcript")" -gt 0 ] &&
	 [ "$(mock_t "$first")" -ge "$(first_idle_t "$tmp/open.transcript")" ]'
touch "$tmp/open.stop"
wait "$desktop"
rc=$?
desktop=
check "open: the run ended cleanly" '[ $rc = 0 ]'

# --------------------------------------------------------------- grace --
# A run opened only to receive messages: the desktop sends nothing.  The
# broker starts no bridge of its own for the session meanwhile (the
# agent-host setting above).
listener=$(new_session "Claude listening" claude)
body_grace='Sent to a run whose desktop says nothing.'
envelope "$body_grace" >"$tmp/grace.envelope"
receipt=$(send call-grace run-sender "$body_grace" "$listener")
check "grace: queued while no bridge carries the session" '[ "${receipt#queued:}" != "$receipt" ]'
HB_CLAUDE_FIRST_SEND_MS=3000 drive "$tmp/grace.transcript" "$tmp/grace.stop" "$listener" run-grace
check "grace: delivered although the desktop sent nothing" 'wait_for 90 "state_is call-grace sent"'
check "grace: the model got it exactly once" \
	'wait_for 30 "[ \"\$(envelope_count "$tmp/grace.envelope")\" != \"0 0 0\" ]" && [ "$(envelope_count "$tmp/grace.envelope" | cut -d" " -f1,2)" = "1 1" ]'
read -r _ _ first <<<"$(envelope_count "$tmp/grace.envelope")"
check "grace: not before HB_CLAUDE_FIRST_SEND_MS had passed after opened" \
	'[ "$first" -gt 0 ] && [ "$(mock_t "$first")" -ge $(( $(opened_t "$tmp/grace.transcript") + 3000 )) ]'
touch "$tmp/grace.stop"
wait "$desktop"
rc=$?
desktop=
check "grace: the run ended cleanly" '[ $rc = 0 ]'

# ---------------------------------------------------------------- busy --
# The desktop's prompt makes the model call an agent-class tool: the turn
# runs until the test answers the approval card.
drive "$tmp/drive.transcript" "$tmp/stop" "$recipient" run-claude \
	--prompt '@tool manage_sessions {"action":"rename","targetSessionId":"'"$other"'","title":"Renamed by Claude"}'

check "busy: the turn waits on an approval card" 'wait_for 90 "[ -n \"\$(approval_id)\" ]"'
check "busy: the bridge attached its session" 'wait_for 20 "attached $recipient"'
body='When your turn is done: please summarize it for me.'
envelope "$body" >"$tmp/busy.envelope"
receipt=$(send call-busy run-sender "$body")
check "busy: the receipt says queued" '[ "${receipt#queued:}" != "$receipt" ]'
body2='And then: the open questions, if any.'
envelope "$body2" >"$tmp/busy2.envelope"
receipt=$(send call-busy-2 run-sender "$body2")
check "busy: a second one queued too" '[ "${receipt#queued:}" != "$receipt" ]'
# Give the delivery loop time to hand it to the bridge, which must keep
# it until the turn is idle.
sleep 2
check "busy: not carried in while the turn runs" \
	'state_is call-busy queued && state_is call-busy-2 queued && [ "$(envelope_count "$tmp/busy.envelope")" = "0 0 0" ] && [ "$(envelope_count "$tmp/busy2.envelope")" = "0 0 0" ]'
check "busy: hbctl messages lists it as queued" \
	'"$build/hbctl" messages --session "$recipient" --json | grep -q "\"status\":\"queued\""'
"$build/hbctl" approve "$(approval_id)" >/dev/null
check "busy: delivered after the turn" 'wait_for 60 "state_is call-busy sent && state_is call-busy-2 sent"'
check "busy: the model answered both, one turn each (three idles)" \
	'wait_for 60 "[ \$(idles) -ge 3 ]"'
op=$(op_of call-busy)
read -r turns max first <<<"$(envelope_count "$tmp/busy.envelope")"
check "busy: the model got the envelope as a user message exactly once" '[ "$turns $max" = "1 1" ]'
check "busy: it arrived after the first turn's last request (the tool result)" \
	'[ "$first" -gt "$(last_tool_result_seq)" ] && [ "$(last_tool_result_seq)" -gt 0 ]'
check "busy: and after the first turn went idle" '[ "$(mock_t "$first")" -ge "$(first_idle_t)" ] && [ "$(first_idle_t)" -gt 0 ]'
read -r turns2 max2 first2 <<<"$(envelope_count "$tmp/busy2.envelope")"
check "busy: the second exactly once too, in a turn after the first's" '[ "$turns2 $max2" = "1 1" ] && [ "$first2" -gt "$first" ]'
# (the envelope as a JS string: an events condition has no require)
envelope_js=$(js_args 'print(JSON.stringify(require("fs").readFileSync(argv[0], "utf8")))' "$tmp/busy.envelope")
check "busy: the timeline rows: Sent with a link, the recipient's user row" \
	'[ "$(events "e.event===\"timeline.message\" && e.row===\"call-busy\" && e.signal===\"Sent\" && e.link && e.link.session===\"$recipient\" && e.link.row===\"$op\"")" = 1 ] &&
	 [ "$(events "e.event===\"timeline.user\" && e.session===\"$recipient\" && e.row===\"$op\" && e.text===$envelope_js && e.link.row===\"call-busy\"")" = 1 ]'
check "busy: the desktop never saw the answer to the bridge's send" '! grep -q "session-message-" "$tmp/drive.transcript"'

# ---------------------------------------------------------------- held --
# A asks Claude to answer with send_session_message (the mock model calls
# the tool a message names): Claude as a sender, bound to its own run.
body_a='Held A: please run the migrations, then answer: @tool send_session_message {"recipientSessionId":"'"$sender"'","message":"Reply from Claude: done."}'
body_b='Held B: please delete the cache.'
envelope "$body_a" >"$tmp/held-a.envelope"
envelope "$body_b" >"$tmp/held-b.envelope"
receipt_a=$(send call-held-a run-sender-ro "$body_a")
receipt_b=$(send call-held-b run-sender-ro "$body_b")
check "held: the receipts say waiting-for-approval" \
	'[ "${receipt_a#waiting-for-approval:}" != "$receipt_a" ] && [ "${receipt_b#waiting-for-approval:}" != "$receipt_b" ]'
# The other rule: a sender in another project, recipient not read-only.
mkdir -p "$tmp/elsewhere"
stranger=$("$build/hbctl" call manage_sessions \
	"{\"action\":\"create\",\"title\":\"Stranger\",\"agent\":\"codex\",\"projectPath\":\"$tmp/elsewhere\",\"accessLevel\":\"full-auto\"}" | json_field id)
"$build/hbctl" run open run-stranger --session "$stranger" --project "$tmp/elsewhere" --agent codex --access full-auto >/dev/null
receipt_c=$(send call-held-c run-stranger "Held C: from another project.")
check "held: a sender in another project waits for approval too" \
	'[ "${receipt_c#waiting-for-approval:}" != "$receipt_c" ] && echo "$receipt_c" | grep -q "works in another project"'
"$build/hbctl" messages discard "$(op_of call-held-c)" >/dev/null
op_a=$(op_of call-held-a)
op_b=$(op_of call-held-b)
check "held: hbctl messages lists both, waiting for approval, with the reason" \
	'"$build/hbctl" messages --session "$recipient" --json | js "const s = input; const m=JSON.parse(s).messages;exit(m.length===2&&m.every(x=>x.status===\"waiting-for-approval\"&&/full auto, more than this session.s read-only/.test(x.holdReason))&&m[0].id===\"$op_a\"&&m[1].id===\"$op_b\"?0:1)"'
check "held: the human list shows them" '"$build/hbctl" messages | grep -q "^$op_a  waiting-for-approval  from $sender to $recipient"'
check "held: the sender's rows say Needs approval" \
	'[ "$(events "e.event===\"timeline.message\" && (e.row===\"call-held-a\" || e.row===\"call-held-b\") && e.signal===\"Needs approval\" && e.reason")" = 2 ]'
"$build/hbctl" messages discard "$op_b" >/dev/null
check "held: the discarded one is gone from the list" \
	'! "$build/hbctl" messages --json | grep -q "$op_b" && state_is call-held-b discarded'
check "held: its sender's row says Not sent" \
	'[ "$(events "e.event===\"timeline.message\" && e.row===\"call-held-b\" && e.signal===\"Not sent\"")" = 1 ]'
check "held: nothing held reached the model before the user's answer" \
	'[ "$(envelope_count "$tmp/held-a.envelope")" = "0 0 0" ] && state_is call-held-a held'
"$build/hbctl" messages send "$op_a" >/dev/null
check "held: sent after hbctl messages send" 'wait_for 60 "state_is call-held-a sent"'
check "held: the model answered it (a fourth idle)" \
	'wait_for 60 "[ \$(idles) -ge 4 ]"'
check "held: the model got it exactly once" '[ "$(envelope_count "$tmp/held-a.envelope" | cut -d" " -f1,2)" = "1 1" ]'
check "held: the discarded one never reached the model" '[ "$(envelope_count "$tmp/held-b.envelope")" = "0 0 0" ]'
out=$("$build/hbctl" messages send "$op_b" 2>&1)
rc=$?
check "held: a discarded message cannot be sent any more" '[ $rc != 0 ] && echo "$out" | grep -q "was discarded"'
check "held: Claude's answer (a tool call of its own) got the receipt" \
	'grep -q "^queued: the message session-message-" <(js_args "for (const l of require(\"fs\").readFileSync(argv[0],\"utf8\").split(\"\n\")) if (l) for (const m of JSON.parse(l).body.messages || []) for (const c of Array.isArray(m.content) ? m.content : []) if (c.type === \"tool_result\") for (const t of c.content) print(t.text)" "$tmp/mock.jsonl")'
check "held: Claude's answer is a message from the Claude session, by its run and tool use id" \
	'"$build/hbctl" messages --session "$sender" --json | js "const s = input; const m=JSON.parse(s).messages;exit(m.length===1&&m[0].fromSessionId===\"$recipient\"&&m[0].fromAgent===\"claude\"&&/^toolu_/.test(m[0].callId)&&m[0].message===\"Reply from Claude: done.\"&&m[0].status===\"queued\"?0:1)" &&
	 [ "$(sent_by "$recipient")" = "run-claude full-auto" ]'
check "held: nothing else waits (the answer's recipient has no bridge)" \
	'[ "$("$build/hbctl" messages --json | js "const s = input; print(JSON.parse(s).messages.length)")" = 1 ]'

# --------------------------------------------------------------- proof --
op=$(op_of call-busy)
uuid=$(sqlite3 -cmd ".timeout 5000" "$db" "SELECT turn_id FROM chat_session_messages WHERE call_id = 'call-busy'")
# The bridge's own log, in order: the send, a transcript read, the find.
# It reports only after the find (deliver.done follows that line).
proof_order() {
	grep -F "[$1]" "$2" | sed -n 's/.*\] \(sent into\|reading the transcript\|a transcript read found\).*/\1/p' |
		uniq | tr '\n' '|'
}
check "proof: the recorded turn of a delivered message is its message uuid" \
	'[ -n "$uuid" ] && grep -q "\[$op\] sent into the Claude conversation as message $uuid" "$tmp/drive.transcript.err"'
check "proof: sent, then read from the transcript, then found (and only then reported)" \
	'[ "$(proof_order "$op" "$tmp/drive.transcript.err")" = "sent into|reading the transcript|a transcript read found|" ]'
check "proof: the first read is at the first frame after the send" \
	'grep -q "\[$op\] reading the transcript (the first frame after the send)" "$tmp/drive.transcript.err"'

touch "$tmp/stop"
wait "$desktop"
rc=$?
desktop=
check "the run ended cleanly" '[ $rc = 0 ]'

# The Claude conversation a run's bridge opened (its transcript $1).
claude_id() { js_args 'for (const l of require("fs").readFileSync(argv[0],"utf8").split("\n")) if (l) { const m = JSON.parse(JSON.parse(l).line); if (m.event === "opened") { print(m.result.sessionId); break; } }' "$1"; }
# The agent hosts of this script (a desktop's command line names host.mjs
# too, after "--").
# This test's agent hosts only (their HOME is ours): other tests may run
# hosts of the same path beside it.
our_hosts() {
	local p
	for p in $(pgrep -f "^node $hosts/host.mjs"); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "HOME=$tmp/home" && echo "$p"
	done
}
hosts_running() { [ -n "$(our_hosts)" ]; }
# The agent host of the run whose desktop is $desktop: the one below it
# (desktop -> hb-claude-bridge -> host), never another of ours that is
# still ending (the lowest pid of our_hosts could be an earlier run's).
desktop_host() {
	local p
	for p in $(below "$desktop"); do
		case $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) in "node $hosts/host.mjs"*) echo "$p"; return ;; esac
	done
}

# --------------------------------------------------------------- crash --
export HB_FAILPOINTS=$tmp/failpoints
mkdir -p "$HB_FAILPOINTS"
crashing=$(new_session "Claude crashing" claude)
HB_CLAUDE_FIRST_SEND_MS=1000 drive "$tmp/crash1.transcript" "$tmp/crash1.stop" "$crashing" run-crash-1
check "crash: the first bridge attached" 'wait_for 90 "attached $crashing"'
touch "$HB_FAILPOINTS/bridge.before-report"
body_crash='Carried in once, whatever happens to the bridge.'
envelope "$body_crash" >"$tmp/crash.envelope"
receipt=$(send call-crash run-sender "$body_crash" "$crashing")
check "crash: queued" '[ "${receipt#queued:}" != "$receipt" ]'
check "crash: the bridge died before its report" 'wait_for 90 "[ ! -e $HB_FAILPOINTS/bridge.before-report ]"'
wait "$desktop"
desktop=
op=$(op_of call-crash)
check "crash: a read had found it in the transcript, but it is not reported" \
	'grep -q "\[$op\] a transcript read found message" "$tmp/crash1.transcript.err" && state_is call-crash queued'
check "crash: the first bridge's host ended with it" 'wait_for 30 "! hosts_running"'
# The desktop ends the run its dead bridge left open (the bridge would
# have closed it), so the session can have a new one.
"$build/hbctl" run close run-crash-1 >/dev/null
resume=$(claude_id "$tmp/crash1.transcript")
# The new bridge resumes the same conversation; its desktop's prompt comes
# after the look into the transcript, so the model sees the conversation.
resume=$resume drive "$tmp/crash2.transcript" "$tmp/crash2.stop" "$crashing" run-crash-2 \
	--prompt 'After the restart.' --send-after 3000
check "crash: the new bridge found it in the transcript and reported it" 'wait_for 90 "state_is call-crash sent"'
check "crash: ... without carrying it in again" \
	'grep -q "\[$op\] already in the Claude conversation (message .*): not sent again" "$tmp/crash2.transcript.err" &&
	 ! grep -q "\[$op\] sent into" "$tmp/crash2.transcript.err"'
printf 'After the restart.' >"$tmp/crash.prompt"
check "crash: the prompt after the restart reached the model" \
	'wait_for 60 "[ \"\$(envelope_count "$tmp/crash.prompt" | cut -d\" \" -f3)\" != 0 ] && [ \$(idles "$tmp/crash2.transcript") -ge 1 ]"'
check "crash: the model saw the message exactly once (never twice in one conversation)" \
	'[ "$(envelope_count "$tmp/crash.envelope" | cut -d" " -f2)" = 1 ]'
touch "$tmp/crash2.stop"
wait "$desktop"
rc=$?
desktop=
check "crash: the second run ended cleanly" '[ $rc = 0 ]'
unset resume

# --------------------------------------------------------- unconfirmed --
# Every process below agent host $1 (Claude Code and whatever it started).
below() {
	local p
	for p in $(pgrep -P "$1"); do echo "$p"; below "$p"; done
}
doubtful=$(new_session "Claude stalled" claude)
drive "$tmp/unc1.transcript" "$tmp/unc1.stop" "$doubtful" run-unc-1 --prompt 'Say hello.'
check "unconfirmed: the run's own turn is done" 'wait_for 90 "[ \$(idles "$tmp/unc1.transcript") -ge 1 ]" && attached "$doubtful"'
# Claude Code, the host's child, is stopped: it can take no input and save
# nothing, while the host (a separate process) still answers.
host_pid=$(desktop_host)
cli_pids=$(below "$host_pid")
is_claude() { for p in "$@"; do case $(readlink "/proc/$p/exe") in */claude-agent-sdk-linux-*/claude) return 0 ;; esac; done; return 1; }
check "unconfirmed: Claude Code runs under the host" '[ -n "$host_pid" ] && is_claude $cli_pids'
kill -STOP $cli_pids
body_unc='Sent while Claude Code could not take it.'
envelope "$body_unc" >"$tmp/unc.envelope"
receipt=$(send call-unc run-sender "$body_unc" "$doubtful")
op=$(op_of call-unc)
check "unconfirmed: the host took the send" \
	'wait_for 60 "grep -q \"\[$op\] sent into the Claude conversation\" $tmp/unc1.transcript.err"'
check "unconfirmed: not delivered on the host's answer alone" 'state_is call-unc queued'
# Claude Code must never save the message, even as it ends: once the host
# has ended, Claude Code's stopped process group would be orphaned, and
# the kernel then sends it SIGHUP and SIGCONT.  So the bridge is held
# after its live read, before it closes the host, while Claude Code is
# killed.
hold=$HB_FAILPOINTS/bridge.before-host-close
touch "$hold.hold"
touch "$tmp/unc1.stop"   # the desktop closes the run: the final read
check "unconfirmed: the bridge made its live read and waits to close the host" \
	'wait_for 60 "[ -e $hold.reached ]" && grep -q "\[$op\] not in the transcript yet" "$tmp/unc1.transcript.err"'
kill -KILL $cli_pids 2>/dev/null
rm -f "$hold.hold" "$hold.reached"
wait "$desktop"
desktop=
check "unconfirmed: the final read found nothing: reported unconfirmed" \
	'grep -q "\[$op\] reading the transcript (the final read: the bridge closes)" "$tmp/unc1.transcript.err" &&
	 grep -q "\[$op\] unconfirmed, left to the user: no read of the transcript found message" "$tmp/unc1.transcript.err"'
# Its close and the last read block the bridge past the attach expiry: it
# said so, so no second bridge was started for the session meanwhile.
check "unconfirmed: the bridge said it closes owing an outcome, at its close and before the last read" \
	'[ "$(grep -c "session $doubtful: its bridge is closing; its outcomes count for" "$tmp/broker.log")" = 2 ] &&
	 ! grep -q "\[$doubtful\] no bridge carries this session" "$tmp/broker.log"'
check "unconfirmed: held for the user with the reason" \
	'wait_for 30 "state_is call-unc held" && "$build/hbctl" messages --session "$doubtful" --json | js "const s = input; const m=JSON.parse(s).messages;exit(m.length===1&&m[0].id===\"$op\"&&m[0].status===\"waiting-for-approval\"&&/no transcript read found it afterwards.*it may not have reached Claude. Send it again with hbctl messages send $op, or discard it/.test(m[0].holdReason)?0:1)"'
check "unconfirmed: the sender's row says Needs approval, with the reason" \
	'[ "$(events "e.event===\"timeline.message\" && e.row===\"call-unc\" && e.signal===\"Needs approval\" && /may not have reached Claude/.test(e.reason) && !e.link")" = 1 ]'
check "unconfirmed: the model never saw it" '[ "$(envelope_count "$tmp/unc.envelope")" = "0 0 0" ]'
check "unconfirmed: the stopped run's host ended" 'wait_for 30 "! hosts_running"'
resume=$(claude_id "$tmp/unc1.transcript")
resume=$resume drive "$tmp/unc2.transcript" "$tmp/unc2.stop" "$doubtful" run-unc-2 --prompt 'Hello again.'
check "unconfirmed: a new bridge of the session attached and ran its turn" \
	'wait_for 90 "[ \$(idles "$tmp/unc2.transcript") -ge 1 ]"'
# Its attach made the session's queue due at once; a held message is not.
sleep 3
check "unconfirmed: not sent again on its own" \
	'state_is call-unc held && ! grep -q "\[$op\]" "$tmp/unc2.transcript.err" && [ "$(envelope_count "$tmp/unc.envelope")" = "0 0 0" ]'
# A failed run: Claude Code stopped again, then the host itself dies
# (SIGKILL) after it took a second message.  The final read is made by a
# new host the bridge starts for it (a host without an open session
# reads any saved conversation); it finds nothing either.
host_pid=$(desktop_host)
cli_pids=$(below "$host_pid")
check "unconfirmed (host dies): Claude Code runs under the second host" '[ -n "$host_pid" ] && is_claude $cli_pids'
kill -STOP $cli_pids
body_unc2='Sent just before the agent host died.'
envelope "$body_unc2" >"$tmp/unc2.envelope"
receipt=$(send call-unc-2 run-sender "$body_unc2" "$doubtful")
op2=$(op_of call-unc-2)
check "unconfirmed (host dies): the host took the send" \
	'wait_for 60 "grep -q \"\[$op2\] sent into the Claude conversation\" $tmp/unc2.transcript.err"'
# Claude Code first: killing only the host would orphan its stopped
# process group, and the kernel then sends it SIGHUP and SIGCONT, so
# Claude Code would wake up and save the message after all.
kill -KILL $cli_pids "$host_pid"
wait "$desktop"   # the bridge ends with its host
desktop=
check "unconfirmed (host dies): a new host made the final read and found nothing" \
	'grep -q "the agent host ended: a new one makes the final transcript read" "$tmp/unc2.transcript.err" &&
	 grep -q "\[$op2\] unconfirmed, left to the user: .*; the final read, by a new agent host, did not find it" "$tmp/unc2.transcript.err"'
check "unconfirmed (host dies): held for the user too" 'wait_for 30 "state_is call-unc-2 held"'
check "unconfirmed (host dies): the model never saw it" '[ "$(envelope_count "$tmp/unc2.envelope")" = "0 0 0" ]'
check "unconfirmed (host dies): no agent host is left" 'wait_for 30 "! hosts_running"'
"$build/hbctl" run close run-unc-2 >/dev/null   # the desktop ends the failed run
resume=$resume drive "$tmp/unc3.transcript" "$tmp/unc3.stop" "$doubtful" run-unc-3 --prompt 'Third time.'
check "unconfirmed: a third bridge ran its turn, and still nothing was sent again" \
	'wait_for 90 "[ \$(idles "$tmp/unc3.transcript") -ge 1 ]" && state_is call-unc held && state_is call-unc-2 held'
"$build/hbctl" messages send "$op" >/dev/null
"$build/hbctl" messages send "$op2" >/dev/null
check "unconfirmed: after hbctl messages send, both delivered with proof" \
	'wait_for 90 "state_is call-unc sent && state_is call-unc-2 sent"'
check "unconfirmed: the bridge looked for each first, then carried it in" \
	'[ "$(proof_order "$op" "$tmp/unc3.transcript.err")" = "reading the transcript|sent into|reading the transcript|a transcript read found|" ] &&
	 [ "$(proof_order "$op2" "$tmp/unc3.transcript.err")" = "reading the transcript|sent into|reading the transcript|a transcript read found|" ] &&
	 grep -q "\[$op\] not in the Claude conversation: it goes in" "$tmp/unc3.transcript.err" &&
	 grep -q "\[$op2\] not in the Claude conversation: it goes in" "$tmp/unc3.transcript.err"'
check "unconfirmed: the model got each exactly once" \
	'wait_for 60 "[ \$(idles "$tmp/unc3.transcript") -ge 3 ]" && [ "$(envelope_count "$tmp/unc.envelope" | cut -d" " -f1,2)" = "1 1" ] &&
	 [ "$(envelope_count "$tmp/unc2.envelope" | cut -d" " -f1,2)" = "1 1" ]'
touch "$tmp/unc3.stop"
wait "$desktop"
rc=$?
desktop=
check "unconfirmed: the run ended cleanly" '[ $rc = 0 ]'

# ---------------------------------------------------------------- late --
# Claude Code saves its transcript behind the turn: the read at a close
# can come before the message is there.  Here Claude Code is stopped
# while the message goes in, so the live host's read at the close finds
# nothing; continued then, it saves the message as it ends, and the read
# a new host makes after it finds it.
late=$(new_session "Claude late" claude)
unset resume
drive "$tmp/late.transcript" "$tmp/late.stop" "$late" run-late --prompt 'Say hello.'
check "late: the run's own turn is done" 'wait_for 90 "[ \$(idles "$tmp/late.transcript") -ge 1 ]" && attached "$late"'
host_pid=$(desktop_host)
cli_pids=$(below "$host_pid")
kill -STOP $cli_pids
receipt=$(send call-late run-sender 'Saved only as Claude Code ends.' "$late")
op3=$(op_of call-late)
check "late: the host took the send" \
	'wait_for 60 "grep -q \"\[$op3\] sent into the Claude conversation\" $tmp/late.transcript.err"'
touch "$tmp/late.stop"
check "late: the live host's read at the close did not find it, and left it to a read after the host" \
	'wait_for 30 "grep -q \"\[$op3\] not in the transcript yet; read again once the agent host has ended\" $tmp/late.transcript.err"'
kill -CONT $cli_pids
wait "$desktop"
desktop=
check "late: the read after the host ended found it: delivered" \
	'grep -q "\[$op3\] the final read (by a new agent host) found message" "$tmp/late.transcript.err" &&
	 wait_for 30 "state_is call-late sent"'
check "late: no agent host is left" 'wait_for 30 "! hosts_running"'
check "no sanitizer report" '! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/*.err $tmp/broker.log'

if [ $fail -ne 0 ]; then
	for t in open grace drive crash1 crash2 unc1 unc2 unc3; do echo "--- $t"; cat "$tmp/$t.transcript.json"; tail -30 "$tmp/$t.transcript.err"; done
	tail -40 "$tmp/broker.log"
fi
exit $fail
