# lib.sh - what every end-to-end script does: a temporary HB_HOME, a real
# hb-broker on a config of the script's, `check NAME CONDITION`, and the
# clean-up.  Sourced with `build` set; the script may set `mock` to a pid
# to be stopped too.

tmp=$(mktemp -d /tmp/hbe2e.XXXXXX)
broker=
mock=
fail=0
desktop=
watcher=
# The script's JavaScript questions go to one Node (evaluator.mjs,
# `evaluate` below) instead of one started for each.
node "$(dirname "${BASH_SOURCE[0]}")/evaluator.mjs" "$tmp/evaluator.addr" </dev/null >/dev/null 2>"$tmp/evaluator.log" &
evaluator=$!
e2e_cleanup() {
	kill "$evaluator" 2>/dev/null
	# the script's desktop driver and event watcher, when it has them
	[ -n "$desktop" ] && kill "$desktop" 2>/dev/null && wait "$desktop" 2>/dev/null
	[ -n "$watcher" ] && kill "$watcher" 2>/dev/null
	[ -n "$mock" ] && kill "$mock" 2>/dev/null
	# `... | start_broker` runs it in a subshell: its pid is in the file.
	[ -z "$broker" ] && [ -s "$tmp/broker.pid" ] && broker=$(cat "$tmp/broker.pid")
	if [ -n "$broker" ] && kill "$broker" 2>/dev/null; then
		wait "$broker" 2>/dev/null
		# not our child when started in that subshell: wait cannot see it
		for _ in $(seq 100); do kill -0 "$broker" 2>/dev/null || break; sleep 0.1; done
	fi
	if [ "${HB_TEST_VERBOSE:-}" ]; then cat "$tmp/broker.log"
	elif [ "$fail" != 0 ] && [ -s "$tmp/broker.log" ]; then
		# what a failure in CI, where the folder is gone, can still be read by
		echo "--- the last 40 lines of the broker's log"
		tail -40 "$tmp/broker.log"
	fi
	# HB_TEST_KEEP=/ABSOLUTE/DIR (new): keep the logs, transcripts and mock
	# logs there.  A relative one would land in the checkout.
	case ${HB_TEST_KEEP:-} in
	"") ;;
	/?*) [ -e "$HB_TEST_KEEP" ] && echo "HB_TEST_KEEP: $HB_TEST_KEEP exists; not kept" ||
		cp -a "$tmp" "$HB_TEST_KEEP" ;;
	*) echo "HB_TEST_KEEP must be an absolute path of a folder that does not exist yet; not kept" ;;
	esac
	rm -rf "$tmp"
}
trap e2e_cleanup EXIT
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

export HB_HOME=$tmp/hb
unset HB_RUNTIME_DIR HB_DATA_DIR HB_CACHE_DIR HB_CONFIG_DIR
mkdir -p "$HB_HOME"

# start_broker: the config text on standard input; waits until it answers.
start_broker() {
	cat >"$tmp/services.conf"
	"$build/hb-broker" --config "$tmp/services.conf" >"$tmp/broker.log" 2>&1 &
	broker=$!
	echo "$broker" >"$tmp/broker.pid"
	for _ in $(seq 100); do "$build/hbctl" status >/dev/null 2>&1 && return 0; sleep 0.1; done
	echo "FAIL the broker did not start"; cat "$tmp/broker.log"
	exit 1
}

# require codex|claude|sqlite3|jq: stop with FAIL when what the script needs
# is not installed (make npm-deps / make deps install them).
require() {
	case $1 in
	codex) [ -x "$here/codex/node_modules/.bin/codex" ] ||
		{ echo "FAIL the pinned codex is not installed: run make npm-deps (npm ci in tests/codex)"; exit 1; } ;;
	claude) [ -d "$here/../agent-host/node_modules/@anthropic-ai/claude-agent-sdk" ] ||
		{ echo "FAIL the Claude Agent SDK is not installed: run make npm-deps (npm ci in agent-host)"; exit 1; } ;;
	sqlite3 | jq) command -v "$1" >/dev/null 2>&1 ||
		{ echo "FAIL $1 is not installed: run make deps"; exit 1; } ;;
	esac
}

# wait_for SECONDS CONDITION: true once CONDITION holds, false after
# SECONDS of waiting between its tries (the tries' own time not counted, so
# a loaded machine gets more time, not less).  It looks again after 0.05 s,
# then twice as long each time up to 0.4 s: a condition that holds soon is
# seen at once, and a long wait does not start a program (often node, 60 ms
# of CPU) five times a second on a machine that runs four tests at once.
wait_for() {
	local left=$(($1 * 1000)) pause=50 secs
	while :; do
		eval "$2" && return 0
		[ "$left" -gt 0 ] || return 1
		printf -v secs '0.%03d' "$pause"
		sleep "$secs"
		left=$((left - pause))
		[ "$pause" -ge 400 ] || pause=$((pause * 2))
	done
}

