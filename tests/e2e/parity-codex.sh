#!/usr/bin/env bash
# End to end: parity-lib.sh's scenario with Codex - one HB Code session,
# its thread through hb-codex-bridge and the real `codex app-server`
# 0.171.0 (sub-agent tools on) -> the mock Responses API; the broker runs
# svc-sessions, svc-messages and svc-alerts, whose link goes to the fake
# relay, where the phone declines every approval card.  One CODEX_HOME for
# the desktops and the run the broker launches (the broker's environment).
# The steps (parity-lib.sh), in one thread:
#   tool, subagent  drive.mjs (the desktop) starts the thread with two turns
#   message    messages-desktop.mjs resumes the thread and sends nothing;
#              another session's message is delivered into it
#   declined   another message, with no desktop on the session: the broker
#              launches hb-codex-bridge --once --resume THREAD, whose turn
#              runs a command beyond the sandbox; codex asks, the card goes
#              to the phone, which declines it
# Exceptions, and why:
#   retry, rate_limit  live only for both agents: no saved turn keeps them
#   a background subagent  not run: Codex has none (spawn_agent's child
#              runs while the parent waits, or is left when the turn ends)
#   subagent   Codex's foreground subagent is two calls, spawn_agent and
#              wait_agent: its turn has a tool row more than Claude's (the
#              wait, "Agent: wait"), which the parity check leaves out
#              (PARITY_SKIP)
#   a declined command  live only: codex's saved thread (thread/read)
#              has no item for a command it never ran (its rollout keeps
#              the call and "rejected by user", its turns do not), so the
#              saved timeline has no row for it
#   declined   the card comes from a launched run only (a desktop-driven
#              run sends codex's approvals to the desktop, never to the
#              broker), and the broker launches a Codex run for a message:
#              the turn opens with the message (agent_message) where
#              Claude's opens with the person's prompt (user); and what
#              asks in Codex is a command (an hbcode tool never asks in a
#              Codex run): a command row where Claude's is a tool row
# Checks: as parity-claude.sh (kinds, parity, screen).
# Usage: parity-codex.sh BUILD (needs npm ci in tests/codex, openssl,
# sqlite3, python3).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/codex-lib.sh"
. "$(dirname "$0")/alerts-lib.sh"
. "$(dirname "$0")/parity-lib.sh"
require codex
require sqlite3
export LIVE_ONLY="retry rate_limit"
PARITY_SKIP='r.kind === "tool" && r.label === "Agent: wait"'
LIVE_ONLY_ROWS='r.kind === "command" && r.status === "declined"'
STEP_KINDS_DECLINED="turn_started agent_message command assistant turn_completed"

