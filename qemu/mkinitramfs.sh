#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest initramfs for the QEMU scenarios:
#
#   mkinitramfs.sh OUT.cpio.gz
#
# Contents: the host's busybox-static with its applet links, the xfsprogs
# e2fsprogs and btrfs-progs binaries with their shared libraries, qemu/guest/init as /init and
# qemu/guest/scenarios/*.sh and the stress campaign's stress/guest/*.sh in
# /scenarios, and qemu/guest/tools/*.c built
# static into /usr/bin (gcc, libc6-dev).  The archive is rebuilt only when
# one of those inputs changed (OUT.cpio.gz.stamp records a digest of their
# names, sizes and mtimes), so it is cheap to call before every run.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
GUEST=$HERE/guest
STRESS_GUEST=$HERE/../stress/guest
BUSYBOX=/bin/busybox
# Binaries that must be present; xfs_spaceman backs xfs_info on mounts.
XFS_BINS="mkfs.xfs xfs_io xfs_repair xfs_db xfs_quota xfs_scrub xfs_spaceman"
# The ext4 scenarios (package e2fsprogs); xfs_io drives ext4 too.
EXT4_BINS="mke2fs mkfs.ext4 e2fsck fsck.ext4 dumpe2fs tune2fs debugfs chattr lsattr"
# The btrfs scenarios (package btrfs-progs): mkfs, check, balance, scrub
BTRFS_BINS="mkfs.btrfs btrfs"
# Shell wrappers from xfsprogs that work with busybox sh (xfs_info only
# for devices: busybox has no findmnt, so it always falls back to xfs_db).
XFS_SCRIPTS="xfs_admin xfs_info"
# The xattr and ACL steps of the scenarios (packages attr and acl): a
# scenario without them fails, it does not skip.  xfs_io 6.1 has no
# command to set an extended attribute.
XATTR_BINS="setfattr getfattr setfacl getfacl"
# Copied with their libraries into /usr/bin: those, and the metadata
# benchmark workload when the host has it (package fsmark; make bench
# checks for it itself).
EXTRA_BINS="$XATTR_BINS fs_mark"
LOADER=/lib64/ld-linux-x86-64.so.2

say() { printf '==> %s\n' "$*"; }
die() { printf 'mkinitramfs: error: %s\n' "$*" >&2; exit 1; }

usage() { echo "usage: $0 OUT.cpio.gz" >&2; exit 2; }

# Path of an xfsprogs or e2fsprogs program, or die naming the package.
tool_path() {
	local p pkg=xfsprogs
	for p in /usr/sbin/$1 /sbin/$1 /usr/bin/$1; do
		[ -x "$p" ] && { echo "$p"; return; }
	done
	case " $EXT4_BINS " in *" $1 "*) pkg=e2fsprogs ;; esac
	case " $BTRFS_BINS " in *" $1 "*) pkg=btrfs-progs ;; esac
	case $1 in setfattr|getfattr) pkg=attr ;; setfacl|getfacl) pkg=acl ;; esac
	die "$1 not found: apt-get install $pkg"
}

