# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# ext4-shutdown-recovery: jbd2 journal replay and orphan cleanup after a
# forced shutdown.  CYCLES (3) cycles of: write files under temporary
# names, overwrite and extend them, rename them into place, hard-link
# some, set xattrs (one in an external block), fsync every file that will
# be verified and its directory; hold an unlinked 1 MiB file open (an
# orphan); then, while three background jobs keep jbd2 busy (creates,
# writes, truncates, renames, symlinks, xattrs, unlinks, directory
# removal, an fsync now and then), shut ext4 down with EXT4_IOC_SHUTDOWN
# ("xfs_io -x -c shutdown", the ioctl XFS_IOC_GOINGDOWN shares), umount,
# check that the journal holds committed transactions to replay, mount
# again so that jbd2 recovery and the orphan cleanup run, and verify the
# checksums and xattrs of every fsynced file of all cycles so far.  At the
# end e2fsck -fn must find nothing.
#
# Cycle 1 mounts with data=ordered and shuts down with -f (the journal is
# committed, then aborted), cycle 2 with data=ordered and no flush (the
# running transaction is lost), cycle 3 with data=journal and -f; further
# cycles repeat that.  The background jobs get EIO once the filesystem is
# shut down; that is expected and not checked.
#
# nofs-disks: 1
# shellcheck source=lib.sh
. /scenarios/lib.sh

DEV=/dev/vda
MNT=/mnt
CYCLES=${CYCLES:-3}
JOURNAL_MB=${JOURNAL_MB:-128}
NSRC=6				# verified files per cycle
DURABLE=/tmp/durable.sums	# checksums of the fsynced files
ATTRS=/tmp/durable.attrs	# getfattr dump of their xattrs
STOP=/tmp/stop-bg		# tells the background jobs to end

MVAL=$(rep abcdefghij 100)	# too big for the inode: an xattr block
BODY=$(rep 0123456789 50)

# Mount options and shutdown flag of cycle C (see the top).  The
# truncates of bg_data are to an unaligned size (100000) except under
# data=journal, where they are block aligned (98304): on the 6.12.118
# base, truncating a data=journal file to an unaligned size zeroes the
# tail of its last page in truncate_pagecache() without jbd2 write access
# (ext4_wait_for_tail_page_commit() does not wait when the block size is
# the page size), also while a commit is writing that block to the
# journal; the log copy then no longer matches its checksum, and the next
# mount fails: "JBD2: Invalid checksum recovering data block".  That is a
# base kernel bug, not what this scenario tests.
mount_opts() {
	case $((($1 - 1) % 3)) in
	2) echo data=journal ;;
	*) echo data=ordered ;;
	esac
}
shutdown_flag() {
	case $((($1 - 1) % 3)) in
	1) echo "" ;;
	*) echo "-f" ;;
	esac
}

# durable_files DIR C: the files of cycle C, then one xfs_io that fsyncs
# each of them and their directory (xfs_io runs a command on every file
# it opened); records their checksums and xattrs.
durable_files() {
	local d=$1 c=$2 i size
	mkdir -p "$d" || return 1
	i=0
	while [ $i -lt $NSRC ]; do
		size=$(((16 << (i % 5)) * 1024 + i * 777))	# 16 KiB .. 256 KiB
		# written, overwritten inside, extended past the end (unaligned)
		head -c $size /dev/urandom > "$d/tmp$i" &&
			xfs_io -c "pwrite -q -S 0x$((i + 41)) 4096 8192" \
			-c "pwrite -q -S 0x$((i + 61)) $((size - 1000)) 5000" \
			"$d/tmp$i" || return 1
		mv "$d/tmp$i" "$d/f$i" || return 1
		if [ $((i % 2)) -eq 0 ]; then
			ln "$d/f$i" "$d/l$i" || return 1
		fi
		if [ -n "$HAVE_XATTR" ]; then
			setfattr -n user.cycle -v "$c" "$d/f$i" &&
				setfattr -n user.mid -v "$c$i$MVAL" "$d/f$i" || return 1
		fi
		i=$((i + 1))
	done
	xfs_io -r -c fsync "$d"/f* "$d" || return 1
	sha256sum "$d"/f* "$d"/l* >> "$DURABLE" || return 1
	if [ -n "$HAVE_XATTR" ]; then
		getfattr --absolute-names -d "$d"/f* >> "$ATTRS" || return 1
	fi
	echo "cycle $c: $NSRC files (16 KiB..256 KiB) written, overwritten, extended," \
		"renamed, $((NSRC / 2)) hard links${HAVE_XATTR:+, $((NSRC * 2)) xattrs}; all fsynced"
}

