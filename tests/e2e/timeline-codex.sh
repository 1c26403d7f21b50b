#!/usr/bin/env bash
# A Codex sub-agent as a child thread of the shared timeline, through the
# real codex: drive.mjs (the desktop) -> hb-codex-bridge --session ->
# `codex app-server` 0.171.0 with its sub-agent tools on (features
# multi_agent) -> the mock Responses API.  The model spawns a sub-agent
# (multi_agent_v1.spawn_agent), waits for it (wait_agent), then calls an
# hbcode tool through the broker; the sub-agent runs a command and
# answers.  Codex reports no thread/started for the sub-agent's thread, so
# what is checked is what the bridge makes of the spawn: the parent's one
# spawn row, completed and linked to the child thread; the child's rows at
# depth 1 (its prompt, its command completed in place, its reply); the
# parent's own rows at depth 0; the child thread linked in appdata.db
# under the conversation's thread (so it belongs to the session); and
# `hbctl watch --timeline` (plain, into a file) showing the child's rows
# indented.
# Usage: timeline-codex.sh BUILD (needs `npm ci` in tests/codex).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
. "$(dirname "$0")/lib.sh"
require codex
require sqlite3
sessions_conf | start_broker
session=$("$build/hbctl" call manage_sessions \
	'{"action":"create","title":"E2E sub-agents","agent":"codex","projectPath":"/tmp"}' | json_field id)
check "a session to link the thread to" '[ -n "$session" ]'
watch_events
"$build/hbctl" watch --timeline >"$tmp/timeline.txt" 2>"$tmp/timeline.err" &
plain_watcher=$!

# The rig's config with codex's sub-agent tools on ([features] is its last table).
{ cat "$rig/config.toml.in"; echo 'multi_agent = true'; } >"$tmp/config.toml.in"

dir=$tmp/run
mkdir -p "$dir"
# Request 1 (the user's turn) spawns; the answer to the spawn waits for the
# agent it named; the answer to the wait calls hbcode; then the reply.  The
# sub-agent's own first request is the mock's second turn: a command.
cat >"$dir/script.json" <<'EOF'
{"scenario": "tool", "deltaChunks": 0,
 "turns": [
  {"chain": [
    {"namespace": "multi_agent_v1", "name": "spawn_agent", "arguments": {"message": "CHILD-TASK: say where you are"}},
    {"namespace": "multi_agent_v1", "name": "wait_agent", "arguments": {"targets": ["{{output.agent_id}}"], "timeout_ms": 60000}},
    {"namespace": "hbcode", "name": "maintain_sessions", "arguments": {"action": "guide"}}],
   "finalText": "Parent: done."},
  {"tool": {"namespace": "", "name": "exec_command", "arguments": {"cmd": "echo child-was-here"}, "callId": "call_child_1"},
   "finalText": "Child: done."}]}
EOF
node "$rig/mock-responses.mjs" --port 0 --script "$dir/script.json" --log "$dir/mock.jsonl" --quiet \
	>"$dir/mock.out" 2>"$dir/mock.err" &
mock=$!
for _ in $(seq 100); do [ -s "$dir/mock.out" ] && break; sleep 0.05; done
port=$(sed -n 's/^PORT //p' "$dir/mock.out" | head -1)
timeout 150 node "$rig/drive.mjs" --mock-port "$port" --mode bridge --timeout 120 \
	--config "$tmp/config.toml.in" --work-dir "$dir/work" --quiet --env "HB_HOME=$HB_HOME" \
	--text "spawn a helper" --transcript "$dir/transcript.jsonl" \
	-- "$build/hb-codex-bridge" --session "$session" -- codex app-server \
	>"$dir/summary.json" 2>"$dir/drive.err"
echo $? >"$dir/rc"
field() { json_field "$2" <"$1"; }
check "drive.mjs ran the turn" '[ "$(cat $dir/rc)" = 0 ]'
check "the turn completed" '[ "$(field $dir/summary.json turnStatus)" = completed ]'
check "the sub-agent ran its command (the mock got its output)" \
	'grep -q "child-was-here" "$dir/mock.jsonl"'

