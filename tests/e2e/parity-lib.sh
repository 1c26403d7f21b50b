# parity-lib.sh - the one scenario parity-claude.sh and parity-codex.sh
# run with their agent's rig, and its assertions, written once: what a
# person sees of a session must not depend on the agent behind it.
# Sourced after lib.sh (and alerts-lib.sh), with build, here and tmp set.
#
# The scenario, one turn a step, in one HB Code session:
#   tool       a prompt whose turn calls an hbcode tool (maintain_sessions
#              guide) and answers
#   subagent   a prompt whose turn spawns a subagent in the foreground
#              (Claude: Agent with run_in_background false; Codex:
#              spawn_agent then wait_agent), the subagent calls an hbcode
#              tool (Codex: a command) and answers
#   message    another session's message delivered into the session (a run
#              that only receives), whose turn answers it
#   declined   a prompt whose turn calls a tool that asks first; the card
#              goes to the phone through svc-alerts and the fake relay,
#              whose phone declines it (relay.mjs --answer deny): the
#              declined call and the approval answered from the relay are
#              one step, as the relay answers every card alike
# What each agent cannot do is said in its script's header, and left out
# there rather than faked.
#
# The assertions (parity_checks):
#   kinds      the live rows' kinds in order (timeline.row events, the last
#              row of each id where it first came) equal the saved rows'
#              kinds in order (hbctl timeline --session), per level: the
#              conversation's rows (depth 0) as one sequence, each
#              subagent's rows (by thread) as one of their own, since live
#              they interleave with the parent's and saved they follow the
#              spawn row; without the kinds LIVE_ONLY names and the rows
#              one side cannot have (LIVE_ONLY_ROWS, SAVED_ONLY_ROWS: JS
#              conditions on r), each said in its script's header
#   parity     each step's live kinds equal the scenario's (STEP_KINDS
#              below, the same for both agents; a script overrides one
#              where its agent differs, or leaves rows out with
#              PARITY_SKIP, and says why in its header)
#   screen     the live view on a pseudo-terminal (hbctl watch --timeline
#              --session, PTY_COLS x PTY_ROWS) shows a line for each row:
#              each turn's start and end, the prompts, the hbcode tool and
#              its outcome, the subagent's spawn and its rows indented,
#              the message, the card with `hbctl approve ID | hbctl
#              decline ID` and then declined, the declined call

# The kinds of each step's turn at depth 0, for both agents: the words
# the scripts compare with.  Per step: the turn's start, the person's
# prompt (or the delivered message), the rows of what the turn did, the
# model's answer, the turn's end.
STEP_KINDS_TOOL="turn_started user tool assistant turn_completed"
STEP_KINDS_SUBAGENT="turn_started user spawn assistant turn_completed"
STEP_KINDS_MESSAGE="turn_started agent_message assistant turn_completed"
STEP_KINDS_DECLINED="turn_started user tool assistant turn_completed"

command -v python3 >/dev/null 2>&1 || { echo "FAIL python3 is not installed (the live view's pseudo-terminal): run make deps"; exit 1; }
PTY_COLS=200
PTY_ROWS=60
pty_pid=

