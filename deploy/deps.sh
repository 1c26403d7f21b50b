#!/bin/sh
# deps.sh - install the build and test dependencies that are missing.
#
# Called by `make deps` (and so by `make run` and `make test`) as
#   sh deploy/deps.sh PKG...
# with Debian package names.  Prints nothing when everything is there.
# On Debian/Ubuntu: as root, installs what is missing with apt-get; as
# another user, prints the one sudo line to run and fails.  Without dpkg
# (macOS), checks the libraries through pkg-config and prints the brew line.
set -u

if ! command -v dpkg-query >/dev/null 2>&1; then
	# No dpkg: macOS or another system; the Debian names mean nothing here.
	ok=1
	command -v pkg-config >/dev/null 2>&1 || ok=0
	if [ "$ok" = 1 ]; then
		pkg-config --exists libzmq jansson sqlite3 libcurl samplerate || ok=0
		pkg-config --exists msgpack-c || pkg-config --exists msgpack || ok=0
		pkg-config --exists cmocka || ok=0
		pkg-config --exists librsvg-2.0 libxml-2.0 fontconfig libpng libavcodec libavformat || ok=0
		pkg-config --exists openssl || ok=0
	fi
	[ "$ok" = 1 ] && exit 0
	echo "deps: libzmq, msgpack-c, jansson, sqlite3, libcurl, libsamplerate, cmocka, librsvg, libxml2, fontconfig, libpng, FFmpeg or OpenSSL not found through pkg-config." >&2
	echo "deps: install them with:" >&2
	echo "    brew install zeromq msgpack jansson sqlite curl libsamplerate sox cmocka pkg-config librsvg libxml2 fontconfig libpng ffmpeg wslay openssl@3" >&2
	echo "deps: (with Homebrew's sqlite, also export PKG_CONFIG_PATH=\"\$(brew --prefix sqlite)/lib/pkgconfig\")" >&2
	exit 1
fi

missing=
for pkg in "$@"; do
	# The status of a package that was never installed is an error; one that
	# was removed reads "deinstall ok config-files": both count as missing.
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) || status=
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $pkg" ;;
	esac
done
missing=${missing# }

[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing $missing" >&2
	# A failed update (offline mirror) may still leave a usable index.
	apt-get update -qq >/dev/null || echo "deps: apt-get update failed; trying the install anyway" >&2
	# shellcheck disable=SC2086 # one word per package
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null || {
		echo "deps: apt-get install failed for: $missing" >&2
		exit 1
	}
	exit 0
fi

echo "deps: missing packages: $missing" >&2
echo "deps: install them with:" >&2
echo "    sudo apt-get install -y $missing" >&2
exit 1
