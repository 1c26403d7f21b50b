#!/usr/bin/env bash
# End to end: `hbctl usage` shows the Claude plan windows that the real
# Claude Agent SDK 0.3.332 reads from claude.ai, for two accounts signed in
# with different credentials.  The test stands in for claude.ai only:
# tests/agent-host/fake-claude-ai.mjs answers the profile and the usage
# endpoint on api.anthropic.com, which this script maps to loopback in a
# network and mount namespace of its own (/etc/hosts bound over), with a
# certificate of a test CA that Claude Code trusts through
# NODE_EXTRA_CA_CERTS.  Nothing else is faked: the windows reach hbctl
# through Claude Code's own usage read, the host's `usage` and the cache.
# Checks:
#   default  the default account (a subscription sign-in with token A):
#            its plan, the five-hour, weekly and Opus windows and the
#            per-model weekly window (model_scoped), each with its reset
#            time, the third-party one left out; Claude Code asked with A
#   work     an added account signed in with token B: its own windows,
#            asked with B; back on the default account, A's again (from
#            the cache: one reading per account per minute)
#   json     --json has the SDK's windows as the host gave them
# Usage: usage-claude.sh BUILD (needs npm ci in agent-host, openssl, and
# root or unprivileged user namespaces for the namespaces).
set -u
if [ "${HB_USAGE_NS:-}" != 1 ]; then
	# Root, or a user namespace of its own where unprivileged ones exist.
	if [ "$(id -u)" = 0 ]; then ns="unshare -n -m"; else ns="unshare -r -n -m"; fi
	command -v unshare >/dev/null && command -v ip >/dev/null && $ns sh -c 'ip link set lo up' 2>/dev/null ||
		{ echo "FAIL usage-claude.sh needs unshare and ip, and root or user namespaces: it maps api.anthropic.com to loopback in namespaces of its own"; exit 1; }
	HB_USAGE_NS=1 exec $ns sh -c 'ip link set lo up && exec bash "$0" "$@"' "$0" "$@"
fi
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/claude-lib.sh"
command -v openssl >/dev/null || { echo "FAIL openssl is not installed (the test CA)"; exit 1; }

# api.anthropic.com is this namespace's loopback, nothing else changes.
{ cat /etc/hosts; echo "127.0.0.1 api.anthropic.com"; echo "::1 api.anthropic.com"; } >"$tmp/hosts"
mount --bind "$tmp/hosts" /etc/hosts
check "api.anthropic.com is loopback here, and nothing but loopback is up" \
	'getent hosts api.anthropic.com | grep -qE "^(127\.0\.0\.1|::1) " && [ -z "$(ip -o link | grep -v " lo:")" ]'

# A test CA and the server's certificate for api.anthropic.com.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/ca.key" -out "$tmp/ca.pem" -days 2 -subj "/CN=hbcode test CA" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout "$tmp/leaf.key" -out "$tmp/leaf.csr" -subj "/CN=api.anthropic.com" 2>/dev/null
printf 'subjectAltName=DNS:api.anthropic.com\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$tmp/leaf.ext"
openssl x509 -req -in "$tmp/leaf.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" -CAcreateserial -out "$tmp/leaf.pem" \
	-days 2 -extfile "$tmp/leaf.ext" 2>/dev/null

# Two sign-ins, two plans: what claude.ai answers each token.
token_a=token-a-$RANDOM$RANDOM
token_b=token-b-$RANDOM$RANDOM
cat >"$tmp/plans.json" <<EOS
{"$token_a": {"plan": "max", "account": "11111111-1111-4111-8111-111111111111",
  "organization": "22222222-2222-4222-8222-222222222222",
  "usage": {"five_hour": {"utilization": 42, "resets_at": "2026-12-02T03:00:00Z"},
            "seven_day": {"utilization": 7, "resets_at": "2026-12-07T00:00:00Z"},
            "seven_day_opus": {"utilization": 3, "resets_at": "2026-12-07T00:00:00Z"},
            "seven_day_oauth_apps": {"utilization": 99, "resets_at": "2026-12-07T00:00:00Z"},
            "limits": [{"kind": "weekly_scoped", "group": "weekly", "percent": 12, "resets_at": "2026-12-08T00:00:00Z",
                        "scope": {"model": {"display_name": "Fable"}}, "severity": "normal", "is_active": false}]}},
 "$token_b": {"plan": "pro", "account": "33333333-3333-4333-8333-333333333333",
  "organization": "44444444-4444-4444-8444-444444444444",
  "usage": {"five_hour": {"utilization": 88, "resets_at": "2026-12-03T05:00:00Z"},
            "seven_day": {"utilization": 61, "resets_at": "2026-12-09T00:00:00Z"}}}}
EOS
node "$here/agent-host/fake-claude-ai.mjs" --key "$tmp/leaf.key" --cert "$tmp/leaf.pem" --plans "$tmp/plans.json" \
	--log "$tmp/claude-ai.jsonl" >"$tmp/fake.out" 2>"$tmp/fake.err" &
mock=$!
check "the stand-in for claude.ai listens" 'wait_for 10 "grep -qs READY $tmp/fake.out"'

