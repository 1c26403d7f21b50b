#!/usr/bin/env bash
# End to end: an agent in a real Claude session gets a narrated, gated
# 1080p30 MP4 from one create_explainer_video call.
#   claude-drive.mjs (the desktop) -> hb-claude-bridge -> the agent host
#   (the real Claude Agent SDK; mock model A calls the tool) -> hb-broker
#   -> svc-explainer, which starts its own agent host (the same program,
#   HB_AGENT_HOST; mock model B plays the worker: worker-steps.mjs) and
#   answers the worker's toolCall lines itself; finish asks svc-speech
#   (the fake Gemini) for the narration, fits, gates, renders.
# Checks: the worker's model saw its previews as image blocks, the refused
# finish, the gate's sentence and the saved video; the main model got the
# answer; ffprobe sees H.264 1920x1080 at 30 fps and AAC; the worker ran on
# the session's model; no worker process is left and nothing of it stays in
# the Claude projects folder.
# Usage: explainer-claude.sh BUILD (needs make npm-deps and ffprobe).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
host=$here/agent-host
hosts=$(cd "$here/../agent-host" && pwd)   # the agent host, a product part
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/explainer-lib.sh"
require claude

start_gemini
# mock model B: the worker's.
node "$here/explainer/worker-steps.mjs" --variant full >"$tmp/steps.json"
node "$host/mock-messages.mjs" --script "$tmp/steps.json" --log "$tmp/worker.jsonl" >"$tmp/worker-mock.out" \
	2>"$tmp/worker-mock.err" &
mock=$!
wait_for 10 'grep -q "^PORT" "$tmp/worker-mock.out"' || { echo "FAIL the worker's mock did not start"; exit 1; }
wport=$(sed -n 's/^PORT //p' "$tmp/worker-mock.out" | head -1)
mkdir -p "$tmp/worker-home/.claude" "$tmp/home/.claude" "$tmp/project"
# svc-explainer's environment, which its worker's host inherits.
(
	export HOME=$tmp/worker-home CLAUDE_CONFIG_DIR=$tmp/worker-home/.claude
	export ANTHROPIC_BASE_URL=http://127.0.0.1:$wport ANTHROPIC_API_KEY=test DISABLE_TELEMETRY=1
	export DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
	export HB_AGENT_HOST="node $hosts/host.mjs" HB_GEMINI_BASE_URL=http://127.0.0.1:$gemini_port
	export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
	{
		sessions_conf
		deployed_conf svc-speech && deployed_conf svc-explainer
	} | start_broker
)
broker=$(cat "$tmp/broker.pid")
echo "fake-key-for-the-loopback-fake" | "$build/hbctl" settings gemini-key set >/dev/null
watch_events
session=$(full_auto_session Explainer claude)
check "a Claude session" '[ -n "$session" ]'

# mock model A: the main agent's.
node "$host/mock-messages.mjs" --log "$tmp/main.jsonl" >"$tmp/main-mock.out" 2>"$tmp/main-mock.err" &
main_mock=$!
wait_for 10 'grep -q "^PORT" "$tmp/main-mock.out"'
mport=$(sed -n 's/^PORT //p' "$tmp/main-mock.out" | head -1)
ask='{"question":"How does marmalade set?","facts":"Pectin from the peel sets marmalade when it is boiled with sugar.","sources":["https://example.org/marmalade"]}'
env HOME="$tmp/home" CLAUDE_CONFIG_DIR="$tmp/home/.claude" ANTHROPIC_BASE_URL="http://127.0.0.1:$mport" \
	ANTHROPIC_API_KEY=test DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1 \
	CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
	timeout 900 node "$here/e2e/claude-drive.mjs" --hbctl "$build/hbctl" --approve --timeout 800 \
	--prompt "@tool create_explainer_video $ask" \
	-- "$build/hb-claude-bridge" --session "$session" --run run-explain --project "$tmp/project" \
	--access full-auto --model claude-opus-5-5 -- node "$hosts/host.mjs" >"$tmp/main.json" 2>"$tmp/main.err"
echo $? >"$tmp/main.rc"
kill "$main_mock" 2>/dev/null; wait "$main_mock" 2>/dev/null

# The tool's answer as the main model received it.
js_args '
	const fs = require("fs");
	let last = null;
	for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
		if (!l) continue;
		const r = JSON.parse(l);
		for (const m of r.body?.messages ?? [])
			for (const b of Array.isArray(m.content) ? m.content : [])
				if (b.type === "tool_result") last = typeof b.content === "string" ? b.content :
					b.content.filter((c) => c.type === "text").map((c) => c.text).join("");
	}
	if (last !== null) fs.writeFileSync(argv[1], last);' "$tmp/main.jsonl" "$tmp/answer.json"
answer() { json_field "$1" <"$tmp/answer.json" 2>/dev/null; }

check "the main run ended idle" '[ "$(cat $tmp/main.rc)" = 0 ]'
check "the worker's model saw every answer it expected (images, refusal, gate, saved)" \
	'! grep -q playerFailure "$tmp/worker.jsonl" && grep -q "\"playerDone\":true" "$tmp/worker.jsonl"'
grep -o '"playerFailure":"[^"]*"' "$tmp/worker.jsonl" | head -3
check "the worker ran on the session's model" \
	'grep -q "\"model\":\"claude-opus-5-5\"" "$tmp/worker.jsonl"'
video=$(answer videoPath)
check "the answer names the saved video: 2 scenes, revision 0" \
	'[ -f "$video" ] && [ "$(answer scenes)" = 2 ] && [ "$(answer revision)" = 0 ]'
p=$(probe "$video")
check "ffprobe: H.264 1920x1080 at 30 fps and AAC ($p)" \
	'echo "$p" | grep -q "h264|video|1920|1080|30/1" && echo "$p" | grep -q "aac|audio"'
check "the answer names the captions (WebVTT, SRT) and the poster, kept beside the video" \
	'companions_ok "$video" "$(answer captionsPath)" "$(answer captionsSrtPath)" "$(answer posterPath)"'
check "the poster is the frame the worker chose: the second scene's (#304020)" \
	'[ "$(pixel_of "$(answer posterPath)")" = 304020 ]'
check "timeline: a finished row opens the video" \
	'[ "$(events "e.kind===\"explainer\" && e.phase===\"finished\" && e.videoPath===\"$video\"")" = 1 ]'
left=0
for p in /proc/[0-9]*; do
	{ tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qx "CLAUDE_CONFIG_DIR=$tmp/worker-home/.claude" || continue
	case $({ cat "$p/comm"; } 2>/dev/null) in node|claude*) left=$((left + 1)) ;; esac
done
check "no worker process is left" '[ "$left" = 0 ]'
check "nothing of the worker stays in the Claude projects folder (no transcript, no tool results)" \
	'[ "$(find "$tmp/worker-home/.claude/projects" -type f 2>/dev/null | wc -l)" = 0 ]'
check "no words of the worker stay in its home folder (Claude's config, logs, caches)" \
	'[ -z "$(worker_text_left)" ] || { worker_text_left; false; }'
exit $fail
