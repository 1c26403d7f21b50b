#!/bin/bash
# mcp-conformance.sh BUILD: the official MCP TypeScript SDK's client
# (@modelcontextprotocol/sdk, pinned in tests/mcp/package-lock.json; make
# npm-deps) drives hb-mcp against a real hb-broker with svc-sessions and
# svc-echo (whose use_user_browser stand-in is an agent-class tool that
# answers a screenshot, and whose progress and sleep tools are a long and
# a cancellable call): mcp-conformance.mjs has the scenario.
build=${1:?usage: mcp-conformance.sh BUILD}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/e2e/lib.sh"

[ -d "$here/mcp/node_modules/@modelcontextprotocol/sdk" ] ||
	{ echo "FAIL the MCP TypeScript SDK is not installed: run make npm-deps (npm ci in tests/mcp)"; exit 1; }
{ sessions_conf; printf '[service svc-echo]\nexec = %s/tests/svc-echo\ntools = echo sleep progress whoami use_user_browser\n' "$build"; } >"$tmp/conf"
start_broker <"$tmp/conf"
broker=
# The scenario restarts the broker between two calls: stop it, start it
# again on the same home, and wait until it answers.
cat >"$tmp/restart-broker.sh" <<RESTART
kill \$(cat "$tmp/broker.pid")
for _ in \$(seq 100); do kill -0 \$(cat "$tmp/broker.pid") 2>/dev/null || break; sleep 0.1; done
"$build/hb-broker" --config "$tmp/services.conf" >>"$tmp/broker.log" 2>&1 &
echo \$! >"$tmp/broker.pid"
for _ in \$(seq 100); do "$build/hbctl" status >/dev/null 2>&1 && exit 0; sleep 0.1; done
echo "the broker did not start again"; exit 1
RESTART
mkdir -p "$tmp/project"
node "$here/e2e/mcp-conformance.mjs" "$build" "$tmp" || fail=1
[ "$fail" = 0 ] || cat "$tmp/broker.log"
exit "$fail"