# hold_orphan FILE: fill FILE, open on fd 7 by the caller, unlink it and
# commit the journal: an orphan that the recovery mount must delete.
hold_orphan() {
	head -c 1048576 /dev/urandom >&7 && rm "$1" && sync || return 1
	echo "$1: 1 MiB, unlinked, still open"
}

# bg_meta DIR: creates, 8 KiB writes, renames, symlinks, xattrs, unlinks;
# every fourth file is fsynced.
bg_meta() {
	local d=$1/meta n=0 sync
	mkdir -p "$d" || return 0
	while [ ! -e $STOP ] && [ $n -lt 20000 ]; do
		sync=; [ $((n % 4)) -ne 0 ] || sync="-c fsync"
		# shellcheck disable=SC2086 # an optional command
		xfs_io -f -c "pwrite -q -S 0x6d 0 8192" $sync "$d/m$n" >/dev/null 2>&1
		mv "$d/m$n" "$d/r$n" 2>/dev/null
		ln -s "r$n" "$d/s$n" 2>/dev/null
		[ -z "$HAVE_XATTR" ] || setfattr -n user.m -v "$n$MVAL" "$d/r$n" 2>/dev/null
		rm -f "$d/r$((n - 4))" "$d/s$((n - 4))" 2>/dev/null
		n=$((n + 1))
	done
	echo "$n" > /tmp/bg_meta.count
}

# bg_data DIR: 256 KiB writes, truncates to $TRUNC, a write past EOF,
# unlinks; every third file is fsynced.
bg_data() {
	local d=$1/data n=0 sync
	mkdir -p "$d" || return 0
	while [ ! -e $STOP ] && [ $n -lt 20000 ]; do
		sync=; [ $((n % 3)) -ne 0 ] || sync="-c fsync"
		# shellcheck disable=SC2086 # an optional command
		xfs_io -f -c "pwrite -q -b 65536 0 262144" -c "truncate $TRUNC" \
			-c "pwrite -q 300000 4096" $sync "$d/d$n" >/dev/null 2>&1
		rm -f "$d/d$((n - 2))" 2>/dev/null
		n=$((n + 1))
	done
	echo "$n" > /tmp/bg_data.count
}

# bg_dirs DIR: directories of 100 small files (built-ins only), each
# removed two directories later.
bg_dirs() {
	local d=$1/dirs n=0 i
	while [ ! -e $STOP ] && [ $n -lt 20000 ]; do
		mkdir -p "$d/$n" 2>/dev/null
		i=0
		while [ $i -lt 100 ]; do
			{ echo "$BODY" > "$d/$n/$i"; } 2>/dev/null
			i=$((i + 1))
		done
		rm -rf "${d:?}/$((n - 2))" 2>/dev/null
		n=$((n + 1))
	done
	echo "$n" > /tmp/bg_dirs.count
}

# shutdown_during_work DIR SECS FLAG: the background jobs for SECS
# seconds, then the shutdown ioctl (with FLAG) while they still run.
shutdown_during_work() {
	local d=$1/bg p1 p2 p3 rc=0
	rm -f $STOP /tmp/bg_*.count
	bg_meta "$d" 7>&- & p1=$!
	bg_data "$d" 7>&- & p2=$!
	bg_dirs "$d" 7>&- & p3=$!
	sleep "$2"
	xfs_io -x -c "shutdown $3" "$MNT" || rc=1
	touch $STOP
	wait $p1 $p2 $p3
	[ $rc -eq 0 ] || { echo "xfs_io -x -c 'shutdown $3' $MNT failed"; return 1; }
	echo "shut down after $(cat /tmp/bg_meta.count) create+write+rename+symlink+xattr+unlink," \
		"$(cat /tmp/bg_data.count) write+truncate+unlink and" \
		"$(cat /tmp/bg_dirs.count) x 100 create+rmdir iterations"
	dmesg | grep -E "EXT4-fs \(${DEV#/dev/}\): shut down requested|Aborting journal"
	# a write must fail now
	if { echo x > "$MNT/after-shutdown"; } 2>/dev/null; then
		echo "$MNT still writable after the shutdown"
		return 1
	fi
}

