#!/bin/bash
# Run every test against the binaries in BUILD (default: build): the unit
# tests, the integration tests with the real broker and services, and the
# deploy-file checks.  Prints one line per test program; exits non-zero if
# any failed.  HB_TEST_VERBOSE=1 prints broker logs of integration tests.
#
# HB_TEST_JOBS programs run at once (default: one per CPU).  Each writes
# to a log of its own, and its line (with the log when it failed) is
# printed whole when it ends, so the output of two never interleaves.  The
# programs share nothing but the machine: every test makes its own
# folders (mkdtemp) and ports (0: the kernel picks), and the end-to-end
# scripts run in network namespaces of their own.  The slow ones (named in
# tests/slow-first, longest first) start first, so the last to end is a
# short one.
build=${1:-build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
HB_BUILD=$build
export HB_BUILD
# Tests must not touch the user's own hbcode folders.
unset HB_HOME HB_DATA_DIR HB_CACHE_DIR HB_CONFIG_DIR HB_RUNTIME_DIR XDG_RUNTIME_DIR
# ASan: leaks are bugs; UBSan: any finding fails.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
# Leaks inside libraries that are not ours, with the evidence: tests/lsan.supp.
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(pwd)/tests/lsan.supp}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
# A broken invariant (HB_ASSERT, common/invariant.h) aborts the program
# under test instead of only logging (docs/testing.md).
HB_ASSERT_ABORT=1
export HB_ASSERT_ABORT

# The end-to-end tests run real agents: where we may (root, with unshare
# and ip), they run in a network namespace with only loopback, so nothing
# can reach any address but 127.0.0.1 even if an agent tried.
can_isolate() {
	[ "$(id -u)" = 0 ] && [ -z "${HB_NO_NETNS:-}" ] && command -v unshare >/dev/null 2>&1 &&
		command -v ip >/dev/null 2>&1 && unshare -n true 2>/dev/null
}

jobs=${HB_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
case $jobs in '' | *[!0-9]* | 0) echo "HB_TEST_JOBS must be a number of programs, 1 or more" >&2; exit 2 ;; esac
results=$(mktemp -d /tmp/hbtests.XXXXXX)
run_start=$(date +%s)
failed=0
total=0
declare -A running  # pid of a program's job -> its number
# Stop what still runs when the runner itself is stopped.
stop_all() {
	# timeout, the job's child, passes the TERM on to its program
	for pid in "${!running[@]}"; do pkill -TERM -P "$pid" 2>/dev/null; done
	rm -rf "$results"
}
trap stop_all EXIT
trap 'exit 130' INT TERM

# One program, in the background; its line goes to N.line, its output to N.log.
start_one() {
	local n=$1 name=$2
	shift 2
	(
		start=$(date +%s)
		# A background job's SIGINT and SIGQUIT are ignored, and a test
		# that signals its programs must see them as a person's shell
		# leaves them.  A program that hangs fails after HB_TEST_LIMIT_S
		# (10 min) instead of holding the whole run until CI's own limit.
		if env --default-signal=INT,QUIT timeout -k 10 "${HB_TEST_LIMIT_S:-600}" "$@" >"$results/$n.log" 2>&1; then
			echo "ok   $name ($(($(date +%s) - start)) s)" >"$results/$n.line"
		elif [ $? -eq 124 ]; then
			echo "FAIL $name (still running after ${HB_TEST_LIMIT_S:-600} s: stopped)" >"$results/$n.line"
		else
			echo "FAIL $name ($(($(date +%s) - start)) s)" >"$results/$n.line"
		fi
	) &
	running[$!]=$n
}

# Wait for one program to end and print its line (and its log if it failed).
finish_one() {
	local pid n line
	wait -n -p pid
	n=${running[$pid]}
	unset "running[$pid]"
	line=$(cat "$results/$n.line" 2>/dev/null || echo "FAIL #$n (the runner lost its result)")
	echo "$line"
	case $line in
	ok*) ;;
	*)
		cat "$results/$n.log"
		failed=$((failed + 1))
		# Repeated at the end, where a shortened CI log still shows it.
		{
			echo "$line"
			grep -m 20 -E '^(FAIL |\[  FAILED  \] [a-z])|ERROR: (Address|Leak)Sanitizer|runtime error:|^Assertion|HB_ASSERT' \
				"$results/$n.log" | sed 's/^/    /'
		} >>"$results/failed"
		;;
	esac
	rm -f "$results/$n.line" "$results/$n.log"
}

