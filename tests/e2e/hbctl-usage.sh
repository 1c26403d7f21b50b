#!/usr/bin/env bash
# `hbctl usage`: the plan usage of the default Claude account, with the
# real Claude Agent SDK 0.3.332 (an API-key account against the mock
# Messages API on 127.0.0.1); `--agent claude` shows it alone, and without
# it Codex's windows follow (none reported here: launch-codex.sh shows
# them, reported by the real codex).  Checks: the API-key answer's sentence; two
# readings within a minute start the agent host once (a wrapper named in
# HB_AGENT_HOST counts its starts), and so do two readings at once; the
# reading is a 0600 file in the cache folder with its time; a finished
# Claude run (hb-claude-bridge) removes it, so the next reading starts the host again; a
# reading kept just now is shown without the host, Codex's part after it;
# a reading that is not private (0644), older than a minute or dated in the
# future is not used.  The plan windows themselves, as the SDK reads them
# from claude.ai for two accounts, are usage-claude.sh's.
# Usage: hbctl-usage.sh BUILD.
set -u
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/claude-lib.sh"

start_claude_mock
export_claude_env

# The host, counting its starts: one line in $tmp/starts per start.
cat >"$tmp/counting-host.sh" <<EOS
echo start >>"$tmp/starts"
exec node "$hosts/host.mjs" "\$@"
EOS
export HB_AGENT_HOST="bash $tmp/counting-host.sh"
starts() { [ -f "$tmp/starts" ] && wc -l <"$tmp/starts" | tr -d ' ' || echo 0; }
cache=$HB_HOME/cache/claude-usage/default.json
# Each reading's exit status must be 0, and nothing (a sanitizer's report
# under build-asan) on stderr: kept in $tmp/bad.
usage() {
	timeout 120 "$build/hbctl" usage --agent claude "$@" >"$tmp/u.out" 2>"$tmp/u.err"
	echo $? >"$tmp/u.rc"
	{ [ "$(cat "$tmp/u.rc")" = 0 ] && [ ! -s "$tmp/u.err" ]; } || { echo "hbctl usage $*:"; cat "$tmp/u.err"; } >>"$tmp/bad"
}
sentence="The default account (this computer's Claude sign-in) uses an API key: an API-key account has no plan usage windows."

usage
check "an API-key account: exit 0" '[ "$(cat $tmp/u.rc)" = 0 ]'
check "an API-key account: the sentence, no windows" '[ "$(cat $tmp/u.out)" = "$sentence" ]'
check "the first reading started the host once" '[ "$(starts)" = 1 ]'
check "the reading is a file of mode 0600 in the cache folder" '[ "$(stat -c %a "$cache")" = 600 ]'
check "it holds the host's answer and its time" \
	'js_args "const f=JSON.parse(require(\"fs\").readFileSync(argv[0]));exit(f.reading.subscriptionType===null&&f.reading.rateLimitsAvailable===false&&f.reading.rateLimits===null&&Math.abs(f.at-Date.now()/1000)<300?0:1)" "$cache"'
usage
check "a second reading within the minute: the same sentence" '[ "$(cat $tmp/u.out)" = "$sentence" ]'
check "it did not start the host again" '[ "$(starts)" = 1 ]'
usage --json
check "--json gives the reading itself, from the cache" \
	'[ "$(cat $tmp/u.out)" = "{\"subscriptionType\":null,\"rateLimitsAvailable\":false,\"rateLimits\":null}" ] && [ "$(starts)" = 1 ]'

# A finished run clears it.
sessions_conf | start_broker
session=$("$build/hbctl" call manage_sessions \
	"{\"action\":\"create\",\"title\":\"Usage\",\"agent\":\"claude\",\"projectPath\":\"$tmp/project\"}" | json_field id)
