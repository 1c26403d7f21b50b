#!/usr/bin/env bash
# End to end: messages between sessions into the real Codex.  Another
# session's run calls send_session_message (hbctl, bound to that run) ->
# hb-broker -> svc-messages -> its outbox -> the broker -> hb-codex-bridge
# (--session of the recipient) -> the real `codex app-server` 0.171.0 ->
# the mock Responses API on 127.0.0.1.  messages-desktop.mjs plays the
# desktop: it opens a thread and waits.  Checks:
#   idle      into an idle thread the bridge starts a turn whose user input
#             is the envelope, byte for byte; the timeline rows; the bridge's
#             own answers never reach the desktop
#   steer     into a running turn (the mock holds the model's answer until
#             the test releases it): turn/steer, the model gets the envelope
#             in a second request of the same turn, no second turn
#   two       two messages into an idle thread: a turn, then a steer into it
#   agent     the sender is a real Codex whose model calls the tool (the
#             binding: its thread's session, its run, Codex's call id)
#   reserved  a desktop request with a session-message- id is refused
#   recheck   the broker holds at delivery what the recipient's running
#             turn's access forbids; hbctl messages send lets it go
#   nothing lost: for each failpoint (svc-messages and hb-broker killed at
#             each step of a delivery) and for a queue kept across a kill -9
#             while no bridge runs: the envelope reaches the model exactly
#             once and the message ends `sent` in appdata.db.
# Usage: messages-codex.sh BUILD (needs `npm ci` in tests/codex, sqlite3).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/codex-lib.sh"
require codex
require sqlite3


# Failpoints: a file DIR/NAME makes the process that reaches NAME kill
# itself once (the broker and the services it starts read HB_FAILPOINTS).
export HB_FAILPOINTS=$tmp/failpoints
mkdir -p "$HB_FAILPOINTS" "$tmp/project"
db=$HB_HOME/data/appdata.db



# Every event of the broker as JSON lines in $tmp/events.jsonl; returns
# once the watcher is known to receive (it has seen a call of ours).
start_watcher() {
	[ -n "$watcher" ] && kill "$watcher" 2>/dev/null
	"$build/hbctl" watch >>"$tmp/events.jsonl" 2>/dev/null &
	watcher=$!
	local before
	before=$(grep -c '"maintain_sessions"' "$tmp/events.jsonl" 2>/dev/null)
	for _ in $(seq 50); do
		"$build/hbctl" call maintain_sessions '{"action":"guide"}' >/dev/null 2>&1
		sleep 0.1
		[ "$(grep -c '"maintain_sessions"' "$tmp/events.jsonl")" -gt "${before:-0}" ] && return 0
	done
	echo "FAIL the event watcher never received an event"
	exit 1
}

# The broker again on the same HB_HOME (after a failpoint killed it).
restart_broker() {
	# Not a job of this shell (no "Killed" notice when a failpoint ends it).
	broker=$(sh -c '"$0" --config "$1" >>"$2" 2>&1 </dev/null & echo $!' "$build/hb-broker" "$tmp/services.conf" "$tmp/broker.log")
	echo "$broker" >"$tmp/broker.pid"
	wait_for 20 '"$build/hbctl" status >/dev/null 2>&1' || { echo "FAIL the broker did not start again"; exit 1; }
	start_watcher
}

# Process $1 (not a child of this shell) has ended.
gone() { ! kill -0 "$1" 2>/dev/null; }