# run_one NAME COMMAND...: start it once fewer than HB_TEST_JOBS run.
run_one() {
	while [ "${#running[@]}" -ge "$jobs" ]; do finish_one; done
	total=$((total + 1))
	start_one "$total" "$@"
}

# program NAME COMMAND...: add it to the run, in this order unless
# tests/slow-first names it.
declare -A command_of
order=()
program() {
	local name=$1
	shift
	command_of[$name]=$(printf '%q ' "$@")
	order+=("$name")
}
# uncompiled NAME COMMAND...: a program that runs none of our compiled
# code (Node only, or only reads files): the sanitizer pass (SAN set, as
# `make test-asan` sets it) would run the very same thing again, so it is
# left to the first pass and named as skipped.
skipped=()
uncompiled() {
	if [ -n "${SAN:-}" ]; then skipped+=("$1"); else program "$@"; fi
}

for t in tests/e2e/*.sh; do
	case $(basename "$t") in lib.sh | *-lib.sh) continue ;; esac # sourced by the scripts
	# the scripts' evaluator on its own: bash and Node only
	[ "$(basename "$t")" = evaluator.sh ] && { uncompiled "e2e/evaluator.sh" bash "$t" "$build"; continue; }
	if can_isolate; then
		program "e2e/$(basename "$t")" unshare -n sh -c 'ip link set lo up && exec "$@"' sh bash "$t" "$build"
	else
		program "e2e/$(basename "$t")" bash "$t" "$build"
	fi
done
# The Claude agent host's pipe against the real SDK and the mock Messages
# API (it makes its own loopback-only network namespace where it can).
uncompiled agent-host/selftest sh tests/agent-host/run-selftest.sh
for t in "$build"/tests/itest_* "$build"/tests/test_*; do
	[ -x "$t" ] && program "$(basename "$t")" "$t"
done
# The fuzz targets' corpora, replayed as regression inputs (tests/fuzz/).
for t in "$build"/tests/replay_*; do
	[ -x "$t" ] || continue
	name=${t##*/replay_}
	program "fuzz/$name" "$t" "tests/fuzz/corpus/$name"
done
# The fake relay's behaviour on its own (Node's standard library only).
uncompiled fake-relay/relay-logic node tests/fake-relay/relay-logic.test.mjs
program deploy/install.sh sh tests/deploy/install.sh "$build"
uncompiled deploy/check.sh sh tests/deploy/check.sh
program deploy/activation.sh sh tests/deploy/activation.sh "$build"
program deploy/links.sh sh tests/deploy/links.sh "$build"
program deploy/tunables.sh sh tests/deploy/tunables.sh "$build"
uncompiled deploy/optable.sh sh tests/deploy/optable.sh
uncompiled deploy/sizes.sh sh tests/deploy/sizes.sh
# The slow ones first (a wall-clock list, not a rule: a program missing
# from it only starts later), then the rest in the order above.
declare -A started
mapfile -t slow_first < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' tests/slow-first)
for name in "${skipped[@]}"; do echo "skip $name (no compiled code: it runs in the first pass)"; done
for name in "${slow_first[@]}"; do
	[ -n "${command_of[$name]:-}" ] || {
		case " ${skipped[*]} " in *" $name "*) ;; *) echo "tests/slow-first names $name, which is no test program here" >&2 ;; esac
		continue
	}
	[ -z "${started[$name]:-}" ] || continue
	started[$name]=1
	eval "run_one \"\$name\" ${command_of[$name]}"
done
for name in "${order[@]}"; do
	[ -z "${started[$name]:-}" ] || continue
	eval "run_one \"\$name\" ${command_of[$name]}"
done
while [ "${#running[@]}" -gt 0 ]; do finish_one; done
if [ "$failed" -gt 0 ]; then
	echo "The programs that failed, each with its failing checks:"
	cat "$results/failed"
fi
echo "$((total - failed)) of $total test programs passed ($build, $jobs at a time, $(($(date +%s) - run_start)) s)"
[ "$failed" -eq 0 ]
