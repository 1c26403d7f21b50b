# explainer-lib.sh - what the end-to-end tests of create_explainer_video
# share, sourced after lib.sh with build, here and rig set: the fake Gemini
# (narration 0.1 s a character, so the gate is exercised), the worker's
# Codex home pointed at a mock Responses API that plays the worker
# (tests/explainer/worker-steps.mjs), and a broker running svc-sessions,
# svc-speech and svc-explainer (confined as deploy/services.conf has it) in
# an environment that reaches nothing but 127.0.0.1.

# start_gemini: the fake on a free port, alive while this script is (it
# ends when its standard input, our fd 8, closes).  Sets gemini_port.
start_gemini() {
	printf '{"samplesPerChar": 2400}\n' >"$tmp/gemini.json"
	mkfifo "$tmp/gemini.in"
	node "$here/fake-gemini/server.mjs" --record "$tmp/gemini.jsonl" --control "$tmp/gemini.json" \
		--port 0 <"$tmp/gemini.in" >"$tmp/gemini.out" 2>"$tmp/gemini.err" &
	exec 8>"$tmp/gemini.in"
	wait_for 10 'grep -q "^listening" "$tmp/gemini.out"' || { echo "FAIL the fake Gemini did not start"; exit 1; }
	gemini_port=$(sed -n 's/^listening //p' "$tmp/gemini.out" | head -1)
}

# worker_mock LABEL VARIANT [ARGS...]: (re)start the mock model the
# worker's codex talks to, playing worker-steps.mjs's VARIANT (ARGS go to
# it too); its log is $tmp/worker-LABEL.jsonl.
worker_mock() {
	local label=$1 variant=$2
	shift 2
	[ -n "$mock" ] && { kill "$mock" 2>/dev/null; wait "$mock" 2>/dev/null; }
	node "$here/explainer/worker-steps.mjs" --variant "$variant" "$@" >"$tmp/steps-$label.json"
	: >"$tmp/worker-mock.out"
	node "$rig/mock-responses.mjs" --port 0 --script "$tmp/steps-$label.json" --log "$tmp/worker-$label.jsonl" \
		>"$tmp/worker-mock.out" 2>"$tmp/worker-mock-$label.err" &
	mock=$!
	wait_for 10 'grep -q "^PORT" "$tmp/worker-mock.out"' || { echo "FAIL the worker's mock did not start"; exit 1; }
	mkdir -p "$tmp/worker-codex" "$tmp/worker-home"
	sed "s/@PORT@/$(sed -n 's/^PORT //p' "$tmp/worker-mock.out" | head -1)/" "$rig/config.toml.in" \
		>"$tmp/worker-codex/config.toml"
}

# start_explainer_broker: the broker with the three services, the key
# saved.  svc-explainer's worker inherits this environment.
start_explainer_broker() {
	export CODEX_HOME=$tmp/worker-codex HOME=$tmp/worker-home PATH=$rig/node_modules/.bin:$PATH
	export MOCK_API_KEY=mock-key-not-a-secret RUST_LOG=warn OTEL_SDK_DISABLED=true
	export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
	export HB_GEMINI_BASE_URL=http://127.0.0.1:$gemini_port
	{
		sessions_conf
		deployed_conf svc-speech && deployed_conf svc-explainer
	} | start_broker
	echo "fake-key-for-the-loopback-fake" | "$build/hbctl" settings gemini-key set >/dev/null
}

# player_ok LABEL: the worker's model saw every step's answer as
# expected and ended its turn.
player_ok() {
	! grep -q '"playerFailure"' "$tmp/worker-$1.jsonl" &&
		grep -q '"text":"The explainer video is finished."' "$tmp/worker-$1.jsonl"
}
player_failures() { grep -o '"playerFailure":"[^"]*"' "$tmp/worker-$1.jsonl" | head -3; }

# probe FILE: "codec WxH fps" of its video and its audio codec, a line.
probe() {
	ffprobe -v error -show_entries stream=codec_type,codec_name,width,height,r_frame_rate \
		-of compact=p=0:nk=1 "$1" 2>/dev/null | tr '\n' ' '
}
# companions_ok VIDEO VTT SRT POSTER: the captions and poster an answer
# names are beside the video: a WebVTT and an SRT with cues, and a PNG of
# the video's size.
companions_ok() {
	local dir size
	dir=$(dirname "$1")
	size=$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0 "$1")
	[ "$2" = "$dir/video.vtt" ] && [ "$3" = "$dir/video.srt" ] && [ "$4" = "$dir/poster.png" ] &&
		[ "$(head -1 "$2")" = WEBVTT ] && grep -q -- " --> " "$2" && grep -q -- " --> " "$3" &&
		[ "$(ffprobe -v error -show_entries stream=codec_name,width,height -of csv=p=0 "$4")" = "png,$size" ]
}
# pixel_of PNG: the colour of its pixel at (10, 10) as 6 hex digits.
pixel_of() {
	ffmpeg -v error -i "$1" -vf crop=1:1:10:10 -f rawvideo -pix_fmt rgb24 - 2>/dev/null | od -An -tx1 | tr -d ' \n'
}
duration_of() { ffprobe -v error -show_entries format=duration -of default=nw=1:nk=1 "$1" 2>/dev/null; }

# worker_left: live `codex app-server` processes (and their node
# launcher) with the worker's environment, a count.
worker_left() {
	local n=0 p
	for p in /proc/[0-9]*; do
		[ "$p" = "/proc/$$" ] && continue
		{ tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qx "CODEX_HOME=$tmp/worker-codex" || continue
		{ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -q "app-server" && n=$((n + 1))
	done
	echo "$n"
}

# worker_text_left: the files under the worker's Codex home and home
# folder that hold its words (a worker-only tool's name, the question it
# was given): a private worker leaves none, in its agent's history, logs
# or caches.  Empty when none.
worker_text_left() {
	grep -rla -e write_scene -e preview_scene -e "How does marmalade set" \
		"$tmp/worker-codex" "$tmp/worker-home" 2>/dev/null
}

# codex_worker_traces: what the worker's codex kept of its threads in its
# Codex home (the user's history): rollout files under sessions/ and
# thread rows of its state database, a count.
codex_worker_traces() {
	local rollouts threads
	rollouts=$(find "$tmp/worker-codex/sessions" -type f 2>/dev/null | wc -l)
	threads=0
	[ -f "$tmp/worker-codex/state_5.sqlite" ] &&
		threads=$(sqlite3 "$tmp/worker-codex/state_5.sqlite" "SELECT count(*) FROM threads" 2>/dev/null || echo x)
	echo $((rollouts + threads))
}

# explainer_idle SECONDS: true once svc-explainer runs no call (a
# cancelled call's handler has cleaned up and let go of its video).
explainer_idle() {
	wait_for "$1" '"$build/hbctl" status --json | grep -q "\"name\":\"svc-explainer\"[^}]*\"slotsBusy\":0"'
}
