#!/bin/sh
# links.sh BUILD - each program links only the libraries its family uses.
#
# The kernel and the bridges need ZeroMQ, msgpack-c and jansson and nothing
# else; a service adds what its own tools need (SQLite for the sessions
# database, libcurl for Gemini, libsamplerate for speech and the
# explainer; librsvg, libxml2 and libav* for the explainer renderer only).  A library that
# reaches a program that never calls it is start-up time, memory and attack
# surface for nothing, and one more thing a confinement must allow.
# Both what the linker is asked for (the Makefile's link line, from
# `make -n`: the toolchain may drop an unused library by itself with
# --as-needed, which would hide a Makefile that links everything) and what
# the program loads (ldd, Linux only).  One ok/FAIL line per program.
# The WebSocket client's wslay and OpenSSL are in libws.a (ws/) for the
# programs that call ws_* (svc-alerts, for its link to the relay, and
# svc-browser, for Chrome's DevTools); no other
# program listed here may ask for them (libcurl loads OpenSSL by itself, so
# ldd is asked about wslay only).
set -u
build=${1:-build}
failed=0

if ! command -v ldd >/dev/null 2>&1; then
	echo "skip links: no ldd on this system"
	exit 0
fi

# check PROGRAM "LIBS IT MAY LINK"
check() {
	prog=$1
	allowed=$2
	asked=$(make -s -n -B BUILD="$build" "$build/$prog" 2>/dev/null | grep -- "-o $build/$prog " |
		grep -oE -- '-l(zmq|msgpackc?|jansson|sqlite3|curl|samplerate|rsvg-2|avcodec|avformat|swscale|xml2|wslay|ssl|crypto)\b' | sed 's/^-l/lib/')
	loaded=$(ldd "$build/$prog" | grep -oE 'lib(zmq|msgpackc?|jansson|sqlite3|curl|samplerate|rsvg-2|avcodec|avformat|swscale|xml2|wslay)\.so' |
		sed 's/\.so$//')
	got=$(printf '%s\n%s\n' "$asked" "$loaded" | grep . | sort -u | tr '\n' ' ')
	if [ -z "$asked" ]; then
		echo "FAIL $prog: no link line for it in make -n"
		failed=$((failed + 1))
		return
	fi
	bad=
	for lib in $got; do
		case " $allowed " in
		*" $lib "*) ;;
		*) bad="$bad $lib" ;;
		esac
	done
	if [ -n "$bad" ]; then
		echo "FAIL $prog links$bad, which it never uses (links: $got)"
		failed=$((failed + 1))
	else
		echo "ok   $prog: $got"
	fi
}

base="libzmq libmsgpackc libjansson"
check hb-broker "$base"
check hbctl "$base"
check hb-codex-bridge "$base"
check hb-claude-bridge "$base"
check svc-sessions "$base libsqlite3"
check svc-messages "$base libsqlite3"
check svc-speech "$base libcurl libsamplerate"
check svc-video "$base libcurl"
# Debian's libavformat itself loads libzmq (its zmq: protocol); the
# renderer's link line does not ask for it.
check hb-explainer "libjansson libsamplerate librsvg-2 libavcodec libavformat libswscale libxml2 libzmq"
check svc-alerts "$base libsqlite3 libwslay libssl libcrypto"
check svc-browser "$base libcurl libwslay libssl libcrypto"
check svc-explainer "$base libsamplerate librsvg-2 libavcodec libavformat libswscale libxml2"
[ "$failed" -eq 0 ]
