#!/usr/bin/env bash
# End to end: an agent in a real Codex session gets a narrated, gated
# 1080p30 MP4 from one create_explainer_video call, and revises it.
#   drive.mjs (the desktop) -> hb-codex-bridge -> codex app-server (mock
#   model A calls the tool) -> hb-broker -> svc-explainer, which starts its
#   own private `codex app-server` (mock model B plays the worker:
#   tests/explainer/worker-steps.mjs) and answers its tools; finish asks
#   svc-speech (the fake Gemini) for each narration, fits, gates, renders.
# Checks: the worker's model got images back from its previews, finish was
# refused before every scene was seen, failed the 30-120 s gate with the
# measured length, then saved; the main model got the answer (path,
# duration, scenes, revision, review); ffprobe sees H.264 1920x1080 at 30
# fps and AAC; the timeline showed the phases and a finished row with the
# path; no worker process is left, the worker's thread is not linked to
# the session and nothing of it stays in the worker's Codex home (its
# thread is ephemeral).  Then a revision by videoPath asking for 60 fps:
# same file, revision 1, still 16:9 (1920x1080) now at 60 fps, the
# worker started from the saved scenes.
# Usage: explainer-codex.sh BUILD (needs make npm-deps and ffprobe).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/explainer-lib.sh"
require codex
require sqlite3

start_gemini
worker_mock full full
start_explainer_broker
watch_events
# The same rows as a person reads them.
"$build/hbctl" watch --text timeline.explainer >"$tmp/rows.txt" 2>/dev/null &
desktop=$! # lib.sh's clean-up stops it
session=$("$build/hbctl" call manage_sessions \
	'{"action":"create","title":"Explainer","agent":"codex","projectPath":"/tmp"}' | json_field id)
check "a Codex session" '[ -n "$session" ]'

# main NAME ARGS_JSON: one turn of the session's agent whose model calls
# create_explainer_video with ARGS_JSON; the summary in $tmp/NAME.
main() {
	local dir=$tmp/$1 main_mock port
	mkdir -p "$dir"
	MOCK_SCRIPT_JSON="{\"scenario\":\"tool\",\"tool\":{\"namespace\":\"hbcode\",\"name\":\"create_explainer_video\",\"arguments\":$2,\"callId\":\"call_explain\"},\"finalText\":\"Done. The tool said: {{output}}\",\"deltaChunks\":0}" \
		node "$rig/mock-responses.mjs" --port 0 --log "$dir/main.jsonl" --quiet >"$dir/main.out" 2>"$dir/main.err" &
	main_mock=$!
	wait_for 10 'grep -q "^PORT" "$dir/main.out"'
	port=$(sed -n 's/^PORT //p' "$dir/main.out" | head -1)
	timeout 900 node "$rig/drive.mjs" --mock-port "$port" --mode bridge --timeout 800 \
		--work-dir "$dir/work" --quiet --env "HB_HOME=$HB_HOME" \
		-- "$build/hb-codex-bridge" --session "$session" -- codex app-server \
		>"$dir/summary.json" 2>"$dir/drive.err"
	echo $? >"$dir/rc"
	kill "$main_mock" 2>/dev/null; wait "$main_mock" 2>/dev/null
	# the tool's answer as the main model received it
	js_args '
		const fs = require("fs");
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l);
			if (r.toolOutput) { fs.writeFileSync(argv[1], r.toolOutput.text); exit(0); }
		}' "$dir/main.jsonl" "$dir/answer.json"
}
answer() { json_field "$1" <"$tmp/$2/answer.json" 2>/dev/null; }

ask='{"question":"How does marmalade set?","facts":"Pectin from the peel sets marmalade when it is boiled with sugar to 105 C.","sources":["https://example.org/marmalade"]}'
main first "$ask"
check "the main turn completed" '[ "$(cat $tmp/first/rc)" = 0 ] && [ "$(json_field turnStatus <$tmp/first/summary.json)" = completed ]'
check "the worker's model saw every answer it expected (images, refusal, gate, saved)" 'player_ok full'
player_failures full
check "the worker got its first finish refused for unseen scenes" \
	'grep -q "finish refused: first look at the rendered start and end frame of these scenes since they last changed (preview_scene with at start and end, or contact_sheet): 02-set.svg" "$tmp/worker-full.jsonl"'
