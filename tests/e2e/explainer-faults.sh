#!/usr/bin/env bash
# create_explainer_video when things go wrong, with the real Codex as the
# worker (its model: a mock that plays tests/explainer/worker-steps.mjs).
# The caller is a Codex run opened with hbctl, as the desktop opens one.
# After a first video is saved, each of these must leave that video byte
# for byte as it was, leave no worker process and no half-written file:
#   - a cancel (run stop) while the worker works answers "Run stopped.";
#   - a cancel while the finish renders, likewise;
#   - the key deleted while the worker works ends the call with the
#     page's sentence at its next narration;
#   - the worker's time limit reached while the finish renders stops the
#     render and tells the caller so;
#   - SIGKILL of the worker's codex: a clear error, the service still serves;
#   - SIGKILL of svc-explainer while it renders: other calls and timeline
#     events keep flowing, the caller gets a clear error, the broker starts
#     the service again, the call's timeline row ends ("failed", with a
#     sentence) instead of staying at "rendering" for ever, and nothing
#     half-written is left beside the video.
# The exact moments come from the worker's mock (it waits for a file before
# a chosen step) and from svc-explainer's test points (HB_FAILPOINTS), never
# from sleeps.  How long each cancel took is printed, not asserted.
# Usage: explainer-faults.sh BUILD (needs make npm-deps and ffprobe).
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rig=$here/codex
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/explainer-lib.sh"
require codex

export HB_FAILPOINTS=$tmp/failpoints
mkdir -p "$HB_FAILPOINTS"
start_gemini
worker_mock base full
start_explainer_broker
watch_events
session=$("$build/hbctl" call manage_sessions \
	'{"action":"create","title":"Explainer faults","agent":"codex","projectPath":"/tmp"}' | json_field id)
runs=0
# explain LABEL ARGS_JSON: the tool called in a new Codex run of the
# session, in the background (pid in call_pid, answer in $tmp/LABEL.out,
# status in $tmp/LABEL.rc); the run's id in run.
explain() {
	runs=$((runs + 1))
	run=run-$runs
	"$build/hbctl" run open "$run" --session "$session" --project /tmp --agent codex --access full-auto \
		--model mock-model >/dev/null
	{ "$build/hbctl" call create_explainer_video "$2" --run "$run" --timeout 900000 >"$tmp/$1.out" 2>&1
	  echo $? >"$tmp/$1.rc"; } &
	call_pid=$!
}
ms() { date +%s%3N; }
# stop_ms RUN: from the broker's "run RUN stopped" to svc-explainer's
# next "the worker ended" (logged once its worker is stopped and reaped),
# in ms, from the two logs' timestamps: the figure of a cancel, which a
# scan of /proc from here would only blur.
stop_ms() {
	js_args '
		const lines = require("fs").readFileSync(argv[0], "utf8").split("\n");
		const at = (l) => Date.parse(l.slice(0, 24));
		const i = lines.findIndex((l) => l.includes(`run ${argv[1]} stopped`));
		const j = lines.findIndex((l, k) => k > i && l.includes("explainer: the worker ended"));
		print(i >= 0 && j > i ? at(lines[j]) - at(lines[i]) : "?");' "$tmp/broker.log" "$1"
}

ask='{"question":"How does marmalade set?","facts":"Pectin from the peel sets marmalade when boiled with sugar."}'
explain base "$ask"
wait "$call_pid"
video=$(json_field videoPath <"$tmp/base.out")
check "a first video is saved" '[ "$(cat $tmp/base.rc)" = 0 ] && [ -f "$video" ]'
[ -f "$video" ] || { cat "$tmp/base.out"; exit 1; }
entry=$(dirname "$video")
# The video with its captions and poster, by SHA-256.
saved() { (cd "$entry" && sha256sum video.mp4 video.vtt video.srt poster.png 2>&1); }
sum=$(saved)
entry_files="poster.png source video.json video.mp4 video.srt video.vtt "
revise="{\"question\":\"Again, warmer.\",\"facts\":\"Pectin sets it.\",\"videoPath\":\"$video\"}"
# untouched: the saved video, its captions and poster as they were, and
# nothing else in its folder.
untouched() {
	[ "$(saved)" = "$sum" ] && [ "$(LC_ALL=C ls -A "$entry" | tr '\n' ' ')" = "$entry_files" ]
}

