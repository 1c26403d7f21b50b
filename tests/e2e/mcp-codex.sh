#!/usr/bin/env bash
# End to end: the real Codex CLI calls the hbcode tools through hb-mcp.
#   codex exec 0.171.0 (tests/codex, the mock Responses API on 127.0.0.1)
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
# Usage: mcp-codex.sh BUILD (needs make npm-deps).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mcp-lib.sh"
require codex
sessions_conf | start_broker
watch_events
mkdir -p "$tmp/project"

# codex_turn NAME TOOL-CALL-JSON [CONFIG LINES]: one `codex exec --json`
# turn in $tmp/project whose mock model calls that tool, with hb-mcp
# given the options in $mcp_args as the server hbcode; in $tmp/NAME: the
# mock's log (mock.jsonl), codex's JSON events (exec.jsonl) and stderr,
# its exit status (rc).
codex_turn() {
	local name=$1 call=$2 extra=${3:-} dir=$tmp/$1 port
	mkdir -p "$dir/codex-home" "$dir/home"
	MOCK_SCRIPT_JSON="{\"scenario\":\"tool\",\"tool\":$call,\"finalText\":\"Done. The tool said: {{output}}\",\"deltaChunks\":0}" \
		node "$rig/mock-responses.mjs" --port 0 --log "$dir/mock.jsonl" --quiet >"$dir/mock.out" 2>"$dir/mock.err" &
	mock=$!
	wait_for 10 "grep -qs '^PORT' $dir/mock.out" || { echo "FAIL the mock model did not start"; exit 1; }
	port=$(sed -n 's/^PORT //p' "$dir/mock.out" | head -1)
	{
		sed "s/@PORT@/$port/" "$rig/config.toml.in"
		# The server's section, as docs/mcp.md gives it: HB_HOME stands
		# for XDG_RUNTIME_DIR, by which a user's hb-mcp finds the broker.
		# A sanitizer's report goes to a file (codex keeps the server's
		# stderr to itself).
		printf '\n[mcp_servers.hbcode]\ncommand = "%s"\nargs = [%s]\nenv_vars = ["HB_HOME"]\ntool_timeout_sec = 600\n' \
			"$build/hb-mcp" "$(printf '"%s", ' $mcp_args | sed 's/, $//')"
		printf 'env = { ASAN_OPTIONS = "%s", LSAN_OPTIONS = "%s", UBSAN_OPTIONS = "%s" }\n' \
			"${ASAN_OPTIONS:-detect_leaks=1}:log_path=$tmp/sanitizer" "${LSAN_OPTIONS:-}" \
			"${UBSAN_OPTIONS:-print_stacktrace=1}:log_path=$tmp/sanitizer"
		printf '%s\n' "$extra"
	} >"$dir/codex-home/config.toml"
	# Nothing of this machine's own Codex: a fresh CODEX_HOME and HOME.
	(
		cd "$tmp/project" &&
			env -i PATH="$rig/node_modules/.bin:$PATH" HOME="$dir/home" CODEX_HOME="$dir/codex-home" \
				HB_HOME="$HB_HOME" MOCK_API_KEY=mock-key-not-a-secret RUST_LOG=warn \
				NO_PROXY=127.0.0.1,localhost,::1 no_proxy=127.0.0.1,localhost,::1 OTEL_SDK_DISABLED=true \
				timeout 90 codex exec --json --strict-config --skip-git-repo-check \
				"Use the hbcode tool." </dev/null >"$dir/exec.jsonl" 2>"$dir/exec.err"
		echo $? >"$dir/rc"
	)
	kill "$mock" 2>/dev/null
	wait "$mock" 2>/dev/null
	mock=
}

# What the model received as the tool's output, from the mock's log of $1.
tool_output() {
	node -e '
		for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l);
			if (r.toolOutput) { console.log(r.toolOutput.text); process.exit(0); }
		}' "$tmp/$1/mock.jsonl"
}
# The hbcode tools codex offered the model in its first request of $1.
offered() {
	node -e '
		const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]);
		const ns = (r.body.tools || []).find((t) => t.type === "namespace" && t.name === "mcp__hbcode");
		console.log(ns ? ns.tools.map((t) => t.name).sort().join(" ") : "none");' "$tmp/$1/mock.jsonl"
}
# "STATUS ERROR" of the MCP call item codex reported in $1's events.
mcp_item() {
	node -e '
		for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) {
			let e; try { e = JSON.parse(l); } catch { continue; }
			const i = e.item;
			if (e.type === "item.completed" && i && i.type === "mcp_tool_call" && i.server === "hbcode")
				console.log(i.tool + " " + i.status + (i.error ? " " + i.error.message : ""));
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
	'tool_output list | grep -qF "\"id\":\"$session\""'
check "list: codex reports the MCP call completed" '[ "$(mcp_item list)" = "maintain_sessions completed" ]'

# -------------------------------------------------------------- codex --
rename() { printf '{"namespace":"mcp__hbcode","name":"manage_sessions","arguments":{"action":"rename","targetSessionId":"%s","title":"%s"},"callId":"call_mcp_%s"}' "$session" "$1" "$2"; }
mcp_args="--session $session --access full-auto"
codex_turn codex "$(rename "Renamed without asking" codex)"
check "codex: the turn ran" '[ "$(cat $tmp/codex/rc)" = 0 ]'
check "codex: codex refused the agent-class call itself (approval_policy never)" \
	'[ "$(mcp_item codex)" = "manage_sessions failed MCP tool call requires approval, but approval policy is never" ] &&
	 tool_output codex | grep -qF "MCP tool call requires approval, but approval policy is never"'
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
	'[ "$(mcp_item card)" = "manage_sessions failed" ] && tool_output card | grep -qF "The user declined this tool call."'
check "card: the call did not run: the session keeps its title" \
	'[ "$(calls_ok manage_sessions "$session")" = 0 ] && [ "$(title_of "$session")" != "Renamed through MCP" ]'
check "card: no card is left open" '[ "$("$build/hbctl" approvals --json)" = "[]" ]'

check "no sanitizer report" \
	'! ls $tmp/sanitizer.* >/dev/null 2>&1 && ! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/broker.log'

if [ $fail -ne 0 ]; then
	for s in list codex card; do
		echo "--- $s"
		cat "$tmp/$s/exec.jsonl" 2>/dev/null | cut -c1-400
		grep -v "WARN\|bubblewrap\|PATH aliases" "$tmp/$s/exec.err" 2>/dev/null | tail -10
	done
	cat "$tmp"/sanitizer.* 2>/dev/null | head -60
	tail -40 "$tmp/broker.log"
fi
exit $fail
