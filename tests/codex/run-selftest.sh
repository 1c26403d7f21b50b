#!/usr/bin/env bash
# run-selftest.sh: proves the codex test rig works. Starts mock-responses.mjs,
# runs drive.mjs against the real, pinned `codex app-server` and checks:
#   selftest   self-answer: turn completed; the mock's 2nd request carries the
#              tool output text; the final assistant text echoes it
#   interrupt  turn/interrupt while the tool call is open (answer sent late):
#              turn interrupted, tool item failed, no 2nd model request
#   hang       model stream hangs after the tool answer; turn/interrupt:
#              turn interrupted, the mock saw codex drop the stream
#   bridge     drive.mjs --mode bridge through fake-bridge.mjs: the command
#              answers the tool call, the driver never sees it
#
# Usage: tests/codex/run-selftest.sh [--install] [--repeat N] [--keep] [SCENARIO...]
#   --install   run `npm ci` here first (the one step that uses the registry)
#   --repeat N  run the scenarios N times (flakiness check)
#   --keep      keep the temp dir with logs, summaries and transcripts
# Environment:
#   HB_CODEX_NETNS=0   do not re-run inside a private network namespace
#                      (by default, where `unshare -n` works, everything runs
#                      in a namespace whose only interface is loopback)
# Exit status 0 when every check passed, 1 otherwise. The last line is
# "N passed, M failed".
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SELF="$HERE/$(basename "${BASH_SOURCE[0]}")"
cd "$HERE" || exit 1

INSTALL=0 REPEAT=1 KEEP=0 SCENARIOS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --install) INSTALL=1 ;;
    --repeat) REPEAT="${2:?--repeat wants a number}"; shift ;;
    --keep) KEEP=1 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    -*) echo "run-selftest.sh: unknown option $1" >&2; exit 1 ;;
    *) SCENARIOS+=("$1") ;;
  esac
  shift
