#!/bin/sh
# activation.sh BUILD - socket activation of hb-broker (broker/activation.c,
# deploy/hb-broker.socket.in), without a systemd PID 1.
#
# systemd-socket-activate listens on front.sock in a private runtime folder,
# waits for the first connection and only then execs the broker with the
# socket as fd 3 (LISTEN_PID/LISTEN_FDS): so no broker runs before `hbctl
# status` connects, and that first hbctl gets its answer through the socket
# the manager made.  The broker's services inherit neither the socket nor
# the LISTEN_* variables, and the socket file stays when the broker stops
# (it is the manager's).  Then every socket that is not the broker's own is
# refused with a sentence, and no broker keeps running: one bound to another
# path, two sockets, one that does not listen, a datagram socket, one others
# may connect to, and fd 3 that is no socket at all.  One ok/FAIL/skip line
# per check.
set -u
build=${1:-build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
tmp=$(mktemp -d /tmp/hb-act.XXXXXX) || exit 1
runner=
cleanup() {
	[ -n "$runner" ] && kill "$runner" 2>/dev/null && wait "$runner" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
failed=0
ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

if ! command -v systemd-socket-activate >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	echo "skip socket activation: systemd-socket-activate or python3 is not installed"
	exit 0
fi

run=$tmp/run
front=$run/front.sock
conf=$tmp/services.conf
mkdir -m 0700 "$run" "$tmp/hb"
printf '[service svc-echo]\nexec = %s/tests/svc-echo\nconcurrency = 2\ntools = echo sleep\n' "$build" >"$conf"
HB_HOME=$tmp/hb
HB_RUNTIME_DIR=$run
export HB_HOME HB_RUNTIME_DIR
unset HB_DATA_DIR HB_CACHE_DIR HB_CONFIG_DIR LISTEN_PID LISTEN_FDS LISTEN_FDNAMES

# wait_for TENTHS COMMAND...: until COMMAND succeeds, at most TENTHS/10 s.
wait_for() {
	n=$1
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}
comm_is() { [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }

# 1. The broker under systemd-socket-activate, as hb-broker.socket runs it.
systemd-socket-activate -l "$front" -E HB_HOME -E HB_RUNTIME_DIR \
	"$build/hb-broker" --config "$conf" --libexec "$build" >"$tmp/broker.log" 2>&1 &
runner=$!
if wait_for 100 test -S "$front"; then
	ok "systemd-socket-activate listens on $front"
else
	fail "systemd-socket-activate made no $front:"
	sed 's/^/     /' "$tmp/broker.log"
	exit 1
fi
sleep 0.5
if comm_is "$runner" systemd-socket- && [ ! -e "$run/hb-broker.lock" ]; then
	ok "no broker runs before the first connection"
else
	fail "a broker started before anything connected (comm $(cat "/proc/$runner/comm" 2>/dev/null))"
fi
if timeout 30 "$build/hbctl" status >"$tmp/status" 2>&1 && grep -q '^hb-broker pid '"$runner"',' "$tmp/status"; then
	ok "the first hbctl status starts the broker and gets its answer through the passed socket"
else
	fail "hbctl status through the passed socket:"
	sed 's/^/     /' "$tmp/status" "$tmp/broker.log"
fi
if grep -q "socket activation: listening on $front" "$tmp/broker.log"; then
	ok "the broker says it listens on the socket the manager passed"
else
	fail "the broker's log does not name the passed socket"
fi
# Its service: not fd 3's socket, and no LISTEN_* variable.
svc_pid() { svc=$(pgrep -P "$runner" -x svc-echo | head -n 1) && [ -n "$svc" ]; }
svc=
wait_for 100 svc_pid
sock=$(readlink "/proc/$runner/fd/3" 2>/dev/null)
if [ -z "$svc" ] || [ -z "$sock" ]; then
	fail "no svc-echo under the broker ($svc) or no fd 3 in the broker ($sock)"
elif ls -l "/proc/$svc/fd" 2>/dev/null | grep -qF "$sock"; then
	fail "svc-echo inherited the front socket ($sock)"
elif tr '\0' '\n' <"/proc/$svc/environ" | grep -q '^LISTEN_'; then
	fail "svc-echo inherited the LISTEN_* variables"
else
	ok "the services inherit neither the front socket nor LISTEN_*"
fi
kill "$runner"
wait "$runner"
rc=$?
runner=
if [ "$rc" -eq 0 ] && [ -S "$front" ] && [ ! -e "$run/back.sock" ]; then
	ok "on stop the broker exits 0, removes its own sockets and leaves front.sock to the manager"
else
	fail "after the stop: exit $rc; $(ls "$run" | tr '\n' ' ')"
	sed 's/^/     /' "$tmp/broker.log"
fi
rm -f "$front"

# 2. Sockets that are not the broker's own.  refused NAME PATTERN COMMAND...:
# the broker exits 111 (hb_fatal: not a crash, nor a sanitizer's report)
# with a sentence matching PATTERN.
refused() {
	name=$1
	pattern=$2
	shift 2
	timeout 30 "$@" >"$tmp/refused.log" 2>&1
	rc=$?
	if [ "$rc" -eq 111 ] && grep -q "socket activation refused: .*$pattern" "$tmp/refused.log" &&
		[ ! -e "$run/back.sock" ]; then
		ok "refused: $name"
	else
		fail "not refused (exit $rc): $name:"
		sed 's/^/     /' "$tmp/refused.log"
	fi
	rm -f "$run/front.sock" "$run/back.sock" "$run/events.sock" "$run/hb-broker.lock"
}
# refused_activated NAME PATTERN WAKE LISTEN...: systemd-socket-activate
# listening on each LISTEN, woken by a connection of our own to WAKE; the
# broker it starts must exit 111 with a sentence matching PATTERN.
refused_activated() {
	name=$1
	pattern=$2
	wake=$3
	shift 3
	listen=
	for l in "$@"; do listen="$listen -l $l"; done
	# shellcheck disable=SC2086 # one word per -l and path
	systemd-socket-activate $listen -E HB_HOME -E HB_RUNTIME_DIR \
		"$build/hb-broker" --config "$conf" --libexec "$build" >"$tmp/activated.log" 2>&1 &
	runner=$!
	if wait_for 100 test -S "$wake" &&
		python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$wake" &&
		wait_for 200 gone "$runner" && { wait "$runner"; [ $? -eq 111 ]; } &&
		grep -q "socket activation refused: $pattern" "$tmp/activated.log"; then
		ok "refused: $name"
	else
		fail "not refused: $name:"
		sed 's/^/     /' "$tmp/activated.log"
	fi
	runner=
	rm -f "$@"
}
mkdir -m 0700 "$tmp/elsewhere"
other=$tmp/elsewhere/front.sock
refused_activated "a socket bound to another path" "fd 3 is bound to $other, not to $front" "$other" "$other"
# The broker takes one, front.sock, and does not guess among more.
refused_activated "two sockets" "the service manager passed 2 sockets" "$front" "$front" "$other"

# The rest: python3 makes the socket, puts it at fd 3 and execs the broker
# with LISTEN_PID (its own pid, which exec keeps) and LISTEN_FDS=1.
cat >"$tmp/pass_fd.py" <<'EOF'
import os, socket, sys
kind, path, mode, argv = sys.argv[1], sys.argv[2], int(sys.argv[3], 8), sys.argv[4:]
if kind == "file":
    fd = os.open("/dev/null", os.O_RDONLY)
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM if kind == "dgram" else socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, mode)
    if kind == "listen":
        s.listen(8)
    fd = s.fileno()
if fd != 3:
    os.dup2(fd, 3)
os.set_inheritable(3, True)
os.environ["LISTEN_PID"] = str(os.getpid())
os.environ["LISTEN_FDS"] = "1"
os.execv(argv[0], argv)
EOF
pass_fd="python3 $tmp/pass_fd.py"
broker="$build/hb-broker --config $conf --libexec $build"
refused "a socket that does not listen" "fd 3 ($front) is not listening" $pass_fd stream "$front" 600 $broker
refused "a datagram socket" "fd 3 ($front) is not a stream socket" $pass_fd dgram "$front" 600 $broker
refused "a socket others may connect to" "$front has mode 0666: others may connect" $pass_fd listen "$front" 666 $broker
refused "fd 3 that is not a socket" "fd 3 is not a socket" $pass_fd file "$front" 600 $broker
# And the right socket passed the same way is taken (the checks above can fail).
$pass_fd listen "$front" 600 $broker >"$tmp/right.log" 2>&1 &
runner=$! # python3, which becomes the broker
if wait_for 100 test -e "$run/back.sock" && timeout 30 "$build/hbctl" status >/dev/null 2>&1; then
	ok "the same socket, listening, mode 0600: taken and served"
else
	fail "a right socket passed by hand was not taken:"
	sed 's/^/     /' "$tmp/right.log"
fi
kill "$runner" 2>/dev/null
wait "$runner"
rc=$?
runner=
[ "$rc" -eq 0 ] || fail "the broker exited $rc after SIGTERM, not 0"
[ "$failed" -eq 0 ]
