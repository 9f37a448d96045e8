# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# reflink-recovery: log recovery with reflink and rmap.  Three cycles of:
# write source files and fsync them, reflink copies (whole files and
# ranges), copy-on-write overwrites of copies and sources, xattrs, fsync
# of every file that will be verified; then, while two background jobs
# keep reflinking, CoW-writing, setting xattrs, renaming and unlinking,
# "xfs_io -x -c 'shutdown -f'" (log flushed first), umount, mount again so
# that log recovery replays the log (intents, CoW staging extents), and
# verify the checksums and xattrs of every fsynced file of all cycles so
# far.  At the end xfs_scrub -n and xfs_repair -n must find nothing.
# The background jobs get EIO once the filesystem is shut down; that is
# expected and not checked.
#
# nofs-disks: 1
# shellcheck source=lib.sh
. /scenarios/lib.sh

DEV=/dev/vda
MNT=/mnt
CYCLES=${CYCLES:-3}
NSRC=6				# source files per cycle
DURABLE=/tmp/durable.sums	# checksums of the fsynced files
ATTRS=/tmp/durable.attrs	# getfattr dump of the fsynced xattrs

BIGVAL=$(rep 0123456789 300)	# a remote xattr value

fsync() { xfs_io -c fsync "$@"; }

# durable_files DIR C: the files of cycle C, all fsynced; records their
# checksums and xattrs.
durable_files() {
	local d=$1 c=$2 i kib
	mkdir -p "$d" || return 1
	i=0
	while [ $i -lt $NSRC ]; do
		kib=$((256 << (i % 4)))		# 256 KiB .. 2 MiB
		head -c $((kib * 1024 + i * 777)) /dev/urandom > "$d/src$i" &&
			fsync "$d/src$i" || return 1
		# whole-file reflink, then CoW overwrites in the copy (one
		# unaligned) and, for even i, in the source too
		xfs_io -f -c "reflink $d/src$i" \
			-c "pwrite -q -S 0x$((i + 41)) 4096 65536" \
			-c "pwrite -q -S 0x$((i + 61)) $((100000 + i * 4321)) 30000" \
			-c fsync "$d/copy$i" || return 1
		if [ $((i % 2)) -eq 0 ]; then
			xfs_io -c "pwrite -q -S 0x7e 131072 8192" -c fsync "$d/src$i" || return 1
		fi
		# a range of the copy reflinked into a third file, CoW on it
		xfs_io -f -c "reflink $d/copy$i 65536 0 131072" \
			-c "pwrite -q -S 0x$((i + 21)) 8192 4096" \
			-c fsync "$d/part$i" || return 1
		if [ -n "$HAVE_XATTR" ]; then
			setfattr -n user.cycle -v "$c" "$d/copy$i" &&
				setfattr -n user.big -v "$BIGVAL" "$d/copy$i" &&
				setfattr -n user.part -v "part$i" "$d/part$i" &&
				fsync "$d/copy$i" "$d/part$i" || return 1
		fi
		i=$((i + 1))
	done
	sha256sum "$d"/src* "$d"/copy* "$d"/part* >> "$DURABLE" || return 1
	if [ -n "$HAVE_XATTR" ]; then
		getfattr --absolute-names -d "$d"/copy* "$d"/part* >> "$ATTRS" || return 1
	fi
	echo "cycle $c: $NSRC sources (256 KiB..2 MiB), $NSRC reflinked copies with" \
		"CoW overwrites, $NSRC partial reflinks, $((NSRC / 2)) CoW overwrites of" \
		"sources${HAVE_XATTR:+, $((NSRC * 3)) xattrs}; all fsynced"
}

# bg_cow DIR: reflink the sources into new files, CoW-write them, set an
# xattr, unlink old ones; until the filesystem is shut down.
bg_cow() {
	local d=$1 n=0
	mkdir -p "$d/bg" || return 0
	while [ $n -lt 5000 ] && [ -d "$d/bg" ]; do
		xfs_io -f -c "reflink $d/src$((n % NSRC))" \
			-c "pwrite -q -S 0x55 $(((n * 12345) % 250000)) 20000" \
			"$d/bg/f$n" 2>/dev/null
		[ -z "$HAVE_XATTR" ] || setfattr -n user.n -v "$n" "$d/bg/f$n" 2>/dev/null
		rm -f "$d/bg/f$((n - 3))" 2>/dev/null
		n=$((n + 1))
	done
	echo "$n" > /tmp/bg_cow.count
}

