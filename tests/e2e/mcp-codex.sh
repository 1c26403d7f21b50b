#!/usr/bin/env bash
# End to end: the real Codex calls the hbcode tools through hb-mcp.
#   codex exec 0.171.0 and its app server (tests/codex, the mock Responses API on 127.0.0.1)
#   -> its MCP client -> hb-mcp (an [mcp_servers.hbcode] of its
#   config.toml, the lines docs/mcp.md gives) -> hb-broker -> svc-sessions.
# Codex offers an MCP server's tools to the model in the namespace
# mcp__<server> under their own names, so the mock model calls
# {namespace: "mcp__hbcode", name: "maintain_sessions"}.  Checks:
#   list     the model is offered the hbcode tools; its maintain_sessions
#            call goes through hb-mcp to the broker (a call.end event of
#            the session hb-mcp made for the project, agent external) and
#            the broker's answer, which lists that session, is the
#            function_call_output of the model's next request; codex
#            reports the MCP call completed; --strict-config accepts
#            the config (env_vars passes HB_HOME on: codex gives an MCP
#            server only a few variables of its own environment)
#   codex    an agent-class tool under approval_policy "never" and no
#            approval mode for the server: codex refuses it itself, the
#            model reads codex's sentence, the broker sees no call
#   card     with default_tools_approval_mode = "approve" (codex leaves
#            the decision to HB Code): manage_sessions raises HB Code's
#            approval card in hb-mcp's run of the session; hb-mcp offers
#            it to codex (elicitation), `codex exec` declines it at once
#            (it asks nobody), and the model reads the bridges' decline
#            sentence; nothing ran, no card is left open
#   app      the same call through `codex app-server` (drive.mjs as the
#            desktop or IDE, approval_policy on-request): HB Code's
#            question reaches the driver, which leaves it open; codex
#            waits until hbctl approve, the call runs, the model gets the
#            answer, and codex tells its client the question is settled
#   exec     codex exec again, hb-mcp with --no-elicitation: no question
#            for codex to decline; codex waits until hbctl approve, the
#            call runs, the model gets the answer
# Usage: mcp-codex.sh BUILD (needs make npm-deps).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/codex-lib.sh"
. "$(dirname "$0")/mcp-lib.sh"
require codex
sessions_conf | start_broker
watch_events
mkdir -p "$tmp/project"

# start_mock NAME TOOL-CALL-JSON: the mock model of turn NAME, which calls
# that tool and then answers with its output; its port in port, its log
# $tmp/NAME/mock.jsonl.
start_mock() {
	MOCK_SCRIPT_JSON="{\"scenario\":\"tool\",\"tool\":$2,\"finalText\":\"Done. The tool said: {{output}}\",\"deltaChunks\":0}" \
		node "$rig/mock-responses.mjs" --port 0 --log "$tmp/$1/mock.jsonl" --quiet >"$tmp/$1/mock.out" 2>"$tmp/$1/mock.err" &
	mock=$!
	wait_for 10 "grep -qs '^PORT' $tmp/$1/mock.out" || { echo "FAIL the mock model did not start"; exit 1; }
	port=$(sed -n 's/^PORT //p' "$tmp/$1/mock.out" | head -1)
}
stop_mock() {
	kill "$mock" 2>/dev/null
	wait "$mock" 2>/dev/null
	mock=
}
# server_section [CONFIG LINES]: the server's section of config.toml, as
# docs/mcp.md gives it, with hb-mcp given the options in $mcp_args:
# HB_HOME stands for XDG_RUNTIME_DIR, by which a user's hb-mcp finds the
# broker.  A sanitizer's report goes to a file (codex keeps the server's
# stderr to itself).
server_section() {
	printf '\n[mcp_servers.hbcode]\ncommand = "%s"\nargs = [%s]\nenv_vars = ["HB_HOME"]\ntool_timeout_sec = 900\n' \
		"$build/hb-mcp" "$(printf '"%s", ' $mcp_args | sed 's/, $//')"
	printf 'env = { ASAN_OPTIONS = "%s", LSAN_OPTIONS = "%s", UBSAN_OPTIONS = "%s" }\n' \
		"${ASAN_OPTIONS:-detect_leaks=1}:log_path=$tmp/sanitizer" "${LSAN_OPTIONS:-}" \
		"${UBSAN_OPTIONS:-print_stacktrace=1}:log_path=$tmp/sanitizer"
	printf '%s\n' "${1:-}"
}

