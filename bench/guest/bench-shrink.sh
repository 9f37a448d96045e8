# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# bench-shrink: one boot of bench/workloads.sh shrink.  Metadata workloads that
# make reclaim run the filesystems' shrinkers, on XFS (user and group
# quota) and on ext4 (quota feature), each on a fresh filesystem:
#
#   FS-memcg   fs_mark creates SHRINK_FILES empty files in a memory cgroup
#              whose memory.high is SHRINK_MAX: no page cache to speak of,
#              so reclaim in the cgroup must free inodes and dentries (the
#              memcg-aware super block shrinker).  memory.high, not .max:
#              the inodes are allocated in transactions and freed only
#              once the log has them, so a hard limit OOM-kills fs_mark
#   FS-global  two fs_mark threads create GLOBAL_FILES empty files each
#              in the root cgroup of a small guest: global reclaim, which
#              also runs the shrinkers that are not memcg-aware (XFS
#              buffers and dquots, jbd2's checkpointed buffers).  On XFS,
#              DQUOTS user dquots get limits first (outside the measured
#              window), so that the dquot shrinker has unused dquots to
#              reclaim
#
# Each workload prints one NOFS-BENCH line (lib-bench.sh), with the
# cgroup's memory.events high for FS-memcg and, on XFS, the dquots the
# dquot shrinker reclaimed (/proc/fs/xfs/xqmstat).  It checks that
# slabs_scanned moved: a workload that never reaches the shrinkers
# measures nothing this benchmark is about.
#
# nofs-disks: 1
# shellcheck source=../../qemu/guest/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=./lib-bench.sh
. /scenarios/lib-bench.sh
# shellcheck source=/dev/null
. /bench/params.sh

DEV=/dev/vda
MNT=/mnt
XQM0=/tmp/xqm.before

# dq_delta: dquots reclaimed since XQM0 (xqmstat's first number)
dq_delta() {
	[ -f /proc/fs/xfs/xqmstat ] || { echo 0; return; }
	awk 'NR == FNR { a = $2; next } { print $2 - a }' "$XQM0" /proc/fs/xfs/xqmstat
}

fresh_fs() {
	case $1 in
	xfs) mkfs.xfs -q -f "$DEV" && mount -t xfs -o uquota,gquota "$DEV" "$MNT" ;;
	ext4) mkfs.ext4 -q -F -O quota -N 400000 "$DEV" && mount -t ext4 "$DEV" "$MNT" ;;
	esac
}

window_start() {
	cat /proc/fs/xfs/xqmstat > "$XQM0" 2>/dev/null || echo "qm 0" > "$XQM0"
}

window_counters() { echo "dqreclaims=$(dq_delta)"; }

create_in_memcg() {
	memcg_run fs_mark -d "$MNT/m" -D 64 -t 1 -n "$SHRINK_FILES" -s 0 -S 0 \
		-L 1 -k
}

create_in_root() {
	fs_mark -d "$MNT/g" -D 64 -t 2 -n "$GLOBAL_FILES" -s 0 -S 0 -L 1 -k
}

# reached: the shrinkers scanned objects during the last workload
reached() { echo "slabs_scanned=$SLABS"; [ "$SLABS" -gt 0 ]; }

# dquots: DQUOTS user dquots with limits, unused once xfs_quota exits
dquots() { user_limits "$MNT" 10001 "$DQUOTS" 100 200; }

say "kernel $(uname -r); $(grep MemTotal /proc/meminfo)"
require "fs_mark in the initramfs" command -v fs_mark
for fs in xfs ext4; do
	require "mkfs and mount $fs with quota" fresh_fs $fs
	require "memory cgroup shrink-$fs, memory.high $SHRINK_MAX" \
		memcg_create "shrink-$fs" max
	echo "$SHRINK_MAX" > "$MEMCG/memory.high"
	require "$fs-memcg: $SHRINK_FILES empty files in the cgroup" \
		measure "$fs-memcg" "$SHRINK_FILES" create_in_memcg
	check "$fs-memcg reached the shrinkers" reached
	[ $fs != xfs ] || require "$DQUOTS user dquots with limits" dquots
	require "$fs-global: $((2 * GLOBAL_FILES)) empty files in the root cgroup" \
		measure "$fs-global" "$((2 * GLOBAL_FILES))" create_in_root
	check "$fs-global reached the shrinkers" reached
	require "umount $MNT" umount "$MNT"
done
finish