check_host() {
	local b
	[ -x "$BUSYBOX" ] || die "$BUSYBOX not found: apt-get install busybox-static"
	file_is_static "$BUSYBOX" ||
		die "$BUSYBOX is not statically linked: apt-get install busybox-static"
	for b in $XFS_BINS $EXT4_BINS $BTRFS_BINS $XFS_SCRIPTS $XATTR_BINS; do
		tool_path "$b" >/dev/null
	done
	command -v cpio >/dev/null || die "cpio not found: apt-get install cpio"
	command -v gzip >/dev/null || die "gzip not found: apt-get install gzip"
	command -v ldd >/dev/null || die "ldd not found: apt-get install libc-bin"
	[ -x "$LOADER" ] || die "$LOADER not found: apt-get install libc6"
	command -v gcc >/dev/null || die "gcc not found: apt-get install gcc libc6-dev"
	[ -x "$GUEST/init" ] || die "$GUEST/init is missing or not executable"
	ls "$GUEST"/scenarios/*.sh >/dev/null 2>&1 || die "no scenarios in $GUEST/scenarios"
}

file_is_static() { ! ldd "$1" >/dev/null 2>&1; }

# Shared libraries (resolved paths) of the given ELF binaries, one a line.
shared_libs() {
	ldd "$@" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u
}

tool_bins() { local b; for b in $XFS_BINS $EXT4_BINS $BTRFS_BINS; do tool_path "$b"; done; }

# Paths of the EXTRA_BINS that the host has.
extra_bins() {
	local b
	for b in $EXTRA_BINS; do
		PATH=$PATH:/usr/sbin:/sbin command -v "$b" || true
	done
}

# Every host file that goes into the archive, plus this script.
inputs() {
	local b
	{
		echo "$0"; echo "$BUSYBOX"; echo "$LOADER"
		for b in $XFS_BINS $EXT4_BINS $BTRFS_BINS $XFS_SCRIPTS; do tool_path "$b"; done
		# shellcheck disable=SC2046 # one word per path
		shared_libs $(tool_bins) $(extra_bins)
		extra_bins
		find "$GUEST" "$STRESS_GUEST" -type f
	} | sort -u
}

# Digest of names, sizes and mtimes (following symlinks) of all inputs.
digest() { inputs | xargs stat -L -c '%n %s %Y' | sha256sum | cut -d' ' -f1; }

# Copy a host file to the same path under the staging root.
put() { install -D "$1" "$ROOT$1"; }

stage() {
	local b
	mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,mnt,etc,root}
	cp "$BUSYBOX" "$ROOT/bin/busybox"
	# Applet links; /init is ours, so skip busybox's init and linuxrc.
	for b in $("$BUSYBOX" --list); do
		case $b in busybox|init|linuxrc) continue ;; esac
		ln -s busybox "$ROOT/bin/$b"
	done
	for b in $XFS_BINS $EXT4_BINS $BTRFS_BINS $XFS_SCRIPTS; do
		install -m 755 "$(tool_path "$b")" "$ROOT/usr/sbin/$b"
	done
	put "$LOADER"
	for b in $(extra_bins); do
		install -m 755 "$b" "$ROOT/usr/bin/${b##*/}"
	done
	# shellcheck disable=SC2046
	for b in $(shared_libs $(tool_bins) $(extra_bins)); do put "$b"; done
	for b in "$GUEST"/tools/*.c; do
		gcc -static -Os -Wall -Wextra -Werror -o "$ROOT/usr/bin/$(basename "$b" .c)" "$b" ||
			die "building $b failed (static: needs libc6-dev)"
	done
	install -m 755 "$GUEST/init" "$ROOT/init"
	mkdir -p "$ROOT/scenarios"
	cp "$GUEST"/scenarios/*.sh "$STRESS_GUEST"/*.sh "$ROOT/scenarios/"
	echo 'root:x:0:0:root:/root:/bin/sh' > "$ROOT/etc/passwd"
	echo 'root:x:0:' > "$ROOT/etc/group"
	ln -s /proc/mounts "$ROOT/etc/mtab"
	# The kernel opens /dev/console before running /init; creating the
	# node needs root, else /init reopens it once devtmpfs is mounted.
	mknod -m 600 "$ROOT/dev/console" c 5 1 2>/dev/null || true
}

main() {
	[ $# -eq 1 ] || usage
	local out=$1 sum tmp
	check_host
	mkdir -p "$(dirname "$out")"
	sum=$(digest)
	if [ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$sum" ]; then
		say "initramfs up to date: $out"
		return
	fi
	say "building initramfs $out"
	ROOT=$(mktemp -d "${TMPDIR:-/tmp}/nofs-initramfs.XXXXXX")
	trap 'rm -rf "$ROOT"' EXIT
	stage
	tmp="$out.tmp.$$"
	(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
		gzip -6 > "$tmp"
	mv "$tmp" "$out"
	echo "$sum" > "$out.stamp"
	say "initramfs ready: $out ($(du -h "$out" | cut -f1))"
}

main "$@"
