#!/usr/bin/env bash
# End to end: `hbctl claude METHOD [JSON]`, the reads of the Claude agent
# host for a person at a shell, against the real Claude Agent SDK 0.3.332
# and a transcript it saved (one turn through claude-turn.mjs and the mock
# Messages API on 127.0.0.1).  Checks every read through hbctl, the exit
# status and sentence of a refused read, of bad params and of a host that
# cannot start; that the host comes from agentHost in settings.json, from
# HB_AGENT_HOST, or without either from agent-host/ beside the build, and
# from PREFIX/libexec/hbcode/agent-host beside an installed hbctl; and that
# the nine child-session markers never reach the host.  Usage: hbctl-claude.sh BUILD.
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/claude-lib.sh"

unset HB_AGENT_HOST
start_claude_mock
export_claude_env

sid=$(js_args 'print(require("crypto").randomUUID())')
mid=$(js_args 'print(require("crypto").randomUUID())')
timeout 120 node "$here/e2e/claude-turn.mjs" --session "$sid" --cwd "$tmp/project" --message-id "$mid" \
	--text 'E2E reads @tool maintain_sessions {"action":"guide"}' --tool-output "E2E-tool-output" \
	-- node "$hosts/host.mjs" 2>"$tmp/turn.err"
rc=$?
check "a turn saved a conversation" '[ $rc = 0 ]'

