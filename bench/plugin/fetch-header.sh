#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/plugin/fetch-header.sh: put QEMU's qemu-plugin.h for the installed
# qemu-system-x86 in CACHE_DIR/qemu-src/include (cached).  Debian ships the
# header only in the qemu source package, so this enables deb-src for the
# Debian archive apt already uses (an APT source file derived at run time
# from its deb entries), runs apt-get update and apt-get source
# --download-only for the installed version, and takes the header out of
# the source: the upstream tarball, or the patched tree if a Debian patch
# touches it.
#
#   bench/plugin/fetch-header.sh        prints the include directory
#
# Environment: CACHE_DIR (~/.cache/nofs-scope), LOG_DIR (CACHE_DIR/logs);
# the log is LOG_DIR/bench/qemu-header.log.  Needs root for apt.
set -eu -o pipefail

: "${CACHE_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/nofs-scope}"
: "${LOG_DIR:=$CACHE_DIR/logs}"
SRC=$CACHE_DIR/qemu-src
INC=$SRC/include
LOG=$LOG_DIR/bench/qemu-header.log
APT_FILE=/etc/apt/sources.list.d/nofs-scope-deb-src.sources

say() { printf '==> %s\n' "$*" >&2; }
die() {
	printf 'fetch-header: error: %s\n' "$*" >&2
	printf 'fetch-header: log: %s\n' "$LOG" >&2
	exit 1
}

# deb_src_stanzas: deb-src stanzas (deb822) for every "deb" entry of apt's
# sources that serves this Debian release (its codename in the suites)
deb_src_stanzas() {
	local codename f
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || return 1
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && [ "$f" != "$APT_FILE" ] || continue
		awk -v cn="$codename" '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && suites ~ ("(^| )" cn "( |$)") &&
				    uris != "" && enabled != "no")
					printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n%s\n",
						uris, suites, comps, signed ? "Signed-By: " signed "\n" : ""
				types = uris = suites = comps = signed = enabled = ""
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			{ k = tolower($1); sub(/:$/, "", k); v = $0; sub(/^[^:]*:[ \t]*/, "", v) }
			k == "types" { types = v } k == "uris" { uris = v }
			k == "suites" { suites = v } k == "components" { comps = v }
			k == "signed-by" { signed = v } k == "enabled" { enabled = tolower(v) }
			END { flush() }' "$f"
	done
	# one-line format: deb [options] URI SUITE COMPONENT...
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v cn="$codename" '
			$1 != "deb" { next }
			{ i = 2; opts = ""
			  if ($2 ~ /^\[/) { while ($i !~ /\]$/) opts = opts " " $(i++); opts = opts " " $(i++) }
			  if ($(i + 1) !~ ("^" cn "(-|$)")) next
			  comps = ""; for (j = i + 2; j <= NF; j++) comps = comps " " $j
			  printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:%s\n\n", $i, $(i + 1), comps }' "$f"
	done
}

# have_source VERSION: apt knows the qemu source package VERSION
have_source() {
	# (no grep -q: with pipefail, apt-cache's SIGPIPE would fail the test)
	apt-cache showsrc qemu 2>/dev/null | grep -Fx "Version: $1" > /dev/null
}

enable_deb_src() {
	local stanzas
	stanzas=$(deb_src_stanzas) || die "no VERSION_CODENAME in /etc/os-release"
	[ -n "$stanzas" ] ||
		die "no Debian 'deb' entry for this release in /etc/apt/sources.list{,.d/}: cannot derive a deb-src entry"
	[ "$(id -u)" = 0 ] || die "adding $APT_FILE and apt-get update need root"
	say "enabling deb-src in $APT_FILE (derived from apt's deb entries)"
	{ echo "# deb-src for bench/plugin/fetch-header.sh (nofs-scope): QEMU's plugin header"
	  echo "$stanzas"; } > "$APT_FILE"
	echo "---- $APT_FILE:" >> "$LOG"
	cat "$APT_FILE" >> "$LOG"
	say "apt-get update (log: $LOG)"
	apt-get update >> "$LOG" 2>&1 || die "apt-get update failed"
}