# pty_watch_start ARGS...: hbctl watch --timeline ARGS on a pseudo-terminal
# of PTY_COLS x PTY_ROWS (python3's pty module), everything it writes into
# $tmp/pty.raw, until pty_watch_stop.
pty_watch_start() {
	python3 -c '
import fcntl, os, pty, signal, struct, sys, termios
cols, rows, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    os.environ["COLUMNS"], os.environ["LINES"] = str(cols), str(rows)
    os.environ["TERM"] = "xterm"
    os.execv(sys.argv[4], sys.argv[4:])
def stop(*_):
    os.kill(pid, signal.SIGTERM)
    os.waitpid(pid, 0)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
with open(out, "ab", buffering=0) as f:
    while True:
        try:
            b = os.read(fd, 65536)
        except OSError:
            break
        if not b:
            break
        f.write(b)
os.waitpid(pid, 0)
' "$PTY_COLS" "$PTY_ROWS" "$tmp/pty.raw" "$build/hbctl" watch --timeline "$@" 2>"$tmp/pty.err" &
	pty_pid=$!
}
pty_watch_stop() {
	[ -n "$pty_pid" ] && kill "$pty_pid" 2>/dev/null && wait "$pty_pid" 2>/dev/null
	pty_pid=
}
# The view's text: its output without the terminal's escapes, a line at
# each carriage return or newline (a row redrawn in place is there in each
# of its states).
pty_text() { sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\r/\n/g' "$tmp/pty.raw" | grep -v '^[[:space:]]*$'; }
# pty_shows PATTERN...: true when the view has a line matching every
# extended regular expression (grep -E) given.
pty_shows() {
	local lines
	lines=$(pty_text)
	for p in "$@"; do lines=$(printf '%s\n' "$lines" | grep -E -- "$p") || return 1; done
}

parity_cleanup() { pty_watch_stop; e2e_cleanup; }
trap parity_cleanup EXIT

# attaches SESSION: how many session.attached events of SESSION
# $tmp/events.jsonl has (an event that names no run: a new run's is one
# more than before it).
attaches() { events "e.event === \"session.attached\" && e.session === \"$1\""; }

# live_rows SESSION: the session's timeline.row events of $tmp/events.jsonl
# as a viewer holds them: the last row of each id, where the id first came.
live_rows() {
	js_args '
		const fs = require("fs"), rows = new Map();
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			let e; try { e = JSON.parse(l); } catch { continue; }
			if (e.event === "timeline.row" && e.session === argv[1]) rows.set(e.row.id, e.row);
		}
		for (const r of rows.values()) print(JSON.stringify(r));' "$tmp/events.jsonl" "$1"
}

# kinds FILE [LEVEL [DROP]]: the kinds of a file of rows in order, without
# the kinds in LIVE_ONLY and the rows a JS condition DROP on r holds for
# (the rows one side cannot have, the script's LIVE_ONLY_ROWS or
# SAVED_ONLY_ROWS): LEVEL top (default) the depth-0 rows, on one line;
# LEVEL sub each subagent's rows (by thread, in the order the threads
# came), a line each.
kinds() {
	js_args '
		const fs = require("fs"), skip = new Set((argv[3] || "").split(" ").filter(Boolean));
		const drop = eval("(r) => " + (argv[2] || "false"));
		const rows = fs.readFileSync(argv[0], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l))
			.filter((r) => !skip.has(r.kind) && !drop(r));
		if (argv[1] === "top")
			print(rows.filter((r) => !(r.depth > 0)).map((r) => r.kind).join(" "));
		else {
			const threads = new Map();
			for (const r of rows.filter((r) => r.depth > 0)) {
				if (!threads.has(r.thread)) threads.set(r.thread, []);
				threads.get(r.thread).push(r.kind);
			}
			for (const k of threads.values()) print(k.join(" "));
		}' "$1" "${2:-top}" "${3:-}" "${LIVE_ONLY:-}"
}

# turns_of FILE: the live depth-0 kinds of FILE, a turn a line (cut at each
# turn_started), as the two agents are compared: without retry and
# rate_limit (a turn has them or not as the model's service answers),
# without the rows PARITY_SKIP (a JS condition on r, the script's) names,
# and without a model's text right before a call (the mock Messages API
# writes "I will call X." before each call, the mock Responses API writes
# nothing: what the mocks say, not what the agents do).
turns_of() {
	js_args '
		const fs = require("fs"), skip = eval("(r) => " + (argv[1] || "false"));
		const rows = fs.readFileSync(argv[0], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l))
			.filter((r) => !(r.depth > 0) && r.kind !== "retry" && r.kind !== "rate_limit" && !skip(r));
		const calls = new Set(["tool", "command", "spawn", "file_change"]);
		const kept = rows.filter((r, i) => !(r.kind === "assistant" && rows[i + 1] && calls.has(rows[i + 1].kind)));
		print(kept.map((r) => r.kind).join(" ").replace(/ turn_started/g, "\nturn_started"));' "$1" "${PARITY_SKIP:-}"
}

