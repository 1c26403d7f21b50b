#!/bin/sh
# npm-deps.sh DIR... - install the pinned npm packages of the test rigs
# (the real Codex and the Claude Agent SDK; the MCP TypeScript SDK for
# hb-mcp's conformance test; the browser tool's peers for
# make bench) from their lock files, when they are missing or older than
# the lock.  Node itself comes from Debian (nodejs, npm) when this machine
# has none and we are root.
set -eu
if ! command -v npm >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "npm-deps: installing nodejs npm"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
	else
		echo "npm-deps: Node.js and npm are needed for the end-to-end tests:"
		echo "  sudo apt-get install -y nodejs npm"
		exit 1
	fi
fi
for dir in "$@"; do
	stamp=$dir/node_modules/.package-lock.json
	if [ -f "$stamp" ] && [ ! "$dir/package-lock.json" -nt "$stamp" ]; then
		continue
	fi
	echo "npm-deps: npm ci in $dir"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
done
