# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# ext4-fast-commit-replay: fast commit replay at mount, which modifies
# extent trees with i_data_sem held in the mounting task, with no handle
# and so no handle scope (jbd2-conversion patch 7 gives it one).
#
# Each of CYCLES (1) cycles makes a fresh ext4 with fast_commit, mounted
# with a 300 s commit interval so that no full commit runs during the
# work; writes NFILES (3) files, commits them in full (sync), then gives
# each EXTENTS (500) one-block extents 8 KiB apart in its own extent tree,
# with an fsync after every BATCH (25) writes (each one a fast commit:
# the 256-block fast commit area must not fill up, or jbd2 falls back to
# a full commit); shuts the
# filesystem down without flushing the log, and mounts it again.  Replay
# must then insert the extents of the fast commits into trees that hold
# one extent on disk: that grows each tree's depth
# (ext4_ext_grow_indepth()) and splits its leaves (ext4_ext_split()),
# the allocations the series changed.  Checked: the fast commits were
# taken (fc_info), the ext4_fc_replay tracepoint saw every ADD_RANGE,
# debugfs shows depth 0 before replay and depth >= 1 after, the fsynced
# data is intact and e2fsck -fn finds nothing.
#
# nofs-disks: 1
# shellcheck source=lib.sh
. /scenarios/lib.sh

DEV=/dev/vda
MNT=/mnt
CYCLES=${CYCLES:-1}
NFILES=${NFILES:-3}
EXTENTS=${EXTENTS:-500}
BATCH=${BATCH:-25}
TR=/sys/kernel/debug/tracing
EV=$TR/events/ext4/ext4_fc_replay
SUMS=/tmp/fc.sums
export DEBUGFS_PAGER=__none__

trace_on() {
	[ -d $EV ] || { echo "no $EV (CONFIG_EVENT_TRACING?)"; return 1; }
	echo 8192 > $TR/buffer_size_kb && echo 1 > $EV/enable &&
		echo 1 > $TR/tracing_on
}

# depth FILE: the extent tree depth of FILE on the unmounted disk, from
# the "Level" column ("0/ 1": level 0 of a tree of depth 1) of debugfs ex;
# without one, what debugfs said goes to stderr (the check's output)
depth() {
	debugfs -R "ex /$1" "$DEV" 2> /tmp/debugfs.err |
		awk 'NR == 2 { print $2 + 0 }' | grep . ||
		sed 's/^/debugfs: /' /tmp/debugfs.err >&2
}

# fsync_writes FILE: EXTENTS one-block writes 8 KiB apart, an fsync
# (one fast commit) after every BATCH of them
fsync_writes() {
	local i=1
	set --
	while [ $i -le "$EXTENTS" ]; do
		set -- "$@" -c "pwrite -q -S 0x$((i % 200 + 10)) $((i * 8192)) 4096"
		[ $((i % BATCH)) -ne 0 ] || set -- "$@" -c fsync
		i=$((i + 1))
	done
	xfs_io "$@" -c fsync "$FILE"
}

work() {
	local i
	mkfs.ext4 -F -q -O fast_commit "$DEV" &&
		mount -t ext4 -o commit=300 "$DEV" $MNT || return 1
	i=0
	while [ $i -lt "$NFILES" ]; do
		xfs_io -f -c "pwrite -q -S 0x11 0 4096" $MNT/f$i > /dev/null || return 1
		i=$((i + 1))
	done
	sync
	i=0
	while [ $i -lt "$NFILES" ]; do
		FILE=$MNT/f$i fsync_writes || return 1
		i=$((i + 1))
	done
	sha256sum $MNT/f* > $SUMS
	grep -E 'commits|ineligible' /proc/fs/ext4/${DEV#/dev/}/fc_info | head -n 2
	xfs_io -x -c shutdown $MNT || { echo "shutdown ioctl failed"; return 1; }
	umount $MNT
}

# depths OP N WHEN: the depth of every file's extent tree on the
# unmounted disk must be OP N (a test(1) operator)
depths() {
	local i=0 d
	while [ $i -lt "$NFILES" ]; do
		d=$(depth f$i)
		echo "f$i: extent tree depth $d $3"
		test "$d" "$1" "$2" || return 1
		i=$((i + 1))
	done
}

depth_before() { depths -eq 0 "on disk before replay"; }

replay() {
	local n
	echo > $TR/trace
	dmesg -c > /dev/null
	mount -t ext4 "$DEV" $MNT || return 1
	dmesg | grep -E "EXT4-fs \(${DEV#/dev/}\)|JBD2" | head -n 5
	# tag 1 is EXT4_FC_TAG_ADD_RANGE
	n=$(grep -c 'ext4_fc_replay: .* tag 1,' $TR/trace)
	echo "replayed $n ADD_RANGE tags"
	[ "$n" -ge "$((NFILES * EXTENTS))" ]
}

verify() {
	sha256sum -c -s $SUMS && echo "$NFILES fsynced files intact"
}

depth_after() {
	umount $MNT || return 1
	depths -ge 1 "after replay"
}

require "trace ext4_fc_replay" trace_on
c=1
while [ $c -le "$CYCLES" ]; do
	say "cycle $c of $CYCLES"
	require "cycle $c: $NFILES files, $EXTENTS fsynced one-block writes each, shutdown" work
	check "cycle $c: extent trees have depth 0 on disk before replay" depth_before
	require "cycle $c: mount replays the fast commits" replay
	check "cycle $c: fsynced data intact after replay" verify
	check "cycle $c: replay grew the extent trees (depth >= 1)" depth_after
	check "cycle $c: e2fsck -fn clean" e2fsck -fn "$DEV"
	c=$((c + 1))
done
finish