# Claude Code with a subscription sign-in (no API key), its own HOME, the
# test CA, and its account traffic on (the usage read is such traffic).
# Its temporary folder is the test's: in a user namespace the machine's
# /tmp/claude-UID belongs to nobody it knows, and Claude Code refuses it.
mkdir -p "$tmp/claude-tmp"
export HOME="$tmp/home" CLAUDE_CONFIG_DIR="$tmp/home/.claude" NODE_EXTRA_CA_CERTS="$tmp/ca.pem" \
	CLAUDE_CODE_TMPDIR="$tmp/claude-tmp" DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1
unset ANTHROPIC_API_KEY ANTHROPIC_BASE_URL CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC CLAUDE_CODE_OAUTH_TOKEN
# What Claude's own sign-in (claude auth login) leaves in a folder.
sign_in() {
	js_args '
		const [file, token, plan] = argv;
		require("fs").writeFileSync(file, JSON.stringify({ claudeAiOauth: { accessToken: token,
			refreshToken: token + "-refresh", expiresAt: Date.now() + 3600e3,
			scopes: ["user:inference", "user:profile", "user:sessions:claude_code"], subscriptionType: plan } }),
			{ mode: 0o600 });' "$1/.credentials.json" "$2" "$3"
}
sign_in "$CLAUDE_CONFIG_DIR" "$token_a" max
asked_with() { js_args '
	const n = require("fs").readFileSync(argv[0], "utf8").split("\n").filter(Boolean).map(JSON.parse)
		.filter((r) => r.path === "/api/oauth/usage" && r.token === argv[1]).length;
	print(n);' "$tmp/claude-ai.jsonl" "$1"; }

# ------------------------------------------------------------- default --
timeout 120 "$build/hbctl" usage --agent claude >"$tmp/default.out" 2>"$tmp/default.err"
rc=$?
check "default: exit 0, nothing on stderr" '[ $rc = 0 ] && [ ! -s "$tmp/default.err" ]'
check "default: its plan" \
	'[ "$(sed -n 1p "$tmp/default.out" | sed "s/read [0-9]* s ago/read N s ago/")" = "Default account (this computer'"'"'s Claude sign-in), plan max, read N s ago:" ]'
check "default: the windows claude.ai gave, each with when it resets, the per-model one by its name" \
	'[ "$(sed -n 2,5p "$tmp/default.out")" = "  five-hour window: 42% used, resets 2026-12-02T03:00:00Z
  weekly window: 7% used, resets 2026-12-07T00:00:00Z
  weekly window, Opus: 3% used, resets 2026-12-07T00:00:00Z
  weekly window, Fable: 12% used, resets 2026-12-08T00:00:00Z" ]'
check "default: no third-party window" '! grep -q 99 "$tmp/default.out" && [ "$(wc -l <"$tmp/default.out")" = 5 ]'
check "default: Claude Code asked claude.ai with the default account's token" \
	'[ "$(asked_with "$token_a")" -ge 1 ] && [ "$(asked_with "$token_b")" = 0 ]'

# ---------------------------------------------------------------- work --
"$build/hbctl" accounts add work >"$tmp/add.out" 2>&1
work=$HB_HOME/data/claude-accounts/work
sign_in "$work" "$token_b" pro
"$build/hbctl" accounts use work >/dev/null
timeout 120 "$build/hbctl" usage --agent claude >"$tmp/work.out" 2>"$tmp/work.err"
rc=$?
check "work: exit 0, its own plan and windows" \
	'[ $rc = 0 ] && [ ! -s "$tmp/work.err" ] && grep -q "^Account work, plan pro, read [0-9]* s ago:$" "$tmp/work.out" &&
	 [ "$(sed -n 2,3p "$tmp/work.out")" = "  five-hour window: 88% used, resets 2026-12-03T05:00:00Z
  weekly window: 61% used, resets 2026-12-09T00:00:00Z" ] && [ "$(wc -l <"$tmp/work.out")" = 3 ]'
check "work: Claude Code asked with the work account's own token" '[ "$(asked_with "$token_b")" -ge 1 ]'
asked_a=$(asked_with "$token_a")
"$build/hbctl" accounts use default >/dev/null
timeout 120 "$build/hbctl" usage --agent claude >"$tmp/again.out" 2>&1
check "back on the default account: its windows again, from the minute's reading" \
	'[ "$(sed -n 2,5p "$tmp/again.out")" = "$(sed -n 2,5p "$tmp/default.out")" ] && [ "$(asked_with "$token_a")" = "$asked_a" ]'

# ---------------------------------------------------------------- json --
timeout 120 "$build/hbctl" usage --agent claude --json >"$tmp/json.out" 2>&1
check "json: the SDK's windows as the host gave them, without the third-party one" \
	'js_args "const r=JSON.parse(require(\"fs\").readFileSync(argv[0],\"utf8\"));const l=r.rateLimits;exit(r.subscriptionType===\"max\"&&r.rateLimitsAvailable&&l.five_hour.utilization===42&&l.model_scoped[0].display_name===\"Fable\"&&l.model_scoped[0].resets_at===\"2026-12-08T00:00:00Z\"&&!(\"seven_day_oauth_apps\" in l)?0:1)" "$tmp/json.out"'

if [ $fail -ne 0 ]; then
	for f in default work again json; do echo "--- $f"; cat "$tmp/$f.out" "$tmp/$f.err" 2>/dev/null; done
	cat "$tmp/fake.err" "$tmp/claude-ai.jsonl" 2>/dev/null | tail -30
fi
exit $fail
