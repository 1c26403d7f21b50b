#!/bin/sh
# Run the agent host self-test: the real Claude Agent SDK 0.3.332 (and the
# Claude Code binary its platform package ships) against mock-messages.mjs.
#
#   tests/agent-host/run-selftest.sh [selftest.mjs options: --keep --only A,B --claude PATH]
#
# Installs the pinned packages with `npm ci` when node_modules is missing (the
# only step that talks to a registry).  Then, when this shell may create a
# network namespace (root, or unprivileged user namespaces), the test runs in
# a fresh one that has only the loopback interface, so nothing the SDK or
# Claude Code starts can reach any address but 127.0.0.1.  AGENT_HOST_NETNS=0
# skips the namespace; AGENT_HOST_NETNS=1 makes its absence an error.
set -eu
cd "$(dirname "$0")"
mods=../../agent-host/node_modules

command -v node >/dev/null 2>&1 || { echo "run-selftest: node not found" >&2; exit 1; }
if [ ! -x $mods/@anthropic-ai/claude-agent-sdk-linux-x64/claude ] &&
   [ ! -d $mods/@anthropic-ai/claude-agent-sdk ]; then
	(cd ../../agent-host && npm ci --no-audit --no-fund)
fi

want=${AGENT_HOST_NETNS:-auto}
if [ "$want" != 0 ] && command -v unshare >/dev/null 2>&1 && command -v ip >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ]; then ns="unshare -n"; else ns="unshare -r -n"; fi
	if $ns sh -c 'ip link set lo up' >/dev/null 2>&1; then
		echo "run-selftest: running in a private network namespace (loopback only)"
		exec $ns sh -c 'ip link set lo up && exec node selftest.mjs "$@"' sh "$@"
	fi
fi
if [ "$want" = 1 ]; then
	echo "run-selftest: cannot create a network namespace" >&2
	exit 1
fi
echo "run-selftest: no network namespace; running with the traffic switches only"
exec node selftest.mjs "$@"