# codex_turn NAME TOOL-CALL-JSON [CONFIG LINES]: one `codex exec --json`
# turn in $tmp/project whose mock model calls that tool; in $tmp/NAME:
# the mock's log, codex's JSON events (exec.jsonl) and stderr, its exit
# status (rc).  In the background when $background is set (its pid in
# exec_pid; exec_done waits for it).
codex_turn() {
	local dir=$tmp/$1
	mkdir -p "$dir/codex-home" "$dir/home"
	start_mock "$1" "$2"
	{ sed "s/@PORT@/$port/" "$rig/config.toml.in"; server_section "${3:-}"; } >"$dir/codex-home/config.toml"
	# Nothing of this machine's own Codex: a fresh CODEX_HOME and HOME.
	(
		cd "$tmp/project" &&
			env -i PATH="$rig/node_modules/.bin:$PATH" HOME="$dir/home" CODEX_HOME="$dir/codex-home" \
				HB_HOME="$HB_HOME" MOCK_API_KEY=mock-key-not-a-secret RUST_LOG=warn \
				NO_PROXY=127.0.0.1,localhost,::1 no_proxy=127.0.0.1,localhost,::1 OTEL_SDK_DISABLED=true \
				timeout 90 codex exec --json --strict-config --skip-git-repo-check \
				"Use the hbcode tool." </dev/null >"$dir/exec.jsonl" 2>"$dir/exec.err"
		echo $? >"$dir/rc"
	) &
	exec_pid=$!
	[ -n "${background:-}" ] || exec_done
}
exec_done() {
	wait "$exec_pid"
	stop_mock
}

# app_turn NAME TOOL-CALL-JSON [CONFIG LINES]: the same turn through
# `codex app-server` (drive.mjs plays the desktop or IDE that drives it),
# under approval_policy on-request, in the background (drive.mjs's pid in
# app_pid; app_done waits for it): a server's elicitation goes to the
# driver, which leaves it open as a person who answers elsewhere.  In
# $tmp/NAME: the mock's log, the frames (transcript.jsonl), the summary
# (summary.json), drive.mjs's status (rc).
app_turn() {
	local dir=$tmp/$1
	mkdir -p "$dir"
	start_mock "$1" "$2"
	{ sed 's/^approval_policy = "never"$/approval_policy = "on-request"/' "$rig/config.toml.in"; server_section "${3:-}"; } \
		>"$dir/config.toml.in"
	node "$rig/drive.mjs" --mock-port "$port" --config "$dir/config.toml.in" --work-dir "$dir/work" --cwd "$tmp/project" \
		--text "Use the hbcode tool." --leave-open mcpServer/elicitation/request --env "HB_HOME=$HB_HOME" \
		--transcript "$dir/transcript.jsonl" --timeout 90 --quiet >"$dir/summary.json" 2>"$dir/drive.err" &
	app_pid=$!
}
app_done() {
	wait "$app_pid"
	echo $? >"$tmp/$1/rc"
	stop_mock
}

# The hbcode tools codex offered the model in its first request of $1.
offered() {
	js_args '
		const r = JSON.parse(require("fs").readFileSync(argv[0], "utf8").split("\n")[0]);
		const ns = (r.body.tools || []).find((t) => t.type === "namespace" && t.name === "mcp__hbcode");
		print(ns ? ns.tools.map((t) => t.name).sort().join(" ") : "none");' "$tmp/$1/mock.jsonl"
}
# "TOOL STATUS [ERROR]" of each MCP call item of hbcode codex reported in $1's events.
mcp_item() {
	js_args '
		for (const l of require("fs").readFileSync(argv[0], "utf8").split("\n")) {
			let e; try { e = JSON.parse(l); } catch { continue; }
			const i = e.item;
			if (e.type === "item.completed" && i && i.type === "mcp_tool_call" && i.server === "hbcode")
				print(i.tool + " " + i.status + (i.error ? " " + i.error.message : ""));
		}' "$tmp/$1/exec.jsonl"
}

