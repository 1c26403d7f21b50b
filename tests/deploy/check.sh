#!/bin/sh
# check.sh - check the deploy files as `make install` renders them.
#
# Renders deploy/hb-broker.service.in, deploy/hb-broker.socket.in and
# deploy/ai.hbcode.broker.plist.in with a temporary PREFIX (the same sed as
# the Makefile's install; the plist's @HOME@ as docs/deploying.md fills it
# in), puts executable stand-ins at the paths they name, then runs
# `systemd-analyze verify --user` on the units and `xmllint` (and `plutil
# -lint`, on macOS) on the plist, checks that both start the broker with
# the same command line, and that the socket each passes is front.sock
# where the broker looks for it (broker/activation.c refuses any other).  Prints one ok/FAIL/skip line per check;
# exits non-zero if any check failed.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hb-deploy-check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

failed=0
ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
skip() { echo "skip $*"; }

prefix=$tmp/prefix
out=$tmp/out
unit=$out/hb-broker.service
socket=$out/hb-broker.socket
home=/Users/hb-check
plist=$out/ai.hbcode.broker.plist
mkdir -p "$out" "$prefix/bin" "$prefix/libexec/hbcode" "$prefix/share/hbcode"

# 1. Render, exactly as `make install` does.
sed "s|@PREFIX@|$prefix|g" "$root/deploy/hb-broker.service.in" >"$unit" || fail "render unit"
sed "s|@PREFIX@|$prefix|g" "$root/deploy/hb-broker.socket.in" >"$socket" || fail "render socket unit"
sed -e "s|@PREFIX@|$prefix|g" -e "s|@HOME@|$home|g" "$root/deploy/ai.hbcode.broker.plist.in" >"$plist" ||
	fail "render plist"
if grep -n '@[A-Z_]*@' "$unit" "$socket" "$plist"; then
	fail "placeholders left after rendering (above)"
else
	ok "rendered with PREFIX=$prefix"
fi

# Stand-ins for what the files point at, so verify finds an executable.
printf '#!/bin/sh\nexit 0\n' >"$prefix/bin/hb-broker"
chmod 0755 "$prefix/bin/hb-broker"
cp "$root/deploy/services.conf" "$prefix/share/hbcode/services.conf" 2>/dev/null ||
	: >"$prefix/share/hbcode/services.conf"

# 2. The units, as systemd reads them.
if command -v systemd-analyze >/dev/null 2>&1; then
	# verify starts a user manager in test mode; it wants a runtime dir.
	if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
		mkdir -m 0700 "$tmp/xdg-run"
		XDG_RUNTIME_DIR=$tmp/xdg-run
		export XDG_RUNTIME_DIR
	fi
	systemd-analyze verify --user "$unit" "$socket" >"$tmp/verify.log" 2>&1
	# verify also reports on unrelated units installed on this machine, and
	# exits 0 after warnings such as an unknown key: only lines about ours
	# count, whatever the exit status.
	if grep -E 'hb-broker\.(service|socket)' "$tmp/verify.log" >"$tmp/verify.ours"; then
		fail "systemd-analyze verify --user hb-broker.service hb-broker.socket:"
		sed 's/^/     /' "$tmp/verify.ours"
	else
		# An empty report proves nothing if verify could not load the unit
		# (e.g. no runtime dir): plant an unknown key in a copy and make
		# sure verify names it.
		mkdir "$tmp/canary"
		awk '{ print } /^\[Service\]$/ { print "HbCheckCanary=1" }' "$unit" \
			>"$tmp/canary/hb-broker.service"
		awk '{ print } /^\[Socket\]$/ { print "HbSocketCanary=1" }' "$socket" \
			>"$tmp/canary/hb-broker.socket"
		systemd-analyze verify --user "$tmp/canary/hb-broker.service" "$tmp/canary/hb-broker.socket" \
			>"$tmp/canary.log" 2>&1
		if grep -q 'HbCheckCanary' "$tmp/canary.log" && grep -q 'HbSocketCanary' "$tmp/canary.log"; then
			ok "systemd-analyze verify --user hb-broker.service hb-broker.socket"
		else
			fail "systemd-analyze verify does not report a planted error; it said:"
			sed 's/^/     /' "$tmp/verify.log" "$tmp/canary.log"
		fi
	fi
	# Its exposure score, as docs/confinement.md states it (high on purpose: the
	# unit sandboxes nothing; see the keys below).
	score=$(systemd-analyze security --offline=true --user "$unit" 2>/dev/null |
		sed -n 's/.*Overall exposure level for hb-broker.service: \([0-9.]*\).*/\1/p')
	if [ -z "$score" ]; then
		fail "systemd-analyze security --offline=true --user gave no score"
	else
		ok "systemd-analyze security --user: exposure $score"
	fi
	if tr '\n' ' ' <"$root/docs/confinement.md" | grep -q "level $score "; then
		ok "docs/confinement.md states the exposure level $score"
	else
		fail "docs/confinement.md does not state the exposure level $score (systemd-analyze security)"
	fi
