# daemon-lib.sh - what the daemon benches (idle.sh, coldstart.sh) share:
# sourced with `build` set, it makes `here` (the checkout), a temporary
# folder `tmp` with its own HB_HOME, and `broker` (the script sets it to
# the pid of the hb-broker it starts), both removed on exit.
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
