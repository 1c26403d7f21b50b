#!/usr/bin/env bash
# End to end: Claude accounts (page 003, "Accounts and usage") with
# hb-claude-bridge and the real Claude Agent SDK on the mock Messages API.
# Checks:
#   list     hbctl accounts: the default account, active, signed in as
#            Claude's own `claude auth status` says (an API key here)
#   add      an added account is a folder of the data folder linked to the
#            main Claude folder but for its own sign-in entries; bad names,
#            twins, unknown accounts and removing the active one refused
#   switch   a run on the default account, then `use work`: the next run
#            of the same session runs Claude Code on the work folder (its
#            requests carry the id Claude keeps in that folder's own state
#            file, not the main folder's) and continues the same
#            conversation (hbctl timeline reads both turns)
#   stays    a switch while a turn runs: that turn's Claude Code keeps the
#            folder it started with, the next run takes the new one
#   usage    a reading per account; a run clears only its account's
#   remove   the account's folder goes, what it linked to stays
# Usage: accounts-claude.sh BUILD (needs npm ci in agent-host).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/claude-lib.sh"

start_claude_mock
export_claude_env
main=$CLAUDE_CONFIG_DIR
work=$HB_HOME/data/claude-accounts/work
sessions_conf | start_broker
session=$(full_auto_session "Accounts" claude)
check "a session for the runs" '[ -n "$session" ]'
field() { json_field "$1"; }
# Which folder Claude Code ran on: each folder's state file has its own
# userID, and Claude Code names it as device_id in every request's
# metadata.  folder_id DIR: that id.  devices_after N: the device ids of
# the model requests after the mock's first N lines, one per line.
folder_id() { js_args 'try { print(JSON.parse(require("fs").readFileSync(argv[0], "utf8")).userID || "") } catch { print("") }' "$1/.claude.json"; }
devices_after() {
	js_args '
		const lines = require("fs").readFileSync(argv[0], "utf8").split("\n").filter(Boolean).slice(Number(argv[1]));
		const ids = new Set();
		for (const l of lines) { const m = (JSON.parse(l).body || {}).metadata; if (m) ids.add(JSON.parse(m.user_id).device_id); }
		for (const id of ids) print(id);' "$tmp/mock.jsonl" "$1"
}
mark() { if [ -f "$tmp/mock.jsonl" ]; then wc -l <"$tmp/mock.jsonl" | tr -d ' '; else echo 0; fi; }

# ---------------------------------------------------------------- list --
"$build/hbctl" accounts --json >"$tmp/list.json" 2>"$tmp/list.err"
check "list: the default account, active, signed in with the API key (claude auth status)" \
	'[ "$(field active <$tmp/list.json)" = default ] && [ "$(field accounts.0.name <$tmp/list.json)" = default ] &&
	 [ "$(field accounts.0.folder <$tmp/list.json)" = "$main" ] && [ "$(field accounts.0.signIn.loggedIn <$tmp/list.json)" = true ] &&
	 [ "$(field accounts.0.signIn.authMethod <$tmp/list.json)" = api_key ] && [ "$(field accounts.length <$tmp/list.json)" = 1 ]'
"$build/hbctl" accounts >"$tmp/list.txt" 2>&1
check "list: text for a person" 'grep -q "^\* default .*$main" $tmp/list.txt && grep -q "signed in (api_key)" $tmp/list.txt'

# ----------------------------------------------------------------- add --
echo '{}' >"$main/settings.json"
"$build/hbctl" accounts add work >"$tmp/add.out" 2>&1
check "add: the folder, linked to the main one but for its own sign-in" \
	'grep -q "hbctl accounts login work" $tmp/add.out && [ "$(stat -c %a "$work")" = 700 ] &&
	 [ "$(readlink "$work/settings.json")" = "$main/settings.json" ] && [ "$(readlink "$work/projects")" = "$main/projects" ] &&
	 [ ! -e "$work/.claude.json" ] && [ ! -e "$work/.credentials.json" ]'
"$build/hbctl" accounts add work >/dev/null 2>"$tmp/twice.err"
check "add: twice is refused" '[ $? = 1 ] && grep -q "exists already" $tmp/twice.err'
"$build/hbctl" accounts add ../x >/dev/null 2>"$tmp/badname.err"
check "add: a bad name is refused with the rule" '[ $? = 1 ] && grep -q "is not an account name" $tmp/badname.err && [ ! -e "$HB_HOME/data/x" ]'
"$build/hbctl" accounts use nope >/dev/null 2>"$tmp/nope.err"
check "use: an unknown account is refused" '[ $? = 1 ] && grep -q "there is no Claude account \"nope\"" $tmp/nope.err'
"$build/hbctl" accounts --json >"$tmp/list2.json"
check "list: the added account, signed in as Claude says there" \
	'[ "$(field accounts.1.name <$tmp/list2.json)" = work ] && [ "$(field accounts.1.folder <$tmp/list2.json)" = "$work" ] &&
	 [ "$(field accounts.1.active <$tmp/list2.json)" = false ] && [ "$(field accounts.1.signIn.configDirectory <$tmp/list2.json)" = "$work" ]'