# evaluate WHAT ARG...: what the script's evaluator (evaluator.mjs) prints
# for WHAT, with its status: events, timeline_completed and js below.  It
# is reached over bash's own /dev/tcp, so a question starts no program.
evaluate() {
	local port token fd status out err left=200
	until [ -s "$tmp/evaluator.addr" ]; do
		[ "$left" -gt 0 ] && kill -0 "$evaluator" 2>/dev/null ||
			{ echo "evaluate: the script's evaluator did not start: $(cat "$tmp/evaluator.log")" >&2; return 2; }
		sleep 0.05
		left=$((left - 1))
	done
	read -r port token <"$tmp/evaluator.addr"
	exec {fd}<>"/dev/tcp/127.0.0.1/$port" || return 2
	printf '%s\0' "$token" "$#" "$@" >&"$fd"
	IFS= read -r status <&"$fd"
	IFS= read -r -d '' out <&"$fd"
	IFS= read -r -d '' err <&"$fd"
	exec {fd}<&-
	printf '%s' "$out"
	[ -z "$err" ] || printf '%s' "$err" >&2
	return "${status:-2}"
}

# js CODE [ARG...]: CODE, a JavaScript function body, run by the evaluator
# with argv (the ARGs), print (console.log's) and exit(status); input is
# standard input's text.
js() {
	local code=$1 input
	shift
	input=$(cat)
	evaluate js "$code" "$input" "$@"
}
# js_args CODE [ARG...]: the same without reading standard input.
js_args() {
	local code=$1
	shift
	evaluate js "$code" "" "$@"
}

# json_field PATH: the field at a dotted PATH of the JSON on standard input
# (a missing one: undefined), a string as it is, anything else as JSON.
json_field() {
	js 'const v = argv[0].split(".").reduce((o, k) => o == null ? o : o[k], JSON.parse(input));
		print(typeof v === "string" ? v : JSON.stringify(v))' "$1"
}

# events COND: how many events in $tmp/events.jsonl (a watcher's output)
# match a JS condition on e.
events() {
	evaluate events "$tmp/events.jsonl" "$1"
}

# A session message in appdata.db, by the sender's call id: its state, and
# its operation id.
state_of() {
	sqlite3 -cmd ".timeout 5000" "$HB_HOME/data/appdata.db" "SELECT state FROM chat_session_messages WHERE call_id = '$1'" 2>/dev/null
}
state_is() { [ "$(state_of "$1")" = "$2" ]; }
op_of() {
	echo "session-message-$(sqlite3 -cmd ".timeout 5000" "$HB_HOME/data/appdata.db" "SELECT id FROM chat_session_messages WHERE call_id = '$1'")"
}

# timeline_rows SESSION COND: how many timeline.row events of SESSION in
# $tmp/events.jsonl (watch_events) have a row r matching a JS condition.
timeline_rows() { events "e.event === 'timeline.row' && e.session === '$1' && ((r) => $2)(e.row)"; }
# timeline_completed SESSION COND: how many rows of SESSION first came as a
# tool call (status call) and then again under the same id completed
# (any other status), the completed row matching COND on r.
timeline_completed() {
	evaluate timeline_completed "$tmp/events.jsonl" "$1" "$2"
}

# The svc-messages section of a config.
messages_conf() {
	printf '[service svc-messages]\nexec = %s/svc-messages\nconcurrency = 2\ntools = send_session_message _messages_list _messages_send _messages_discard\n' "$build"
}

# deployed_conf NAME: the [service NAME] section of deploy/services.conf,
# as it is (its exec is found beside hb-broker, the broker's default
# --libexec, which is $build): a test runs a service as it is deployed,
# confined and with its environment, never from a copy that could drift;
# without its start, idle and wake lines, so that it is up when the test
# begins and stays up.
deployed_conf() {
	local s
	s=$(sed -n "/^\[service $1\]/,/^\$/p" "$here/../deploy/services.conf" | grep -v '^\(start\|idle\|wake\)[ =]')
	[ -n "$s" ] || { echo "FAIL deploy/services.conf has no [service $1]" >&2; return 1; }
	printf '%s\n' "$s"
}

# The svc-sessions section of a config.
sessions_conf() {
	printf '[service svc-sessions]\nexec = %s/svc-sessions\ntools = maintain_sessions manage_sessions _resolve_thread _link_thread _link_claude _session_info\n' "$build"
}

# svc-echo's slow stand-in under a catalog name (test-only), to interrupt.
slow_tool_conf() {
	printf '[service svc-echo]\nexec = %s/tests/svc-echo\ntools = use_user_browser\n' "$build"
}

# The stand-in sleeps 30 s unless its handler sees a cancel: true when
# svc-echo's workers are all free again within 5 s.
slots_free_soon() {
	for _ in $(seq 50); do
		"$build/hbctl" status --json | grep -q '"name":"svc-echo"[^}]*"slotsBusy":0' && return 0
		sleep 0.1
	done
	return 1
}

# watch_events: hbctl watch into $tmp/events.jsonl (killed at exit), once it
# is seen to receive events.
watch_events() {
	"$build/hbctl" watch >"$tmp/events.jsonl" 2>/dev/null &
	watcher=$!
	for _ in $(seq 50); do
		"$build/hbctl" call maintain_sessions '{"action":"guide"}' >/dev/null 2>&1
		sleep 0.1
		grep -q '"maintain_sessions"' "$tmp/events.jsonl" && break
	done
}

# full_auto_session TITLE AGENT: a new full-auto session in $tmp/project; its id.
full_auto_session() {
	"$build/hbctl" call manage_sessions \
		"{\"action\":\"create\",\"title\":\"$1\",\"agent\":\"$2\",\"projectPath\":\"$tmp/project\",\"accessLevel\":\"full-auto\"}" |
		json_field id
}
