#!/bin/sh
# The broker's own work per call, counted instead of timed: run the broker
# part of the benchmark (run.sh BUILD broker, small sizes) with hb-broker
# under valgrind's callgrind, counting only inside front_handle and
# back_handle (a call's frame in and its answer in, everything each
# handler does: decode, check, route, encode, send; the sleep and the
# ZeroMQ I/O thread are outside), and print the instructions per call.
# A count does not move with the machine's load the way the rates and CPU
# times of run.sh do, so a change of a few percent in the broker's code
# shows here when it is lost in their noise.
#
#   sh tests/bench/instructions.sh [BUILD]
set -u

build=${1:-build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
if ! command -v valgrind >/dev/null 2>&1 || ! command -v callgrind_annotate >/dev/null 2>&1; then
	echo "instructions.sh: valgrind is missing (make deps installs it)" >&2
	exit 1
fi
out=$(mktemp /tmp/hbcallgrind.XXXXXX) || exit 1
log=$(mktemp /tmp/hbcallgrind-log.XXXXXX) || exit 1
trap 'rm -f "$out" "$log"' EXIT

echo "command: sh tests/bench/instructions.sh ${1:-build}"
HB_BENCH_BROKER_WRAP="valgrind --tool=callgrind --callgrind-out-file=$out --toggle-collect=front_handle --toggle-collect=back_handle" \
HB_BENCH_RUNS=1 HB_BENCH_CALLS=3000 HB_BENCH_WARMUP=200 HB_BENCH_ROUNDS=1 HB_BENCH_SECONDS=3 \
HB_BENCH_KILLS=1 HB_BENCH_INFLIGHT=100 \
	sh "$(dirname "$0")/run.sh" "$build" broker >"$log" 2>&1
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$out" ]; then
	echo "instructions.sh: the benchmark under callgrind failed ($rc):" >&2
	tail -n 20 "$log" >&2
	exit 1
fi
# Calls: how often intake_call was entered (every call of the run goes
# through it once); instructions: everything counted.  Callgrind names a
# function in full once, "(ID) name", and by "(ID)" after that.
calls=$(awk '/^c?fn=\(/ {
		id = $0; sub(/^c?fn=/, "", id); sub(/\).*/, ")", id)
		if ($0 ~ /\) ./) { name = $0; sub(/^[^)]*\) /, "", name); names[id] = name }
		want = ($0 ~ /^cfn=/ && names[id] == "intake_call")
		next
	     }
	     /^calls=/ && want { split($0, a, /[= ]/); n += a[2] }
	     END { print n + 0 }' "$out")
total=$(callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
if [ "${calls:-0}" -eq 0 ] || [ -z "$total" ]; then
	echo "instructions.sh: no calls counted in $out" >&2
	exit 1
fi
echo "hb-broker, its handlers per call (front_handle + back_handle, callgrind):"
echo "  $calls calls, $total instructions, $((total / calls)) instructions per call"
