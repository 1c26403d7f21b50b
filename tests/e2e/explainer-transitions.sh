#!/bin/bash
# explainer-transitions.sh BUILD - transitions between scenes in the video
# hb-explainer renders: four flat-colour scenes of 1 s (red, blue by a
# 0.5 s crossfade, green by a cut, yellow by a 0.5 s slide-left), decoded
# frame by frame from the MP4: the crossfade's middle frame is half red and
# half blue in every pixel, the cut has no mixed frame, the slide's middle
# frame is green on its left half and yellow on its right; the scenes keep
# their timing (120 frames) and each scene is drawn once; a transition on
# the first scene is refused with its sentence.
set -u
build=${1:-build}
hbx=$build/hb-explainer
here=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"

mkdir "$tmp/f"
for c in red:ff0000 blue:0000ff green:00ff00 yellow:ffff00; do
	printf '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1920 1080"><rect width="1920" height="1080" fill="#%s"/></svg>\n' \
		"${c##*:}" >"$tmp/f/${c%%:*}.svg"
done
cat >"$tmp/f/explainer.json" <<'JSON'
{ "scenes": [
  { "svg": "red.svg", "duration": 1 },
  { "svg": "blue.svg", "duration": 1, "transition": { "type": "crossfade", "duration": 0.5 } },
  { "svg": "green.svg", "duration": 1 },
  { "svg": "yellow.svg", "duration": 1, "transition": "slide-left" } ] }
JSON
"$hbx" render "$tmp/f" -o "$tmp/t.mp4" >"$tmp/render.out" 2>"$tmp/render.err"
rc=$?
check "render: exit 0, 120 frames as with cuts, each scene drawn once" \
	'[ $rc = 0 ] && grep -q "120 frames (4.00 s), 4 drawn" "$tmp/render.out"'
[ $rc = 0 ] || cat "$tmp/render.err"
ffmpeg -v error -i "$tmp/t.mp4" -f rawvideo -pix_fmt rgb24 "$tmp/frames.rgb"
frame_bytes=$((1920 * 1080 * 3))
# pixel N X Y: frame N's colour at (X, Y) as "R G B".
pixel() { od -A n -t u1 -j $(($1 * frame_bytes + ($3 * 1920 + $2) * 3)) -N 3 "$tmp/frames.rgb" | tr -s ' ' | sed 's/^ //'; }
# near "R G B" R G B: each within 8 of the wanted value (H.264's loss).
near() {
	set -- $1 "$2" "$3" "$4"
	awk -v a="$1" -v b="$2" -v c="$3" -v x="$4" -v y="$5" -v z="$6" \
		'function d(p, q) { return p > q ? p - q : q - p } BEGIN { exit !(d(a, x) <= 8 && d(b, y) <= 8 && d(c, z) <= 8) }'
}
check "frames decoded: 120" '[ "$(stat -c %s "$tmp/frames.rgb")" = $((120 * frame_bytes)) ]'

# The crossfade: frames 30..44; frame 37 is half way.
check "crossfade: the last frame before it is red" 'near "$(pixel 29 960 540)" 255 0 0'
for xy in "960 540" "10 10" "1900 1070"; do
	check "crossfade: the middle frame is half red, half blue at ($xy): $(pixel 37 $xy)" 'near "$(pixel 37 $xy)" 128 0 128'
done
# mostly_red "R G B": red with a little blue, 1/16 of the way.
mostly_red() { set -- $1; [ "$1" -gt 200 ] && [ "$3" -gt 5 ] && [ "$3" -lt 60 ]; }
check "crossfade: its first frame is mostly red ($(pixel 30 960 540))" 'mostly_red "$(pixel 30 960 540)"'
check "crossfade: over by frame 45 (blue)" 'near "$(pixel 45 960 540)" 0 0 255'

# The cut at frame 60: blue, then green, no frame of both.
mixed=0
for n in $(seq 46 89); do
	p=$(pixel $n 960 540)
	near "$p" 0 0 255 || near "$p" 0 255 0 || { mixed=$n; break; }
done
check "cut: no mixed frame between blue and green (first mixed: $mixed)" '[ $mixed = 0 ]'
check "cut: frame 59 blue, frame 60 green" 'near "$(pixel 59 960 540)" 0 0 255 && near "$(pixel 60 960 540)" 0 255 0'

# The slide: frames 90..104; at frame 97 yellow has pushed green half out to the left.
check "slide: the middle frame's left half is green" \
	'near "$(pixel 97 10 540)" 0 255 0 && near "$(pixel 97 940 100)" 0 255 0'
check "slide: the middle frame's right half is yellow" \
	'near "$(pixel 97 980 540)" 255 255 0 && near "$(pixel 97 1910 1000)" 255 255 0'
check "slide: over by frame 105 (yellow everywhere)" \
	'near "$(pixel 105 10 540)" 255 255 0 && near "$(pixel 105 1910 540)" 255 255 0'

# A transition on the first scene: refused with its sentence.
sed -i '/red.svg/s/"duration": 1 },/"duration": 1, "transition": "crossfade" },/' "$tmp/f/explainer.json"
"$hbx" check "$tmp/f" >/dev/null 2>"$tmp/check.err"
rc=$?
check "check: a transition into the first scene is refused" \
	'[ $rc = 1 ] && grep -q "scene 1: the first scene has no scene before it" "$tmp/check.err"'
exit $fail