else
	skip "systemd-analyze not installed"
fi

# 3. What verify does not check: StartLimit* must be in [Unit] (systemd
# still accepts them in [Service], without a word, for compatibility), and
# the keys the broker's behaviour depends on.
if awk '
	/^\[/ { section = $0; next }
	/^StartLimit(IntervalSec|Burst)=/ && section != "[Unit]" {
		print "     " $0 " is in " section ", not [Unit]"; bad = 1
	}
	END { exit bad }
' "$unit"; then
	ok "StartLimitIntervalSec/StartLimitBurst in [Unit]"
else
	fail "start limits misplaced (above)"
fi
for key in Type=notify NotifyAccess=main KillMode=mixed Restart=on-failure \
	RuntimeDirectory=hbcode RuntimeDirectoryMode=0700 RuntimeDirectoryPreserve=yes \
	Wants=hb-broker.socket After=hb-broker.socket WantedBy=default.target; do
	grep -qx "$key" "$unit" || fail "unit lacks $key"
done
grep -q '^ExecStart=' "$unit" || fail "unit lacks ExecStart="
# The socket unit: front.sock in the folder the service names as
# HB_RUNTIME_DIR (the broker refuses a socket bound anywhere else), closed
# to others, one broker for all connections, enabled with sockets.target.
for key in SocketMode=0600 DirectoryMode=0700 Accept=no Service=hb-broker.service RemoveOnStop=yes \
	WantedBy=sockets.target; do
	grep -qx "$key" "$socket" || fail "socket unit lacks $key"
done
listen=$(sed -n 's/^ListenStream=//p' "$socket")
runtime=$(sed -n 's/^Environment=HB_RUNTIME_DIR=//p' "$unit")
if [ -n "$runtime" ] && [ "$listen" = "$runtime/front.sock" ]; then
	ok "the socket unit listens on HB_RUNTIME_DIR/front.sock ($listen)"
else
	fail "the socket unit listens on '$listen', the broker takes only '$runtime/front.sock'"
fi
# No sandboxing key: in a user unit each one also holds the agents the
# broker starts (and implies a user namespace and no_new_privs), and the
# system-call allow list refused the services' own Landlock
# (docs/confinement.md, "The systemd unit").
sandboxing='UMask|NoNewPrivileges|SecureBits|CapabilityBoundingSet|AmbientCapabilities|PrivateUsers'
sandboxing="$sandboxing|PrivateTmp|PrivateDevices|DevicePolicy|DeviceAllow|PrivateMounts|PrivateNetwork|PrivateIPC"
sandboxing="$sandboxing|ProtectSystem|ProtectHome|ProtectProc|ProcSubset|ProtectKernel[A-Za-z]*|ProtectControlGroups"
sandboxing="$sandboxing|ProtectClock|ProtectHostname|KeyringMode|LockPersonality|RestrictRealtime|RestrictSUIDSGID"
sandboxing="$sandboxing|RestrictNamespaces|RestrictAddressFamilies|RestrictFileSystems|SystemCall[A-Za-z]*|RemoveIPC"
sandboxing="$sandboxing|MemoryDenyWriteExecute|IPAddress(Allow|Deny)|ReadOnlyPaths|ReadWritePaths|InaccessiblePaths"
sandboxing="$sandboxing|NoExecPaths|ExecPaths|TemporaryFileSystem|BindPaths|BindReadOnlyPaths|RootDirectory|RootImage"
if grep -En "^($sandboxing)=" "$unit" >"$tmp/sandboxing"; then
	fail "the unit sets sandboxing keys, which would hold the agents it starts too:"
	sed 's/^/     /' "$tmp/sandboxing"
else
	ok "the unit sets no sandboxing key"
fi

# 4. The plist: well-formed XML, and a valid plist where plutil exists.
if command -v xmllint >/dev/null 2>&1; then
	if xmllint --noout --nonet "$plist" 2>"$tmp/xmllint.log"; then
		ok "xmllint ai.hbcode.broker.plist"
	else
		fail "xmllint ai.hbcode.broker.plist:"
		sed 's/^/     /' "$tmp/xmllint.log"
	fi
else
	skip "xmllint not installed"
fi
if command -v plutil >/dev/null 2>&1; then
	if plutil -lint "$plist" >"$tmp/plutil.log" 2>&1; then
		ok "plutil -lint ai.hbcode.broker.plist"
	else
		fail "plutil -lint ai.hbcode.broker.plist:"
		sed 's/^/     /' "$tmp/plutil.log"
	fi
else
	skip "plutil not installed (macOS only): the plist's keys are checked with plistlib below"
fi

# 5. Both start the same command line, and the plist has the keys launchd
# needs (read with Python's plistlib, which checks plist structure too).
if command -v python3 >/dev/null 2>&1; then
	if python3 - "$unit" "$plist" "$home" >"$tmp/same.log" 2>&1 <<'EOF'
import plistlib, shlex, sys
home = sys.argv[3]

def check(unit, plist):
    execstart = [l.split("=", 1)[1].strip() for l in open(unit) if l.startswith("ExecStart=")]
    assert len(execstart) == 1, "want one ExecStart=, got %d" % len(execstart)
    with open(plist, "rb") as f:
        p = plistlib.load(f)
    assert p.get("Label") == "ai.hbcode.broker", "Label is %r" % p.get("Label")
    args = p.get("ProgramArguments")
    assert args == shlex.split(execstart[0]), \
        "ProgramArguments %r differ from ExecStart %r" % (args, execstart[0])
    # SuccessfulExit would imply RunAtLoad: the broker starts at the first
    # connection to the socket below, not at login.
    assert p.get("KeepAlive") == {"Crashed": True}, "KeepAlive is %r" % p.get("KeepAlive")
    assert p.get("RunAtLoad") is False, "RunAtLoad is not false"
    for k in ("ThrottleInterval", "ExitTimeOut"):
        assert isinstance(p.get(k), int), "%s is not an integer" % k
    # The Sockets key: one socket, named as broker/listen_fds.h asks
    # launchd for it, a Unix stream socket at the runtime folder macOS
    # gives the broker (common/paths.c), mode 0600.
    socks = p.get("Sockets")
    assert isinstance(socks, dict) and list(socks) == ["front"], "Sockets is %r" % socks
    front = socks["front"]
    assert isinstance(front, dict), "Sockets.front is %r, not a dictionary" % front
    want = home + "/Library/Caches/run/hbcode/front.sock"
    assert front.get("SockPathName") == want, "SockPathName is %r, not %r" % (front.get("SockPathName"), want)
    assert len(want) <= 100, "SockPathName is longer than a socket path may be"
    mode = front.get("SockPathMode")
    assert isinstance(mode, int) and not isinstance(mode, bool) and mode == 0o600, \
        "SockPathMode is %r, not 384 (0600)" % mode
    assert front.get("SockType", "stream") == "stream", "SockType is %r" % front.get("SockType")
    unknown = set(front) - {"SockPathName", "SockPathMode", "SockType"}
    assert not unknown, "unexpected keys in Sockets.front: %s" % sorted(unknown)

try:
    check(sys.argv[1], sys.argv[2])
except Exception as e:
    print("%s: %s" % (type(e).__name__, e))
    sys.exit(1)
EOF
	then
		ok "plist ProgramArguments match the unit's ExecStart; its Sockets key names front.sock, mode 0600"
	else
		fail "plist contents:"
		sed 's/^/     /' "$tmp/same.log"
	fi
else
	skip "python3 not installed (plist contents not compared)"
fi

[ "$failed" -eq 0 ]
