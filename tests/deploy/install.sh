#!/bin/sh
# `make install` into a DESTDIR: the binaries, the services' config, the
# systemd unit and the launchd plist, with @PREFIX@ filled in everywhere.
# Usage: install.sh BUILD (SAN and OPT as the build was made).
set -u
build=$1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

if ! make -s install BUILD="$build" SAN="${SAN:-}" OPT="${OPT:--O2}" PREFIX=/opt/hb DESTDIR="$dest" >"$dest.log" 2>&1; then
	echo "FAIL make install"; cat "$dest.log"; rm -f "$dest.log"; exit 1
fi
rm -f "$dest.log"
p=$dest/opt/hb
check "hb-broker, hbctl and hb-explainer in bin" '[ -x "$p/bin/hb-broker" ] && [ -x "$p/bin/hbctl" ] && [ -x "$p/bin/hb-explainer" ]'
check "svc-sessions in libexec/hbcode" '[ -x "$p/libexec/hbcode/svc-sessions" ]'
check "every service of services.conf in libexec/hbcode" '(for s in $(sed -n "s/^exec = //p" deploy/services.conf); do [ -x "$p/libexec/hbcode/$s" ] || exit 1; done)'
check "services.conf installed" 'cmp -s deploy/services.conf "$p/share/hbcode/services.conf"'
check "unit installed with the prefix" 'grep -q "^ExecStart=/opt/hb/bin/hb-broker --config /opt/hb/share/hbcode/services.conf --libexec /opt/hb/libexec/hbcode$" "$p/lib/systemd/user/hb-broker.service"'
check "no @PREFIX@ left" '! grep -rq "@PREFIX@" "$p"'
check "plist installed" '[ -s "$p/share/hbcode/launchd/ai.hbcode.broker.plist" ]'
check "test programs not installed" '! find "$dest" -name "svc-echo*" | grep -q .'
exit $fail
