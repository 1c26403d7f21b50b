#!/bin/bash
# explainer.sh BUILD - the renderer's benchmark (part of `make bench`):
# hb-explainer render of the reference explainer (tests/explainer/reference:
# 66 s, six scenes with text, shapes, a gradient background, line drawing
# and moving elements, narrated and captioned (the WebVTT and SRT files
# are written by every render), joined by crossfades and slides), its
# speed as a multiple of real time and
# the share of frames reused; beside it, measured in the same run, the
# encode-only floor: ffmpeg encoding the same raw frames with the same
# settings; the render's share of that floor against its target (0.9 on
# a quiet machine: drawing must hide behind the encoder); and the time of
# one `preview` frame.
#   HB_BENCH_EXPLAINER_RUNS (3) renders, HB_BENCH_FLOOR_FRAMES (600) frames
#   for the floor, HB_BENCH_PREVIEWS (10) previews.
set -u
build=${1:-build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
hbx=$build/hb-explainer
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${HB_BENCH_EXPLAINER_RUNS:-3}
floor_frames=${HB_BENCH_FLOOR_FRAMES:-600}
previews=${HB_BENCH_PREVIEWS:-10}
for c in "$hbx" ffmpeg ffprobe sox; do
	command -v "$c" >/dev/null 2>&1 || { echo "explainer.sh: $c is missing; run: make bench" >&2; exit 1; }
done
# Raw frames go to memory when there is some: 3 MB a frame.
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
tmp=$(mktemp -d "$base/hbxbench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cp -r "$here/explainer/reference" "$tmp/ref" && sh "$here/explainer/narrate.sh" "$tmp/ref" || exit 1

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "Explainer renderer: tests/explainer/reference, $(nproc) cores"
echo "  command: $hbx render DIR -o out.mp4   (x264 veryfast, crf 20, one drawing thread per core)"
: >"$tmp/speeds"
for i in $(seq "$runs"); do
	"$hbx" render "$tmp/ref" -o "$tmp/out.mp4" >"$tmp/render.out" 2>/dev/null || { echo "render failed" >&2; exit 1; }
	sed -n 's/.*(\([0-9.]*\)x real time).*/\1/p' "$tmp/render.out" >>"$tmp/speeds"
	echo "  run $i: $(cat "$tmp/render.out")"
done
frames=$(sed -n 's/.*: \([0-9]*\) frames.*/\1/p' "$tmp/render.out")
drawn=$(sed -n 's/.*, \([0-9]*\) drawn.*/\1/p' "$tmp/render.out")
speed=$(median <"$tmp/speeds")
echo "  render + encode: median ${speed}x real time over $runs runs; $((frames - drawn)) of $frames frames reused ($(awk -v d="$drawn" -v f="$frames" 'BEGIN { printf "%.0f", 100 * (f - d) / f }')%)"

# The floor: the same frames, already drawn, through ffmpeg with the same settings.
ffmpeg -v error -i "$tmp/out.mp4" -frames:v "$floor_frames" -f rawvideo -pix_fmt yuv420p "$tmp/frames.yuv" || exit 1
floor_cmd="ffmpeg -v error -y -f rawvideo -pix_fmt yuv420p -s 1920x1080 -r 30 -i frames.yuv -c:v libx264 -preset veryfast -crf 20 -tune animation -colorspace bt709 -color_primaries bt709 -color_trc bt709 -color_range tv -movflags +faststart floor.mp4"
: >"$tmp/floor"
for i in $(seq "$runs"); do
	t0=$(now)
	(cd "$tmp" && $floor_cmd) || exit 1
	t1=$(now)
	awk -v a="$t0" -v b="$t1" -v n="$floor_frames" 'BEGIN { printf "%.2f\n", n / 30 / (b - a) }' >>"$tmp/floor"
done
floor=$(median <"$tmp/floor")
echo "  encode-only floor: median ${floor}x real time ($floor_frames frames, $runs runs): $floor_cmd"
ratio=$(awk -v a="$speed" -v b="$floor" 'BEGIN { printf "%.2f", a / b }')
echo "  render + encode / encode-only: $ratio (target: at least 0.90 on a quiet machine; $(awk -v r="$ratio" 'BEGIN { print (r >= 0.9 ? "met" : "not met") }'); load now: $(cut -d' ' -f1-3 /proc/loadavg))"

: >"$tmp/prev"
for i in $(seq "$previews"); do
	t0=$(now)
	"$hbx" preview "$tmp/ref" 3 --at end -o "$tmp/p.png" 2>/dev/null || { echo "preview failed" >&2; exit 1; }
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }' >>"$tmp/prev"
done
if [ -x "$build/bench/bench-explainer-preview" ]; then
	read -r med lo hi first < <("$build/bench/bench-explainer-preview" "$tmp/ref" 3 end "$tmp/p.png" "$previews")
	echo "  preview of one frame in a running process (open, load, evaluate, draw, PNG): median $med ms (min $lo, max $hi) over $previews; the process's first: $first ms (with fontconfig set-up)"
fi
echo "  preview of one frame as a new hb-explainer process (start-up, fonts, the same work): median $(median <"$tmp/prev") ms over $previews"