# 0. a videoPath this tool did not make, and one of another session.
printf 'not a video\n' >"$tmp/not-ours.mp4"
explain foreign "{\"question\":\"q\",\"facts\":\"f\",\"videoPath\":\"$tmp/not-ours.mp4\"}"
wait "$call_pid"
check "a videoPath not made by the tool is refused with a sentence, nothing started" \
	'grep -q "^$tmp/not-ours.mp4 was not made by create_explainer_video" "$tmp/foreign.out" && [ "$(worker_left)" = 0 ]'
other=$("$build/hbctl" call manage_sessions \
	'{"action":"create","title":"Another","agent":"codex","projectPath":"/tmp"}' | json_field id)
"$build/hbctl" run open run-other --session "$other" --project /tmp --agent codex --access full-auto >/dev/null
"$build/hbctl" call create_explainer_video "$revise" --run run-other >"$tmp/other.out" 2>&1
check "another session's video is refused" 'grep -q "belongs to another HB Code session" "$tmp/other.out" && untouched'

# 1. a cancel while the worker works: the worker's model stalls after its
#    first scene.
worker_mock stall stall
explain stall "$revise"
wait_for 120 'grep -qs "\"step\":1" "$tmp/worker-stall.jsonl"'
t0=$(ms); "$build/hbctl" run stop "$run" >/dev/null; t1=$(ms)
wait "$call_pid"; explainer_idle 30
echo "     (the cancel during the worker: answered in $((t1 - t0)) ms, the worker stopped in $(stop_ms "$run") ms)"
check "cancel during the worker: Run stopped." 'grep -qx "Run stopped." "$tmp/stall.out"'
check "cancel during the worker: the video is untouched, nothing left beside it" untouched
check "cancel during the worker: no worker process is left" '[ "$(worker_left)" = 0 ]'

# 2. a cancel while the finish renders (held at its first frame).
worker_mock render revise
touch "$HB_FAILPOINTS/explainer.rendering.hold"
explain render "$revise"
wait_for 300 '[ -e "$HB_FAILPOINTS/explainer.rendering.reached" ]'
check "cancel during the render: the render was reached" '[ -e "$HB_FAILPOINTS/explainer.rendering.reached" ]'
t0=$(ms); "$build/hbctl" run stop "$run" >/dev/null; t1=$(ms)
wait "$call_pid"; explainer_idle 30
rm -f "$HB_FAILPOINTS/explainer.rendering.hold" "$HB_FAILPOINTS/explainer.rendering.reached"
echo "     (the cancel during the render: answered in $((t1 - t0)) ms, the render and worker stopped in $(stop_ms "$run") ms)"
check "cancel during the render: Run stopped." 'grep -qx "Run stopped." "$tmp/render.out"'
check "cancel during the render: the video is untouched, nothing left beside it" untouched
check "cancel during the render: no worker process is left" '[ "$(worker_left)" = 0 ]'

# 3. the key deleted while the worker works (before its first finish).
worker_mock nokey full --wait-file "$tmp/go-nokey" --wait-at 4
explain nokey "$revise"
wait_for 120 'grep -qs "\"step\":4" "$tmp/worker-nokey.jsonl"'
"$build/hbctl" settings gemini-key delete >/dev/null
touch "$tmp/go-nokey"
wait "$call_pid"
explainer_idle 30
check "key deleted mid-way: the page's sentence" 'grep -qx "Add a Gemini API key in Settings > API Keys." "$tmp/nokey.out"'
check "key deleted mid-way: the video is untouched" untouched
check "key deleted mid-way: no worker process is left" '[ "$(worker_left)" = 0 ]'
explain nokey2 "$revise"
wait "$call_pid"
check "without a key nothing starts" \
	'grep -qx "Add a Gemini API key in Settings > API Keys." "$tmp/nokey2.out" && [ "$(worker_left)" = 0 ]'