# The sender's timeline row for call $1 with signal $2 was published once.
has_signal() { [ "$(events "e.event===\"timeline.message\" && e.row===\"$1\" && e.signal===\"$2\"")" = 1 ]; }


new_session() {
	"$build/hbctl" call manage_sessions "{\"action\":\"create\",\"title\":$(js_args 'print(JSON.stringify(argv[0]))' "$1"),\"agent\":\"codex\",\"projectPath\":\"$tmp/project\",\"accessLevel\":\"full-auto\"}" |
		json_field id
}

sender_of() {
	sqlite3 -cmd ".timeout 5000" "$db" "SELECT sender_session_id || ' ' || sender_run_id || ' ' || sender_access FROM chat_session_messages WHERE call_id = '$1'"
}

# The envelope the model must read for a message of the sender: built here
# from the page's text, not by the code under test.
sender_title='Planner "A" & <B>'
sender_title_xml='Planner &quot;A&quot; &amp; &lt;B&gt;'
envelope() {
	printf 'Message from another HB Code session. Answer this message in one of three ways: do it, ask one question, or object with the reason.\n<session_message from_session_id="%s" from_title="%s" from_agent="codex">\n%s\n</session_message>' \
		"$sender" "$sender_title_xml" "$1"
}

# start_desktop NAME SESSION MOCK-SCRIPT [desktop options]: a mock and the
# desktop (hb-codex-bridge --session SESSION -> codex) on a new thread;
# returns once the thread exists.  d is the scenario's folder.
start_desktop() {
	local name=$1 session=$2 script=$3 port
	shift 3
	d=$tmp/$name
	mkdir -p "$d"
	MOCK_SCRIPT_JSON=$script node "$rig/mock-responses.mjs" --port 0 --log "$d/mock.jsonl" \
		>"$d/mock.out" 2>"$d/mock.err" &
	mock=$!
	wait_for 10 '[ -s "$d/mock.out" ]'
	port=$(sed -n 's/^PORT //p' "$d/mock.out" | head -1)
	timeout 170 node "$here/e2e/messages-desktop.mjs" --mock-port "$port" --work-dir "$d/work" \
		--transcript "$d/transcript.jsonl" --state "$d/state.json" --stop-file "$d/stop" --timeout 150 \
		--env "HB_HOME=$HB_HOME" "$@" -- "$build/hb-codex-bridge" --session "$session" -- codex app-server \
		>"$d/summary.json" 2>"$d/desktop.err" &
	desktop=$!
	wait_for 60 '[ -s "$d/state.json" ]' || echo "note: $name: no thread after 60 s"
}
stop_desktop() {
	touch "$d/stop"
	wait "$desktop"
	echo $? >"$d/rc"
	desktop=
	kill "$mock" 2>/dev/null
	wait "$mock" 2>/dev/null
	mock=
}
# A bridge attached for session $1 (more than $2 times, in the broker's
# log: it spans restarts, and an event may come before a new watcher).
attaches() { grep -c "session $1: a codex bridge is attached" "$tmp/broker.log"; }
attached() { [ "$(attaches "$1")" -gt "${2:-0}" ]; }
# Conditions to wait for.
turns_completed() { [ "$(grep -c '"method":"turn/completed"' "$d/transcript.jsonl" 2>/dev/null)" -ge "$1" ]; }
turn_started() { grep -q '"method":"turn/started"' "$d/transcript.jsonl" 2>/dev/null; }
messages_up() { "$build/hbctl" status --json 2>/dev/null | grep -q '"name":"svc-messages"[^}]*"state":"up"'; }
no_reserved_answer() {
	js_args 'exit(JSON.parse(require("fs").readFileSync(argv[0],"utf8")).answers.some((a)=>String(a.id).startsWith("session-message-"))?1:0)' "$d/summary.json"
}

# send CALL-ID MESSAGE [RUN]: send_session_message from the sender's run.
send() {
	"$build/hbctl" call send_session_message \
		"$(js_args 'print(JSON.stringify({recipientSessionId: argv[0], message: argv[1]}))' "$recipient" "$2")" \
		--run "${3:-$run}" --call-id "$1" --timeout "${send_timeout:-20000}"
}

message_script='{"scenario":"message","finalText":"Understood.","deltaChunks":0}'

{ sessions_conf; messages_conf; } | start_broker
broker=$(cat "$tmp/broker.pid") # start_broker ran in the pipeline's subshell
start_watcher
sender=$(new_session "$sender_title")
check "a sending session" '[ -n "$sender" ]'
run=run-sender-1
"$build/hbctl" run open "$run" --session "$sender" --project "$tmp/project" --agent codex --access full-auto >/dev/null
rc=$?
check "the sender's run is open" '[ $rc = 0 ]'

# ---------------------------------------------------------------- idle --
recipient=$(new_session "Idle recipient")
start_desktop idle "$recipient" "$message_script"
check "idle: the desktop's thread exists" '[ -s "$d/state.json" ]'
check "idle: the bridge attached its session" 'wait_for 20 "attached $recipient"'
body='Please review <the diff> & answer "yes" or "no".
Second line, verbatim.'
envelope "$body" >"$d/envelope"
receipt=$(send call-idle "$body")
check "idle: the receipt says queued" '[ "${receipt#queued:}" != "$receipt" ]'
check "idle: the bridge's turn completed" 'wait_for 60 "turns_completed 1"'
check "idle: the message is sent in appdata.db" 'wait_for 20 "state_is call-idle sent"'
op=$(op_of call-idle)
stop_desktop
check "idle: the model got the envelope as the new turn's input, byte for byte" \
	'js_args "
		const fs = require(\"fs\");
		const want = fs.readFileSync(argv[1], \"utf8\");
		const reqs = fs.readFileSync(argv[0], \"utf8\").split(\"\n\").filter(Boolean).map(JSON.parse);
		const items = reqs[0].body.input, last = items[items.length - 1];
		exit(reqs.length === 1 && last.role === \"user\" && last.content.length === 1 &&
			last.content[0].type === \"input_text\" && last.content[0].text === want ? 0 : 1);
	" "$d/mock.jsonl" "$d/envelope"'
check "idle: exactly once" '[ "$(envelope_count "$d/mock.jsonl" "$d/envelope")" = "1 1" ]'
check "idle: the turn ran with the sandbox of full-auto (workspace-write)" \
	'grep -q "workspace-write" <(js_args "const fs=require(\"fs\");for(const l of fs.readFileSync(argv[0],\"utf8\").split(\"\n\"))if(l)print(JSON.parse(l).headers[\"x-codex-turn-metadata\"])" "$d/mock.jsonl")'
turn=$(json_field turnsCompleted.0.id <"$d/summary.json")
check "idle: the desktop saw the bridge's turn start and complete" \
	'[ -n "$turn" ] && [ "$(json_field turnsStarted.0 <"$d/summary.json")" = "$turn" ] && [ "$(json_field turnsCompleted.0.status <"$d/summary.json")" = completed ]'
check "idle: the desktop never got an answer with a session-message- id" \
	'no_reserved_answer && [ "$(json_field answers.length <"$d/summary.json")" = 2 ]'
check "idle: hbctl messages no longer lists it" \
	'"$build/hbctl" messages --json | grep -q "^{\"messages\":\[\]}$"'
check "idle: the sender's timeline row: Sent, linked to the recipient's row" \
	'[ "$(events "e.event===\"timeline.message\" && e.session===\"$sender\" && e.row===\"call-idle\" && e.messageId===\"$op\" && e.signal===\"Sent\" && e.title===\"Message to Idle recipient\" && e.link && e.link.session===\"$recipient\" && e.link.row===\"$op\"")" = 1 ]'
# (the envelope as a JS string: an events condition has no require)
envelope_js=$(js_args 'print(JSON.stringify(require("fs").readFileSync(argv[0], "utf8")))' "$d/envelope")
check "idle: the recipient's user row: the envelope, the turn, linked back" \
	'[ "$(events "e.event===\"timeline.user\" && e.session===\"$recipient\" && e.row===\"$op\" && e.text===$envelope_js && e.turn===\"$turn\" && e.link.session===\"$sender\" && e.link.row===\"call-idle\"")" = 1 ]'
check "idle: the run the bridge opened for the turn was closed at its end" \
	'grep -q "run $op opened for session $recipient (codex, full-auto)" "$tmp/broker.log" && grep -q "run $op closed" "$tmp/broker.log"'
check "idle: the desktop ended cleanly" '[ "$(cat "$d/rc")" = 0 ]'

# --------------------------------------------------------------- steer --
# The model's answer to the desktop's own turn waits for $d/release: the
# message arrives while that turn runs, whatever the machine's speed.
recipient=$(new_session "Busy recipient")
gate=$tmp/steer/release
start_desktop steer "$recipient" \
	"{\"scenario\":\"message\",\"finalText\":\"First answer.\",\"deltaChunks\":0,\"waitForFile\":\"$gate\",\"turns\":[{},{\"waitForFile\":null,\"finalText\":\"Answer to the message.\"}]}" \
	--turn "Work on something long."
check "steer: the desktop's turn started" 'wait_for 60 turn_started'
check "steer: the model is answering the first request" 'wait_for 30 "[ -s $d/mock.jsonl ]"'
check "steer: the bridge attached its session" 'wait_for 20 "attached $recipient"'
body='While you are at it: also check the tests.'
envelope "$body" >"$d/envelope"
receipt=$(send call-steer "$body")
check "steer: the receipt says queued" '[ "${receipt#queued:}" != "$receipt" ]'
# turn/steer is answered at once: the message counts as delivered while
# the model is still held.
check "steer: sent while the turn still runs" 'wait_for 30 "state_is call-steer sent"'
check "steer: the bridge used turn/steer" 'grep -q "steering into thread" "$d/work/stderr.log"'
touch "$gate"
check "steer: the turn completed" 'wait_for 60 "turns_completed 1"'
op=$(op_of call-steer)
sleep 1 # a second turn, if the bridge wrongly started one, would show now
stop_desktop
check "steer: one turn only, started by the desktop, completed" \
	'[ "$(json_field turnsStarted.length <"$d/summary.json")" = 1 ] && [ "$(json_field turnsCompleted.length <"$d/summary.json")" = 1 ] && [ "$(json_field turnsCompleted.0.status <"$d/summary.json")" = completed ]'
turn=$(json_field turnsStarted.0 <"$d/summary.json")
# What codex 0.171.0 does with a steer during a model request: it takes
# the input after that request and asks the model again in the same turn,
# with the envelope as the newest user message.
check "steer: the model got two requests of the same turn" \
	'[ "$(js_args "const fs=require(\"fs\");const t=new Set();let n=0;for(const l of fs.readFileSync(argv[0],\"utf8\").split(\"\n\")){if(!l)continue;const r=JSON.parse(l);if(!r.body)continue;n++;t.add(JSON.parse(r.headers[\"x-codex-turn-metadata\"]).turn_id)}print(n+\" \"+[...t].join(\",\"))" "$d/mock.jsonl")" = "2 $turn" ]'
check "steer: the first request lacks the envelope, the second ends with it (exactly once)" \
	'[ "$(envelope_count "$d/mock.jsonl" "$d/envelope")" = "1 1" ] && ! grep -q "also check the tests" <(head -1 "$d/mock.jsonl")'
check "steer: the recipient's user row names the running turn" \
	'[ "$(events "e.event===\"timeline.user\" && e.row===\"$op\" && e.turn===\"$turn\"")" = 1 ]'
check "steer: the desktop never got the answer to session-message-N#steer" no_reserved_answer
check "steer: the bridge opened no run of its own for a steered message" '! grep -q "run $op opened" "$tmp/broker.log"'

# ----------------------------------------------------------------- two --
# Two messages in a row into an idle thread: the first starts a turn (its
# model answer held by the gate), the second steers into that turn.
recipient=$(new_session "Twice recipient")
gate=$tmp/two/release
start_desktop two "$recipient" \
	"{\"scenario\":\"message\",\"finalText\":\"First answer.\",\"deltaChunks\":0,\"waitForFile\":\"$gate\",\"turns\":[{},{\"waitForFile\":null,\"finalText\":\"Second answer.\"}]}"
check "two: the bridge attached its session" 'wait_for 20 "attached $recipient"'
envelope "First of two." >"$d/envelope-a"
envelope "Second of two." >"$d/envelope-b"
send call-two-a "First of two." >/dev/null
check "two: the first started a turn (the model is answering it)" 'wait_for 30 "[ -s $d/mock.jsonl ] && state_is call-two-a sent"'
send call-two-b "Second of two." >/dev/null
check "two: the second went into that running turn" 'wait_for 30 "state_is call-two-b sent"'
touch "$gate"
check "two: the turn completed" 'wait_for 60 "turns_completed 1"'
op_b=$(op_of call-two-b)
sleep 1
stop_desktop
check "two: one turn only" '[ "$(json_field turnsStarted.length <"$d/summary.json")" = 1 ]'
check "two: each reached the model exactly once" \
	'[ "$(envelope_count "$d/mock.jsonl" "$d/envelope-a")" = "1 1" ] && [ "$(envelope_count "$d/mock.jsonl" "$d/envelope-b")" = "1 1" ]'
check "two: the second by turn/steer" 'grep -q "\[$op_b\] steering into thread" "$d/work/stderr.log"'

# --------------------------------------------------------------- agent --
# The sender is a real Codex too: its model calls send_session_message;
# the broker binds the call to the sender's thread, session and run.
recipient=$(new_session "Agent recipient")
agent_sender=$(new_session "Codex sender")
"$build/hbctl" run open run-agent --session "$agent_sender" --project "$tmp/project" --agent codex --access full-auto >/dev/null
start_desktop agent "$recipient" "$message_script"
check "agent: the bridge attached its session" 'wait_for 20 "attached $recipient"'
mkdir -p "$tmp/agent-sender"
tool="{\"namespace\":\"hbcode\",\"name\":\"send_session_message\",\"arguments\":{\"recipientSessionId\":\"$recipient\",\"message\":\"From a real Codex.\"},\"callId\":\"call_agent_1\"}"
MOCK_SCRIPT_JSON="{\"scenario\":\"tool\",\"tool\":$tool,\"finalText\":\"Sent.\",\"deltaChunks\":0}" \
	node "$rig/mock-responses.mjs" --port 0 --log "$tmp/agent-sender/mock.jsonl" --quiet >"$tmp/agent-sender/mock.out" 2>/dev/null &
sender_mock=$!
wait_for 10 '[ -s "$tmp/agent-sender/mock.out" ]'
timeout 90 node "$rig/drive.mjs" --mock-port "$(sed -n 's/^PORT //p' "$tmp/agent-sender/mock.out")" --mode bridge \
	--timeout 60 --work-dir "$tmp/agent-sender/work" --quiet --env "HB_HOME=$HB_HOME" --text "Tell the other session." \
	-- "$build/hb-codex-bridge" --session "$agent_sender" -- codex app-server >"$tmp/agent-sender/summary.json" 2>/dev/null
rc=$?
kill "$sender_mock" 2>/dev/null
wait "$sender_mock" 2>/dev/null
check "agent: the sender's turn completed" '[ $rc = 0 ] && [ "$(json_field turnStatus <"$tmp/agent-sender/summary.json")" = completed ]'
check "agent: the sender's model got the receipt (queued:)" \
	'grep -q "\"toolOutput\":{\"callId\":\"call_agent_1\",\"text\":\"queued: the message session-message-" "$tmp/agent-sender/mock.jsonl"'
check "agent: the row is the sender's, by Codex's call id" '[ "$(sender_of call_agent_1)" = "$agent_sender run-agent full-auto" ]'
check "agent: delivered" 'wait_for 60 "state_is call_agent_1 sent && turns_completed 1"'
sleep 1
stop_desktop
printf 'Message from another HB Code session. Answer this message in one of three ways: do it, ask one question, or object with the reason.\n<session_message from_session_id="%s" from_title="Codex sender" from_agent="codex">\nFrom a real Codex.\n</session_message>' \
	"$agent_sender" >"$d/envelope"
check "agent: the recipient's model got it exactly once" '[ "$(envelope_count "$d/mock.jsonl" "$d/envelope")" = "1 1" ]'
"$build/hbctl" run close run-agent >/dev/null

# ------------------------------------------------------------ reserved --
recipient=$(new_session "Strict recipient")
start_desktop reserved "$recipient" "$message_script" --reserved --turn "A turn of the desktop's own."
check "reserved: the desktop's own turn still completed" 'wait_for 60 "turns_completed 1"'
stop_desktop
check "reserved: id session-message-999 refused with an error" \
	'js_args "const s=JSON.parse(require(\"fs\").readFileSync(argv[0],\"utf8\"));const a=s.answers.filter(x=>x.id===\"session-message-999\");exit(a.length===1&&!a[0].ok&&/session-message-/.test(a[0].error.message)?0:1)" "$d/summary.json"'
check "reserved: clientUserMessageId session-message-998 refused, answered once" \
	'js_args "const s=JSON.parse(require(\"fs\").readFileSync(argv[0],\"utf8\"));const a=s.answers.filter(x=>x.id===3);exit(a.length===1&&!a[0].ok?0:1)" "$d/summary.json"'
check "reserved: neither reached codex (no turn, no model request for them)" \
	'! grep -q FORBIDDEN "$d/mock.jsonl" && [ "$(json_field turnsStarted.length <"$d/summary.json")" = 1 ]'

# ------------------------------------------------------------- recheck --
# The broker checks the hold rules again just before delivery, with the
# access of the recipient's running turn: its stored level is full-auto
# (svc-messages queues the message), its open run is full-access.
recipient=$(new_session "Recheck recipient")
"$build/hbctl" run open run-recheck --session "$recipient" --project "$tmp/project" --agent codex --access full-access >/dev/null
start_desktop recheck "$recipient" "$message_script"
check "recheck: the bridge attached its session" 'wait_for 20 "attached $recipient"'
envelope "Recheck: only with the user's consent." >"$d/envelope"
receipt=$(send call-recheck "Recheck: only with the user's consent.")
check "recheck: svc-messages queued it" '[ "${receipt#queued:}" != "$receipt" ]'
check "recheck: the broker held it at delivery" 'wait_for 30 "state_is call-recheck held"'
op=$(op_of call-recheck)
check "recheck: hbctl messages lists it, with the running turn's access as the reason" \
	'"$build/hbctl" messages --session "$recipient" --json | grep -q "\"status\":\"waiting-for-approval\".*full access, more than this session.s full auto"'
check "recheck: the sender's row says Needs approval" \
	'wait_for 10 "has_signal call-recheck \"Needs approval\""'
check "recheck: nothing reached the model" '[ "$(envelope_count "$d/mock.jsonl" "$d/envelope")" = "0 0" ]'
"$build/hbctl" messages send "$op" >/dev/null
check "recheck: sent after hbctl messages send" 'wait_for 30 "state_is call-recheck sent"'
check "recheck: the turn completed" 'wait_for 60 "turns_completed 1"'
sleep 1
stop_desktop
"$build/hbctl" run close run-recheck >/dev/null
check "recheck: the model got it exactly once" '[ "$(envelope_count "$d/mock.jsonl" "$d/envelope")" = "1 1" ]'
check "recheck: the bridge's run had the access of the running turn" \
	'grep -q "run $op opened for session $recipient (codex, full-access)" "$tmp/broker.log"'
check "recheck: the turn ran with the sandbox of full-access" \
	'grep -q "danger-full-access" <(js_args "const fs=require(\"fs\");for(const l of fs.readFileSync(argv[0],\"utf8\").split(\"\n\"))if(l)print(JSON.parse(l).headers[\"x-codex-turn-metadata\"])" "$d/mock.jsonl")'

# -------------------------------------------------------- nothing lost --
# A queue across a kill -9 of svc-messages while no bridge carries the
# recipient: the message waits in appdata.db and goes when one attaches.
recipient=$(new_session "Offline recipient")
mkdir -p "$tmp/offline"
envelope "Offline: read this when you are back." >"$tmp/offline/envelope"
receipt=$(send call-offline "Offline: read this when you are back.")
check "offline: queued while no bridge runs" '[ "${receipt#queued:}" != "$receipt" ] && [ "$(state_of call-offline)" = queued ]'
check "offline: hbctl messages lists it as queued" \
	'"$build/hbctl" messages --session "$recipient" --json | grep -q "\"status\":\"queued\""'
pid=$("$build/hbctl" status --json | js 'const s = input; for(const v of JSON.parse(s).services)if(v.name==="svc-messages")print(v.pid)')
kill -9 "$pid"
check "offline: svc-messages was restarted after kill -9" 'wait_for 20 "messages_up && ! kill -0 $pid 2>/dev/null"'
start_desktop offline "$recipient" "$message_script"
check "offline: delivered once the bridge attached" 'wait_for 60 "state_is call-offline sent"'
check "offline: the turn completed" 'wait_for 60 "turns_completed 1"'
sleep 1
stop_desktop
check "offline: the model got the envelope exactly once" '[ "$(envelope_count "$d/mock.jsonl" "$d/envelope")" = "1 1" ]'

# One failpoint: $1 its name, then what is special about it.  The desktop
# waits on an attached, idle thread; the message is sent; the process that
# reaches the point dies; it is delivered once all the same.
failpoint() {
	local point=$1 name=${1//./-}
	recipient=$(new_session "Recipient $point")
	start_desktop "$name" "$recipient" "$message_script"
	wait_for 20 "attached $recipient" || echo "note: $point: no attach seen"
	envelope "Failpoint $point: do this once." >"$d/envelope"
	touch "$HB_FAILPOINTS/$point"
	receipt=$(send "call-$name" "Failpoint $point: do this once." 2>&1)
	echo "$receipt" >"$d/receipt"
}
# After the sender's call: the receipt, the delivery, the count.
failpoint_end() {
	local point=$1 name=${1//./-}
	check "$point: the failpoint was reached" 'wait_for 30 "[ ! -e $HB_FAILPOINTS/$point ]"'
	check "$point: the message ends sent in appdata.db" 'wait_for 60 "state_is call-$name sent"'
	check "$point: the turn completed" 'wait_for 60 "turns_completed 1"'
	sleep 2 # a repeat, if one were carried in, would reach codex now
	stop_desktop
	check "$point: the model got the envelope exactly once" '[ "$(envelope_count "$d/mock.jsonl" "$d/envelope")" = "1 1" ]'
	check "$point: the desktop saw one turn" '[ "$(json_field turnsStarted.length <"$d/summary.json")" = 1 ]'
}

failpoint messages.after-commit
check "messages.after-commit: the call failed (svc-messages died before the receipt)" \
	'! grep -q "^queued:" "$d/receipt" && grep -qi "svc-messages" "$d/receipt"'
wait_for 20 messages_up
receipt=$(send call-messages-after-commit "Failpoint messages.after-commit: do this once.")
check "messages.after-commit: the retry with the same call id says already-sent" '[ "${receipt#already-sent:}" != "$receipt" ]'
failpoint_end messages.after-commit

# In these two the delivery loop dies, in the process whose worker is
# answering the call: when the delivery is quicker than the answer (a slow
# sanitizer build), the receipt dies with it, and the retry of the same
# call must say already-sent.
queued_or_retried() {
	local point=$1 name=${1//./-} again
	grep -q "^queued:" "$d/receipt" && return 0
	grep -qi "svc-messages" "$d/receipt" || return 1
	wait_for 20 messages_up || return 1
	again=$(send "call-$name" "Failpoint $point: do this once.")
	[ "${again#already-sent:}" != "$again" ]
}
for point in messages.after-accept messages.before-mark-sent; do
	failpoint $point
	check "$point: the receipt says queued (or a retry says already-sent)" "queued_or_retried $point"
	failpoint_end $point
done

# hb-broker itself dies: start it again on the same HB_HOME; the bridge
# reconnects and attaches again by itself.
# The receipt may die with the broker: no need to wait long for it.
send_timeout=5000
for point in broker.before-forward broker.after-forward; do
	failpoint $point
	check "$point: hb-broker died" 'wait_for 30 "gone $broker"'
	seen=$(attaches "$recipient")
	restart_broker
	check "$point: the bridge attached to the new broker" 'wait_for 30 "attached $recipient $seen"'
	run=run-sender-$point
	"$build/hbctl" run open "$run" --session "$sender" --project "$tmp/project" --agent codex --access full-auto >/dev/null
	failpoint_end $point
done

# The recipient's bridge dies after carrying the message in but before it
# could report it (failpoint bridge.before-report); the desktop resumes the
# thread with a new bridge and a new codex.  svc-messages asks again; the new bridge finds the message in
# the thread's history (its client id is the operation id) and does not
# carry it in twice.
recipient=$(new_session "Recipient bridge restart")
start_desktop bridge-restart "$recipient" "$message_script"
wait_for 20 "attached $recipient" || echo "note: bridge-restart: no attach seen"
envelope "Bridge restart: do this once." >"$d/envelope"
touch "$HB_FAILPOINTS/bridge.before-report"
receipt=$(send call-bridge-restart "Bridge restart: do this once.")
check "bridge restart: the receipt says queued" '[ "${receipt#queued:}" != "$receipt" ]'
check "bridge restart: the bridge died before its report" 'wait_for 30 "[ ! -e $HB_FAILPOINTS/bridge.before-report ]"'
wait "$desktop" 2>/dev/null
desktop=
thread=$(json_field threadId <"$d/state.json")
port=$(sed -n 's/^PORT //p' "$d/mock.out" | head -1)
seen=$(attaches "$recipient")
timeout 170 node "$here/e2e/messages-desktop.mjs" --mock-port "$port" --work-dir "$d/work" --resume "$thread" \
	--transcript "$d/transcript2.jsonl" --state "$d/state2.json" --stop-file "$d/stop" --timeout 150 \
	--env "HB_HOME=$HB_HOME" -- "$build/hb-codex-bridge" --session "$recipient" -- codex app-server \
	>"$d/summary2.json" 2>"$d/desktop2.err" &
desktop=$!
check "bridge restart: the resumed thread's bridge attached" 'wait_for 60 "attached $recipient $seen"'
check "bridge restart: the message ends sent" 'wait_for 60 "state_is call-bridge-restart sent"'
sleep 1 # a second delivery, if one were made, would reach codex now
stop_desktop
# The first codex died with the bridge (its stdin closed).  Whether it had
# written the message into the thread by then is its own race: the history
# the resumed thread starts from (thread/resume's answer) says which, and
# the new bridge must act on exactly that.
in_history=$(client_id_count "$d/transcript2.jsonl" "$(op_of call-bridge-restart)")
if [ "$in_history" = 1 ]; then
	# In the conversation, answered or not: never carried in again.
	check "bridge restart: the new bridge found it in the thread's history" \
		'grep -q "already in thread" "$d/work/stderr.log"'
	check "bridge restart: the model never got it twice" \
		'case "$(envelope_count "$d/mock.jsonl" "$d/envelope")" in "0 0" | "1 1") true ;; *) false ;; esac'
	check "bridge restart: the resumed desktop saw no turn" \
		'[ "$(json_field turnsStarted.length <"$d/summary2.json")" = 0 ]'
else
	# Never written: the conversation does not have it, so the new bridge
	# carries it in, once.
	check "bridge restart: not in the history the thread resumed from (0 copies)" '[ "$in_history" = 0 ]'
	check "bridge restart: the new bridge did not claim to find it" \
		'! grep -q "already in thread" "$d/work/stderr.log"'
	check "bridge restart: the resumed desktop saw the bridge's one turn" \
		'[ "$(json_field turnsStarted.length <"$d/summary2.json")" = 1 ]'
	check "bridge restart: no request to the model carried it twice" \
		'case "$(envelope_count "$d/mock.jsonl" "$d/envelope")" in "1 "*) true ;; *) false ;; esac'
fi

check "no message left in the queue" '"$build/hbctl" messages --json | grep -q "^{\"messages\":\[\]}$"'
check "no sanitizer report" \
	'! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/*/work/stderr.log $tmp/broker.log'

if [ $fail -ne 0 ]; then
	for s in "$tmp"/*/summary.json; do echo "--- $s"; cat "$s"; done
	for s in "$tmp"/*/work/stderr.log; do echo "--- $s"; grep -v "WARN\|bubblewrap\|PATH aliases" "$s" | tail -10; done
	tail -60 "$tmp/broker.log"
fi
exit $fail