# parity_checks: the assertions on $tmp/live.jsonl and $tmp/saved.jsonl
# (the script's) and on the view's screen, with the script's prompt_tool,
# prompt_agent, body (the delivered message), PTY_TOOL (the hbcode tool's
# line), PTY_DECLINED (the declined call's line), PTY_CHILD (a line of the
# subagent's, indented) as extended regular expressions.
parity_checks() {
	local want live saved
	live=$(kinds "$tmp/live.jsonl" top "${LIVE_ONLY_ROWS:-}")
	saved=$(kinds "$tmp/saved.jsonl" top "${SAVED_ONLY_ROWS:-}")
	check "kinds: the live rows of the conversation, in order, are the saved ones" '[ -n "$live" ] && [ "$live" = "$saved" ]'
	[ "$live" = "$saved" ] || printf '  live:  %s\n  saved: %s\n' "$live" "$saved"
	live=$(kinds "$tmp/live.jsonl" sub "${LIVE_ONLY_ROWS:-}")
	saved=$(kinds "$tmp/saved.jsonl" sub "${SAVED_ONLY_ROWS:-}")
	check "kinds: the subagent's live rows, in order, are its saved ones" '[ -n "$live" ] && [ "$live" = "$saved" ]'
	[ "$live" = "$saved" ] || printf '  live:  %s\n  saved: %s\n' "$live" "$saved"
	# (a background subagent's step: the script's, when its agent has one)
	want=$(printf '%s\n' "$STEP_KINDS_TOOL" "$STEP_KINDS_SUBAGENT" ${STEP_KINDS_BACKGROUND:+"$STEP_KINDS_BACKGROUND"} \
		"$STEP_KINDS_MESSAGE" "$STEP_KINDS_DECLINED")
	check "parity: each step's turn has the scenario's kinds, as the other agent's" '[ "$(turns_of "$tmp/live.jsonl")" = "$want" ]'
	[ "$(turns_of "$tmp/live.jsonl")" = "$want" ] || printf '  live:\n%s\n  want:\n%s\n' "$(turns_of "$tmp/live.jsonl")" "$want"

	# The screen: each line "TIME  TITLE  AGENT  ROW", the subagent's rows
	# two spaces further in.
	local head="^[0-9]{2}:[0-9]{2}:[0-9]{2}  Parity +$agent +"
	# the view got the last turn's end (it reads the same events as the watcher)
	wait_for 30 '[ "$(pty_text | grep -cE "${head}— turn completed")" -ge 4 ] && pty_shows "${head}$PTY_DECLINED +declined"'
	check "screen: a line for each turn's start and end (4 each), the end with its duration" \
		'[ "$(pty_text | grep -cE "${head}— turn started$")" -ge 4 ] &&
		 [ "$(pty_text | grep -E "${head}— turn completed · [0-9.]+ s" | sort -u | wc -l)" -ge 4 ]'
	# (a long one cut at the terminal's width: its start)
	check "screen: the prompts" \
		'pty_text | grep -qF "  You: ${prompt_tool:0:40}" && pty_text | grep -qF "  You: ${prompt_agent:0:40}"'
	check "screen: the hbcode tool, then its outcome" 'pty_shows "${head}$PTY_TOOL +running [0-9]+s$" && pty_shows "${head}$PTY_TOOL +ok$"'
	check "screen: the subagent's spawn, completed, and its rows indented" \
		'pty_shows "${head}Subagent .* +completed$" && pty_shows "${head}  $PTY_CHILD"'
	check "screen: the delivered message" 'pty_text | grep -qF "  Message from Docs & site: $body"'
	check "screen: the card with the commands that answer it, then declined" \
		'pty_shows "${head}Approve\? .*  hbctl approve (a[0-9]+) \| hbctl decline a[0-9]+$" && pty_shows "${head}Approve\? .*  declined$"'
	check "screen: the declined call" 'pty_shows "${head}$PTY_DECLINED +declined"'
	check "screen: no escape left in the text, no line wider than the terminal ($PTY_COLS columns)" \
		'! pty_text | grep -q "$(printf "\033")" &&
		 [ "$(pty_text | python3 -c "import sys; print(max(len(l) for l in sys.stdin.read().split(chr(10))))")" -le "$PTY_COLS" ]'
	# (the view's own reports went to its terminal)
	check "no sanitizer report" '! grep -qsE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$tmp"/*.err "$tmp/broker.log" "$tmp/pty.raw"'
}