echo "fake-key-for-the-loopback-fake" | "$build/hbctl" settings gemini-key set >/dev/null

# 3b. the limits: the worker's time (a setting read on every call) and
#     its finish attempts.
printf '{"explainerWorkerMinutes": 0.1}\n' >"$HB_HOME/config/settings.json"
chmod 600 "$HB_HOME/config/settings.json"
worker_mock slow stall
explain slow "$revise"
wait "$call_pid"
explainer_idle 30
rm -f "$HB_HOME/config/settings.json"
check "time limit: the worker is stopped with a sentence" \
	'grep -q "The explainer worker did not finish in time (its limit is 0.1 minutes, setting explainerWorkerMinutes), so no video was made." "$tmp/slow.out"'
check "time limit: the video is untouched, no worker left" 'untouched && [ "$(worker_left)" = 0 ]'
# 3c. the time limit reached while the finish renders: the render is held
#     at its first frame, as a slow scene would hold it, until the limit
#     is past by svc-explainer's own clock (its log line "the worker
#     starts" plus the limit), then let go: it must stop there.
printf '{"explainerWorkerMinutes": 0.3}\n' >"$HB_HOME/config/settings.json"
chmod 600 "$HB_HOME/config/settings.json"
worker_mock limit revise
touch "$HB_FAILPOINTS/explainer.rendering.hold"
explain limit "$revise"
wait_for 300 '[ -e "$HB_FAILPOINTS/explainer.rendering.reached" ]'
check "time limit during the render: the render was reached" '[ -e "$HB_FAILPOINTS/explainer.rendering.reached" ]'
started=$(grep "explainer: the worker starts" "$tmp/broker.log" | tail -1 | cut -c1-24)
limit_end=$(js_args 'print(Date.parse(argv[0]) + 18000 + 1000)' "$started")
# The margin: the render must be reached well inside the limit.
echo "     (the render was reached $(($(ms) - limit_end + 19000)) ms after the worker started; its limit is 18000 ms)"
wait_for 120 '[ "$(ms)" -gt "$limit_end" ]'
rm -f "$HB_FAILPOINTS/explainer.rendering.hold" "$HB_FAILPOINTS/explainer.rendering.reached"
wait "$call_pid"; explainer_idle 30
rm -f "$HB_HOME/config/settings.json"
check "time limit during the render: the render is stopped and the caller told why" \
	'grep -q "did not finish in time (its limit is 0.3 minutes, setting explainerWorkerMinutes), so no video was made. Its last finish failed: the time limit was reached while rendering, after frame [0-9]* of [0-9]*" "$tmp/limit.out"'
cat "$tmp/limit.out" | head -c 400; echo
check "time limit during the render: the video is untouched, no worker left" 'untouched && [ "$(worker_left)" = 0 ]'
worker_mock attempts attempts
explain attempts "$revise"
wait "$call_pid"
explainer_idle 30
check "finish attempts: six, then refused, as the worker's model saw" 'player_ok attempts'
player_failures attempts
check "finish attempts: the call fails with the last finish's sentence" \
	'grep -q "stopped without a finished video. Its last finish failed: .*must last 30 to 120 s" "$tmp/attempts.out"'
check "finish attempts: the video is untouched" untouched

