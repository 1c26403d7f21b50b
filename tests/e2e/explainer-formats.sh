#!/bin/bash
# explainer-formats.sh BUILD - every video format at both frame rates
# (issue 36): each folder of tests/fixtures/explainer-formats (16:9
# 1920x1080, 9:16 1080x1920, 1:1 1080x1080), with "fps" 30 and 60, is
# checked, previewed and rendered by hb-explainer; ffprobe sees the
# canvas's size, the rate, the video lasting its frames, all of them
# decoded, and the audio ending within a frame of it.  A scene drawn for
# another canvas, an unknown format and an unknown rate are refused with
# a sentence that names what is allowed.
set -u
build=${1:-build}
hbx=$build/hb-explainer
here=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"

# A copy of the fixture NAME at FPS frames a second, with its narration.
folder() { # NAME FPS
	local dir=$tmp/$1-$2
	rm -rf "$dir" && cp -r "$here/fixtures/explainer-formats/$1" "$dir" &&
		sed -i "s/\"scenes\"/\"fps\": $2,\n  \"scenes\"/" "$dir/explainer.json" &&
		sh "$here/explainer/narrate.sh" "$dir"
}
probe() { ffprobe -v error -select_streams "$1" -show_entries "$2" -of default=nw=1:nk=1 "$3"; }

for spec in "16x9 16:9 1920 1080" "9x16 9:16 1080 1920" "1x1 1:1 1080 1080"; do
	set -- $spec
	name=$1 format=$2 w=$3 h=$4
	for fps in 30 60; do
		dir=$tmp/$name-$fps
		what="$format at $fps fps"
		folder "$name" "$fps"
		frames=$((2 * fps))
		out=$("$hbx" check "$dir" 2>&1)
		check "$what: check names the canvas" \
			'echo "$out" | grep -q ": $format ${w}x$h at $fps fps, 1 scenes, $frames frames, 2.00 s: ok"'
		"$hbx" preview "$dir" 1 --at end -o "$tmp/$name-$fps.png" >/dev/null 2>&1
		check "$what: the preview is ${w}x$h" \
			'[ "$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$tmp/$name-$fps.png")" = "$w,$h" ]'
		"$hbx" sheet "$dir" -o "$tmp/$name-$fps-sheet.png" >/dev/null 2>&1
		sw=$((2 * w / 4 + 48)) sh=$((30 + h / 4 + 16 + 16))
		check "$what: the contact sheet's thumbnails keep the shape (${sw}x$sh)" \
			'[ "$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$tmp/$name-$fps-sheet.png")" = "$sw,$sh" ]'
		mp4=$tmp/$name-$fps.mp4
		"$hbx" render "$dir" -o "$mp4" >"$tmp/render.out" 2>&1
		rc=$?
		check "$what: render exits 0 with $frames frames" '[ $rc = 0 ] && grep -q "$frames frames (2.00 s)" "$tmp/render.out"'
		check "$what: h264 ${w}x$h yuv420p" \
			'[ "$(probe v:0 stream=codec_name,width,height,pix_fmt "$mp4" | tr "\n" " ")" = "h264 $w $h yuv420p " ]'
		check "$what: r_frame_rate $fps/1" '[ "$(probe v:0 stream=r_frame_rate,avg_frame_rate "$mp4" | tr "\n" " ")" = "$fps/1 $fps/1 " ]'
		check "$what: $frames frames decoded" \
			'[ "$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of default=nw=1:nk=1 "$mp4")" = $frames ]'
		vdur=$(probe v:0 stream=duration "$mp4")
		adur=$(probe a:0 stream=duration "$mp4")
		check "$what: the video lasts 2 s within a frame ($vdur s)" \
			'awk -v v="$vdur" -v f="$fps" "BEGIN { d = v - 2; if (d < 0) d = -d; exit !(d < 1 / f) }"'
		check "$what: AAC 48 kHz mono ending within a frame of the video ($adur s)" \
			'[ "$(probe a:0 stream=codec_name,sample_rate,channels "$mp4" | tr "\n" " ")" = "aac 48000 1 " ] &&
			 awk -v a="$adur" -v v="$vdur" -v f="$fps" "BEGIN { d = a - v; if (d < 0) d = -d; exit !(d <= 1 / f) }"'
		peak=$(ffmpeg -nostdin -i "$mp4" -t 1 -af volumedetect -f null - 2>&1 | sed -n 's/.*max_volume: \(-*[0-9.]*\) dB.*/\1/p')
		check "$what: the narration is heard in the first second (peak $peak dB)" \
			'[ -n "$peak" ] && awk -v p="$peak" "BEGIN { exit !(p > -30) }"'
	done
done

# ---- refusals ------------------------------------------------------------
folder 9x16 30
cp "$here/fixtures/explainer-formats/16x9/scene.svg" "$tmp/9x16-30/scene.svg"
out=$("$hbx" check "$tmp/9x16-30" 2>&1)
rc=$?
check "a 16:9 scene in a 9:16 folder is refused with the canvas's viewBox" \
	'[ $rc != 0 ] && echo "$out" | grep -q "scene.svg:1: viewBox is \"0 0 1920 1080\"; a scene.s viewBox must be \"0 0 1080 1920\" (the video is 1080x1920"'
folder 1x1 30
sed -i 's/"1:1"/"4:3"/' "$tmp/1x1-30/explainer.json"
out=$("$hbx" check "$tmp/1x1-30" 2>&1)
rc=$?
check "an unknown format is refused, naming the three" \
	'[ $rc != 0 ] && echo "$out" | grep -q "\"format\" is \"4:3\", which is not a format; give \"16:9\" (1920x1080, landscape, the default), \"9:16\" (1080x1920, vertical) or \"1:1\" (1080x1080, square)"'
folder 1x1 25
out=$("$hbx" check "$tmp/1x1-25" 2>&1)
rc=$?
check "an unknown rate is refused, naming 30 and 60" \
	'[ $rc != 0 ] && echo "$out" | grep -q "\"fps\" is 25, which is not a frame rate a video may have; give 30 (the default) or 60"'
exit $fail