done
[ ${#SCENARIOS[@]} -eq 0 ] && SCENARIOS=(selftest interrupt hang bridge)

if [ "$INSTALL" = 1 ] && [ -z "${HB_CODEX_IN_NETNS:-}" ]; then
  npm ci --no-audit --no-fund || { echo "run-selftest.sh: npm ci failed" >&2; exit 1; }
fi
CODEX="$HERE/node_modules/.bin/codex"
if [ ! -x "$CODEX" ]; then
  echo "run-selftest.sh: $CODEX missing: run (cd tests/codex && npm ci) or pass --install" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
command -v node >/dev/null || { echo "run-selftest.sh: node not found" >&2; exit 1; }

# Re-run inside a private network namespace (only loopback) where possible:
# then nothing can leave the machine whatever codex tries.
if [ -z "${HB_CODEX_IN_NETNS:-}" ] && [ "${HB_CODEX_NETNS:-1}" != 0 ] \
   && command -v unshare >/dev/null && command -v ip >/dev/null \
   && unshare -n true 2>/dev/null; then
  ARGS=(--repeat "$REPEAT"); [ "$KEEP" = 1 ] && ARGS+=(--keep)
  exec env HB_CODEX_IN_NETNS=1 unshare -n -- bash -c 'ip link set lo up && exec bash "$0" "$@"' "$SELF" "${ARGS[@]}" "${SCENARIOS[@]}"
fi
if [ -n "${HB_CODEX_IN_NETNS:-}" ]; then
  echo "run-selftest.sh: running in a private network namespace (loopback only)"
else
  echo "run-selftest.sh: no private network namespace (unshare -n unavailable or HB_CODEX_NETNS=0)"
fi
echo "run-selftest.sh: $("$CODEX" --version 2>/dev/null), node $(node --version)"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/hb-codex-selftest.XXXXXX")"
MOCK_PID=""
cleanup() {
  if [ -n "$MOCK_PID" ]; then kill "$MOCK_PID" 2>/dev/null; wait "$MOCK_PID" 2>/dev/null; fi
  if [ "$KEEP" = 1 ]; then echo "run-selftest.sh: kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

PASSED=0 FAILED=0

# start_mock DIR SCRIPT_JSON: starts the mock, sets MOCK_PID and PORT
start_mock() {
  local dir="$1" script="$2"
  printf '%s\n' "$script" > "$dir/mock-script.json"
  : > "$dir/mock-log.jsonl"
  node "$HERE/mock-responses.mjs" --script "$dir/mock-script.json" --log "$dir/mock-log.jsonl" \
    > "$dir/mock.out" 2> "$dir/mock.err" &
  MOCK_PID=$!
  PORT=""
  for _ in $(seq 1 100); do
    PORT="$(sed -n 's/^PORT \([0-9][0-9]*\)$/\1/p' "$dir/mock.out" 2>/dev/null | head -1)"
    [ -n "$PORT" ] && return 0
    kill -0 "$MOCK_PID" 2>/dev/null || break
    sleep 0.05
  done
  echo "mock did not start:"; cat "$dir/mock.err"
  return 1
}

stop_mock() {
  if [ -n "$MOCK_PID" ]; then kill "$MOCK_PID" 2>/dev/null; wait "$MOCK_PID" 2>/dev/null; MOCK_PID=""; fi
}

# check DIR SCENARIO TOKEN: assertions on summary.json and mock-log.jsonl
check() {
  node --input-type=module - "$@" <<'EOF'
import fs from "node:fs";
const [dir, scenario, token] = process.argv.slice(2);
const s = JSON.parse(fs.readFileSync(`${dir}/summary.json`, "utf8"));
const log = fs.readFileSync(`${dir}/mock-log.jsonl`, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const reqs = log.filter((r) => r.method);
const fails = [];
const expect = (cond, what) => { if (!cond) fails.push(what); };
const callId = `call_${scenario}_1`;
const call = s.toolCalls.find((c) => c.callId === callId);

// common: only POST /v1/responses reached the mock, streaming, with our tool
expect(reqs.length >= 1, "the mock got at least one request");
expect(reqs.every((r) => r.method === "POST" && r.path === "/v1/responses"), "every request is POST /v1/responses");
expect(reqs.every((r) => r.body && r.body.stream === true), "every request has stream: true");
const tools = reqs[0]?.body?.tools ?? [];
const ns = tools.find((t) => t.type === "namespace" && t.name === "hbcode");
expect(!!ns && ns.tools.some((t) => t.name === "maintain_sessions"), "request 1 declares namespace hbcode with maintain_sessions");
expect(!!call, `a tool call ${callId} was seen`);
expect(call?.namespace === "hbcode" && call?.tool === "maintain_sessions", "the tool call names hbcode/maintain_sessions");
expect(call?.arguments?.action === "list", "the tool call carries the scripted arguments");
expect(s.exit && s.exit.code === 0, `the command exited 0 (got ${JSON.stringify(s.exit)})`);

if (scenario === "selftest" || scenario === "bridge") {
  expect(s.ok === true, `drive.mjs ok (errors: ${JSON.stringify(s.errors)})`);
  expect(s.turnStatus === "completed", `turn completed (got ${s.turnStatus})`);
  expect(reqs.length === 2, `exactly 2 model requests (got ${reqs.length})`);
  const second = reqs[1]?.body?.input ?? [];
  const fco = second.find((i) => i.type === "function_call_output" && i.call_id === callId);
  expect(!!fco, "request 2 carries a function_call_output for the call");
  expect(typeof fco?.output === "string" && fco.output.includes(token), "request 2's function_call_output carries the tool output text");
  expect(second.some((i) => i.type === "function_call" && i.call_id === callId && i.namespace === "hbcode"), "request 2 replays the function_call with its namespace");
  expect(reqs[1]?.toolOutput?.text?.includes(token), "the mock recorded the tool output text");
  expect(typeof s.finalText === "string" && s.finalText.includes(token), "the final assistant text echoes the tool output");
  expect(call?.itemStatus === "completed" && call?.success === true, "the tool item completed with success");
  if (scenario === "selftest") expect(call?.answeredBy === "driver", "the driver answered the call");
  if (scenario === "bridge") {
    expect(call?.requestSeen === false && call?.answeredBy === "command", "the bridge answered; the driver never saw item/tool/call");
  }
}
if (scenario === "interrupt") {
  expect(s.ok === true, `drive.mjs ok (errors: ${JSON.stringify(s.errors)})`);
  expect(s.turnStatus === "interrupted", `turn interrupted (got ${s.turnStatus})`);
  expect(call?.itemStatus === "failed" && call?.success === false, "the open tool item ends failed");
  expect(call?.answeredAfterTurnEnd === true, "the late answer went out after turn/completed");
  expect(reqs.length === 1, `no model request after the interrupt (got ${reqs.length})`);
}
if (scenario === "hang") {
  expect(s.ok === true, `drive.mjs ok (errors: ${JSON.stringify(s.errors)})`);
  expect(s.turnStatus === "interrupted", `turn interrupted (got ${s.turnStatus})`);
  expect(reqs.length === 2 && reqs[1]?.toolOutput?.text?.includes(token), "request 2 carried the tool output");
  expect(log.some((r) => r.event === "client-closed-stream" && r.seq === reqs[1]?.seq), "codex dropped the hanging stream");
  expect(s.finalText === null, "no assistant text");
}
if (fails.length) {
  for (const f of fails) console.log(`    FAIL: ${f}`);
  process.exit(1);
}
EOF
}

run_scenario() {
  local sc="$1" iter="$2"
  local dir="$TMP/$iter-$sc"
  mkdir -p "$dir"
  local token="tok-$sc-$iter-$RANDOM$RANDOM"
  local mock_scenario=tool
  local args=(--mock-port PORT --tools "$HERE/fixtures/tools-hbcode.json" --timeout 60
              --work-dir "$dir/work" --transcript "$dir/transcript.jsonl" --quiet)
  local cmd=()
  case "$sc" in
    selftest) args+=(--answer-text "{\"ok\":true,\"token\":\"$token\"}") ;;
    interrupt) args+=(--interrupt-on tool-call --interrupt-delay 100 --answer-delay 1500 --answer-text "late $token") ;;
    hang) mock_scenario=hang; args+=(--interrupt-on tool-done --interrupt-delay 300 --answer-text "$token") ;;
    bridge) args+=(--mode bridge --env "FAKE_BRIDGE_TEXT={\"bridged\":\"$token\"}")
            cmd=(-- node "$HERE/fake-bridge.mjs" -- codex app-server) ;;
    *) echo "unknown scenario $sc"; return 1 ;;
  esac
  local script
  script="{\"scenario\":\"$mock_scenario\",\"tool\":{\"namespace\":\"hbcode\",\"name\":\"maintain_sessions\",\"arguments\":{\"action\":\"list\",\"max_age_days\":7},\"callId\":\"call_${sc}_1\"},\"finalText\":\"Done. The tool said: {{output}}\"}"
  start_mock "$dir" "$script" || return 1
  args[1]="$PORT"
  local t0 t1 rc
  t0=$(date +%s%N)
  timeout 90 node "$HERE/drive.mjs" "${args[@]}" "${cmd[@]}" > "$dir/summary.json" 2> "$dir/drive.err"
  rc=$?
  t1=$(date +%s%N)
  sleep 0.2 # let the mock log a dropped stream
  stop_mock
  local ms=$(( (t1 - t0) / 1000000 ))
  if [ $rc -ne 0 ]; then
    echo "    drive.mjs exited $rc"; sed 's/^/    /' "$dir/drive.err" | tail -20; head -c 3000 "$dir/summary.json" | sed 's/^/    /'
    return 1
  fi
  check "$dir" "$sc" "$token" || return 1
  echo "    (${ms} ms)"
  return 0
}

