#!/bin/sh
# run.sh - run libFuzzer targets for a bounded time each (`make fuzz`).
#
#   sh tests/fuzz/run.sh BUILD SECONDS TARGET...
#
# Each target starts from its seed corpus, tests/fuzz/corpus/TARGET/, and
# writes the inputs it finds into BUILD/fuzz/corpus/TARGET/, not into the
# tree: the checked-in seeds stay small (minimize with -merge=1 before
# adding any, docs/testing.md).  A crash, leak, UB or timeout leaves its
# input in BUILD/fuzz/artifacts/TARGET/ and fails the run; the last lines
# of each target's log (BUILD/fuzz/TARGET.log) are printed either way.
set -u
build=$1
secs=$2
shift 2
# The same suppressions as the tests: leaks in libraries that are not ours.
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(pwd)/tests/lsan.supp}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS UBSAN_OPTIONS
failed=
for t in "$@"; do
	bin=$build/fuzz/fuzz_$t
	seeds=tests/fuzz/corpus/$t
	work=$build/fuzz/corpus/$t
	art=$build/fuzz/artifacts/$t/
	log=$build/fuzz/$t.log
	mkdir -p "$work" "$art" || exit 1
	echo "fuzz $t: ${secs} s"
	# -timeout: one input running 20 s is a hang, and a finding.
	if "$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$art" "$work" "$seeds" >"$log" 2>&1; then
		grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1
		grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$log"
	else
		echo "FAIL fuzz $t: see $log; the input is in $art"
		tail -n 40 "$log"
		failed="$failed $t"
	fi
done
[ -z "$failed" ] || { echo "fuzz: findings in:$failed"; exit 1; }