timeout 120 node "$here/e2e/claude-drive.mjs" --hbctl "$build/hbctl" --prompt 'Hello.' \
	-- "$build/hb-claude-bridge" --session "$session" --run run-usage --project "$tmp/project" \
	--access full-auto -- node "$hosts/host.mjs" >"$tmp/run.json" 2>"$tmp/run.err"
run_rc=$?
check "a Claude run ended" '[ $run_rc = 0 ]'
check "the run's end removed the reading" '[ ! -e "$cache" ]'
usage
check "the next reading starts the host again" '[ "$(cat $tmp/u.out)" = "$sentence" ] && [ "$(starts)" = 2 ]'

# A reading kept just now (a subscription's, so that it shows apart from
# the API-key sentence): shown without the host.
now=$(date +%s)
cat >"$cache" <<EOS
{"at":$now,"reading":{"subscriptionType":"max","rateLimitsAvailable":true,"rateLimits":{"five_hour":{"utilization":42,"resets_at":"2026-12-02T03:00:00Z"}}}}
EOS
chmod 600 "$cache"
usage
check "a reading kept just now is shown" 'grep -q "^Default account (this computer.s Claude sign-in), plan max, read [0-9]* s ago:$" $tmp/u.out'
timeout 120 "$build/hbctl" usage >"$tmp/both.out" 2>&1
check "without --agent, Claude's part and then Codex's (none reported yet)" \
	'sed -n 1p "$tmp/both.out" | grep -q "^Default account (this computer.s Claude sign-in), plan max, read [0-9]* s ago:$" &&
	 [ "$(sed -n 2p "$tmp/both.out")" = "$(sed -n 2p "$tmp/u.out")" ] &&
	 [ "$(sed -n 3p "$tmp/both.out")" = "Codex has reported no rate limits yet: codex app-server reports them after its model'"'"'s answers, so they show once a Codex turn has run." ]'
check "read from the cache" '[ "$(starts)" = 2 ]'
chmod 644 "$cache"
usage
check "a reading that is not private (0644) is not trusted: a new one" '[ "$(cat $tmp/u.out)" = "$sentence" ] && [ "$(starts)" = 3 ]'
js_args 'const fs=require("fs");const f=JSON.parse(fs.readFileSync(argv[0]));f.at-=61;fs.writeFileSync(argv[0],JSON.stringify(f))' "$cache"
usage
check "a reading older than a minute: a new one" '[ "$(cat $tmp/u.out)" = "$sentence" ] && [ "$(starts)" = 4 ]'
js_args 'const fs=require("fs");const f=JSON.parse(fs.readFileSync(argv[0]));f.at+=3600;fs.writeFileSync(argv[0],JSON.stringify(f))' "$cache"
usage
check "a reading dated in the future: a new one" '[ "$(cat $tmp/u.out)" = "$sentence" ] && [ "$(starts)" = 5 ]'
# Two readers at once, with no reading kept: the second waits for the
# first's reading instead of starting the host too.
rm -f "$cache"
before=$(starts)
timeout 120 "$build/hbctl" usage --agent claude >"$tmp/a.out" 2>"$tmp/a.err" &
a=$!
timeout 120 "$build/hbctl" usage --agent claude >"$tmp/b.out" 2>"$tmp/b.err" &
b=$!
wait $a
ra=$?
wait $b
rb=$?
check "two readers at once: both exit 0 with the sentence, nothing on stderr" \
	'[ $ra = 0 ] && [ $rb = 0 ] && [ "$(cat $tmp/a.out)" = "$sentence" ] && [ "$(cat $tmp/b.out)" = "$sentence" ] && [ ! -s $tmp/a.err ] && [ ! -s $tmp/b.err ]'
check "two readers at once started the host once" '[ "$(starts)" = $((before + 1)) ]'
check "every reading exited 0 with nothing on stderr" '[ ! -s "$tmp/bad" ] || { cat "$tmp/bad"; false; }'
check "the bridge reported no sanitizer error" '! grep -E "Sanitizer|runtime error" $tmp/run.err'
exit $fail