check "the gate's sentence gave the measured length per scene" \
	'grep -q "The narrated video lasts 1[0-9][0-9].[0-9] s; it must last 30 to 120 s. By scene: 1 01-intro.svg" "$tmp/worker-full.jsonl"'
video=$(answer videoPath first)
check "the answer names an absolute videoPath under the data folder" \
	'case $video in "$HB_HOME"/data/explainers/"$session"/*/video.mp4) true ;; *) false ;; esac'
check "the answer: 2 scenes, revision 0, 30-120 s" \
	'[ "$(answer scenes first)" = 2 ] && [ "$(answer revision first)" = 0 ] && js_args "const d=+argv[0]; exit(d>=30&&d<=120?0:1)" "$(answer durationSeconds first)"'
check "the answer names the default canvas: 16:9, 1920x1080, 30 fps" \
	'[ "$(answer format first)" = 16:9 ] && [ "$(answer width first)" = 1920 ] && [ "$(answer height first)" = 1080 ] && [ "$(answer fps first)" = 30 ]'
check "the answer carries the review: checks and limitations" \
	'answer checks first | grep -q "start and end frame" && answer limitations first | grep -q "not verified"'
p=$(probe "$video")
check "ffprobe: H.264 1920x1080 at 30 fps and AAC ($p)" \
	'echo "$p" | grep -q "h264|video|1920|1080|30/1" && echo "$p" | grep -q "aac|audio"'
check "the answer names the captions (WebVTT, SRT) and the poster, kept beside the video" \
	'companions_ok "$video" "$(answer captionsPath first)" "$(answer captionsSrtPath first)" "$(answer posterPath first)"'
check "the poster is the frame the worker chose: the second scene's (#304020)" \
	'[ "$(pixel_of "$(answer posterPath first)")" = 304020 ]'
check "the MP4 lasts what the answer says" \
	'js_args "exit(Math.abs(+argv[0] - +argv[1]) < 0.2 ? 0 : 1)" "$(duration_of "$video")" "$(answer durationSeconds first)"'
check "the narration went to the fake Gemini: 2 long, then 2 shortened (4 requests)" \
	'[ "$(grep -c "\"event\":\"end\"" "$tmp/gemini.jsonl")" = 4 ]'
for phase in "worker starting" "writing scenes" "reviewing" "narrating" "rendering"; do
	check "timeline: phase $phase" '[ "$(events "e.kind===\"explainer\" && e.phase===\"$phase\"")" -ge 1 ]'
done
check "timeline: each written scene shows at once (a row with 1 scene while writing)" \
	'[ "$(events "e.kind===\"explainer\" && e.phase===\"writing scenes\" && e.scenes===1")" -ge 1 ]'
check "timeline: a finished row opens the video" \
	'[ "$(events "e.kind===\"explainer\" && e.phase===\"finished\" && e.videoPath===\"$video\" && e.scenes===2 && e.framesRendered>0")" = 1 ]'
check "timeline: the finished row names the poster and captions, the desktop's thumbnail" \
	'[ "$(events "e.kind===\"explainer\" && e.phase===\"finished\" && e.posterPath===\"$(dirname "$video")/poster.png\" && e.captionsPath===\"$(dirname "$video")/video.vtt\"")" = 1 ]'
fitted=$(answer durationSeconds first)
check "timeline: every row of the render shows the narrated length, $fitted s, not the written one" \
	'[ "$(events "e.kind===\"explainer\" && e.phase===\"rendering\"")" -ge 1 ] && [ "$(events "e.kind===\"explainer\" && e.phase===\"rendering\" && e.durationSeconds!==$fitted")" = 0 ]'
check "no worker process is left" '[ "$(worker_left)" = 0 ]'
check "hbctl watch --text: the finished row as a line" \
	'grep -q "timeline.explainer *explainer [^ ]*: finished, revision 0, 2 scenes, [0-9.]* s, frames [0-9]* of [0-9]* -> $video" "$tmp/rows.txt"'
check "the worker's thread is not linked to the session (only the main thread is)" \
	'[ "$(sqlite3 "$HB_HOME/data/appdata.db" "SELECT count(*) FROM codex_session_links WHERE session_id = '"'"'$session'"'"'" 2>/dev/null || echo x)" = 1 ]'
