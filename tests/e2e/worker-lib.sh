# worker-lib.sh - what the end-to-end scripts of svc-explainer's worker
# (worker-codex.sh, worker-claude.sh) share: the process group checks,
# the Gemini key the driver holds and the worker's agent must not, and a
# PNG for the tool's answer.  Sourced after lib.sh (it uses $tmp).

field() { json_field "$2" <"$1"; }

# Whether any live process has process group $want_pgid (from /proc: no
# pgrep needed; the fields after the command's closing parenthesis are
# state, parent and group; a zombie is dead, waiting for init to reap it).
group_alive() {
	local f s
	for f in /proc/[0-9]*/stat; do
		s=$(cat "$f" 2>/dev/null) || continue
		s=${s##*) }
		# shellcheck disable=SC2086
		set -- $s
		[ "${3:-}" = "$want_pgid" ] && [ "$1" != Z ] && return 0
	done
	return 1
}
no_worker_left() { want_pgid=$(field "$1" pgid); [ -n "$want_pgid" ] && [ "$want_pgid" != null ] && ! group_alive; }

# A made-up key: only its absence from the worker's processes matters.
gemini_key=e2e-gemini-key-not-real
# Whether process $1's environment holds the key.
has_key() { tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null | grep -qx "GEMINI_API_KEY=$gemini_key"; }
# Whether the agent's processes, the live ones of group $want_pgid but
# its leader, all lack the key (at least one: the agent).  The leader is
# the group's guard, a fork of the driver that never execs (lib/child.h):
# ours, not the agent's, and holding what the driver holds.
group_without_key() {
	local f s pid seen=0
	for f in /proc/[0-9]*/stat; do
		s=$(cat "$f" 2>/dev/null) || continue
		pid=${s%% *}
		s=${s##*) }
		# shellcheck disable=SC2086
		set -- $s
		[ "${3:-}" = "$want_pgid" ] && [ "$1" != Z ] && [ "$pid" != "$want_pgid" ] || continue
		has_key "$pid" && return 1
		[ -r "/proc/$pid/environ" ] && seen=$((seen + 1))
	done
	[ "$seen" -gt 0 ]
}

# A 1x1 PNG for worker-drive --png.
png=$tmp/pixel.png
js_args 'require("fs").writeFileSync(argv[0], Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC", "base64"))' "$png"
