#!/bin/sh
# tunables.sh BUILD - every HB_* variable the code reads is in the one
# table of tunables (common/tunables.c, printed by hb-broker --help), or
# is one of the few that are not tunables: the folders, the broker's
# wiring of its services (HB_CONFINE among them), log and test switches
# (HB_CONFINE_PROBE, HB_ASSERT_ABORT), a launched bridge's status fd
# (HB_STATUS_FD, the broker's wiring), and the settings that the environment may override
# (docs/decisions.md, "One table of tunables").  A new getenv that skips
# the table fails here.
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
not_tunables="HB_HOME HB_DATA_DIR HB_CACHE_DIR HB_CONFIG_DIR HB_RUNTIME_DIR HB_SERVICE_ID HB_BACK_ENDPOINT
HB_BROKER_PID HB_LOG HB_FAILPOINTS HB_GEMINI_BASE_URL HB_GEMINI_SPEECH_MODEL HB_GEMINI_VIDEO_MODEL
HB_GEMINI_VIDEO_TEMPERATURE HB_CODEX HB_AGENT_HOST HB_EXPLAINER_WORKER_MINUTES HB_EXPLAINER_VOICE HB_REPLY_STYLE
HB_RELAY_CA_FILE HB_CONFINE HB_CONFINE_PROBE HB_CLAUDE HB_CLAUDE_ACCOUNT HB_ASSERT_ABORT HB_STATUS_FD"
help=$("$build/hb-broker" --help) || { echo "FAIL hb-broker --help failed"; exit 1; }
failed=0
for v in $(cd "$root" && grep -rhoE '"HB_[A-Z0-9_]+"' --include=*.c broker common bridge hbctl svc-* | tr -d '"' | sort -u); do
	case " $(echo $not_tunables) " in *" $v "*) continue ;; esac
	if printf '%s\n' "$help" | grep -q "^  $v "; then
		echo "ok   $v"
	else
		echo "FAIL $v is read by the code but is not in the table of tunables (common/tunables.c)"
		failed=$((failed + 1))
	fi
done
[ "$failed" -eq 0 ]
