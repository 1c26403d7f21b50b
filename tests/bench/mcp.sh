#!/bin/sh
# mcp.sh BUILD - hb-mcp beside the MCP servers a user would otherwise run
# (issue 39): chrome-devtools-mcp and @playwright/mcp, pinned in
# tests/browser-peers (make npm-deps).  hb-mcp runs in front of hb-broker
# on the shipped deploy/services.conf in a temporary HB_HOME
# (daemon-lib.sh); tests/bench/mcp.mjs measures start to ready, a tool
# call's round trip (hb-mcp's against the same call on the broker's front
# door and through hbctl, build/bench/front-call; the peers' own calls
# against a headless Chromium), and the PSS and wakeups of each server
# idle after tools/list, and prints each figure with what it is compared
# with, measured in the same run.  HB_BENCH_MCP_N (15) starts and calls
# each, HB_BENCH_MCP_IDLE_S (10) the idle window.
#
# Nothing reaches an address but 127.0.0.1: the script runs itself again
# inside a network namespace of its own with only lo up (unshare -n,
# root), as the end-to-end tests do; the peers' own start-time traffic is
# turned off by their flags too (mcp.mjs says which), so that where no
# namespace can be made (not root) they still try nothing.
#
#   sh tests/bench/mcp.sh [BUILD]
set -u
build=${1:-build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
if [ "${HB_BENCH_MCP_NETNS:-}" != 1 ]; then
	if unshare -n true 2>/dev/null; then
		HB_BENCH_MCP_NETNS=1 exec unshare -n sh -c 'ip link set lo up && exec "$@"' sh sh "$0" "$build"
	fi
	echo "mcp.sh: no network namespace (unshare -n needs root); the peers' start-time traffic is off by their flags only" >&2
fi
. "$(dirname "$0")/daemon-lib.sh"

for f in hb-broker hb-mcp hbctl bench/front-call; do
	if [ ! -x "$build/$f" ]; then
		echo "mcp.sh: $build/$f is missing; run: make bench" >&2
		exit 1
	fi
done
if ! command -v node >/dev/null 2>&1 || [ ! -d "$here/tests/browser-peers/node_modules" ]; then
	echo "mcp.sh: node or tests/browser-peers/node_modules (make npm-deps) is missing; no figures" >&2
	exit 1
fi

start_broker "$here/deploy/services.conf" || exit 1

echo "command: sh tests/bench/mcp.sh $build  (HB_BENCH_MCP_N=${HB_BENCH_MCP_N:-15}, HB_BENCH_MCP_IDLE_S=${HB_BENCH_MCP_IDLE_S:-10};" \
	"$(if [ "${HB_BENCH_MCP_NETNS:-}" = 1 ]; then echo "in a network namespace with lo only"; else echo "no network namespace"; fi))"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$tmp/work"
node "$here/tests/bench/mcp.mjs" --hb-mcp "$build/hb-mcp" --front-call "$build/bench/front-call" \
	--hbctl "$build/hbctl" --broker "$broker" --peers "$here/tests/browser-peers/node_modules" --work "$tmp/work"
rc=$?
if [ $rc -ne 0 ]; then
	echo "mcp.sh: the driver failed ($rc); the broker's log:" >&2
	tail -n 20 "$tmp/broker.log" >&2
fi
exit $rc
