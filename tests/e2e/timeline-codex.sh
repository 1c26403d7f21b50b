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
# `hbctl watch --timeline --text` (into a file) showing the child's rows
# indented.  Then the saved timeline (`hbctl timeline --codex`): every live
# row again under its id, the child's rows after the spawn row, one
# sub-agent's view (--thread), the same thread by its session (--session)
# and by --agent codex, --since, and the errors.
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
"$build/hbctl" watch --timeline --text >"$tmp/timeline.txt" 2>"$tmp/timeline.err" &
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
child=$(js_args '
	const fs = require("fs");
	for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
		if (!l) continue;
		const it = ((JSON.parse(l).msg || {}).params || {}).item || {};
		if (it.type === "collabAgentToolCall" && it.tool === "spawnAgent" && (it.receiverThreadIds || []).length)
			{ print(it.receiverThreadIds[0]); break; }
	}' "$dir/transcript.jsonl")
parent=$(field "$dir/summary.json" threadId)
check "codex spawned a sub-agent thread, other than the conversation's" '[ -n "$child" ] && [ "$child" != "$parent" ]'
check "codex reported no thread/started for it (what the bridge must make up for)" \
	'! grep "\"thread/started\"" "$dir/transcript.jsonl" | grep -q "$child"'

spawn_done() { [ "$(timeline_rows "$session" "r.kind === 'spawn' && r.depth === 0 && r.status === 'completed' && r.childDepth === 1 && r.link && r.link.thread === '$child' && r.prompt === 'CHILD-TASK: say where you are'")" -ge 1 ]; }
check "the parent's one spawn row, completed and linked to the child thread" 'wait_for 20 spawn_done'
check "one spawn row id only (the running row was replaced in place)" \
	'[ "$(events "e.event === \"timeline.row\" && e.row.kind === \"spawn\"" )" -ge 2 ] &&
	 [ "$(js_args "const fs=require(\"fs\");const ids=new Set();for(const l of fs.readFileSync(argv[0],\"utf8\").split(\"\n\")){let e;try{e=JSON.parse(l)}catch{continue}if(e.event===\"timeline.row\"&&e.row.kind===\"spawn\")ids.add(e.row.id)}print(ids.size)" "$tmp/events.jsonl")" = 1 ]'
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
check "the sub-agent's rows name its thread (what hbctl watch --timeline --thread follows), the parent's none" \
	'[ "$(timeline_rows "$session" "r.depth === 1 && r.thread !== \"$child\"")" = 0 ] &&
	 [ "$(timeline_rows "$session" "(r.depth || 0) === 0 && r.thread !== undefined")" = 0 ]'

# The turn's boundaries, live (timeline-claude.sh checks Claude's the same
# way): the conversation's rows open with the turn's start and the person's
# prompt and close with its end, which says how long it ran and its tokens.
live_kinds() {
	js_args '
		const fs = require("fs"), rows = new Map();
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			let e; try { e = JSON.parse(l); } catch { continue; }
			if (e.event === "timeline.row" && e.session === argv[1] && !(e.row.depth > 0)) rows.set(e.row.id, e.row);
		}
		const k = [...rows.values()].map((r) => r.kind);
		const end = [...rows.values()].find((r) => r.kind === "turn_completed") || {};
		print(k.slice(0, 2).join(" "), k[k.length - 1], end.status,
			[end.durationMs, end.tokensIn, end.tokensOut].every((n) => Number.isInteger(n) && n > 0));' "$tmp/events.jsonl" "$session"
}
check "live turn: turn_started, the prompt ... turn_completed with its duration and tokens" \
	'wait_for 10 "[ \"\$(live_kinds)\" = \"turn_started user turn_completed completed true\" ]"'

# The link codex's threads get: the child under its parent, which holds the session.
linked_parent() {
	sqlite3 -cmd ".timeout 5000" "$HB_HOME/data/appdata.db" \
		"SELECT c.parent_thread_id || ' ' || p.session_id FROM codex_session_links c
		 JOIN codex_session_links p ON p.thread_id = c.parent_thread_id WHERE c.thread_id = '$child'" 2>/dev/null
}
check "the child thread is linked under the conversation's thread, which holds the session" \
	'wait_for 10 "[ \"\$(linked_parent)\" = \"$parent $session\" ]"'

# What a person reads: the child's rows indented under the conversation's
# (after the agent's column: "TIME  TITLE  codex   ROW", a depth-1 row two
# spaces further in).
indented() { grep -q ' codex     [^ ].*child-was-here' "$tmp/timeline.txt" &&
	     grep -q ' codex   [^ ].*spawn a helper' "$tmp/timeline.txt"; }
check "hbctl watch --timeline: the sub-agent's rows indented, the conversation's not" 'wait_for 10 indented'
kill "$plain_watcher" 2>/dev/null