check "nothing of the worker stays in its Codex home's history (no rollout, no thread)" \
	'[ "$(codex_worker_traces)" = 0 ]'
check "the worker narrated in the reply style's Narration section (Simplified Technical English, the initial choice)" \
	'grep -q "## Narration (reply style: Simplified Technical English)" "$tmp/worker-full.jsonl"'
check "the source is kept beside the video" '[ -f "$(dirname "$video")/source/script.json" ] && [ -f "$(dirname "$video")/source/01-intro.svg" ]'

sum1=$(sha256sum "$video" | cut -d' ' -f1)
# The person picks Default in Settings > Agents > Reply style: the next worker reads it.
js_args 'const fs = require("fs"), f = argv[0];
	const s = fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, "utf8")) : {};
	s.replyStyle = "default";
	fs.writeFileSync(f, JSON.stringify(s), { mode: 0o600 });' "$HB_HOME/config/settings.json"
vtt1=$(sha256sum "$(dirname "$video")/video.vtt" | cut -d' ' -f1)
worker_mock revise revise
# The revision asks for 60 fps and gives no format: the video stays 16:9.
main second "{\"question\":\"How does marmalade set? Say it warmer.\",\"facts\":\"Pectin sets it.\",\"videoPath\":\"$video\",\"fps\":60}"
check "revision: the turn completed" '[ "$(cat $tmp/second/rc)" = 0 ]'
check "revision: the worker found the saved scenes and saw its answers" 'player_ok revise'
player_failures revise
check "revision: the same path, revision 1" '[ "$(answer videoPath second)" = "$video" ] && [ "$(answer revision second)" = 1 ]'
check "revision: the new worker got the style chosen since (Default)" \
	'grep -q "## Narration (reply style: Default)" "$tmp/worker-revise.jsonl" && ! grep -q "reply style: Simplified" "$tmp/worker-revise.jsonl"'
check "revision: the video keeps its format and takes the new rate (16:9 at 60 fps)" \
	'[ "$(answer format second)" = 16:9 ] && [ "$(answer width second)" = 1920 ] && [ "$(answer fps second)" = 60 ]'
p2=$(ffprobe -v error -show_entries stream=codec_name,codec_type,width,height,r_frame_rate -of compact=p=0:nk=1 "$video" 2>&1 | tr '\n' ' ')
check "revision: ffprobe sees 1920x1080 at 60 fps ($p2)" 'echo "$p2" | grep -q "h264|video|1920|1080|60/1"'
check "revision: video.json and the source's script.json record 16:9 at 60 fps" \
	'[ "$(json_field format <"$(dirname "$video")/video.json")" = 16:9 ] && [ "$(json_field fps <"$(dirname "$video")/video.json")" = 60 ] &&
	 [ "$(json_field format <"$(dirname "$video")/source/script.json")" = 16:9 ] && [ "$(json_field fps <"$(dirname "$video")/source/script.json")" = 60 ]'
check "revision: the file changed" '[ "$(sha256sum "$video" | cut -d" " -f1)" != "$sum1" ]'
check "revision: its captions and poster are named and kept beside it, the captions the new words'" \
	'companions_ok "$video" "$(answer captionsPath second)" "$(answer captionsSrtPath second)" "$(answer posterPath second)" && [ "$(sha256sum "$(dirname "$video")/video.vtt" | cut -d" " -f1)" != "$vtt1" ]'
check "revision: the poster is the default again, the first scene's end frame (#402030)" \
	'[ "$(pixel_of "$(answer posterPath second)")" = 402030 ]'
check "revision: only the changed scene was narrated again (5 requests in all)" \
	'[ "$(grep -c "\"event\":\"end\"" "$tmp/gemini.jsonl")" = 5 ]'
check "revision: nothing of the worker stays in its Codex home's history" '[ "$(codex_worker_traces)" = 0 ]'
check "no words of the worker stay in its Codex home or home folder (logs, state, caches)" \
	'[ -z "$(worker_text_left)" ] || { worker_text_left; false; }'
check "no worker process is left" '[ "$(worker_left)" = 0 ]'
exit $fail