# config.toml.in must be valid for this codex: --strict-config rejects unknown keys.
echo "--- config (codex app-server --strict-config --print-startup-config)"
mkdir -p "$TMP/config/codex-home" "$TMP/config/home"
sed 's/@PORT@/9/' "$HERE/config.toml.in" > "$TMP/config/codex-home/config.toml"
if env CODEX_HOME="$TMP/config/codex-home" HOME="$TMP/config/home" RUST_LOG=warn \
     timeout 30 "$CODEX" app-server --strict-config --print-startup-config \
     > "$TMP/config/out.txt" 2>&1 && grep -q '"appServerVersion":"0.171.0"' "$TMP/config/out.txt"; then
  echo "ok   config"; PASSED=$((PASSED + 1))
else
  sed 's/^/    /' "$TMP/config/out.txt" | tail -20; echo "FAIL config"; FAILED=$((FAILED + 1))
fi

for iter in $(seq 1 "$REPEAT"); do
  for sc in "${SCENARIOS[@]}"; do
    echo "--- [$iter/$REPEAT] $sc"
    if run_scenario "$sc" "$iter"; then
      echo "ok   $sc"; PASSED=$((PASSED + 1))
    else
      echo "FAIL $sc"; FAILED=$((FAILED + 1))
    fi
  done
done

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
