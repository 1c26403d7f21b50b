#!/bin/sh
# Run every test against the binaries in BUILD (default: build): the unit
# tests, the integration tests with the real broker and services, and the
# deploy-file checks.  Prints one line per test program; exits non-zero if
# any failed.  HB_TEST_VERBOSE=1 prints broker logs of integration tests.
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

failed=0
total=0
# run_one NAME COMMAND...: one line ok/FAIL, and the output on failure.
run_one() {
	name=$1
	shift
	total=$((total + 1))
	log=$(mktemp)
	start=$(date +%s)
	# A program that hangs fails after HB_TEST_LIMIT_S (10 min) instead of
	# holding the whole run until CI's own limit.
	if timeout -k 10 "${HB_TEST_LIMIT_S:-600}" "$@" >"$log" 2>&1; then
		echo "ok   $name ($(( $(date +%s) - start )) s)"
	elif [ $? -eq 124 ]; then
		echo "FAIL $name (still running after ${HB_TEST_LIMIT_S:-600} s: stopped)"
		cat "$log"
		failed=$((failed + 1))
		rm -f "$log"
		return
	else
		echo "FAIL $name"
		cat "$log"
		failed=$((failed + 1))
	fi
	rm -f "$log"
}

for t in "$build"/tests/test_* "$build"/tests/itest_*; do
	[ -x "$t" ] && run_one "$(basename "$t")" "$t"
done
# The fuzz targets' corpora, replayed as regression inputs (tests/fuzz/).
for t in "$build"/tests/replay_*; do
	[ -x "$t" ] || continue
	name=${t##*/replay_}
	run_one "fuzz/$name" "$t" "tests/fuzz/corpus/$name"
done
for t in tests/e2e/*.sh; do
	case $(basename "$t") in lib.sh | *-lib.sh) continue ;; esac # sourced by the scripts
	if can_isolate; then
		run_one "e2e/$(basename "$t")" unshare -n sh -c 'ip link set lo up && exec "$@"' sh bash "$t" "$build"
	else
		run_one "e2e/$(basename "$t")" bash "$t" "$build"
	fi
done
# The fake relay's behaviour on its own (Node's standard library only).
run_one fake-relay/relay-logic node tests/fake-relay/relay-logic.test.mjs
# The Claude agent host's pipe against the real SDK and the mock Messages
# API (it makes its own loopback-only network namespace where it can).
run_one agent-host/selftest sh tests/agent-host/run-selftest.sh
run_one deploy/install.sh sh tests/deploy/install.sh "$build"
run_one deploy/check.sh sh tests/deploy/check.sh
run_one deploy/activation.sh sh tests/deploy/activation.sh "$build"
run_one deploy/links.sh sh tests/deploy/links.sh "$build"
run_one deploy/tunables.sh sh tests/deploy/tunables.sh "$build"
run_one deploy/optable.sh sh tests/deploy/optable.sh
run_one deploy/sizes.sh sh tests/deploy/sizes.sh
echo "$((total - failed)) of $total test programs passed ($build)"
[ "$failed" -eq 0 ]