work=$tmp/work
mkdir -p "$tmp/project" "$work"
# The broker's environment, and so the launched bridge's: the desktops'
# codex (launch-codex.sh's).
for k in $(env | sed -n 's/^\(\(CODEX_\|OPENAI_\|OTEL_\|AZURE_OPENAI\)[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$k"; done
unset http_proxy https_proxy all_proxy ftp_proxy grpc_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY SSL_CERT_FILE HB_CODEX
export CODEX_HOME=$work/codex-home HOME=$work/home XDG_CONFIG_HOME=$work/home/.config \
	XDG_DATA_HOME=$work/home/.local/share XDG_CACHE_HOME=$work/home/.cache XDG_STATE_HOME=$work/home/.local/state \
	MOCK_API_KEY=mock-key-not-a-secret RUST_LOG=warn \
	OTEL_SDK_DISABLED=true OTEL_TRACES_EXPORTER=none OTEL_METRICS_EXPORTER=none OTEL_LOGS_EXPORTER=none \
	DO_NOT_TRACK=1 NO_COLOR=1 PATH=$rig/node_modules/.bin:$PATH

make_certs
start_relay --answer deny # the phone declines each card
alerts_settings
start_alerts_broker "$(messages_conf)"
export NO_PROXY=127.0.0.1,localhost,::1 no_proxy=127.0.0.1,localhost,::1
watch_events
check "the device link is ready" 'wait_for 30 link_ready'
session=$("$build/hbctl" call manage_sessions \
	"{\"action\":\"create\",\"title\":\"Parity\",\"agent\":\"codex\",\"projectPath\":\"$tmp/project\",\"accessLevel\":\"full-auto\"}" |
	json_field id)
check "a session for the runs" '[ -n "$session" ]'
pty_watch_start --session "$session"

# The mock's turns, in order: the tool turn; the subagent turn (spawn,
# wait, answer); the subagent's own turn (a command); the message's turn;
# the launched turn (a command beyond the sandbox).
marker=$tmp/declined-marker
js_args '
	const [marker] = argv;
	print(JSON.stringify({ scenario: "tool", deltaChunks: 0, turns: [
		{ tool: { namespace: "hbcode", name: "maintain_sessions", arguments: { action: "guide" }, callId: "call_tool" },
		  finalText: "Done: the guide." },
		{ chain: [
			{ namespace: "multi_agent_v1", name: "spawn_agent", arguments: { message: "CHILD-TASK: say where you are" } },
			{ namespace: "multi_agent_v1", name: "wait_agent", arguments: { targets: ["{{output.agent_id}}"], timeout_ms: 60000 } }],
		  finalText: "Parent: done." },
		{ tool: { namespace: "", name: "exec_command", arguments: { cmd: "echo child-was-here" }, callId: "call_child_1" },
		  finalText: "Child: done." },
		{ scenario: "message", finalText: "OK." },
		{ tool: { namespace: null, name: "exec_command", callId: "call_escalate",
			arguments: { cmd: "touch " + marker, sandbox_permissions: "require_escalated",
				justification: "Create the marker outside the workspace" } }, finalText: "Not created." }] }));' \
	"$marker" >"$tmp/script.json"
node "$rig/mock-responses.mjs" --port 0 --script "$tmp/script.json" --log "$tmp/mock.jsonl" --quiet \
	>"$tmp/mock.out" 2>"$tmp/mock.err" &
mock=$!
wait_for 10 '[ -s "$tmp/mock.out" ]'
port=$(sed -n 's/^PORT //p' "$tmp/mock.out" | head -1)
{ cat "$rig/config.toml.in"; echo 'multi_agent = true'; } >"$tmp/config.toml.in"

# tool, subagent
prompt_tool='Show me the sessions guide.'
prompt_agent='Spawn a helper.'
timeout 150 node "$rig/drive.mjs" --mock-port "$port" --mode bridge --timeout 120 \
	--config "$tmp/config.toml.in" --work-dir "$work" --cwd "$tmp/project" --quiet --env "HB_HOME=$HB_HOME" \
	--text "$prompt_tool" --text "$prompt_agent" --transcript "$tmp/drive.jsonl" \
	-- "$build/hb-codex-bridge" --session "$session" -- codex app-server \
	>"$tmp/drive.json" 2>"$tmp/drive.err"
rc=$?
thread=$(json_field threadId <"$tmp/drive.json")
check "tool, subagent: both turns completed" '[ $rc = 0 ] && [ -n "$thread" ] && [ "$thread" != null ]'
check "subagent: the child ran its command" 'grep -q "child-was-here" "$tmp/mock.jsonl"'

# message: the desktop resumes the thread and sends nothing
sender=$("$build/hbctl" call manage_sessions \
	"{\"action\":\"create\",\"title\":\"Docs & site\",\"agent\":\"codex\",\"projectPath\":\"$tmp/project\",\"accessLevel\":\"full-auto\"}" |
	json_field id)
"$build/hbctl" run open run-sender --session "$sender" --project "$tmp/project" --agent codex --access full-auto >/dev/null
# send CALL-ID BODY: the sender's message to the session.
send() {
	"$build/hbctl" call send_session_message \
		"$(js_args 'print(JSON.stringify({recipientSessionId: argv[0], message: argv[1]}))' "$session" "$2")" \
		--run run-sender --call-id "$1" --timeout 20000 >>"$tmp/receipts.txt"
}
attached_before=$(attaches "$session")
timeout 170 node "$here/e2e/messages-desktop.mjs" --mock-port "$port" --work-dir "$work" --resume "$thread" \
	--transcript "$tmp/desktop.jsonl" --state "$tmp/desktop.state" --stop-file "$tmp/desktop.stop" --timeout 150 \
	--env "HB_HOME=$HB_HOME" -- "$build/hb-codex-bridge" --session "$session" -- codex app-server \
	>"$tmp/desktop.summary" 2>"$tmp/desktop.err" &
desktop=$!
check "message: the desktop's run carries the session" 'wait_for 60 "[ \$(attaches $session) -gt $attached_before ]"'
body='Please say OK when the docs are rebuilt.'
send call-message "$body"
check "message: delivered" 'wait_for 90 "state_is call-message sent"'
check "message: its turn completed" \
	'wait_for 60 "[ \$(grep -c \"\\\"method\\\":\\\"turn/completed\\\"\" $tmp/desktop.jsonl) -ge 1 ]"'
touch "$tmp/desktop.stop"
wait "$desktop"
rc=$?
desktop=
check "message: the desktop ended cleanly" '[ $rc = 0 ]'

# declined: no desktop; the broker launches the session's run
send call-declined 'Please create the marker file.'
phone_declined() {
	js_args '
		const recs = require("fs").readFileSync(argv[0], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
		const card = recs.find((r) => r.kind === "approval" && r.cardKind === "command");
		const answer = card && recs.findIndex((r) => r.kind === "answer" && r.approvalId === card.approvalId && r.decision === "deny");
		exit(card && answer >= 0 && recs.some((r) => r.kind === "result" && r.id === recs[answer].id && r.ok === true) ? 0 : 1);
	' "$tmp/relay.jsonl"
}
check "declined: the phone was shown the command's card and declined it (approval-result ok)" 'wait_for 120 phone_declined'
check "declined: the command did not run" '[ ! -e "$marker" ]'
check "declined: the message is sent, the launch ended by itself, no card left" \
	'wait_for 120 "state_is call-declined sent" && wait_for 120 "[ \"\$(launches)\" = \"[]\" ]" &&
	 [ -z "$("$build/hbctl" approvals 2>/dev/null | grep "^a[0-9]")" ]'

# The live rows, and the saved ones.
wait_for 10 '[ "$(timeline_rows "$session" "r.kind === \"turn_completed\"")" -ge 4 ]'
live_rows "$session" >"$tmp/live.jsonl"
HB_CODEX=$rig/node_modules/.bin/codex timeout 120 "$build/hbctl" timeline --session "$session" --json \
	>"$tmp/saved.jsonl" 2>"$tmp/saved.err"
rc=$?
# (codex's own warnings on stderr: no bubblewrap, no PATH aliases under /tmp)
check "saved: hbctl timeline --session read the thread" '[ $rc = 0 ] && [ -s "$tmp/saved.jsonl" ]'

agent=codex PTY_TOOL='hbcode\.maintain_sessions \{action: "guide"\}' PTY_CHILD="\\\$ .*echo child-was-here" PTY_DECLINED="\\\$ .*touch $marker'"
parity_checks
exit $fail
