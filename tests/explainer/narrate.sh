#!/bin/sh
# narrate.sh DIR - write a stand-in narration WAV (24 kHz mono 16-bit, as
# svc-speech writes) for every scene of DIR's explainer.json that names
# one: a voice-like warble a second shorter than the scene, so the scene
# ends in a short silence as a narrated one does.  Uses sox (make deps).
set -eu
dir=$1
# "narration": "NAME.wav" and "duration": N pairs, one scene per line.
sed -n 's/.*"narration": *"\([^"]*\)".*"duration": *\([0-9.]*\).*/\1 \2/p; s/.*"duration": *\([0-9.]*\).*"narration": *"\([^"]*\)".*/\2 \1/p' \
	"$dir/explainer.json" >"$dir/.narrations"
if [ ! -s "$dir/.narrations" ]; then
	# one key per line (pretty-printed JSON)
	awk -F'"' '/"narration"/ { n = $4 } /"duration"/ { gsub(/[^0-9.]/, "", $3); if (n != "") print n, $3; n = "" }' \
		"$dir/explainer.json" >"$dir/.narrations"
fi
while read -r wav dur; do
	len=$(awk -v d="$dur" 'BEGIN { l = d - 1; if (l < 0.2) l = 0.2; print l }')
	sox -n -r 24000 -c 1 -b 16 "$dir/$wav" synth "$len" sine 180-260 sine 300 remix 1,2 tremolo 4 60 gain -12
done <"$dir/.narrations"
rm -f "$dir/.narrations"
