#!/bin/sh
# sizes.sh - no test file over 700 lines, no README.md over 150.
#
# A test file that grows past a few hundred lines holds several subjects;
# split it by subject (docs/testing.md, "Test files"), with the fixtures
# the files share in tests/harness/.  The README is the front page: what
# goes beyond a short page belongs in docs/.  Counted: tests/**/*.c, *.sh
# and *.mjs, except the installed node_modules and the fixtures (data the
# tests read, not tests).  One FAIL line per file over its limit.
set -u
cd "$(dirname "$0")/../.." || exit 1
failed=0

# over LIMIT FILE: FAIL when FILE has more than LIMIT lines.
over() {
	n=$(wc -l <"$2")
	if [ "$n" -gt "$1" ]; then
		echo "FAIL $2: $n lines (at most $1)"
		failed=1
	fi
}

over 150 README.md
for f in $(find tests \( -name node_modules -o -name fixtures \) -prune -o \
	-type f \( -name '*.c' -o -name '*.sh' -o -name '*.mjs' \) -print | sort); do
	over 700 "$f"
done
[ "$failed" -eq 0 ] && echo "ok sizes: every test file at most 700 lines, README.md at most 150"
exit "$failed"
