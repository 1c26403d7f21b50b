#!/bin/sh
# merge.sh - fold what `make fuzz` found into the checked-in seed corpora.
#
#   sh tests/fuzz/merge.sh [BUILD] TARGET...      (BUILD: build-fuzz)
#
# Keeps every seed in tests/fuzz/corpus/TARGET/ and adds, from
# BUILD/fuzz/corpus/TARGET/, only the inputs that reach code the corpus
# did not reach yet (-merge=1 counting edges, not hit counts: a few dozen
# small files per target, not thousands).  Review and commit the result.
set -eu
build=build-fuzz
case ${1:-} in build*) build=$1; shift ;; esac
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(pwd)/tests/lsan.supp}
export LSAN_OPTIONS
for t in "$@"; do
	seeds=tests/fuzz/corpus/$t
	before=$(ls "$seeds" | wc -l)
	"$build/fuzz/fuzz_$t" -merge=1 -use_counters=0 -use_value_profile=0 -timeout=20 \
		"$seeds" "$build/fuzz/corpus/$t" >"$build/fuzz/$t.merge.log" 2>&1
	echo "merge $t: $before -> $(ls "$seeds" | wc -l) inputs, $(cat "$seeds"/* | wc -c) bytes"
done
