# lib.sh - what every end-to-end script does: a temporary HB_HOME, a real
# hb-broker on a config of the script's, `check NAME CONDITION`, and the
# clean-up.  Sourced with `build` set; the script may set `mock` to a pid
# to be stopped too.

tmp=$(mktemp -d /tmp/hbe2e.XXXXXX)
broker=
mock=
fail=0
e2e_cleanup() {
	[ -n "$mock" ] && kill "$mock" 2>/dev/null
	[ -n "$broker" ] && kill "$broker" 2>/dev/null && wait "$broker" 2>/dev/null
	if [ "${HB_TEST_VERBOSE:-}" ]; then cat "$tmp/broker.log"; fi
	rm -rf "$tmp"
}
trap e2e_cleanup EXIT
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

export HB_HOME=$tmp/hb
unset HB_RUNTIME_DIR HB_DATA_DIR HB_CACHE_DIR HB_CONFIG_DIR
mkdir -p "$HB_HOME"

# start_broker: the config text on standard input; waits until it answers.
start_broker() {
	cat >"$tmp/services.conf"
	"$build/hb-broker" --config "$tmp/services.conf" >"$tmp/broker.log" 2>&1 &
	broker=$!
	for _ in $(seq 100); do "$build/hbctl" status >/dev/null 2>&1 && return 0; sleep 0.1; done
	echo "FAIL the broker did not start"; cat "$tmp/broker.log"
	exit 1
}

# The svc-sessions section of a config.
sessions_conf() {
	printf '[service svc-sessions]\nexec = %s/svc-sessions\ntools = maintain_sessions manage_sessions _resolve_thread _link_thread _link_claude\n' "$build"
}

# svc-echo's slow stand-in under a catalog name (test-only), to interrupt.
slow_tool_conf() {
	printf '[service svc-echo]\nexec = %s/tests/svc-echo\ntools = use_user_browser\n' "$build"
}

# The stand-in sleeps 30 s unless its handler sees a cancel: true when
# svc-echo's workers are all free again within 5 s.
slots_free_soon() {
	for _ in $(seq 50); do
		"$build/hbctl" status --json | grep -q '"name":"svc-echo"[^}]*"slotsBusy":0' && return 0
		sleep 0.1
	done
	return 1
}