# --------------------------------------------------------------- list --
mcp_args="--access full-auto"
codex_turn list '{"namespace":"mcp__hbcode","name":"maintain_sessions","arguments":{"action":"listSessions"},"callId":"call_mcp_list"}'
session=$(external_sessions | head -1)
check "list: codex exec ran the turn (the config passed --strict-config)" '[ "$(cat $tmp/list/rc)" = 0 ]'
check "list: hb-mcp made one session of agent external for the project" \
	'[ -n "$session" ] && [ "$(external_sessions | wc -l)" = 1 ]'
check "list: codex offered the model the hbcode tools in the namespace mcp__hbcode" \
	'offered list | grep -qw maintain_sessions && offered list | grep -qw manage_sessions'
check "list: the broker ran the call for that session" '[ "$(calls_ok maintain_sessions "$session")" = 1 ]'
check "list: the model got the broker's answer, which lists that session" \
	'tool_output $tmp/list/mock.jsonl | grep -qF "\"id\":\"$session\""'
check "list: codex reports the MCP call completed" '[ "$(mcp_item list)" = "maintain_sessions completed" ]'

# -------------------------------------------------------------- codex --
rename() { printf '{"namespace":"mcp__hbcode","name":"manage_sessions","arguments":{"action":"rename","targetSessionId":"%s","title":"%s"},"callId":"call_mcp_%s"}' "$session" "$1" "$2"; }
mcp_args="--session $session --access full-auto"
codex_turn codex "$(rename "Renamed without asking" codex)"
check "codex: the turn ran" '[ "$(cat $tmp/codex/rc)" = 0 ]'
check "codex: codex refused the agent-class call itself (approval_policy never)" \
	'[ "$(mcp_item codex)" = "manage_sessions failed MCP tool call requires approval, but approval policy is never" ] &&
	 tool_output $tmp/codex/mock.jsonl | grep -qF "MCP tool call requires approval, but approval policy is never"'
check "codex: the broker saw no call of it" '[ "$(calls_of manage_sessions "$session")" = 0 ]'

# ------------------------------------------------------------- card --
# codex leaves the decision to HB Code: the broker holds the call for its
# card, and hb-mcp offers the card to codex (elicitation), which `codex
# exec` declines at once, as for any server's question, without a person.
codex_turn card "$(rename "Renamed through MCP" card)" 'default_tools_approval_mode = "approve"'
check "card: the turn ran" '[ "$(cat $tmp/card/rc)" = 0 ]'
check "card: HB Code raised its approval card for the call, in hb-mcp's run of the session" \
	'[ "$(events "e.event === \"approval.requested\" && e.tool === \"manage_sessions\" && e.session === \"$session\" && e.run.startsWith(\"mcp-\")")" = 1 ]'
check "card: codex's answer to the offer declined it" \
	'[ "$(events "e.event === \"approval.resolved\" && e.tool === \"manage_sessions\" && e.session === \"$session\" && e.decision === \"deny\"")" = 1 ]'
check "card: the model read the decline as the bridges give it" \
	'[ "$(mcp_item card)" = "manage_sessions failed" ] && tool_output $tmp/card/mock.jsonl | grep -qF "The user declined this tool call."'
check "card: the call did not run: the session keeps its title" \
	'[ "$(calls_ok manage_sessions "$session")" = 0 ] && [ "$(title_of "$session")" != "Renamed through MCP" ]'
check "card: no card is left open" '[ "$("$build/hbctl" approvals --json)" = "[]" ]'

# -------------------------------------------------------------- app --
# The same call through codex's app server, as the Codex desktop or IDE
# drives it: HB Code's question reaches the driver, which leaves it open;
# the card is approved with hbctl while codex waits.
app_turn app "$(rename "Approved from HB Code" app)" 'default_tools_approval_mode = "approve"'
check "app: HB Code's approval card for manage_sessions of the session is up" \
	'wait_for 60 "[ -n \"\$(card_of manage_sessions $session)\" ]"'
