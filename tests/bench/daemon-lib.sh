# daemon-lib.sh - what the daemon benches (idle.sh, coldstart.sh) share:
# sourced with `build` set, it makes `here` (the checkout), a temporary
# folder `tmp` with its own HB_HOME, and `broker` (the script sets it to
# the pid of the hb-broker it starts), both removed on exit; and
# start_broker, for a script that starts one broker and keeps it.
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/hbbench.XXXXXX)
broker=
cleanup() {
	[ -n "$broker" ] && kill "$broker" 2>/dev/null && wait "$broker" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
unset HB_DATA_DIR HB_CACHE_DIR HB_CONFIG_DIR HB_RUNTIME_DIR XDG_RUNTIME_DIR
export HB_HOME=$tmp/hb
mkdir -p "$HB_HOME"

# Start hb-broker on the services file $1 (its log $tmp/broker.log), its
# pid in broker, and wait until it answers `hbctl status` (10 s at most):
# 0, or 1 with the log printed.
start_broker() {
	"$build/hb-broker" --config "$1" --libexec "$build" >"$tmp/broker.log" 2>&1 &
	broker=$!
	for _ in $(seq 200); do
		"$build/hbctl" status >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "$(basename "$0"): the broker did not answer hbctl status"; cat "$tmp/broker.log"
	return 1
}