# The saved timeline: hbctl timeline --codex reads the same threads back
# from codex app-server (the rig's codex, its CODEX_HOME and HOME).
saved() {
	HOME=$dir/work/home CODEX_HOME=$dir/work/codex-home HB_CODEX=$rig/node_modules/.bin/codex \
		"$build/hbctl" timeline "$@" 2>>"$tmp/saved.err"
}
saved --codex "$parent" --json >"$tmp/saved.jsonl"
echo $? >"$tmp/saved.rc"
check "hbctl timeline --codex: the saved thread read" '[ "$(cat $tmp/saved.rc)" = 0 ] && [ -s "$tmp/saved.jsonl" ]'
# live_vs_saved: "LIVE SAVED MISSING MISMATCH TWICE": the session's live row
# ids, the saved rows, live ids with no saved row, live ids whose last live
# row differs from the saved one in kind, depth or (a tool or command)
# status, and saved ids that came twice.  Why a row counts goes to
# compare.err (the lines after the first).
live_vs_saved() {
	js_args '
		const fs = require("fs"), util = require("util"), live = new Map(), saved = new Map(), why = [];
		let twice = 0;
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			let e; try { e = JSON.parse(l); } catch { continue; }
			// a retry is live only: a saved turn keeps none
			if (e.event === "timeline.row" && e.session === argv[2] && e.row.kind !== "retry") live.set(e.row.id, e.row);
		}
		for (const l of fs.readFileSync(argv[1], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l);
			if (saved.has(r.id)) twice++;
			saved.set(r.id, r);
		}
		let missing = 0, mismatch = 0;
		for (const [id, r] of live) {
			const s = saved.get(id);
			if (!s) { missing++; why.push(util.format("no saved row for", id)); continue; }
			const st = (x) => (x.kind === "tool" || x.kind === "command" ? x.status : "");
			if (s.kind !== r.kind || (s.depth || 0) !== (r.depth || 0) || st(s) !== st(r)) {
				mismatch++; why.push(util.format("differs:", JSON.stringify(r), JSON.stringify(s)));
			}
		}
		print(live.size, saved.size, missing, mismatch, twice);
		for (const w of why) print(w);' "$tmp/events.jsonl" "$tmp/saved.jsonl" "$session" 2>>"$tmp/compare.err" |
		{ IFS= read -r counts; printf '%s\n' "$counts"; cat >>"$tmp/compare.err"; }
}
check "saved: every live row has its saved row, same id, kind, depth and end; no id twice" \
	'read -r nlive nsaved missing differ twice <<<"$(live_vs_saved)"
	 [ "$nlive" -ge 8 ] && [ "$nsaved" -ge "$nlive" ] && [ "$missing$differ$twice" = 000 ]'
# saved_order: the kinds and depths of the saved rows in order, "kind/depth" a word each.
saved_order() { js_args 'let o = ""; for (const l of require("fs").readFileSync(argv[0], "utf8").split("\n")) if (l) { const r = JSON.parse(l); o += r.kind + "/" + (r.depth || 0) + " "; } print(o)' "$1"; }
check "saved: the sub-agent's rows right after the spawn row, at depth 1, then the parent's" \
	'[ "$(saved_order $tmp/saved.jsonl)" = "turn_started/0 user/0 spawn/0 user/1 command/1 assistant/1 tool/0 tool/0 assistant/0 turn_completed/0 " ]'
saved --codex "$parent" --thread "$child" --json >"$tmp/saved-child.jsonl"
check "saved --thread CHILD: the sub-agent's own view only" \
	'[ "$(saved_order $tmp/saved-child.jsonl)" = "user/1 command/1 assistant/1 " ] && grep -q "child-was-here" "$tmp/saved-child.jsonl"'
# The same thread named by its HB Code session, or by --agent codex; and
# --since: the rows of the last hour are all of them, of tomorrow none.
saved --session "$session" --json >"$tmp/saved-session.jsonl"
check "saved --session: the session's own thread, the same rows as --codex" 'cmp -s "$tmp/saved.jsonl" "$tmp/saved-session.jsonl"'
saved --agent codex "$parent" --json >"$tmp/saved-agent.jsonl"
check "saved --agent codex THREAD: the same rows as --codex THREAD" 'cmp -s "$tmp/saved.jsonl" "$tmp/saved-agent.jsonl"'
saved --codex "$parent" --json --since 1h >"$tmp/saved-hour.jsonl"
saved --codex "$parent" --json --since "$(date -d tomorrow +%Y-%m-%d)" >"$tmp/saved-tomorrow.jsonl"
check "saved --since: every row since an hour ago, none since tomorrow" \
	'cmp -s "$tmp/saved.jsonl" "$tmp/saved-hour.jsonl" && [ -f "$tmp/saved-tomorrow.jsonl" ] && [ ! -s "$tmp/saved-tomorrow.jsonl" ]'
saved --codex "$parent" --plain >"$tmp/saved.txt"
check "saved --plain: the sub-agent's rows indented under the spawn row" \
	'grep -A1 "^Subagent completed" "$tmp/saved.txt" | grep -q "^  You: CHILD-TASK"'
check "saved: an unknown thread is a sentence and exit status 1" \
	'saved --codex 01a2350f-0000-7000-8000-000000000000 >/dev/null; [ $? = 1 ] &&
	 grep -q "no saved Codex thread 01a2350f-0000-7000-8000-000000000000" "$tmp/saved.err"'
check "saved: --thread naming no sub-agent is a sentence and exit status 1" \
	'saved --codex "$parent" --thread "$parent" >/dev/null; [ $? = 1 ] && grep -q "no sub-agent of this thread has thread" "$tmp/saved.err"'
check "saved: no thread id is the usage (hbctl's status 100)" '"$build/hbctl" timeline --codex >/dev/null 2>&1; [ $? = 100 ]'
check "saved: a codexPath that is no program is a sentence" \
	'HB_CODEX=/nonexistent/codex "$build/hbctl" timeline --codex "$parent" 2>&1 | grep -q "codexPath /nonexistent/codex is not an executable file"'

exit $fail