first() { echo "$1"; }

# header_from_sources VERSION UPSTREAM: the header from the downloaded source
header_from_sources() {
	local ver=$1 up=$2 orig deb
	orig=$(first "$SRC"/qemu_"$up".orig.tar.*)
	deb=$(first "$SRC"/qemu_"${ver#*:}".debian.tar.*)
	[ -f "$orig" ] && [ -f "$deb" ] ||
		die "apt-get source left no qemu_$up.orig.tar.* and qemu_${ver#*:}.debian.tar.* in $SRC"
	mkdir -p "$INC/qemu"
	if tar -xOf "$deb" --wildcards 'debian/patches/*' 2>>"$LOG" |
	   grep '^+++ .*include/qemu/qemu-plugin\.h' >> "$LOG"; then
		say "a Debian patch changes qemu-plugin.h: unpacking the patched source"
		rm -rf "$SRC/tree"
		(cd "$SRC" && dpkg-source --no-check -x "qemu_${ver#*:}.dsc" tree) \
			>> "$LOG" 2>&1 || die "dpkg-source -x failed"
		cp "$SRC/tree/include/qemu/qemu-plugin.h" "$INC/qemu/"
		rm -rf "$SRC/tree"
	else
		say "extracting include/qemu/qemu-plugin.h from $(basename "$orig")"
		tar -xOf "$orig" --wildcards --no-anchored 'include/qemu/qemu-plugin.h' \
			> "$INC/qemu/qemu-plugin.h" 2>>"$LOG" ||
			die "no include/qemu/qemu-plugin.h in $orig"
	fi
}

main() {
	local ver up qver api
	mkdir -p "$SRC" "$(dirname "$LOG")"
	: > "$LOG"
	command -v qemu-system-x86_64 >/dev/null ||
		die "qemu-system-x86_64 not found: apt-get install qemu-system-x86"
	# the source version of the installed binary (no binNMU suffix)
	ver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>>"$LOG") ||
		die "qemu-system-x86 is not installed as a Debian package"
	up=${ver#*:}; up=${up%-*}
	qver=$(qemu-system-x86_64 --version | sed -n '1s/^QEMU emulator version \([0-9]*\.[0-9]*\).*/\1/p')
	[ "${up%%+*}" = "$qver" ] ||
		die "qemu-system-x86_64 --version says $qver, its Debian source is $ver"
	if [ -f "$INC/qemu/qemu-plugin.h" ] && [ "$(cat "$SRC/version" 2>/dev/null)" = "$ver" ]; then
		echo "$INC"
		return
	fi
	say "QEMU plugin header for qemu $ver (into $SRC)"
	rm -f "$SRC/version"
	if ! have_source "$ver"; then
		enable_deb_src
		have_source "$ver" ||
			die "apt has no source package qemu $ver after enabling deb-src (the mirror serves: $(apt-cache showsrc qemu 2>/dev/null | sed -n 's/^Version: //p' | tr '\n' ' '))"
	fi
	if [ ! -f "$(first "$SRC"/qemu_"$up".orig.tar.*)" ]; then
		say "apt-get source --download-only qemu=$ver (about 25 MB; log: $LOG)"
		(cd "$SRC" && apt-get source --download-only "qemu=$ver") >> "$LOG" 2>&1 ||
			die "apt-get source --download-only qemu=$ver failed"
	fi
	header_from_sources "$ver" "$up"
	api=$(sed -n 's/^#define QEMU_PLUGIN_VERSION \([0-9]*\)$/\1/p' "$INC/qemu/qemu-plugin.h")
	[ -n "$api" ] || die "$INC/qemu/qemu-plugin.h defines no QEMU_PLUGIN_VERSION"
	echo "$ver" > "$SRC/version"
	say "qemu-plugin.h of qemu $ver (QEMU $qver, plugin API version $api)"
	echo "$INC"
}

main "$@"
