#!/bin/sh
# idle.sh BUILD - what hb-broker costs while nothing calls it (issue 38):
# the broker on the shipped deploy/services.conf in a temporary HB_HOME,
# measured for HB_BENCH_IDLE_S seconds (60) once it has answered `hbctl
# status`: the wakeups of the whole process tree a second (the context
# switches of every thread of every process below the broker, from
# /proc/PID/task/TID/status, at the start and the end of the window;
# target <= 1), its processes and threads, and its PSS
# (/proc/PID/smaps_rollup; target <= 4 MiB).  A process that started or
# ended inside the window is counted by what it did while it was seen.
# The window opens once the tree has settled: the services that start at
# boot came up, and those with an idle time and no work to hold
# (svc-messages, svc-alerts with remote access off) stopped, or after
# HB_BENCH_SETTLE_S (150) seconds anyway; the PSS of the tree before those
# stops is printed too.
#
#   sh tests/bench/idle.sh [BUILD]
set -u
build=${1:-build}
secs=${HB_BENCH_IDLE_S:-60}
. "$(dirname "$0")/daemon-lib.sh"

# Every pid below $1 (itself included).
tree() {
	echo "$1"
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do tree "$c"; done
}
# "pid:tid switches" for every thread of the tree.
switches() {
	for p in $(tree "$broker"); do
		for t in /proc/"$p"/task/*; do
			awk -v id="$p:${t##*/}" '/^(non)?voluntary_ctxt_switches/ { n += $2 } END { if (NR) print id, n }' \
				"$t/status" 2>/dev/null
		done
	done
}
pss_kib() {
	for p in $(tree "$broker"); do
		awk '/^Pss:/ { print $2 }' /proc/"$p"/smaps_rollup 2>/dev/null
	done | awk '{ s += $1 } END { print s + 0 }'
}

start_broker "$here/deploy/services.conf" || exit 1
# Let the services that start at boot come up, then those that idle stop.
settle=${HB_BENCH_SETTLE_S:-150}
t0=$(date +%s)
sleep 3
pss_boot=$(pss_kib)
procs_boot=$(tree "$broker" | wc -l)
while [ "$(tree "$broker" | wc -l)" -gt 1 ] && [ $(($(date +%s) - t0)) -lt "$settle" ]; do
	sleep 1
done
settled=$(($(date +%s) - t0))
switches >"$tmp/before"
sleep "$secs"
switches >"$tmp/after"
procs=$(tree "$broker" | wc -l)
threads=$(wc -l <"$tmp/after")
pss=$(pss_kib)
wakeups=$(awk 'NR == FNR { was[$1] = $2; next } { d = $2 - ($1 in was ? was[$1] : 0); if (d > 0) s += d }
	END { printf "%.2f", s / '"$secs"' }' "$tmp/before" "$tmp/after")
echo "command: sh tests/bench/idle.sh $build  (HB_BENCH_IDLE_S=$secs; the window opened $settled s after the start)"
printf '%-44s %10s   %s\n' "idle, the whole tree" "measured" "target"
printf '%-44s %10s   %s\n' "wakeups a second (context switches)" "$wakeups" "<= 1"
printf '%-44s %10s   %s\n' "PSS (MiB)" "$(awk -v k="$pss" 'BEGIN { printf "%.1f", k / 1024 }')" "<= 4"
printf '%-44s %10s\n' "processes" "$procs"
printf '%-44s %10s\n' "threads" "$threads"
printf '%-44s %10s\n' "PSS 3 s after the start, $procs_boot processes (MiB)" \
	"$(awk -v k="$pss_boot" 'BEGIN { printf "%.1f", k / 1024 }')"
for p in $(tree "$broker"); do
	printf '  %-42s %10s\n' "$(cat /proc/"$p"/comm 2>/dev/null) (PSS MiB)" \
		"$(awk '/^Pss:/ { printf "%.1f", $2 / 1024 }' /proc/"$p"/smaps_rollup 2>/dev/null)"
done
