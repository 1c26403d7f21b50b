#!/usr/bin/env bash
# No secret of the user's reaches an agent: both bridges start their agent
# (which runs the model's shell commands) without GEMINI_API_KEY, even
# when the bridge itself was started with it.  The stand-in agent writes
# what its environment holds.  Usage: bridge-secrets.sh BUILD
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
mkdir -p "$tmp/project"
sessions_conf | start_broker
claude_s=$(full_auto_session "Claude" claude)
check "a session" '[ -n "$claude_s" ]'
agent() { echo "sh -c 'printenv GEMINI_API_KEY >$tmp/$1.env || echo absent >$tmp/$1.env; printenv HOME >>$tmp/$1.env'"; }
GEMINI_API_KEY=not-for-agents timeout 20 "$build/hb-codex-bridge" -- sh -c "$(agent codex | sed "s/^sh -c '//; s/'$//")" \
	</dev/null >/dev/null 2>>"$tmp/bridges.err"
GEMINI_API_KEY=not-for-agents timeout 20 "$build/hb-claude-bridge" --session "$claude_s" --run run-1 \
	--project "$tmp/project" --access full-auto -- sh -c "$(agent claude | sed "s/^sh -c '//; s/'$//")" \
	</dev/null >/dev/null 2>>"$tmp/bridges.err"
for b in codex claude; do
	check "$b: the agent ran, without the Gemini key" \
		'[ "$(head -n 1 "$tmp/$b.env" 2>/dev/null)" = absent ] && [ "$(sed -n 2p "$tmp/$b.env")" = "$HOME" ]'
done
check "no sanitizer report" '! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" $tmp/bridges.err $tmp/broker.log'
[ $fail -ne 0 ] && { tail -20 "$tmp/bridges.err"; for b in codex claude; do cat "$tmp/$b.env"; done; }
exit $fail