check "app: codex's app server passed HB Code's question on to its client" \
	'wait_for 10 "grep -F mcpServer/elicitation/request $tmp/app/transcript.jsonl | grep -qF \"HB Code asks before manage_sessions runs\""'
check "app: codex waits: the model has no answer yet, the session its title" \
	'kill -0 $app_pid && [ "$(grep -c "\"method\"" $tmp/app/mock.jsonl)" = 1 ] && [ "$(title_of "$session")" != "Approved from HB Code" ]'
"$build/hbctl" approve "$(card_of manage_sessions "$session")" >/dev/null
app_done app
check "app: the turn completed" '[ "$(cat $tmp/app/rc)" = 0 ] && [ "$(json_field turnStatus <$tmp/app/summary.json)" = completed ]'
check "app: the call ran after the approval, and the session is renamed" \
	'[ "$(calls_ok manage_sessions "$session")" = 1 ] && [ "$(title_of "$session")" = "Approved from HB Code" ]'
check "app: the model got the broker's answer" 'tool_output $tmp/app/mock.jsonl | grep -qF "Approved from HB Code"'
# hb-mcp withdrew its question once the card was answered: codex tells
# its client that request is settled.
question_settled() {
	js_args '
		let asked = null, settled = false;
		for (const l of require("fs").readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const m = JSON.parse(l).msg;
			if (m.method === "mcpServer/elicitation/request") asked = m.id;
			if (m.method === "serverRequest/resolved" && asked !== null && m.params.requestId === asked) settled = true;
		}
		exit(settled ? 0 : 1);' "$tmp/app/transcript.jsonl"
}
check "app: the question was withdrawn: codex told its client it is settled" question_settled

# --------------------------------------------------------------- exec --
# hb-mcp --no-elicitation offers codex exec no question to decline: the
# card waits for hbctl (the desktop, the phone) while codex waits.
mcp_args="--session $session --access full-auto --no-elicitation"
background=1 codex_turn exec "$(rename "Approved for codex exec" exec)" 'default_tools_approval_mode = "approve"'
check "exec: HB Code's approval card for manage_sessions of the session is up" \
	'wait_for 60 "[ -n \"\$(card_of manage_sessions $session)\" ]"'
check "exec: codex waits: the model has no answer yet, the session its title" \
	'kill -0 $exec_pid && [ "$(grep -c "\"method\"" $tmp/exec/mock.jsonl)" = 1 ] && [ "$(title_of "$session")" = "Approved from HB Code" ]'
"$build/hbctl" approve "$(card_of manage_sessions "$session")" >/dev/null
exec_done
check "exec: the turn ran" '[ "$(cat $tmp/exec/rc)" = 0 ]'
check "exec: the call ran after the approval, and the session is renamed" \
	'[ "$(calls_ok manage_sessions "$session")" = 2 ] && [ "$(title_of "$session")" = "Approved for codex exec" ]'
check "exec: the model got the broker's answer" 'tool_output $tmp/exec/mock.jsonl | grep -qF "Approved for codex exec"'
check "exec: codex reports the MCP call completed" '[ "$(mcp_item exec)" = "manage_sessions completed" ]'

check "no sanitizer report" \
	'! cat $tmp/broker.log $tmp/sanitizer.* 2>/dev/null | grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:"'

if [ $fail -ne 0 ]; then
	for s in list codex card app exec; do
		echo "--- $s"
		cat "$tmp/$s/exec.jsonl" "$tmp/$s/summary.json" 2>/dev/null | cut -c1-400
		grep -v "WARN\|bubblewrap\|PATH aliases" "$tmp/$s/exec.err" "$tmp/$s/drive.err" 2>/dev/null | tail -10
	done
	cat "$tmp"/sanitizer.* 2>/dev/null | head -60
	tail -40 "$tmp/broker.log"
fi
exit $fail
