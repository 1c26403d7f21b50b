#!/usr/bin/env bash
# End to end with the real Claude Agent SDK: claude-drive.mjs (the desktop)
# -> hb-claude-bridge -> the agent host (agent-host, the
# real @anthropic-ai/claude-agent-sdk 0.3.332 and its Claude Code) -> a mock
# Messages API on 127.0.0.1; hbcode tools go bridge -> hb-broker ->
# svc-sessions.  Checks: a read-only tool runs without asking; an
# agent-class tool raises an approval card and runs after `hbctl approve`,
# a subagent's card names the subagent, a Bash card is a command approval
# with its command line and folder;
# a decline reaches the model as the denial; the nine child-session
# markers never reach the host; the run's Claude session id is linked to
# its HB Code session (maintain_sessions shows it), and a second session
# that opens the same conversation is refused; a tool's image reaches the
# model as an image block of the tool_result, and the service saw the
# run's model (--model); the run's rows of the shared timeline come out
# as timeline.row events of its session (the hbcode tool row completed in
# place with its output, declined, or ended by a stop; the replies'
# assistant rows).
# Usage: claude.sh BUILD.
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/agent-host
hosts=$(cd "$here/../agent-host" && pwd)   # the agent host, a product part
. "$(dirname "$0")/lib.sh"
require claude
field() { json_field "$2" <"$1"; }
# The tool results the model received, from the mock's log.
tool_results() {
	js_args '
		const fs = require("fs");
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l);
			for (const m of (r.body && r.body.messages) || [])
				for (const c of Array.isArray(m.content) ? m.content : [])
					if (c.type === "tool_result") print(JSON.stringify(c));
		}' "$1"
}

# The images of the tool results the model received, a line each: the
# block's type, its source's type and media type, and whether its bytes
# are a PNG.
tool_images() {
	js_args '
		const fs = require("fs");
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l);
			for (const m of (r.body && r.body.messages) || [])
				for (const c of Array.isArray(m.content) ? m.content : [])
					for (const b of c.type === "tool_result" && Array.isArray(c.content) ? c.content : []) {
						if (b.type === "text") continue;
						const s = b.source || {};
						const png = Buffer.from(s.data || "", "base64").subarray(0, 8)
							.equals(Buffer.from("89504e470d0a1a0a", "hex"));
						print(b.type, s.type, s.media_type, png ? "png-bytes" : "other-bytes");
					}
		}' "$1" | sort -u
}

unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy
mkdir -p "$tmp/home/.claude" "$tmp/project"
{ sessions_conf; slow_tool_conf; } | start_broker
session=$("$build/hbctl" call manage_sessions \
	"{\"action\":\"create\",\"title\":\"Claude E2E\",\"agent\":\"claude\",\"projectPath\":\"$tmp/project\"}" |
	js 'const s = input; print(JSON.parse(s).id)')
check "a session for the run" '[ -n "$session" ]'
watch_events # timeline.row among them

node "$rig/mock-messages.mjs" --log "$tmp/mock.jsonl" >"$tmp/mock.out" 2>"$tmp/mock.err" &
mock=$!
for _ in $(seq 100); do [ -s "$tmp/mock.out" ] && break; sleep 0.05; done
port=$(sed -n 's/^PORT //p' "$tmp/mock.out" | head -1)

# $1 name, $2 prompt, then driver options.  The run is of $run_session
# (default: $session), with $bridge_extra added to the bridge's options.
run() {
	local name=$1 prompt=$2
	shift 2
	# The nine markers of a parent Claude Code session, which the bridge
	# must remove before the host starts.
	env HOME="$tmp/home" CLAUDE_CONFIG_DIR="$tmp/home/.claude" ANTHROPIC_BASE_URL="http://127.0.0.1:$port" \
		ANTHROPIC_API_KEY=test DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1 \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 CLAUDECODE=1 CLAUDE_CODE_CHILD_SESSION=1 \
		CLAUDE_CODE_SESSION_ID=parent CLAUDE_PID=1 CLAUDE_CODE_SESSION_ATTENDED=1 \
		CLAUDE_CODE_CHILD_NOTES_DIR=/tmp CLAUDE_EFFORT=low AI_AGENT=x TRACEPARENT=00-x \
		timeout 120 node "$here/e2e/claude-drive.mjs" --hbctl "$build/hbctl" --prompt "$prompt" "$@" \
		-- "$build/hb-claude-bridge" --session "${run_session:-$session}" --run "run-$name" --project "$tmp/project" \
		--access full-auto ${bridge_extra:-} -- node "$hosts/host.mjs" >"$tmp/$name.json" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}