# -------------------------------------------------------------- switch --
# run NAME PROMPT [DRIVER OPTIONS]: one run of the session, continuing its
# conversation once it has one ($cid).
cid=
run() {
	local name=$1 prompt=$2
	shift 2
	timeout 120 node "$here/e2e/claude-drive.mjs" --hbctl "$build/hbctl" --prompt "$prompt" "$@" \
		-- "$build/hb-claude-bridge" --session "$session" --run "run-$name" --project "$tmp/project" \
		--access full-auto ${cid:+--claude-session "$cid"} -- node "$hosts/host.mjs" >"$tmp/$name.json" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
at=$(mark)
run one 'The first turn, on the default account.'
check "switch: the first run, on the default account (the main folder's id in its requests)" \
	'[ "$(cat $tmp/one.rc)" = 0 ] && grep -q "run run-one on Claude account default" $tmp/one.err &&
	 [ -n "$(folder_id "$main")" ] && [ "$(devices_after $at)" = "$(folder_id "$main")" ]'
cid=$("$build/hbctl" call maintain_sessions "{\"action\":\"resolveSession\",\"targetSessionId\":\"$session\"}" | field claudeSessionId)
"$build/hbctl" accounts use work >"$tmp/use.out"
check "switch: use work says the next run takes it" 'grep -q "the next Claude run uses work" $tmp/use.out'
at=$(mark)
run two 'The second turn, on the work account.'
check "switch: the next run runs Claude Code on the work folder (its own id in the requests)" \
	'[ "$(cat $tmp/two.rc)" = 0 ] && grep -q "run run-two on Claude account work" $tmp/two.err &&
	 [ -n "$(folder_id "$work")" ] && [ "$(folder_id "$work")" != "$(folder_id "$main")" ] && [ "$(devices_after $at)" = "$(folder_id "$work")" ]'
"$build/hbctl" timeline "$cid" --cwd "$tmp/project" --json >"$tmp/timeline.jsonl" 2>"$tmp/timeline.err"
check "switch: the same conversation, continued: both turns in its saved timeline" \
	'grep -q "The first turn, on the default account." $tmp/timeline.jsonl && grep -q "The second turn, on the work account." $tmp/timeline.jsonl'
"$build/hbctl" accounts remove work >/dev/null 2>"$tmp/rm-active.err"
check "remove: not the active account" '[ $? = 1 ] && grep -q "work is the active account" $tmp/rm-active.err && [ -d "$work" ]'

# --------------------------------------------------------------- stays --
curl -s -X POST "http://127.0.0.1:$port/_mock/script" -H 'content-type: application/json' -d '{"steps":[{"hang":true}]}' >/dev/null
at=$(mark)
run three 'A turn that runs while the account changes.' --interrupt-when "$tmp/interrupt-three" &
driver=$!
check "stays: the turn is running" 'wait_for 60 "grep -q \"\\\"kind\\\":\\\"hang\\\"\" $tmp/mock.jsonl"'
"$build/hbctl" accounts use default >/dev/null
config_of_claude() {
	local p
	for p in $(pgrep -f "claude-agent-sdk-linux-x64/claude"); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "HOME=$tmp/home" &&
			tr '\0' '\n' <"/proc/$p/environ" | sed -n 's/^CLAUDE_CONFIG_DIR=//p'
	done
}
check "stays: after the switch, the running turn's Claude Code still has the work folder" '[ "$(config_of_claude | sort -u)" = "$work" ]'
touch "$tmp/interrupt-three"
wait "$driver"
check "stays: the interrupted turn ended on the account it started with" \
	'[ "$(cat $tmp/three.rc)" = 0 ] && grep -q "run run-three on Claude account work" $tmp/three.err &&
	 [ "$(devices_after $at)" = "$(folder_id "$work")" ]'
at=$(mark)
run four 'The next turn, on the default account again.'
check "stays: the next run takes the default account" \
	'[ "$(cat $tmp/four.rc)" = 0 ] && grep -q "run run-four on Claude account default" $tmp/four.err &&
	 [ "$(devices_after $at)" = "$(folder_id "$main")" ]'

# --------------------------------------------------------------- usage --
cache=$HB_HOME/cache/claude-usage
"$build/hbctl" usage >"$tmp/usage-default.out" 2>&1
"$build/hbctl" accounts use work >/dev/null
"$build/hbctl" usage >"$tmp/usage-work.out" 2>&1
check "usage: one reading per account" '[ -f "$cache/default.json" ] && [ -f "$cache/work.json" ] &&
	grep -q "The default account" $tmp/usage-default.out && grep -q "The account work uses an API key" $tmp/usage-work.out'
run five 'A turn on work.'
check "usage: a finished run clears its account's reading only" '[ "$(cat $tmp/five.rc)" = 0 ] && [ ! -f "$cache/work.json" ] && [ -f "$cache/default.json" ]'

# -------------------------------------------------------------- remove --
"$build/hbctl" accounts use default >/dev/null
"$build/hbctl" accounts remove work >"$tmp/rm.out" 2>&1
check "remove: the folder goes, the main folder's conversations and settings stay" \
	'[ ! -e "$work" ] && [ -f "$main/settings.json" ] && [ -n "$(ls "$main/projects")" ]'
"$build/hbctl" accounts --json >"$tmp/list3.json"
check "remove: the list has the default account only" '[ "$(field accounts.length <$tmp/list3.json)" = 1 ]'
check "no sanitizer report" '! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/*.err $tmp/*.out $tmp/broker.log'
exit $fail
