#!/usr/bin/env bash
# End to end: the launcher.  A message to a Codex session whose agent is
# not running: hb-broker starts `hb-codex-bridge --once --resume THREAD`
# with the real `codex app-server` 0.171.0 (one mock Responses API on
# 127.0.0.1 behind every codex of the test, one CODEX_HOME), the message
# starts a turn in the session's thread, and the model's answer (it calls
# send_session_message back) reaches the sender, whose agent does not run
# either: launched too.  Checks:
#   reply      both directions: the envelope reached each model exactly
#              once, each thread's history has it, both launches ended by
#              themselves (--once), the runs of the turns were closed,
#              hbctl status --json listed the launches while they ran;
#              B's launch opened with B's model and effort (setModel):
#              its model's requests name them; the plan windows the mock
#              reports in its headers reach hbctl usage through codex
#   no thread  a session never opened keeps its message queued, and
#              hbctl messages (and --json) says why; once it has a thread
#              and a level above the sender's, the message is held at
#              delivery and nothing is started for it; a Claude session
#              without a conversation is started all the same (a new
#              conversation, launch-claude.sh), so an agentHost that names
#              no program is what hbctl messages says
#   codexPath  pointing at a missing program, or naming none in PATH:
#              hbctl messages says so; the message goes once it is fixed
#   approve    a launched turn whose command needs more than the sandbox
#              (exec_command with require_escalated): codex's
#              item/commandExecution/requestApproval waits as an approval
#              card of the turn's run (kind command, the command line and
#              its folder) in hbctl approvals, since nobody is at a desktop;
#              hbctl approve lets codex run it, and the turn and the launch
#              end by themselves
#   idle       hb-codex-bridge --once on its own, with nothing to carry:
#              stdin's end does not end it, it attaches and ends after
#              HB_ONCE_IDLE_MS; --once without --resume is a usage error
#   stopped    a launched turn whose model hangs: hbctl run stop ends the
#              bridge the broker started (status 0), the run is closed
#              and the message stays delivered
#   stuck      (a second broker with short limits) nothing is started
#              just after the broker's own start; a codex that never
#              answers: one launch per session however often svc-messages
#              asks, killed when it does not attach in time, with the
#              reason; one that exits at once, with its status; and a
#              broker stopped while a launch runs ends it
#   status fd  (a copy of hb-broker beside a stand-in hb-codex-bridge)
#              the bridge writes why it fails on HB_STATUS_FD and logs
#              lines of no known shape: hbctl messages gives its sentence,
#              the log has its lines as they were
# Usage: launch-codex.sh BUILD (needs `npm ci` in tests/codex, sqlite3).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/codex-lib.sh"
require codex
require sqlite3

db=$HB_HOME/data/appdata.db
work=$tmp/work # the desktops' and the launched bridges' codex: one CODEX_HOME
mkdir -p "$tmp/project" "$work"