# bg_meta DIR: creates, renames, symlinks, xattrs, unlinks.  The files
# are a block or more, and their size is made durable (fsync) before they
# get an xattr: inactivating a file whose on-disk size is below one block
# while its xattrs need blocks (leaf or remote) trips "Assertion failed:
# new_size <= XFS_ISIZE(ip)" (xfs_attr_inactive -> xfs_itruncate_extents_
# flags) with CONFIG_XFS_WARN on the 6.12.118 base, also when log recovery
# inactivates such a file after a shutdown; that is not what this tests
# (see known-attr-inactive-assert.sh).
bg_meta() {
	local d=$1 n=0
	mkdir -p "$d/meta" || return 0
	while [ $n -lt 20000 ] && [ -d "$d/meta" ]; do
		xfs_io -f -c "pwrite -q -S 0x6d 0 8192" -c fsync \
			"$d/meta/m$n" >/dev/null 2>&1
		mv "$d/meta/m$n" "$d/meta/r$n" 2>/dev/null
		ln -s "r$n" "$d/meta/s$n" 2>/dev/null
		[ -z "$HAVE_XATTR" ] || setfattr -n user.m -v "$BIGVAL" "$d/meta/r$n" 2>/dev/null
		rm -f "$d/meta/r$((n - 4))" "$d/meta/s$((n - 4))" 2>/dev/null
		n=$((n + 1))
	done
	echo "$n" > /tmp/bg_meta.count
}

shutdown_during_work() {
	local d=$1 p1 p2
	rm -f /tmp/bg_cow.count /tmp/bg_meta.count
	bg_cow "$d" & p1=$!
	bg_meta "$d" & p2=$!
	sleep "$2"
	xfs_io -x -c "shutdown -f" "$MNT" || return 1
	wait $p1 $p2
	echo "shut down after $(cat /tmp/bg_cow.count) reflink+CoW+xattr+unlink and" \
		"$(cat /tmp/bg_meta.count) create+rename+symlink+xattr+unlink iterations"
	echo "$MNT now: $(stat -c %n "$MNT" 2>&1)"
}

# mount_recover: mount, show the log recovery lines of the kernel log
# (cleared first; the console keeps everything).
mount_recover() {
	local re
	re="XFS \(${DEV#/dev/}\): (Starting|Ending) recovery"
	dmesg -c > /dev/null
	mount -t xfs "$DEV" "$MNT" || return 1
	dmesg | grep -E "$re"
	[ "$(dmesg | grep -cE "$re")" -eq 2 ]
}

verify_durable() {
	local bad
	if ! verify_files_in "$DURABLE"; then return 1; fi
	echo "$(wc -l < "$DURABLE") fsynced files: checksums match"
	[ -n "$HAVE_XATTR" ] || return 0
	# shellcheck disable=SC2046 # one word per path
	bad=$(getfattr --absolute-names -d $(awk '{ print $2 }' "$DURABLE" | grep -v /src) |
		diff "$ATTRS" - | head -n 20)
	[ -z "$bad" ] || { echo "xattrs differ:"; echo "$bad"; return 1; }
	echo "$(grep -c '^user\.' "$ATTRS") xattrs match"
}

# verify_files_in SUMS: lib's verify_files on another checksum list.
verify_files_in() { SUMS=$1 verify_files; }

require "mkfs.xfs -m reflink=1,rmapbt=1 $DEV" mkfs.xfs -f -m reflink=1,rmapbt=1 "$DEV"
require "mount $DEV on $MNT" mount -t xfs "$DEV" "$MNT"
: > "$DURABLE"
: > "$ATTRS"
[ -n "$HAVE_XATTR" ] || say "no setfattr in the initramfs (host package attr): xattrs skipped"
c=1
while [ $c -le "$CYCLES" ]; do
	say "cycle $c of $CYCLES"
	require "cycle $c: write, reflink, CoW, xattrs, fsync" durable_files "$MNT/c$c" $c
	require "cycle $c: shutdown -f after $((3 + 3 * c)) s of reflink/CoW/xattr/unlink work" \
		shutdown_during_work "$MNT/c$c" $((3 + 3 * c))
	require "cycle $c: umount the shut down filesystem" umount "$MNT"
	require "cycle $c: mount again, log recovery ran" mount_recover
	check "cycle $c: every fsynced file of cycles 1..$c intact" verify_durable
	c=$((c + 1))
done
check "xfs_scrub -n after $CYCLES recoveries: clean" xfs_scrub -n "$MNT"
require "umount $MNT" umount "$MNT"
check "xfs_repair -n: filesystem clean" xfs_repair -n "$DEV"
finish
