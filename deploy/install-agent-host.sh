#!/bin/sh
# install-agent-host.sh SRC DEST - the Claude agent host's packages for
# `make install` (the .mjs files and the lock are installed by the
# Makefile).  When SRC/node_modules is there (make npm-deps put it there
# with `npm ci` from the same package-lock.json), it is copied: that works
# offline, and the tree is the one the tests ran against.  Its one
# top-level link (a worktree's node_modules may be a symbolic link) is
# followed; the links inside (.bin) stay links.  Without it, `npm ci
# --omit=dev` installs the pinned packages in DEST (that needs the npm
# registry).  An older DEST/node_modules is replaced, not merged.
set -eu
src=$1
dest=$2
rm -rf "$dest/node_modules"
if [ -d "$src/node_modules/@anthropic-ai/claude-agent-sdk" ]; then
	cp -RH "$src/node_modules" "$dest/node_modules"
else
	echo "install-agent-host: $src/node_modules is missing; npm ci --omit=dev in $dest"
	(cd "$dest" && npm ci --omit=dev --no-audit --no-fund --loglevel=error)
fi