# journal_pending: on the unmounted device, the journal needs recovery
# and holds committed transactions (debugfs logdump).
journal_pending() {
	local n log=/tmp/logdump
	dumpe2fs -h "$DEV" 2>/dev/null | grep -E '^(Journal start|Journal sequence|Journal errno):'
	debugfs -c -R logdump "$DEV" > $log 2>&1
	n=$(grep -c '(commit block)' $log)
	grep -E '^Journal starts' $log
	tail -n 3 $log
	echo "journal: $n committed transactions to replay"
	dumpe2fs -h "$DEV" 2>/dev/null | grep -q '^Filesystem features:.*needs_recovery' ||
		{ echo "needs_recovery is not set"; return 1; }
	[ "$n" -gt 0 ]
}

# mount_recover OPTS: mount, show the ext4 lines of the kernel log
# (cleared first; the console keeps everything), require "recovery
# complete".
mount_recover() {
	dmesg -c > /dev/null
	mount -t ext4 -o "$1" "$DEV" "$MNT" || return 1
	dmesg | grep -E "EXT4-fs \(${DEV#/dev/}\)|JBD2"
	dmesg | grep -q "EXT4-fs (${DEV#/dev/}): recovery complete"
}

orphan_deleted() {
	dmesg | grep -E "EXT4-fs \(${DEV#/dev/}\): [0-9]+ orphan inodes? deleted"
}

verify_durable() {
	local bad
	if ! SUMS=$DURABLE verify_files; then return 1; fi
	echo "$(wc -l < "$DURABLE") fsynced files: checksums match"
	[ -n "$HAVE_XATTR" ] || return 0
	# shellcheck disable=SC2046 # one word per path
	bad=$(getfattr --absolute-names -d $(awk '{ print $2 }' "$DURABLE" | grep '/f[0-9]*$') |
		diff "$ATTRS" - | head -n 20)
	[ -z "$bad" ] || { echo "xattrs differ:"; echo "$bad"; return 1; }
	echo "$(grep -c '^user\.' "$ATTRS") xattrs match"
}

require "mkfs.ext4 -J size=$JOURNAL_MB $DEV" mkfs.ext4 -F -q -J size="$JOURNAL_MB" "$DEV"
say "$(dumpe2fs -h "$DEV" 2>/dev/null | grep -E '^(Filesystem features|Journal size)' | tr '\n' ' ')"
require "mount -o $(mount_opts 1) $DEV on $MNT" mount -t ext4 -o "$(mount_opts 1)" "$DEV" "$MNT"
: > "$DURABLE"
: > "$ATTRS"
[ -n "$HAVE_XATTR" ] || say "no setfattr in the initramfs (host package attr): xattrs skipped"
c=1
while [ $c -le "$CYCLES" ]; do
	d=$MNT/c$c
	flag=$(shutdown_flag $c)
	TRUNC=100000; [ "$(mount_opts $c)" != data=journal ] || TRUNC=98304
	say "cycle $c of $CYCLES: $(mount_opts $c), shutdown ${flag:-without flag}"
	require "cycle $c: write, overwrite, rename, link, xattrs, fsync" durable_files "$d" $c
	exec 7> "$d/orphan"
	require "cycle $c: an unlinked file held open" hold_orphan "$d/orphan"
	dmesg -c > /dev/null
	require "cycle $c: shutdown ${flag:-(no flag)} after $((3 + c)) s of background work" \
		shutdown_during_work "$d" $((3 + c)) "$flag"
	exec 7>&-
	require "cycle $c: umount the shut down filesystem" umount "$MNT"
	check "cycle $c: journal holds committed transactions" journal_pending
	require "cycle $c: mount -o $(mount_opts $((c + 1))) again, journal recovery ran" \
		mount_recover "$(mount_opts $((c + 1)))"
	check "cycle $c: orphan cleanup deleted the unlinked open file" orphan_deleted
	check "cycle $c: every fsynced file of cycles 1..$c intact" verify_durable
	c=$((c + 1))
done
require "umount $MNT" umount "$MNT"
check "e2fsck -fn after $CYCLES recoveries: filesystem clean" e2fsck -fn "$DEV"
finish
