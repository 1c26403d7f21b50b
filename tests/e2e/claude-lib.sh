# claude-lib.sh - what the end-to-end scripts that run the real Claude
# Agent SDK share: the agent host (a product part) in hosts, Claude Code's
# own folder and a project under $tmp, no proxy, the mock Messages API and
# Claude Code's environment for it.  Sourced after lib.sh, with here set.

hosts=$(cd "$here/../agent-host" && pwd)
require claude
unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy
mkdir -p "$tmp/home/.claude" "$tmp/project"

# start_claude_mock [MOCK OPTIONS]: tests/agent-host/mock-messages.mjs on
# 127.0.0.1, logging each request to $tmp/mock.jsonl; its pid in mock
# (lib.sh stops it), its port in port.
start_claude_mock() {
	node "$here/agent-host/mock-messages.mjs" --log "$tmp/mock.jsonl" "$@" >"$tmp/mock.out" 2>"$tmp/mock.err" &
	mock=$!
	for _ in $(seq 200); do [ -s "$tmp/mock.out" ] && break; sleep 0.05; done
	port=$(sed -n 's/^PORT //p' "$tmp/mock.out" | head -1)
}

# export_claude_env: Claude Code on the mock (start_claude_mock first),
# with its own HOME under $tmp and nothing sent anywhere else.
export_claude_env() {
	export HOME="$tmp/home" CLAUDE_CONFIG_DIR="$tmp/home/.claude" ANTHROPIC_BASE_URL="http://127.0.0.1:$port" \
		ANTHROPIC_API_KEY=test DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1 \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
}

# claude_run NAME PROMPT [BRIDGE OPTIONS]: one run of one turn of the
# session $session through claude-drive.mjs (the desktop), hb-claude-bridge
# and the agent host, in $tmp/project at full-auto; its output in
# $tmp/NAME.json and .err, its transcript in $tmp/NAME.transcript, its exit
# status in $tmp/NAME.rc.  With decline=MESSAGE set, its approval card is
# declined with MESSAGE.
claude_run() {
	local name=$1 prompt=$2
	shift 2
	(
		export_claude_env
		exec timeout 120 node "$here/e2e/claude-drive.mjs" --hbctl "$build/hbctl" --prompt "$prompt" --timeout 100 \
			${decline:+--decline "$decline"} \
			--transcript "$tmp/$name.transcript" \
			-- "$build/hb-claude-bridge" --session "$session" --run "run-$name" --project "$tmp/project" \
			--access full-auto "$@" -- node "$hosts/host.mjs"
	) >"$tmp/$name.json" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}

# claude_stay NAME PROMPT [BRIDGE OPTIONS]: a run of the session $session
# in the background (its pid in desktop, which lib.sh stops), as
# claude_run's, but one that stays after its turn until $tmp/NAME.stop
# exists: PROMPT its desktop's prompt, or "" for a run whose desktop sends
# nothing (one opened only to receive messages from other sessions).
claude_stay() {
	local name=$1 prompt=$2
	shift 2
	(
		export_claude_env
		exec timeout 120 node "$here/e2e/claude-drive.mjs" --hbctl "$build/hbctl" ${prompt:+--prompt "$prompt"} \
			--timeout 100 --transcript "$tmp/$name.transcript" --stay-until "$tmp/$name.stop" \
			-- "$build/hb-claude-bridge" --session "$session" --run "run-$name" --project "$tmp/project" \
			--access full-auto "$@" -- node "$hosts/host.mjs"
	) >"$tmp/$name.json" 2>"$tmp/$name.err" &
	desktop=$!
}

# claude_session: the Claude conversation linked to the session $session.
claude_session() {
	"$build/hbctl" call maintain_sessions "{\"action\":\"resolveSession\",\"targetSessionId\":\"$session\"}" |
		json_field claudeSessionId
}