# The child's thread, from the spawn call codex reported.
child=$(node -e '
	const fs = require("fs");
	for (const l of fs.readFileSync(process.argv[1], "utf8").split("\n")) {
		if (!l) continue;
		const it = ((JSON.parse(l).msg || {}).params || {}).item || {};
		if (it.type === "collabAgentToolCall" && it.tool === "spawnAgent" && (it.receiverThreadIds || []).length)
			{ console.log(it.receiverThreadIds[0]); break; }
	}' "$dir/transcript.jsonl")
parent=$(field "$dir/summary.json" threadId)
check "codex spawned a sub-agent thread, other than the conversation's" '[ -n "$child" ] && [ "$child" != "$parent" ]'
check "codex reported no thread/started for it (what the bridge must make up for)" \
	'! grep "\"thread/started\"" "$dir/transcript.jsonl" | grep -q "$child"'

spawn_done() { [ "$(timeline_rows "$session" "r.kind === 'spawn' && r.depth === 0 && r.status === 'completed' && r.childDepth === 1 && r.link && r.link.thread === '$child' && r.prompt === 'CHILD-TASK: say where you are'")" -ge 1 ]; }
check "the parent's one spawn row, completed and linked to the child thread" 'wait_for 20 spawn_done'
check "one spawn row id only (the running row was replaced in place)" \
	'[ "$(events "e.event === \"timeline.row\" && e.row.kind === \"spawn\"" )" -ge 2 ] &&
	 [ "$(node -e "const fs=require(\"fs\");const ids=new Set();for(const l of fs.readFileSync(process.argv[1],\"utf8\").split(\"\n\")){let e;try{e=JSON.parse(l)}catch{continue}if(e.event===\"timeline.row\"&&e.row.kind===\"spawn\")ids.add(e.row.id)}console.log(ids.size)" "$tmp/events.jsonl")" = 1 ]'
child_prompt() { [ "$(timeline_rows "$session" "r.kind === 'user' && r.depth === 1 && r.text === 'CHILD-TASK: say where you are'")" -ge 1 ]; }
check "the sub-agent's prompt: a user row at depth 1" 'wait_for 20 child_prompt'
child_command() { [ "$(timeline_completed "$session" "r.kind === 'command' && r.depth === 1 && r.status === 'output' && r.output.includes('child-was-here')")" -ge 1 ]; }
check "the sub-agent's command at depth 1, completed in place with its output" 'wait_for 20 child_command'
child_reply() { [ "$(timeline_rows "$session" "r.kind === 'assistant' && r.depth === 1 && r.text.startsWith('Child: done.')")" -ge 1 ]; }
check "the sub-agent's reply at depth 1" 'wait_for 20 child_reply'
parent_rows() {
	[ "$(timeline_rows "$session" "r.kind === 'user' && r.depth === 0 && r.text === 'spawn a helper'")" -ge 1 ] &&
	[ "$(timeline_completed "$session" "r.kind === 'tool' && r.depth === 0 && r.label === 'Agent: wait' && r.output.startsWith('completed: Child: done.')")" -ge 1 ] &&
	[ "$(timeline_completed "$session" "r.kind === 'tool' && r.depth === 0 && r.label === 'hbcode: maintain_sessions' && r.status === 'output' && r.output.includes('read-only view of the HB Code sessions')")" -ge 1 ] &&
	[ "$(timeline_rows "$session" "r.kind === 'assistant' && r.depth === 0 && r.text === 'Parent: done.'")" -ge 1 ]
}
check "the parent's rows at depth 0: the prompt, the wait with the child's answer, the hbcode tool through the broker, the reply" \
	'wait_for 20 parent_rows'
check "no row deeper than 1, and every depth-1 row one of the sub-agent's" \
	'[ "$(timeline_rows "$session" "(r.depth || 0) > 1")" = 0 ] &&
	 [ "$(timeline_rows "$session" "r.depth === 1 && !(/^CHILD-TASK|^Child: done/.test(r.text || \"\") || r.kind === \"command\")")" = 0 ]'

# The link codex's threads get: the child under its parent, which holds the session.
linked_parent() {
	sqlite3 -cmd ".timeout 5000" "$HB_HOME/data/appdata.db" \
		"SELECT c.parent_thread_id || ' ' || p.session_id FROM codex_session_links c
		 JOIN codex_session_links p ON p.thread_id = c.parent_thread_id WHERE c.thread_id = '$child'" 2>/dev/null
}
check "the child thread is linked under the conversation's thread, which holds the session" \
	'wait_for 10 "[ \"\$(linked_parent)\" = \"$parent $session\" ]"'

# What a person reads: the child's rows indented under the conversation's.
indented() { grep -q '^  .*child-was-here' "$tmp/timeline.txt" && grep -q '^[^ ].*spawn a helper' "$tmp/timeline.txt"; }
check "hbctl watch --timeline: the sub-agent's rows indented, the conversation's not" 'wait_for 10 indented'
kill "$plain_watcher" 2>/dev/null

exit $fail