# The environment of the broker, and so of the bridges it starts: the
# same as messages-desktop.mjs gives its codex (nothing that could pick
# another endpoint, account or telemetry sink; the pinned codex on PATH).
for k in $(env | sed -n 's/^\(\(CODEX_\|OPENAI_\|OTEL_\|AZURE_OPENAI\)[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$k"; done
unset http_proxy https_proxy all_proxy ftp_proxy grpc_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY SSL_CERT_FILE HB_CODEX
export CODEX_HOME=$work/codex-home HOME=$work/home XDG_CONFIG_HOME=$work/home/.config \
	XDG_DATA_HOME=$work/home/.local/share XDG_CACHE_HOME=$work/home/.cache XDG_STATE_HOME=$work/home/.local/state \
	MOCK_API_KEY=mock-key-not-a-secret RUST_LOG=warn NO_PROXY=127.0.0.1,localhost,::1 no_proxy=127.0.0.1,localhost,::1 \
	OTEL_SDK_DISABLED=true OTEL_TRACES_EXPORTER=none OTEL_METRICS_EXPORTER=none OTEL_LOGS_EXPORTER=none \
	DO_NOT_TRACK=1 NO_COLOR=1 PATH=$rig/node_modules/.bin:$PATH

new_session() {
	"$build/hbctl" call manage_sessions "{\"action\":\"create\",\"title\":\"$1\",\"agent\":\"codex\",\"projectPath\":\"$tmp/project\",\"accessLevel\":\"full-auto\"}" |
		json_field id
}
thread_of() {
	sqlite3 -cmd ".timeout 5000" "$db" "SELECT thread_id FROM codex_session_links WHERE session_id = '$1' ORDER BY created_at DESC LIMIT 1"
}
# send FROM-RUN TO CALL-ID MESSAGE: send_session_message from that run.
send() {
	"$build/hbctl" call send_session_message \
		"$(js_args 'print(JSON.stringify({recipientSessionId: argv[0], message: argv[1]}))' "$2" "$4")" \
		--run "$1" --call-id "$3" --timeout 20000
}
# The envelope a model must read (built here from the page's text).
envelope() {
	printf 'Message from another HB Code session. Answer this message in one of three ways: do it, ask one question, or object with the reason.\n<session_message from_session_id="%s" from_title="%s" from_agent="codex">\n%s\n</session_message>' \
		"$1" "$2" "$3"
}
# a_to_b NAME BODY: A's run sends BODY to B as call-NAME; the envelope B's
# model must read goes to $tmp/NAME.envelope, the message's id to $op.
a_to_b() {
	envelope "$A" "Sender A" "$2" >"$tmp/$1.envelope"
	receipt=$(send run-a "$B" "call-$1" "$2")
	op=$(op_of "call-$1")
}
# desktop NAME SESSION [desktop options]: the desktop on the session's
# thread (a new one, with one turn of its own, unless --resume) until
# $tmp/NAME.stop exists.
desktop() {
	local name=$1 session=$2
	shift 2
	timeout 170 node "$here/e2e/messages-desktop.mjs" --mock-port "$port" --work-dir "$work" \
		--transcript "$tmp/$name.jsonl" --state "$tmp/$name.state" --stop-file "$tmp/$name.stop" --timeout 150 \
		--env "HB_HOME=$HB_HOME" "$@" -- "$build/hb-codex-bridge" --session "$session" -- codex app-server \
		>"$tmp/$name.summary" 2>"$tmp/$name.err" &
	desktop=$!
}
desktop_stop() {
	touch "$tmp/$1.stop"
	wait "$desktop"
	desktop=
}
# (no transcript yet counts 0, not an empty string)
turns_completed() { [ "$(cat "$tmp/$1.jsonl" 2>/dev/null | grep -c '"method":"turn/completed"')" -ge "$2" ]; }
# The queue's line for a message (hbctl messages, text) and its JSON.
queue_line() { "$build/hbctl" messages 2>/dev/null | grep -F "$1"; }
queue_json() { "$build/hbctl" messages --json 2>/dev/null; }
launched_for() { launches | grep -q "\"session\":\"$1\""; }
no_launches() { [ "$(launches)" = "[]" ]; }
started_for() { grep -c "\[$1\] no bridge carries this session: started $build/hb-codex-bridge" "$tmp/broker.log"; }

{ sessions_conf; messages_conf; } | start_broker
broker=$(cat "$tmp/broker.pid")
A=$(new_session "Sender A")
B=$(new_session "Recipient B")
C=$(new_session "Never opened C")
D=$("$build/hbctl" call manage_sessions "{\"action\":\"create\",\"title\":\"Claude D\",\"agent\":\"claude\",\"projectPath\":\"$tmp/project\",\"accessLevel\":\"full-auto\"}" | json_field id)
check "four sessions" '[ -n "$A" ] && [ -n "$B" ] && [ -n "$C" ] && [ -n "$D" ]'
# agentHost names no program all along (D's messages wait with that
# reason); codexPath is set only in its own section.
"$build/hbctl" settings agent-host set "no-such-node /nowhere/host.mjs" >/dev/null
check "hbctl settings shows agent-host" '"$build/hbctl" settings | grep -qxF "agent-host     no-such-node /nowhere/host.mjs"'
check "hbctl settings shows codex-path unset" '"$build/hbctl" settings | grep -qxF "codex-path     not set (codex, from PATH)"'

reply='Reply from B: done, the tests pass.'
# Turns of the one mock, in order: A's and B's desktops open their
# threads with a turn each; then B's launched agent gets A's message and
# answers with send_session_message to A; then A's launched agent gets it;
# then B's again (the codexPath section).
# The approve section's turn runs a command outside the sandbox (codex
# asks first).  The stopped section's turn waits for a file nobody writes:
# its model request hangs.
marker=$tmp/approved-by-card
script=$(js_args '
	const [a, reply, never, marker] = argv;
	// The plan windows the Responses API reports in its headers; codex
	// passes them on (account/rateLimits/updated) and hbctl usage shows them.
	const rateLimitHeaders = {
		"x-codex-primary-used-percent": "42", "x-codex-primary-window-minutes": "300",
		"x-codex-primary-reset-at": "1796526000", "x-codex-secondary-used-percent": "7",
		"x-codex-secondary-window-minutes": "10080", "x-codex-secondary-reset-at": "1796860800" };
	print(JSON.stringify({ scenario: "message", finalText: "Ready.", deltaChunks: 0, rateLimitHeaders, turns: [{}, {},
		{ scenario: "tool", tool: { namespace: "hbcode", name: "send_session_message", callId: "call_reply_b",
			arguments: { recipientSessionId: a, message: reply } }, finalText: "I answered A." },
		{ finalText: "Thanks, B." }, {},
		{ scenario: "tool", tool: { namespace: null, name: "exec_command", callId: "call_escalate",
			arguments: { cmd: "touch " + marker, sandbox_permissions: "require_escalated",
				justification: "Create the marker outside the workspace" } }, finalText: "Created." },
		{ waitForFile: never }] }));' "$A" "$reply" "$tmp/never-answered" "$marker")
MOCK_SCRIPT_JSON=$script node "$rig/mock-responses.mjs" --port 0 --log "$tmp/mock.jsonl" >"$tmp/mock.out" 2>"$tmp/mock.err" &
mock=$!
wait_for 10 '[ -s "$tmp/mock.out" ]'
port=$(sed -n 's/^PORT //p' "$tmp/mock.out" | head -1)

for s in A B; do
	eval "session=\$$s"
	desktop "open-$s" "$session" --turn "Open session $s."
	check "$s: its desktop's turn completed" 'wait_for 90 "turns_completed open-$s 1"'
	desktop_stop "open-$s"
	check "$s: its thread is linked to the session" '[ -n "$(thread_of "$session")" ]'
done
threadA=$(thread_of "$A")
threadB=$(thread_of "$B")
"$build/hbctl" run open run-a --session "$A" --project "$tmp/project" --agent codex --access full-auto >/dev/null
check "A's run is open (no agent runs for A)" '[ $? = 0 ]'

# ------------------------------------------------------------ no thread --
receipt=$(send run-a "$C" call-to-c "Are you there, C?")
check "no thread: the receipt says queued" '[ "${receipt#queued:}" != "$receipt" ]'
op_c=$(op_of call-to-c)
check "no thread: hbctl messages says why it waits" \
	'wait_for 30 "queue_line $op_c | grep -qF \"queued  from $A to $C (Never opened C): this session has no Codex thread yet: open it once in HB Code\""'
check "no thread: hbctl messages --json has the reason as lastError" \
	'queue_json | grep -qF "\"lastError\":\"this session has no Codex thread yet: open it once in HB Code\""'
check "no thread: nothing was started for it" '[ "$(started_for "$C")" = 0 ]'
# C gets a thread (a row as the bridge's thread link writes it) and a
# higher level: the rules hold the message before anything is started.
sqlite3 -cmd ".timeout 5000" "$db" "INSERT INTO codex_session_links VALUES ('thr-c', '$C', NULL, 1)"
"$build/hbctl" call manage_sessions "{\"action\":\"setAccessLevel\",\"targetSessionId\":\"$C\",\"accessLevel\":\"full-access\"}" >/dev/null
check "held: a message whose recipient's level rose is held at delivery" 'wait_for 30 "state_is call-to-c held"'
check "held: hbctl messages says why, and nothing was started" \
	'queue_line $op_c | grep -qF "waiting-for-approval  from $A to $C (Never opened C): " && [ "$(started_for "$C")" = 0 ]'
"$build/hbctl" messages discard "$op_c" >/dev/null
receipt=$(send run-a "$D" call-to-d "Are you there, D?")
op_d=$(op_of call-to-d)
check "no thread: a Claude session without a conversation gets one: its agentHost names no program, and hbctl messages says so" \
	'wait_for 30 "queue_line $op_d | grep -q \"its Claude agent cannot be started: no-such-node (the agent host.s program) was not found\""'
# D gets a conversation (as hb-claude-bridge links it through svc-sessions).
sqlite3 -cmd ".timeout 5000" "$db" "INSERT INTO claude_sessions VALUES ('$D', '5a4ef92f-2795-4076-8c1c-4150199e554a', 1)"
check "no thread: a Claude session with a conversation, whose agentHost names no program, says so" \
	'wait_for 30 "queue_line $op_d | grep -q \"its Claude agent cannot be started: no-such-node (the agent host.s program) was not found\""'
check "no thread: nothing was started for D" '! grep -qF "[$D] no bridge carries this session: started" "$tmp/broker.log"'

# ---------------------------------------------------------------- reply --
body='Please run the tests and answer me with send_session_message.'
# B's runs open with its own model and effort (page 003).
"$build/hbctl" call manage_sessions "{\"action\":\"setModel\",\"targetSessionId\":\"$B\",\"model\":\"mock-model-b\",\"effort\":\"high\"}" >/dev/null
envelope "$A" "Sender A" "$body" >"$tmp/to-b.envelope"
envelope "$B" "Recipient B" "$reply" >"$tmp/to-a.envelope"
receipt=$(send run-a "$B" call-to-b "$body")
check "reply: the receipt says queued" '[ "${receipt#queued:}" != "$receipt" ]'
check "reply: hbctl status --json lists B's launch" 'wait_for 60 "launched_for $B"'
check "reply: the message to B is sent" 'wait_for 120 "state_is call-to-b sent"'
check "reply: B's answer (its model's send_session_message) is sent to A" 'wait_for 120 "state_is call_reply_b sent"'
check "reply: B's model got A's envelope as a turn's input, exactly once" \
	'[ "$(envelope_count "$tmp/mock.jsonl" "$tmp/to-b.envelope")" = "1 1" ]'
check "reply: A's model got B's answer, exactly once" 'wait_for 60 "[ \"\$(envelope_count $tmp/mock.jsonl $tmp/to-a.envelope)\" = \"1 1\" ]"'
check "reply: both launches ended by themselves (--once)" 'wait_for 120 no_launches'
check "reply: one launch each, with the thread and the approved access" \
	'[ "$(started_for "$B")" = 1 ] && [ "$(started_for "$A")" = 1 ] &&
	 grep -qF "[$B] no bridge carries this session: started $build/hb-codex-bridge" "$tmp/broker.log" &&
	 grep -qF "full-auto, thread $threadB, model mock-model-b, effort high)" "$tmp/broker.log" &&
	 grep -qF "full-auto, thread $threadA)" "$tmp/broker.log"'
# The requests of B's turn: those whose input has A's envelope.
model_of_b() {
	js_args '
		const fs = require("fs");
		const want = fs.readFileSync(argv[1], "utf8");
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const b = JSON.parse(l).body;
			if (b && JSON.stringify(b.input || []).includes(JSON.stringify(want).slice(1, -1)))
				print(b.model + " " + (b.reasoning && b.reasoning.effort));
		}' "$tmp/mock.jsonl" "$tmp/to-b.envelope" | sort -u
}
check "reply: B's turn ran on B's model and effort" '[ "$(model_of_b)" = "mock-model-b high" ]'
"$build/hbctl" usage --agent codex >"$tmp/usage.out" 2>&1
check "usage: hbctl usage shows the windows codex reported from the model's answers, with when each resets" \
	'grep -q "^Codex, plan unknown, reported [0-9]* s ago:$" "$tmp/usage.out" &&
	 grep -qx "  five-hour window: 42% used, resets 2026-12-06T03:00:00Z" "$tmp/usage.out" &&
	 grep -qx "  weekly window: 7% used, resets 2026-12-10T00:00:00Z" "$tmp/usage.out" && [ "$(wc -l <"$tmp/usage.out")" = 3 ]'
check "usage: --json has them under codex, with when they came" \
	'"$build/hbctl" usage --agent codex --json | js "const s = input; const c=JSON.parse(s).codex;exit(c.rateLimits.primary.usedPercent===42&&c.rateLimits.secondary.resetsAt===1796860800&&Math.abs(c.reportedAt-Date.now()/1000)<600?0:1)"'
check "reply: the launched bridges' lines are in the broker's log, keyed by session" \
	'grep -qF "[codex $B] " "$tmp/broker.log" && grep -qF -- "--once: resuming thread $threadB" "$tmp/broker.log"'
op_b=$(op_of call-to-b)
op_a=$(op_of call_reply_b)
check "reply: the runs of both turns were opened with full-auto (B's with B's model) and closed" \
	'grep -q "run $op_b opened for session $B (codex, full-auto, mock-model-b)" "$tmp/broker.log" && grep -q "run $op_b closed" "$tmp/broker.log" &&
	 grep -q "run $op_a opened for session $A (codex, full-auto)" "$tmp/broker.log" && grep -q "run $op_a closed" "$tmp/broker.log"'
check "reply: B's answer names B's session and the run of B's turn" \
	'[ "$(sqlite3 -cmd ".timeout 5000" "$db" "SELECT sender_session_id || \" \" || sender_run_id FROM chat_session_messages WHERE call_id = '"'"'call_reply_b'"'"'")" = "$B $op_b" ]'
for s in A B; do
	eval "session=\$$s thread=\$thread$s"
	[ $s = A ] && op=$op_a || op=$op_b
	desktop "history-$s" "$session" --resume "$thread"
	wait_for 60 "[ -s $tmp/history-$s.state ]"
	desktop_stop "history-$s"
	check "reply: $s's thread history has the message (client id $op), once" \
		'[ "$(client_id_count "$tmp/history-$s.jsonl" "$op")" = 1 ]'
done

# ------------------------------------------------------------ codexPath --
"$build/hbctl" settings codex-path set "$tmp/no-such-codex" >/dev/null
body='Once more, please.'
a_to_b again "$body"
check "codexPath: hbctl messages says the program is missing" \
	'wait_for 30 "queue_line $op | grep -qF \"its Codex agent cannot be started: codexPath $tmp/no-such-codex is not an executable file; set it to the codex program: hbctl settings codex-path set PATH (or HB_CODEX)\""'
"$build/hbctl" settings codex-path set no-such-codex-program >/dev/null
check "codexPath: a name that is not in PATH is said so" \
	'wait_for 30 "queue_line $op | grep -qF \"its Codex agent cannot be started: no-such-codex-program was not found in PATH\" && queue_line $op | grep -qF \"install Codex, or give its path: hbctl settings codex-path set PATH (or HB_CODEX)\""'
check "codexPath: nothing was started" '[ "$(started_for "$B")" = 1 ]'
"$build/hbctl" settings codex-path delete >/dev/null
check "codexPath: sent once the setting is gone" 'wait_for 120 "state_is call-again sent"'
check "codexPath: the model got it once" 'wait_for 60 "[ \"\$(envelope_count $tmp/mock.jsonl $tmp/again.envelope)\" = \"1 1\" ]"'
check "codexPath: the launch ended" 'wait_for 120 no_launches'

# -------------------------------------------------------------- approve --
# The card of the command, as hbctl approvals --json shows it: its id when
# it is the launched turn's (run $op), kind command, the command line
# naming the marker, a folder and codex's reason.
card_id() {
	"$build/hbctl" approvals --json 2>/dev/null | js '
		const s = input;
		const [run, marker] = argv;
		for (const c of JSON.parse(s || "[]"))
			if (c.run === run && c.kind === "command" && c.tool === "commandExecution" &&
			    c.command.includes("touch " + marker) && c.cwd && c.toolUseId === "call_escalate" &&
			    c.decisionReason === "Create the marker outside the workspace")
				print(c.id);' "$op" "$marker"
}
a_to_b approve 'Please create the marker file.'
check "approve: codex's command approval waits as a card of the launched turn's run (command, folder, reason)" \
	'wait_for 120 "[ -n \"\$(card_id)\" ]"'
check "approve: hbctl approvals shows it as a command with its folder" \
	'"$build/hbctl" approvals | grep -qE "^a[0-9]+  command  .*touch $marker.*  \(in .+\)  run $op  session $B"'
check "approve: the command did not run before the answer" '[ ! -e "$marker" ]'
"$build/hbctl" approve "$(card_id)" >/dev/null
check "approve: approved, codex ran the command" 'wait_for 60 "[ -e $marker ]"'
check "approve: the turn ended, the message is sent, the launch ended by itself" \
	'wait_for 120 "state_is call-approve sent" && wait_for 120 no_launches && [ -z "$(card_id)" ]'
check "approve: the model got the command's output back" \
	'wait_for 30 "grep call_escalate $tmp/mock.jsonl | grep -q function_call_output"'

# ----------------------------------------------------------------- idle --
seen=$(grep -c "session $B: a codex bridge is attached" "$tmp/broker.log")
gone=$(grep -c "session $B: its bridge is detached (the bridge said so)" "$tmp/broker.log")
HB_ONCE_IDLE_MS=1000 timeout 120 "$build/hb-codex-bridge" --session "$B" --resume "$threadB" --access full-auto \
	--once -- codex app-server </dev/null >"$tmp/idle.out" 2>"$tmp/idle.err"
rc=$?
check "idle: handed nothing, it ended by itself, with status 0" \
	'[ $rc = 0 ] && grep -qF -- "--once: nothing was handed to it since it attached; ending" "$tmp/idle.err"'
check "idle: it attached its session first, and detached at its end" \
	'[ "$(grep -c "session $B: a codex bridge is attached" "$tmp/broker.log")" -gt "$seen" ] && [ "$(grep -c "session $B: its bridge is detached (the bridge said so)" "$tmp/broker.log")" -gt "$gone" ]'
check "idle: nothing on its stdout (there is no caller)" '[ ! -s "$tmp/idle.out" ]'
"$build/hb-codex-bridge" --session "$B" --access full-auto --once -- codex app-server </dev/null >/dev/null 2>"$tmp/usage.err"
rc=$?
check "idle: --once without --resume is a usage error" '[ $rc = 100 ] && grep -qF -- "--resume THREAD --access LEVEL [--model M] [--effort E] --once" "$tmp/usage.err"'

# -------------------------------------------------------------- stopped --
# A launched turn whose model hangs: nobody but the broker can end it, so
# hbctl run stop ends the bridge it started (SIGTERM: the bridge's own
# close), as launch-claude.sh checks for Claude.
body='Think about this for a long time.'
a_to_b stop "$body"
check "stopped: B's bridge is started again, and its model got the message (its answer hangs)" \
	'wait_for 60 "[ \$(started_for $B) = 4 ]" && wait_for 120 "[ \"\$(envelope_count $tmp/mock.jsonl $tmp/stop.envelope)\" = \"1 1\" ]"'
"$build/hbctl" run stop "$op" >"$tmp/stop.out" 2>&1
check "stopped: hbctl run stop of the launched turn's run" 'grep -q stopped "$tmp/stop.out"'
check "stopped: the broker ended the bridge it started for that run" \
	'grep -q "\[$B\] run $op stopped: ending the bridge started for it (pid [0-9]*)" "$tmp/broker.log"'
stopped_ended() { grep -c "\[$B\] the Codex bridge started for it (pid [0-9]*) exited with status 0" "$tmp/broker.log"; }
check "stopped: the bridge ended with status 0 (its own close), the run closed, the launch forgotten" \
	'wait_for 30 "[ \$(stopped_ended) -ge 4 ]" && wait_for 10 "grep -q \"run $op closed\" $tmp/broker.log" && wait_for 30 no_launches'
check "stopped: the message is not lost (delivered: it is in the thread)" 'wait_for 30 "state_is call-stop sent"'

# ---------------------------------------------------------------- stuck --
# A codex that never answers (it only sleeps), behind a broker whose
# launches must attach within 3 s and wait 2 s after a failure.
kill "$broker"
wait_for 30 "! kill -0 $broker 2>/dev/null"
# It answers nothing, or exits at once with status 3 while $tmp/fail exists.
printf '#!/bin/sh\n[ -e "%s/fail" ] && { echo "stand-in codex: ending at once" >&2; exit 3; }\nexec sleep 600\n' "$tmp" >"$tmp/stuck-codex"
chmod 755 "$tmp/stuck-codex"
# A long attach expiry (10 s; the first check below sees its sentence
# within 2 s of the start, under ASan too): the broker starts nothing for
# that long after its start.
HB_CODEX=$tmp/stuck-codex HB_LAUNCH_ATTACH_MS=3000 HB_LAUNCH_RETRY_MS=2000 HB_ATTACH_TTL_MS=10000 \
	"$build/hb-broker" --config "$tmp/services.conf" >>"$tmp/broker.log" 2>&1 &
broker=$!
echo "$broker" >"$tmp/broker.pid"
wait_for 20 '"$build/hbctl" status >/dev/null 2>&1'
"$build/hbctl" run open run-a --session "$A" --project "$tmp/project" --agent codex --access full-auto >/dev/null
before=$(started_for "$B")
receipt=$(send run-a "$B" call-stuck "Are you stuck?")
op=$(op_of call-stuck)
check "stuck: nothing is started just after the broker's own start" \
	'wait_for 10 "queue_line $op | grep -qF \"hb-broker has just started: a bridge that was running attaches again first\""'
check "stuck: hbctl messages says its agent is starting, with the pid" \
	'wait_for 30 "queue_line $op | grep -qE \"queued .*: its Codex agent is starting \\(pid [0-9]+\\)\$\""'
check "stuck: hbctl status --json lists it, starting" 'wait_for 30 "launches | grep -q \"\\\"state\\\":\\\"starting\\\"\""'
check "stuck: hbctl status says so too" \
	'wait_for 30 "\"$build/hbctl\" status | grep -qE \"^launch: codex agent of session $B, starting, pid [0-9]+\$\""'
check "stuck: its reason after it was killed for not attaching" \
	'wait_for 60 "queue_line $op | grep -qF \"its Codex agent did not attach within 3 s of its start, so it was stopped\""'
# Its own process group: the bridge and the codex it started.
pid=$(sed -n "s/.*\[$B\] the bridge started for it (pid \([0-9]*\)) did not attach.*/\1/p" "$tmp/broker.log" | head -1)
check "stuck: the stuck bridge and its codex are gone" '[ -n "$pid" ] && ! kill -0 -- "-$pid" 2>/dev/null'
# svc-messages asked every 5 s meanwhile: still one start per kill.
killed_for() { grep -c "\[$1\] the bridge started for it (pid [0-9]*) did not attach" "$tmp/broker.log"; }
check "stuck: one launch at a time: a new start only after the last one was killed" \
	'wait_for 60 "[ \$(started_for $B) -ge $((before + 2)) ]" && n=$(($(started_for "$B") - before - $(killed_for "$B"))) &&
	 [ "$n" -ge 0 ] && [ "$n" -le 1 ] && [ "$(launches | grep -o "\"session\":\"$B\"" | wc -l)" -le 1 ]'
touch "$tmp/fail"
check "stuck: a codex that exits at once: its bridge's status is the reason" \
	'wait_for 60 "queue_line $op | grep -qF \"its Codex agent could not start: hb-codex-bridge exited with status 3 before it attached\""'
check "stuck: its output is in the broker's log" 'grep -qF "[codex $B] stand-in codex: ending at once" "$tmp/broker.log"'
rm "$tmp/fail"
wait_for 60 'launches | grep -q "\"state\":\"starting\""'
pid=$(launches | js 'const s = input; for(const l of JSON.parse(s))if(l.pid)print(l.pid)' | head -1)
check "stuck: a launch runs again" '[ -n "$pid" ] && kill -0 "$pid"'
kill "$broker"
wait "$broker"
check "stuck: the broker stopped, and ended the launch it started (its whole group)" \
	'! kill -0 -- "-$pid" 2>/dev/null'
check "stuck: the broker said so" 'grep -qF "[$B] stopping the bridge started for it (pid $pid)" "$tmp/broker.log"'

# --------------------------------------------------------- status fd --
# The broker's bridge is the one beside its own program: a copy of
# hb-broker next to a stand-in that fails, saying why on its status fd,
# its log lines in a shape no log.c ever wrote (bash: the descriptor's
# number may have two digits).
mkdir -p "$tmp/standin"
cp "$build/hb-broker" "$tmp/standin/hb-broker"
cat >"$tmp/standin/hb-codex-bridge" <<'STANDIN'
#!/bin/bash
echo "error: stand-in bridge: a log line of no known shape" >&2
echo "2026-01-01 ERROR [bridge] stand-in: not the reason either" >&2
[ -n "${HB_STATUS_FD:-}" ] || { echo "stand-in bridge: no HB_STATUS_FD" >&2; exit 5; }
echo "the stand-in bridge cannot resume its thread: no such thread" >&"$HB_STATUS_FD"
exit 4
STANDIN
chmod 755 "$tmp/standin/hb-codex-bridge"
HB_CODEX=$tmp/stuck-codex HB_LAUNCH_RETRY_MS=2000 HB_ATTACH_TTL_MS=1000 \
	"$tmp/standin/hb-broker" --config "$tmp/services.conf" --libexec "$build" >>"$tmp/broker.log" 2>&1 &
broker=$!
echo "$broker" >"$tmp/broker.pid"
wait_for 20 '"$build/hbctl" status >/dev/null 2>&1'
check "status fd: hbctl messages gives the sentence the bridge wrote on its status fd" \
	'wait_for 60 "queue_line $op | grep -qF \"its Codex agent could not start: hb-codex-bridge exited with status 4 before it attached: the stand-in bridge cannot resume its thread: no such thread\""'
check "status fd: its log lines are in the broker's log as they were" \
	'grep -qF "[codex $B] error: stand-in bridge: a log line of no known shape" "$tmp/broker.log" &&
	 grep -qF "[codex $B] 2026-01-01 ERROR [bridge] stand-in: not the reason either" "$tmp/broker.log"'
kill "$broker"
wait "$broker"

check "no sanitizer report" \
	'! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$tmp/broker.log" $tmp/*.err'

if [ $fail -ne 0 ]; then
	for s in "$tmp"/*.summary; do echo "--- $s"; cat "$s"; done
	for s in "$tmp"/*.err; do echo "--- $s"; grep -v "WARN\|bubblewrap\|PATH aliases" "$s" | tail -10; done
	tail -80 "$tmp/broker.log"
fi
exit $fail
