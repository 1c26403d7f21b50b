#!/bin/sh
# `make install` into a DESTDIR: the binaries, the services' config, the
# systemd units (service and socket) and the launchd plist, with @PREFIX@
# filled in everywhere (the plist's @HOME@ is the user's to fill in).
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
check "hb-broker, hbctl, hb-explainer and hb-mcp in bin" '[ -x "$p/bin/hb-broker" ] && [ -x "$p/bin/hbctl" ] && [ -x "$p/bin/hb-explainer" ] && [ -x "$p/bin/hb-mcp" ]'
check "svc-sessions in libexec/hbcode" '[ -x "$p/libexec/hbcode/svc-sessions" ]'
check "every service of services.conf in libexec/hbcode" '(for s in $(sed -n "s/^exec = //p" deploy/services.conf); do [ -x "$p/libexec/hbcode/$s" ] || exit 1; done)'
check "services.conf installed" 'cmp -s deploy/services.conf "$p/share/hbcode/services.conf"'
check "unit installed with the prefix" 'grep -q "^ExecStart=/opt/hb/bin/hb-broker --config /opt/hb/share/hbcode/services.conf --libexec /opt/hb/libexec/hbcode$" "$p/lib/systemd/user/hb-broker.service"'
check "socket unit installed beside the unit, with the prefix" \
	'grep -qx "ListenStream=%t/hbcode/front.sock" "$p/lib/systemd/user/hb-broker.socket" && grep -qx "Documentation=file:///opt/hb/share/hbcode/services.conf" "$p/lib/systemd/user/hb-broker.socket"'
check "no @PREFIX@ left" '! grep -rq "@PREFIX@" "$p"'
check "plist installed" '[ -s "$p/share/hbcode/launchd/ai.hbcode.broker.plist" ]'
check "test programs not installed" '! find "$dest" -name "svc-echo*" | grep -q .'
a=$p/libexec/hbcode/agent-host
check "the agent host's modules, package.json and lock in libexec/hbcode/agent-host" \
	'(for f in agent-host/*.mjs agent-host/package.json agent-host/package-lock.json; do cmp -s "$f" "$a/${f#agent-host/}" || exit 1; done) && [ -x "$a/host.mjs" ]'
check "its pinned SDK and the Claude Code binary of its platform package" \
	'grep -q "\"version\": \"0.3.332\"" "$a/node_modules/@anthropic-ai/claude-agent-sdk/package.json" && [ -n "$(find "$a/node_modules/@anthropic-ai" -path "*claude-agent-sdk-*/claude" -type f -perm -u+x)" ]'
check "node_modules is a copy, not a link to the build tree" '[ ! -L "$a/node_modules" ]'
# The installed hbctl finds the installed host by itself (no agentHost),
# and that host runs the installed Claude Code: the model list, in fresh
# folders, with every switch that keeps Claude Code off the network and its
# API at an address where nothing listens.
h=$dest/home
mkdir -p "$h/.claude" "$dest/hb"
read_installed() {
	env -u HB_AGENT_HOST -u HTTP_PROXY -u HTTPS_PROXY -u http_proxy -u https_proxy HB_HOME="$dest/hb" \
		HOME="$h" CLAUDE_CONFIG_DIR="$h/.claude" ANTHROPIC_BASE_URL=http://127.0.0.1:9 ANTHROPIC_API_KEY=test \
		DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
		timeout 120 "$p/bin/hbctl" claude "$@" 2>"$dest/read.err"
}
check "the installed hbctl runs the installed host: list" \
	'[ "$(read_installed list "{\"cwd\":\"$dest/project\"}")" = "{\"sessions\":[]}" ]'
check "the installed host runs the installed Claude Code: catalog" \
	'read_installed catalog | grep -q "\"models\":\[{\"value\":\"default\""'
exit $fail