run readonly '@tool maintain_sessions {"action":"guide"}'
check "read-only: the run ended idle" '[ "$(cat $tmp/readonly.rc)" = 0 ]'
check "read-only: no child-session marker reached the host" '[ "$(field $tmp/readonly.json opened.inheritedMarkers)" = "[]" ]'
check "read-only: no approval was asked" '[ "$(field $tmp/readonly.json approvals)" = "[]" ]'
check "read-only: the model got the tool output" 'tool_results $tmp/mock.jsonl | grep -q "read-only view of the HB Code sessions"'
# The page's one rule, appended to Claude's system prompt by the bridge.
check "read-only: the system prompt carries the send_session_message rule" \
	'grep -q "use the hbcode tool send_session_message (find the session'"'"'s id with maintain_sessions). Claude'"'"'s own SendMessage and ListAgents cannot reach HB Code sessions." $tmp/mock.jsonl'

# Each host message's rows go out as it passes: the last may come just
# after the driver has its answer.
tl_tool() { [ "$(timeline_completed "$session" "r.kind === 'tool' && r.agent === 'claude' && r.label === 'hbcode: maintain_sessions' && r.status === 'output' && r.output.includes('read-only view of the HB Code sessions') && r.id.startsWith('claude:toolu_')")" -ge 1 ]; }
tl_reply() { [ "$(timeline_rows "$session" "r.kind === 'assistant' && r.depth === 0 && /^claude:msg_.*#[0-9]+$/.test(r.id) && r.text.length > 0")" -ge 1 ]; }
tl_declined() { [ "$(timeline_completed "$session" "r.kind === 'tool' && r.label === 'hbcode: manage_sessions' && r.status === 'declined' && r.output.includes('Not now, please.')")" -ge 1 ]; }
check "read-only timeline: the hbcode tool row, completed in place with its output" 'wait_for 20 tl_tool'
check "read-only timeline: the replies' assistant rows" 'wait_for 20 tl_reply'

# maintain_sessions' view of the session's Claude conversation: from
# resolveSession, and from the session's row of listSessions.
resolved_claude() { "$build/hbctl" call maintain_sessions "{\"action\":\"resolveSession\",\"targetSessionId\":\"$1\"}" | json_field claudeSessionId; }
listed_claude() {
	"$build/hbctl" call maintain_sessions '{"action":"listSessions","limit":200}' |
		js 'const s = input; const r=JSON.parse(s).sessions.find(x=>x.id===argv[0]);print(r?JSON.stringify(r.claudeSessionId ?? null):"no row")' "$1"
}
claude_id=$(field $tmp/readonly.json opened.sessionId)
check "link: resolveSession gives the run's Claude session id" \
	'[ -n "$claude_id" ] && [ "$(resolved_claude "$session")" = "$claude_id" ]'
check "link: listSessions shows it in the session's row" '[ "$(listed_claude "$session")" = "\"$claude_id\"" ]'

run approve '@tool manage_sessions {"action":"rename","targetSessionId":"'"$session"'","title":"Renamed by Claude"}' --approve
check "approve: the run ended idle" '[ "$(cat $tmp/approve.rc)" = 0 ]'
check "approve: an approval card was raised for manage_sessions" \
	'[ "$(field $tmp/approve.json approvals.0.tool)" = mcp__hbcode__manage_sessions ]'
check "approve: the tool ran after the approval" 'tool_results $tmp/mock.jsonl | grep -q "Renamed by Claude"'

# A subagent's request names the subagent (page 003): the SDK's agentID is
# the task id of the subagent's task_started, whose type and description
# the host puts on the card.
sub_prompt='@tool manage_sessions {"action":"rename","targetSessionId":"'"$session"'","title":"Renamed by a subagent"}'
run subagent "@tool Agent $(js_args 'print(JSON.stringify({description: "Rename the session", prompt: argv[0],
	subagent_type: "general-purpose", run_in_background: false}))' "$sub_prompt")" --approve
check "subagent: the run ended idle" '[ "$(cat $tmp/subagent.rc)" = 0 ]'
check "subagent: the card names the subagent that asks (type, description, id)" \
	'[ "$(field $tmp/subagent.json approvals.0.tool)" = mcp__hbcode__manage_sessions ] &&
	 [ "$(field $tmp/subagent.json approvals.0.subagent.type)" = general-purpose ] &&
	 [ "$(field $tmp/subagent.json approvals.0.subagent.description)" = "Rename the session" ] &&
	 [ -n "$(field $tmp/subagent.json approvals.0.subagent.id)" ]'
check "subagent: the tool ran after the approval" 'tool_results $tmp/mock.jsonl | grep -q "Renamed by a subagent"'

