#!/bin/bash
# explainer-cli.sh BUILD - hb-explainer end to end on real files: check,
# preview, sheet and render of a small explainer; the MP4 checked with
# ffprobe and by its boxes; the target untouched after a failed render, a
# cancel and a SIGKILL; and every kind of bad folder refused with its
# sentence and nothing written.
set -u
build=${1:-build}
hbx=$build/hb-explainer
here=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"

# A folder to work on: a copy of tests/explainer/NAME with its narration.
folder() {
	rm -rf "$tmp/$1" && cp -r "$here/explainer/$2" "$tmp/$1" && sh "$here/explainer/narrate.sh" "$tmp/$1"
}

folder small small
# Every command that succeeds must exit 0: under ASan a leak makes it 23.
"$hbx" check "$tmp/small" >"$tmp/check.out" 2>&1
rc=$?
check "check: a good folder passes" '[ $rc = 0 ] && grep -q "2 scenes, 120 frames, 4.00 s: ok" "$tmp/check.out"'

# ---- render and ffprobe ------------------------------------------------
"$hbx" render "$tmp/small" -o "$tmp/small.mp4" >"$tmp/render.out" 2>"$tmp/render.err"
rc=$?
check "render: exit 0 and a summary" '[ $rc = 0 ] && grep -q "120 frames (4.00 s)" "$tmp/render.out"'
check "render: frames that did not change were not drawn again" \
	'drawn=$(sed -n "s/.*, \([0-9]*\) drawn.*/\1/p" "$tmp/render.out"); [ -n "$drawn" ] && [ "$drawn" -lt 100 ] && [ "$drawn" -gt 40 ]'
probe() { ffprobe -v error -select_streams "$1" -show_entries "$2" -of default=nw=1:nk=1 "$tmp/small.mp4"; }
check "video: h264 1920x1080 yuv420p" '[ "$(probe v:0 stream=codec_name,width,height,pix_fmt | tr "\n" " ")" = "h264 1920 1080 yuv420p " ]'
check "video: 30 fps" '[ "$(probe v:0 stream=r_frame_rate,avg_frame_rate | tr "\n" " ")" = "30/1 30/1 " ]'
check "video: BT.709 tags, limited range" \
	'[ "$(probe v:0 stream=color_range,color_space,color_transfer,color_primaries | tr "\n" " ")" = "tv bt709 bt709 bt709 " ]'
check "video: 120 frames decoded" \
	'[ "$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of default=nw=1:nk=1 "$tmp/small.mp4")" = 120 ]'
check "audio: AAC 48 kHz mono" '[ "$(probe a:0 stream=codec_name,sample_rate,channels | tr "\n" " ")" = "aac 48000 1 " ]'
vdur=$(probe v:0 stream=duration)
adur=$(probe a:0 stream=duration)
check "video lasts 4 s" 'awk -v v="$vdur" "BEGIN { exit !(v > 3.999 && v < 4.001) }"'
check "audio and video end within one frame ($adur s, $vdur s)" \
	'awk -v a="$adur" -v v="$vdur" "BEGIN { d = a - v; if (d < 0) d = -d; exit !(d <= 1 / 30) }"'