# 4. SIGKILL of the worker's codex while it works.
worker_mock killw stall
explain killw "$revise"
wait_for 120 'grep -qs "\"step\":1" "$tmp/worker-killw.jsonl"'
for p in /proc/[0-9]*; do
	{ tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qx "CODEX_HOME=$tmp/worker-codex" || continue
	{ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -q "app-server" && kill -9 "${p#/proc/}" 2>/dev/null
done
wait "$call_pid"
explainer_idle 30
check "worker killed: a clear error" 'grep -q "The explainer worker failed" "$tmp/killw.out"'
check "worker killed: the video is untouched" untouched
check "worker killed: no worker process is left" '[ "$(worker_left)" = 0 ]'

# 5. SIGKILL of svc-explainer while it renders.
pid_of() { "$build/hbctl" status --json | js 'const s = input; const j=JSON.parse(s);const v=(j.services||[]).find(x=>x.name==="svc-explainer");print(v&&v.pid||"")'; }
before=$(pid_of)
worker_mock crash revise
touch "$HB_FAILPOINTS/explainer.rendering.hold"
explain crash "$revise"
wait_for 300 '[ -e "$HB_FAILPOINTS/explainer.rendering.reached" ]'
n0=$(wc -l <"$tmp/events.jsonl")
other=$("$build/hbctl" call maintain_sessions '{"action":"guide"}' 2>&1 | head -c 200)
check "while it renders: another tool answers" 'echo "$other" | grep -q "read-only"'
# the call's key: the one call whose rows are coming
crash_key=$(js_args '
	let k = "";
	for (const l of require("fs").readFileSync(argv[0], "utf8").split("\n")) {
		let e; try { e = JSON.parse(l); } catch { continue; }
		if (e.event === "timeline.explainer") k = e.callKey;
	}
	print(k);' "$tmp/events.jsonl")
check "while it renders: its row is kept for a restart" '[ -n "$crash_key" ] && [ "$(ls "$HB_HOME/cache/explainer-rows" | wc -l)" = 1 ]'
kill -9 "$(pid_of)"
wait "$call_pid"
rm -f "$HB_FAILPOINTS/explainer.rendering.hold" "$HB_FAILPOINTS/explainer.rendering.reached"
explainer_idle 30
crash_ended() { events "e.event === 'timeline.explainer' && e.callKey === '$crash_key' && e.phase === 'failed' && /svc-explainer stopped while handling this call .*the saved one is unchanged/.test(e.error)"; }
check "svc-explainer killed: the call's row ends as failed, with a sentence, once" \
	'wait_for 60 "[ \"\$(crash_ended)\" = 1 ]" && [ -z "$(ls -A "$HB_HOME/cache/explainer-rows")" ]'
[ "$(crash_ended)" = 1 ] || grep "$crash_key" "$tmp/events.jsonl" | tail -3
check "svc-explainer killed: the caller gets a clear error" 'grep -q "svc-explainer stopped while handling this call" "$tmp/crash.out"'
check "svc-explainer killed: the broker starts it again" 'wait_for 30 "[ -n \"\$(pid_of)\" ] && [ \"\$(pid_of)\" != \"$before\" ]"'
after=$("$build/hbctl" call maintain_sessions '{"action":"guide"}' 2>&1 | head -c 200)
check "svc-explainer killed: other tools keep answering" 'echo "$after" | grep -q "read-only"'
check "svc-explainer killed: timeline events keep flowing" '[ "$(wc -l <"$tmp/events.jsonl")" -gt "$n0" ]'
check "svc-explainer killed: no worker process is left" 'wait_for 10 "[ \"\$(worker_left)\" = 0 ]"'
worker_mock after revise
explain after "$revise"
wait "$call_pid"
check "svc-explainer killed: the video was untouched, and the next revision works" \
	'[ "$(cat $tmp/after.rc)" = 0 ] && [ "$(json_field revision <"$tmp/after.out")" = 1 ] && [ "$(LC_ALL=C ls -A "$entry" | tr "\n" " ")" = "$entry_files" ]'
exit $fail