# A Bash call is a command approval, with its command line and folder.
# (node: not one of the commands acceptEdits lets run without asking)
run bash '@tool Bash {"command":"node -e \"console.log(21*2, 1+1)\"","description":"Compute"}' --approve
check "bash: the run ended idle" '[ "$(cat $tmp/bash.rc)" = 0 ]'
check "bash: the card is a command approval with the command line and the session's folder" \
	'[ "$(field $tmp/bash.json approvals.0.kind)" = command ] && [ "$(field $tmp/bash.json approvals.0.command)" = "node -e \"console.log(21*2, 1+1)\"" ] &&
	 [ "$(field $tmp/bash.json approvals.0.cwd)" = "$tmp/project" ] && [ "$(field $tmp/bash.json approvals.0.subagent)" = undefined ]'
check "bash: the command ran after the approval" 'tool_results $tmp/mock.jsonl | grep -q "42 2"'

run decline '@tool manage_sessions {"action":"archive","targetSessionId":"'"$session"'"}' --decline "Not now, please."
check "decline: the run ended idle" '[ "$(cat $tmp/decline.rc)" = 0 ]'
check "decline: the model got the denial" 'tool_results $tmp/mock.jsonl | grep -q "Not now, please."'
check "decline timeline: the tool row, declined in place with the denial" 'wait_for 20 tl_declined'
check "decline: the tool did not run (session not archived)" \
	'"$build/hbctl" call maintain_sessions "{\"action\":\"listSessions\"}" | grep -q "\"archived\":false"'
run interrupt '@tool use_user_browser {"action":"open","url":"http://127.0.0.1/"}' --approve --interrupt-after 1000
check "interrupt: the run ended idle" '[ "$(cat $tmp/interrupt.rc)" = 0 ]'
check "interrupt: the slow call was approved first" '[ "$(field $tmp/interrupt.json approvals.0.tool)" = mcp__hbcode__use_user_browser ]'
check "interrupt: the cancel reached the service (its handler stopped)" slots_free_soon
check "interrupt: not logged as a failed run (claude_run)" '! grep -q "\[claude_run\]" $tmp/interrupt.err'

run stop '@tool use_user_browser {"action":"open","url":"http://127.0.0.1/x"}' --approve --stop-run-after 1000 --run run-stop
check "stop: the run ended idle" '[ "$(cat $tmp/stop.rc)" = 0 ]'
check "stop: the model got Run stopped. as the tool result" 'tool_results $tmp/mock.jsonl | grep -q "Run stopped."'
check "stop: the handler stopped" slots_free_soon
tl_stopped() { [ "$(timeline_completed "$session" "r.kind === 'tool' && r.label === 'hbcode: use_user_browser' && r.output.includes('Run stopped.')")" -ge 1 ]; }
check "stop timeline: the tool row ends with Run stopped. (the stopped run still publishes)" 'wait_for 20 tl_stopped'

# The stand-in's screenshot: a PNG beside its text, which names the model
# the service saw (the run's, from the bridge's --model).
bridge_extra="--model claude-e2e-model" run screenshot '@tool use_user_browser {"action":"screenshot"}' --approve
check "screenshot: the run ended idle" '[ "$(cat $tmp/screenshot.rc)" = 0 ]'
check "screenshot: Claude Code asked the API with the run's model" \
	'grep -q "\"model\":\"claude-e2e-model\"" $tmp/mock.jsonl'
check "screenshot: the service saw the run's model" \
	'tool_results $tmp/mock.jsonl | grep -q "taken for model \\\\\"claude-e2e-model\\\\\""'
check "screenshot: the model got the PNG as an image block of the tool result" \
	'[ "$(tool_images $tmp/mock.jsonl)" = "image base64 image/png png-bytes" ]'

# Another session opens the conversation the first one holds now.
second=$("$build/hbctl" call manage_sessions \
	"{\"action\":\"create\",\"title\":\"Claude second\",\"agent\":\"claude\",\"projectPath\":\"$tmp/project\"}" | json_field id)
held=$(resolved_claude "$session")
run_session=$second bridge_extra="--claude-session $held" run conflict 'Say hello.'
check "conflict: the run ended with the bridge's failed event" \
	'[ "$(cat $tmp/conflict.rc)" != 0 ] && [ -n "$held" ] && field $tmp/conflict.json errors | grep -q "Claude session $held already belongs to HB Code session $session"'
check "conflict: the desktop never heard opened, so sent nothing" '[ "$(field $tmp/conflict.json opened)" = null ]'
check "conflict: the conversation stays the first session's" \
	'[ "$(resolved_claude "$second")" = null ] && [ "$(resolved_claude "$session")" = "$held" ] && [ "$(listed_claude "$second")" = null ]'
check "conflict: the run was closed" 'grep -q "run run-conflict closed" $tmp/broker.log'

check "no sanitizer report" '! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/*.err $tmp/broker.log'

if [ $fail -ne 0 ]; then
	for s in readonly approve decline interrupt stop screenshot conflict; do echo "--- $s"; tail -15 "$tmp/$s.err"; cat "$tmp/$s.json"; done
	tail -20 "$tmp/broker.log"
fi
exit $fail