check "the file decodes cleanly" '[ -z "$(ffmpeg -v error -i "$tmp/small.mp4" -f null - 2>&1)" ]'
# top-level boxes: moov (the index) before mdat (faststart)
top_boxes() {
	local f=$1 off=0 size hdr len kind out=
	size=$(stat -c %s "$f")
	while [ "$off" -lt "$size" ]; do
		hdr=$(od -A n -t x1 -j "$off" -N 16 "$f" | tr -d ' \n')
		len=$((16#${hdr:0:8}))
		kind=$(printf "$(echo "${hdr:8:8}" | sed 's/../\\x&/g')")
		[ "$len" = 1 ] && len=$((16#${hdr:16:16}))
		[ "$len" -lt 8 ] && break
		out="$out $kind"
		off=$((off + len))
	done
	echo "$out"
}
boxes=$(top_boxes "$tmp/small.mp4")
check "moov before mdat ($boxes)" 'case "$boxes" in *moov*mdat*) true ;; *) false ;; esac'

# ---- captions and poster -----------------------------------------------
folder captioned small
sed -i 's/"duration": 2.5 }/"duration": 2.5, "caption": "A small explainer. It speaks two sentences." }/; s/^  \]$/  ], "poster": { "scene": "two.svg", "at": "end" }/' "$tmp/captioned/explainer.json"
"$hbx" render "$tmp/captioned" -o "$tmp/captioned.mp4" --captions burn --poster "$tmp/poster.png" \
	>"$tmp/captioned.out" 2>"$tmp/captioned.err"
rc=$?
check "render --captions burn --poster: exit 0, the captions and the poster named" \
	'[ $rc = 0 ] && grep -q "captioned.vtt, .*captioned.srt: captions" "$tmp/captioned.out" && grep -q "poster.png: poster" "$tmp/captioned.out"'
check "captions: WebVTT and SRT cues from 0 to the narration's end" \
	'[ "$(head -1 "$tmp/captioned.vtt")" = WEBVTT ] && grep -q "^00:00:00.000 --> " "$tmp/captioned.vtt" && grep -q "^00:00:00,000 --> " "$tmp/captioned.srt" && [ "$(grep -c -- " --> " "$tmp/captioned.vtt")" = "$(grep -c -- " --> " "$tmp/captioned.srt")" ]'
check "poster: a 1920x1080 PNG" \
	'[ "$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$tmp/poster.png")" = "1920,1080" ]'
"$hbx" render "$tmp/small" -o "$tmp/plain.mp4" >"$tmp/plain.out" 2>&1
check "render without captions in the manifest: no caption files" \
	'[ ! -e "$tmp/plain.vtt" ] && [ ! -e "$tmp/plain.srt" ]'
"$hbx" render "$tmp/small" -o "$tmp/x.mp4" --captions subtitles >/dev/null 2>"$tmp/badcap.err"
rc=$?
check "render --captions takes file or burn" '[ $rc = 2 ] && grep -q "needs file or burn" "$tmp/badcap.err"'

# ---- preview and sheet --------------------------------------------------
"$hbx" preview "$tmp/small" 1 --at end -o "$tmp/end.png" 2>"$tmp/preview.err"
rc=$?
check "preview: a 1920x1080 PNG" \
	'[ $rc = 0 ] && [ "$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$tmp/end.png")" = "1920,1080" ]'
"$hbx" preview "$tmp/small" two.svg --at 0.5 -o "$tmp/mid.png" 2>>"$tmp/preview.err"
rc=$?
check "preview: a scene by its file name and a time" '[ $rc = 0 ] && [ -s "$tmp/mid.png" ]'
"$hbx" preview "$tmp/small" 1 --at 9 -o "$tmp/late.png" 2>"$tmp/late.err"
rc=$?
check "preview: a time past the scene is refused" \
	'[ $rc = 1 ] && [ ! -e "$tmp/late.png" ] && grep -q "a time in seconds from 0 to 2.5" "$tmp/late.err"'
"$hbx" sheet "$tmp/small" -o "$tmp/sheet.png" 2>"$tmp/sheet.err"
rc=$?
check "sheet: two rows of two thumbnails" \
	'[ $rc = 0 ] && [ "$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$tmp/sheet.png")" = "1008,648" ]'

# Ten scenes: two per row, so the sheet stays a picture a model can take in.
mkdir -p "$tmp/ten"
for i in $(seq 10); do cp "$tmp/small/two.svg" "$tmp/ten/s$i.svg"; done
printf '{"scenes":[%s]}\n' "$(for i in $(seq 10); do printf '%s{"svg":"s%d.svg","duration":1}' "$([ $i = 1 ] || echo ,)" $i; done)" \
	>"$tmp/ten/explainer.json"
"$hbx" sheet "$tmp/ten" -o "$tmp/ten.png" 2>"$tmp/ten.err"
rc=$?
check "sheet: ten scenes in five rows of two" \
	'[ $rc = 0 ] && [ "$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$tmp/ten.png")" = "2016,1596" ]'

# ---- the target is never broken -----------------------------------------
printf 'the old video\n' >"$tmp/keep.mp4"
cp -r "$tmp/small" "$tmp/broken"
printf '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1920 1080"><script>1</script></svg>' >"$tmp/broken/two.svg"
"$hbx" render "$tmp/broken" -o "$tmp/keep.mp4" >/dev/null 2>"$tmp/broken.err"
rc=$?
check "failed render: exit 1, the old file intact" \
	'[ $rc = 1 ] && [ "$(cat "$tmp/keep.mp4")" = "the old video" ] && grep -q "two.svg:1:" "$tmp/broken.err"'

folder long small
sed -i 's/"duration": 2.5/"duration": 60/' "$tmp/long/explainer.json"
# the circle moves all the time, so every frame is drawn: a render long enough to interrupt
sed -i 's/dur="1s"/dur="60s"/' "$tmp/long/one.svg"
"$hbx" render "$tmp/long" -o "$tmp/keep.mp4" >/dev/null 2>"$tmp/cancel.err" &
pid=$!
for _ in $(seq 300); do grep -q "rendering" "$tmp/cancel.err" 2>/dev/null && break; sleep 0.1; done
kill -INT $pid
wait $pid
rc=$?
check "cancel: exit 1, says cancelled, the old file intact, no temporary left" \
	'[ $rc = 1 ] && grep -q cancelled "$tmp/cancel.err" && [ "$(cat "$tmp/keep.mp4")" = "the old video" ] &&
	 [ -z "$(ls -A "$tmp" | grep "\.part$")" ]'
"$hbx" render "$tmp/long" -o "$tmp/keep.mp4" >/dev/null 2>"$tmp/kill.err" &
pid=$!
for _ in $(seq 300); do grep -q "rendering" "$tmp/kill.err" 2>/dev/null && break; sleep 0.1; done
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
check "SIGKILL: the old file intact" '[ "$(cat "$tmp/keep.mp4")" = "the old video" ]'
check "SIGKILL: only a temporary beside it" '[ -n "$(ls -A "$tmp" | grep "^\.keep\.mp4\.hb-.*\.part$")" ]'
rm -f "$tmp/fresh.mp4"
"$hbx" render "$tmp/long" -o "$tmp/fresh.mp4" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do [ -n "$(ls -A "$tmp" | grep "^\.fresh")" ] && break; sleep 0.1; done
sleep 0.5
kill -KILL $pid
wait $pid 2>/dev/null
check "SIGKILL: no file at a new target" '[ ! -e "$tmp/fresh.mp4" ]'
"$hbx" render "$tmp/small" -o "$tmp/keep.mp4" >/dev/null 2>&1
rc=$?
check "the next render replaces the file and removes the dead render's temporary" \
	'[ $rc = 0 ] && [ "$(wc -c <"$tmp/keep.mp4")" -gt 10000 ] && [ -z "$(ls -A "$tmp" | grep "^\.keep\.mp4\..*\.part$")" ]'

# ---- bad folders: a clear sentence each, nothing written ----------------
bad() { # NAME EDIT EXPECTED
	folder "bad-$1" small
	(cd "$tmp/bad-$1" && eval "$2")
	"$hbx" check "$tmp/bad-$1" >/dev/null 2>"$tmp/bad-$1.check"
	local crc=$?
	"$hbx" render "$tmp/bad-$1" -o "$tmp/bad-$1.mp4" >/dev/null 2>"$tmp/bad-$1.render"
	local rrc=$? name=$1 want=$3
	check "bad folder, $name: check and render refuse it" \
		'[ $crc = 1 ] && [ $rrc = 1 ] && grep -q "$want" "$tmp/bad-$name.check" && grep -q "$want" "$tmp/bad-$name.render" &&
		 [ ! -e "$tmp/bad-$name.mp4" ] && [ -z "$(ls -A "$tmp" | grep "^\.bad-$name")" ]'
	[ $fail = 0 ] || { echo "--- check:"; cat "$tmp/bad-$name.check"; echo "--- render:"; cat "$tmp/bad-$name.render"; }
}
bad missing-scene 'rm two.svg' "two.svg"
bad viewbox 'sed -i "s/0 0 1920 1080/0 0 1280 720/" one.svg' "one.svg:1:.*viewBox"
bad external 'sed -i "s|<rect width|<image href=\"http://127.0.0.1/x.png\" width=\"10\" height=\"10\"/><rect width|" one.svg' "one.svg:.*http"
bad script 'sed -i "s|<rect width|<script>alert(1)</script><rect width|" one.svg' "one.svg:.*script"
bad font 'sed -i "s/DejaVu Sans/Comic Sans MS/" one.svg' "one.svg:.*Comic Sans MS"
bad wav 'printf "RIFF0000WAVEjunk" >one.wav' "one.wav"
bad zero-scenes 'printf "{\"scenes\": []}\n" >explainer.json' "explainer.json"
# The render's limits, refused by check too, at once and in the same words:
# seven levels of ten <use> each (10 million copies of a rectangle, which
# librsvg gives up on seconds into the first frame), and 3,000 scenes of 600 s
# (54 million frames, whose sound track does not fit in memory).
use_bomb() {
	printf '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1920 1080">\n<defs><g id="l0"><rect width="1" height="1"/></g>\n'
	for l in 1 2 3 4 5 6 7; do
		printf '<g id="l%d">' $l
		for _ in 1 2 3 4 5 6 7 8 9 10; do printf '<use href="#l%d"/>' $((l - 1)); done
		printf '</g>\n'
	done
	printf '</defs><use href="#l7"/></svg>\n'
}
use_bomb >"$tmp/bomb.svg"
bad use-bomb 'cp "$tmp/bomb.svg" two.svg' "two.svg:1: the scene has more than 50000 elements, each <use> counted"
"$hbx" preview "$tmp/bad-use-bomb" two --at start -o "$tmp/bomb.png" 2>"$tmp/bomb-preview.err"
rc=$?
check "preview: the <use> bomb refused with the same sentence" \
	'[ $rc = 1 ] && [ ! -e "$tmp/bomb.png" ] && grep -q "two.svg:1: the scene has more than 50000 elements" "$tmp/bomb-preview.err"'
bad hours 'printf "{\"scenes\": [%s]}\n" "$(for i in $(seq 3000); do printf "%s{\"svg\":\"two.svg\",\"duration\":600}" "$([ $i = 1 ] || echo ,)"; done)" >explainer.json' \
	"explainer.json: the scenes last 1800000.0 s together; an explainer lasts at most 600 s"
exit $fail