# claude NAME METHOD [JSON]: hbctl's stdout in $tmp/NAME.out, stderr in
# $tmp/NAME.err, exit status in $tmp/NAME.rc.
claude() {
	local name=$1
	shift
	timeout 120 "$build/hbctl" claude "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
ok() { [ "$(cat "$tmp/$1.rc")" = 0 ]; }
out() { json_field "$2" <"$tmp/$1.out"; }
conv="\"sessionId\":\"$sid\",\"cwd\":\"$tmp/project\""

claude list list "{\"cwd\":\"$tmp/project\"}"
check "list: exit 0" 'ok list'
check "list: the saved conversation of the folder" '[ "$(out list sessions.0.sessionId)" = "$sid" ] && [ "$(out list sessions.length)" = 1 ]'
check "list: its first prompt" '[ "$(out list sessions.0.firstPrompt)" = "E2E reads @tool maintain_sessions {\"action\":\"guide\"}" ]'
claude history history "{$conv}"
check "history: the message sent with messageId X has uuid X" 'ok history && [ "$(out history messages.0.uuid)" = "$mid" ]'
check "history: the whole conversation, four messages" '[ "$(out history messages.length)" = 4 ] && [ "$(out history hasMore)" = false ]'
check "history: text and tool_use of one API message are one message" \
	'[ "$(out history messages.1.uuids.length)" = 2 ] && [ "$(out history messages.1.message.content.1.type)" = tool_use ]'
claude page history "{$conv,\"limit\":1,\"before\":\"$(out history messages.3.uuid)\"}"
check "history: a page of one before the last message" \
	'ok page && [ "$(out page messages.0.uuid)" = "$(out history messages.2.uuid)" ] && [ "$(out page hasMore)" = true ]'
claude reload history "{$conv,\"before\":\"$(js_args 'print(require("crypto").randomUUID())')\"}"
check "history: a lost boundary asks to reload" 'ok reload && [ "$(cat $tmp/reload.out)" = "{\"reload\":true}" ]'
tool_use=$(out history messages.1.message.content.1.id)
claude tool toolOutput "{$conv,\"toolUseId\":\"$tool_use\"}"
check "toolOutput: the tool call's saved output" \
	'ok tool && [ "$(out tool content.0.text)" = E2E-tool-output ] && [ "$(out tool isError)" = false ]'
claude inspect inspect "{$conv}"
check "inspect: the conversation's info" 'ok inspect && [ "$(out inspect session.sessionId)" = "$sid" ] && [ "$(out inspect session.cwd)" = "$tmp/project" ]'
claude title title "{$conv}"
check "title: from the saved info" 'ok title && [ "$(out title title)" = "E2E reads @tool maintain_sessions {\"action\":\"guide\"}" ]'
claude subagents subagents "{$conv}"
check "subagents: none" 'ok subagents && [ "$(cat $tmp/subagents.out)" = "{\"agentIds\":[]}" ]'
claude subhistory subagentHistory "{$conv,\"agentId\":\"a123\"}"
check "subagentHistory: an unknown subagent is exit 1 with a sentence" \
	'[ "$(cat $tmp/subhistory.rc)" = 1 ] && grep -q "has no subagent a123 (not_found)" $tmp/subhistory.err'
claude catalog catalog
check "catalog: the model list" 'ok catalog && [ "$(out catalog models.0.value)" = default ]'
claude usage usage '{}'
check "usage: an API-key account has no plan windows" \
	'ok usage && [ "$(cat $tmp/usage.out)" = "{\"subscriptionType\":null,\"rateLimitsAvailable\":false,\"rateLimits\":null}" ]'

# Refusals: the host's sentence and exit 1; hbctl's own usage errors exit 100.
claude nosession history '{}'
check "a read without its conversation: exit 1, the host's sentence" \
	'[ "$(cat $tmp/nosession.rc)" = 1 ] && grep -q "^hbctl: claude history: sessionId and cwd are required in a host with no open session (history) (invalid_request)$" $tmp/nosession.err'
claude unknownfield list "{\"cwd\":\"$tmp/project\",\"dir\":\"x\"}"
check "an unknown field: exit 1, invalid_request" \
	'[ "$(cat $tmp/unknownfield.rc)" = 1 ] && grep -q "unknown field \"dir\" (invalid_request)" $tmp/unknownfield.err'
claude badjson list '{"cwd":'
check "params that are not a JSON object: exit 100" '[ "$(cat $tmp/badjson.rc)" = 100 ] && grep -q "one JSON object" $tmp/badjson.err'
claude notread open '{}'
check "a method that is not a read: exit 100, usage" '[ "$(cat $tmp/notread.rc)" = 100 ] && grep -q "^usage: hbctl claude" $tmp/notread.err'
claude unknown inspect "{\"sessionId\":\"$mid\",\"cwd\":\"$tmp/project\"}"
check "inspect of an unknown conversation: exit 1, not_found" \
	'[ "$(cat $tmp/unknown.rc)" = 1 ] && grep -q "(not_found)$" $tmp/unknown.err'

# Where the host comes from.  agentHost in settings.json: a wrapper that
# records the environment it got, with the nine markers set for hbctl.
mkdir -p -m 700 "$HB_HOME/config"
printf '#!/bin/sh\nenv >"%s/host.env"\nexec node "%s/host.mjs" "$@"\n' "$tmp" "$hosts" >"$tmp/wrapper.sh"
chmod +x "$tmp/wrapper.sh"
printf '{"agentHost":"%s"}\n' "$tmp/wrapper.sh" >"$HB_HOME/config/settings.json"
CLAUDECODE=1 CLAUDE_CODE_CHILD_SESSION=1 CLAUDE_CODE_SESSION_ID=parent CLAUDE_PID=1 CLAUDE_CODE_SESSION_ATTENDED=1 \
	CLAUDE_CODE_CHILD_NOTES_DIR=/tmp CLAUDE_EFFORT=low AI_AGENT=x TRACEPARENT=00-x claude setting title "{$conv}"
check "agentHost in settings.json starts the host" 'ok setting && [ -s "$tmp/host.env" ]'
check "none of the nine markers reaches the host" \
	'! grep -Eq "^(CLAUDECODE|CLAUDE_CODE_CHILD_SESSION|CLAUDE_CODE_SESSION_ID|CLAUDE_PID|CLAUDE_CODE_SESSION_ATTENDED|CLAUDE_CODE_CHILD_NOTES_DIR|CLAUDE_EFFORT|AI_AGENT|TRACEPARENT)=" "$tmp/host.env"'
rm -f "$tmp/host.env"
HB_AGENT_HOST="node $hosts/host.mjs" claude envwins title "{$conv}"
check "HB_AGENT_HOST wins over the setting" 'ok envwins && [ ! -e "$tmp/host.env" ]'
HB_AGENT_HOST="$tmp/no-such-host" claude nohost title "{$conv}"
check "a host that cannot start: exit 1 with a sentence" \
	'[ "$(cat $tmp/nohost.rc)" = 1 ] && grep -q "cannot start the Claude agent host ($tmp/no-such-host)" $tmp/nohost.err'
HB_AGENT_HOST=true claude silent title "{$conv}"
check "a host that ends without answering: exit 1 with a sentence" \
	'[ "$(cat $tmp/silent.rc)" = 1 ] && grep -q "^hbctl: the Claude agent host (true) ended without answering (its messages, if any, are above)$" $tmp/silent.err'
# The same when the host is gone before hbctl writes the read (a failed
# write is no answer of its own): this one closes its input first.
printf '#!/bin/sh\nexec 0<&-\nsleep 0.3\n' >"$tmp/closes-input"
chmod +x "$tmp/closes-input"
HB_AGENT_HOST="$tmp/closes-input" claude deaf title "{$conv}"
check "a host that takes no request: exit 1 with the same sentence" \
	'[ "$(cat $tmp/deaf.rc)" = 1 ] && grep -q "^hbctl: the Claude agent host ($tmp/closes-input) ended without answering (its messages, if any, are above)$" $tmp/deaf.err'
rm "$HB_HOME/config/settings.json"

# Without a setting: the host beside an installed hbctl
# (PREFIX/bin/hbctl, PREFIX/libexec/hbcode/agent-host), and none at all.
mkdir -p "$tmp/prefix/bin" "$tmp/prefix/libexec/hbcode/agent-host"
cp "$build/hbctl" "$tmp/prefix/bin/"
cp "$hosts"/*.mjs "$tmp/prefix/libexec/hbcode/agent-host/"
ln -s "$hosts/node_modules" "$tmp/prefix/libexec/hbcode/agent-host/node_modules"
timeout 120 "$tmp/prefix/bin/hbctl" claude title "{$conv}" >"$tmp/installed.out" 2>"$tmp/installed.err"
rc=$?
check "no setting: the installed host beside PREFIX/bin/hbctl" '[ $rc = 0 ] && [ "$(out installed title)" = "$(out title title)" ]'
rm -r "$tmp/prefix/libexec"
timeout 120 "$tmp/prefix/bin/hbctl" claude title "{$conv}" >"$tmp/none.out" 2>"$tmp/none.err"
rc=$?
check "no setting and no host beside hbctl: exit 1, says what to set" \
	'[ $rc = 1 ] && grep -q "no Claude agent host is set up: .* set agentHost in settings.json (or HB_AGENT_HOST)" $tmp/none.err'
# The build tree's own host (build/../agent-host) was used by every read above.
exit $fail
