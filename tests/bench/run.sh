#!/bin/sh
# The benchmark (`make bench`): start hb-broker with svc-echo and a
# minimal service, and a bare ZeroMQ relay with its worker, all in a temp
# folder; run bench-broker against both; stop everything.  Then the
# bridges, speech, use_user_browser (alone, then beside its peers), the
# explainer renderer and the scale part (tests/bench/bench-scale.c, its
# own brokers).
#
#   sh tests/bench/run.sh [BUILD]
#   sh tests/bench/run.sh BUILD scale     (the scale part alone)
#   sh tests/bench/run.sh BUILD broker    (bench-broker alone)
#
# The broker runs with production timings, except HB_HEALTHY_MS (so that
# the repeated SIGKILL test takes the first-restart path each time instead
# of the crash-loop backoff) and the stop/shutdown graces (so that the
# 10,000 sleeping calls of the memory test do not hold the exit up).
# HB_BENCH_* variables size the run (see tests/bench/bench-broker.c).
set -u

build=${1:-build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac

# The scale part: sessions tools at 1,000 to 100,000 sessions, 1,000 queued
# messages to one bridge, 100 bridges attached; it starts and removes its
# own brokers and folders.  HB_BENCH_SCALE_* size it (see bench-scale.c).
scale() {
	if [ ! -x "$build/bench/bench-scale" ]; then
		echo "run.sh: $build/bench/bench-scale is missing; run: make bench" >&2
		return 1
	fi
	(unset HB_HOME HB_DATA_DIR HB_CACHE_DIR HB_CONFIG_DIR HB_RUNTIME_DIR XDG_RUNTIME_DIR
	 HB_BUILD=$build exec "$build/bench/bench-scale")
}
if [ "${2:-}" = scale ]; then
	echo "command: make bench, its scale part  (sh tests/bench/run.sh ${1:-build} scale)"
	scale
	exit $?
fi
for f in hb-broker tests/svc-echo bench/bench-broker bench/bare-relay; do
	if [ ! -x "$build/$f" ]; then
		echo "run.sh: $build/$f is missing; run: make bench" >&2
		exit 1
	fi
done

# Never touch the user's own hbcode folders.
unset HB_DATA_DIR HB_CACHE_DIR HB_CONFIG_DIR HB_RUNTIME_DIR XDG_RUNTIME_DIR

tmp=$(mktemp -d /tmp/hbbench.XXXXXX) || exit 1
broker_pid=
relay_pid=
worker_pid=

cleanup() {
	for p in $worker_pid $relay_pid $broker_pid; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in $worker_pid $relay_pid $broker_pid; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$tmp/services.conf" <<EOF
# The bridge measurements use their own echo service: the memory test
# leaves 10,000 sleeping calls on the first one.
[service bridge-echo]
exec = $build/tests/svc-echo
concurrency = 4
tools = whoami

[service svc-sessions]
exec = $build/svc-sessions
tools = maintain_sessions manage_sessions _resolve_thread _link_thread _link_claude _session_info

[service echo]
exec = $build/tests/svc-echo
concurrency = ${HB_BENCH_CONCURRENCY:-4}
tools = echo sleep

[service bare-echo]
exec = $build/bench/bare-relay
args = svc
concurrency = 1
tools = becho
EOF

if [ "${2:-}" = broker ]; then
	echo "command: make bench, its broker part  (sh tests/bench/run.sh ${1:-build} broker)"
else
	echo "command: make bench  (sh tests/bench/run.sh ${1:-build})"
fi
echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')), Linux $(uname -r)"
echo "libzmq:  $(pkg-config --modversion libzmq 2>/dev/null || echo '?')"

# HB_BENCH_BROKER_WRAP: a command the broker runs under (tests/bench/
# instructions.sh: valgrind's callgrind); unset, none.
HB_HOME=$tmp HB_LOG=warn HB_HEALTHY_MS=300 HB_STOP_GRACE_MS=300 HB_SHUTDOWN_GRACE_MS=100 \
	${HB_BENCH_BROKER_WRAP:-} "$build/hb-broker" --config "$tmp/services.conf" --libexec "$build" >"$tmp/broker.log" 2>&1 &
broker_pid=$!
"$build/bench/bare-relay" relay "ipc://$tmp/bare-front.sock" "ipc://$tmp/bare-back.sock" >"$tmp/relay.log" 2>&1 &
relay_pid=$!
"$build/bench/bare-relay" worker "ipc://$tmp/bare-back.sock" >"$tmp/worker.log" 2>&1 &
worker_pid=$!

# The broker creates its socket after start-up: wait for it (30 s at most:
# under callgrind it starts slowly).
i=0
while [ ! -S "$tmp/run/front.sock" ] || [ ! -S "$tmp/bare-front.sock" ]; do
	i=$((i + 1))
	if [ $i -gt 600 ] || ! kill -0 "$broker_pid" 2>/dev/null; then
		echo "run.sh: the broker or the relay did not start; broker log:" >&2
		cat "$tmp/broker.log" >&2
		exit 1
	fi
	sleep 0.05
done

HB_BENCH_SETTLE_MS=${HB_BENCH_SETTLE_MS:-600} HB_BENCH_BARE_PIDS="$relay_pid $worker_pid" \
	"$build/bench/bench-broker" "ipc://$tmp/run/front.sock" "ipc://$tmp/bare-front.sock" "$broker_pid"
rc=$?
if [ "${2:-}" = broker ]; then
	exit $rc
fi

# What each bridge adds to one tool call: the agent side (bridge-peer, as
# the bridge's child) alternates calls through the bridge with the same
# call straight to the broker.
calls=${HB_BENCH_BRIDGE_CALLS:-2000}
# A run opens only on a session of its own agent, one active Claude run
# per session: a Codex session, and two Claude ones (the bridge's run and
# bridge-peer's direct run).
new_session() {
	HB_HOME=$tmp "$build/hbctl" call manage_sessions \
		"{\"action\":\"create\",\"title\":\"bench\",\"agent\":\"$1\",\"projectPath\":\"/tmp\"}" |
		sed -n 's/.*"id":"\([^"]*\)".*/\1/p'
}
session=$(new_session codex)
claude_session=$(new_session claude)
direct_session=$(new_session claude)
if [ $rc -eq 0 ] && [ -n "$session" ] && [ -n "$claude_session" ] && [ -n "$direct_session" ]; then
	# The desktop's side stays open and silent: a FIFO held open for
	# reading and writing never reaches end of file.
	mkfifo "$tmp/desktop"
	exec 9<>"$tmp/desktop"
	HB_HOME=$tmp BENCH_SESSION=$session "$build/hb-codex-bridge" -- \
		"$build/bench/bridge-peer" codex "$calls" "$tmp/codex.out" <&9
	HB_HOME=$tmp BENCH_DIRECT_SESSION=$direct_session "$build/hb-claude-bridge" --session "$claude_session" \
		--run bench-run --project /tmp --access full-auto -- \
		"$build/bench/bridge-peer" claude "$calls" "$tmp/claude.out" <&9 >/dev/null
	exec 9>&-
	echo
	echo "What a bridge adds to one tool call (agent line in -> answer line out), $calls calls each,"
	echo "beside the same call sent straight to the broker, alternating, in us:"
	for b in codex claude; do
		if [ -s "$tmp/$b.out" ]; then
			awk -v b="$b" '$1=="bridge"{bp50=$2;bp99=$3} $1=="broker"{p50=$2;p99=$3}
				END{printf "  hb-%s-bridge   p50 %6d  p99 %6d   broker alone p50 %6d  p99 %6d   added p50 %6d\n", b, bp50, bp99, p50, p99, bp50-p50}' "$tmp/$b.out"
		else
			echo "  hb-$b-bridge: no result (see $tmp)"; rc=1
		fi
	done
fi
if [ $rc -ne 0 ]; then
	echo "run.sh: bench-broker failed ($rc); broker log:" >&2
	tail -n 40 "$tmp/broker.log" >&2
fi

# Speech: svc-speech under its own broker against the fake Gemini server
# at a fixed latency (tests/bench/bench-speech.c; HB_BENCH_SPEECH_* size it).
if [ -x "$build/bench/bench-speech" ] && command -v node >/dev/null 2>&1; then
	echo
	HB_BUILD=$build "$build/bench/bench-speech" || rc=1
else
	echo "run.sh: bench-speech or node is missing; no speech figures" >&2
	rc=1
fi
# use_user_browser: svc-browser under its own broker driving a headless
# Chromium, beside the same DevTools commands sent straight to it
# (tests/bench/bench-browser.c; HB_BENCH_BROWSER_* size it).
if [ -x "$build/bench/bench-browser" ] && command -v node >/dev/null 2>&1 && command -v chromium >/dev/null 2>&1; then
	echo
	HB_BUILD=$build "$build/bench/bench-browser" || rc=1
else
	echo "run.sh: bench-browser, node or chromium is missing; no browser figures" >&2
	rc=1
fi
# use_user_browser beside chrome-devtools-mcp and @playwright/mcp on the
# same tasks in the same Chromium (tests/bench/bench-browser-peers.c and
# browser-peers.mjs; the peers pinned in tests/browser-peers, installed by
# make npm-deps; HB_BENCH_PEERS_* size it).
if [ -x "$build/bench/bench-browser-peers" ] && [ -d "$(dirname "$0")/../browser-peers/node_modules" ] &&
	command -v node >/dev/null 2>&1 && command -v chromium >/dev/null 2>&1; then
	echo
	HB_BUILD=$build "$build/bench/bench-browser-peers" || rc=1
else
	echo "run.sh: bench-browser-peers, tests/browser-peers/node_modules (make npm-deps), node or chromium is missing; no figures against the peers" >&2
	rc=1
fi
# The explainer renderer (tests/bench/explainer.sh).
echo
bash "$(dirname "$0")/explainer.sh" "$build" || rc=1
# The scale part (scale, above).
echo
scale || rc=1
exit $rc
