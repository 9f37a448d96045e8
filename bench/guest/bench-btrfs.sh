# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# bench-btrfs: one boot of bench/workloads.sh btrfs.  Metadata workloads
# on a fresh btrfs that take extent buffer locks at every step (the tree
# locks that the series marks NOFS), without and with memory pressure:
#
#   btrfs-create        fs_mark creates BTRFS_FILES empty files in 64
#                       directories, then sync (the commit that writes
#                       them is part of the cost)
#   btrfs-walk          ls -lR of those files with cold caches: a lookup
#                       and an inode read from the trees per file
#   btrfs-create-memcg  the same creates in a memory cgroup whose
#                       memory.high is BTRFS_HIGH, so that reclaim in the
#                       cgroup frees inodes, dentries and extent buffers
#   btrfs-walk-memcg    the cold walk of those files in the cgroup
#
# Before each workload: sync and drop the caches, so that every window
# starts from the same state.  Each workload prints one NOFS-BENCH line
# (lib-bench.sh); the cgroup's workloads check that slabs_scanned moved.
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

fresh_fs() { mkfs.btrfs -q -f "$DEV" && mount -t btrfs "$DEV" "$MNT"; }
window_start() { sync && echo 3 > /proc/sys/vm/drop_caches; }
window_counters() { :; }

create() { fs_mark -d "$MNT/$1" -D 64 -t 1 -n "$BTRFS_FILES" -s 0 -S 0 -L 1 -k && sync; }
walk() { ls -lR "$MNT/$1"; }

# walked DIR: ls -lR saw every file fs_mark created under DIR
walked() {
	local n
	n=$(grep -c '^-' /tmp/workload.out)
	echo "$n files listed"
	[ "$n" -eq "$BTRFS_FILES" ]
}

# reached: the shrinkers scanned objects during the last workload
reached() { echo "slabs_scanned=$SLABS"; [ "$SLABS" -gt 0 ]; }

say "kernel $(uname -r); $(grep MemTotal /proc/meminfo)"
require "fs_mark in the initramfs" command -v fs_mark
require "mkfs.btrfs and mount" fresh_fs
require "btrfs-create: $BTRFS_FILES empty files" \
	measure btrfs-create "$BTRFS_FILES" create c
require "btrfs-walk: ls -lR of them, cold" measure btrfs-walk "$BTRFS_FILES" walk c
check "btrfs-walk listed every file" walked
require "memory cgroup bench-btrfs, memory.high $BTRFS_HIGH" memcg_create bench-btrfs max
echo "$BTRFS_HIGH" > "$MEMCG/memory.high"
require "btrfs-create-memcg: $BTRFS_FILES empty files in the cgroup" \
	measure btrfs-create-memcg "$BTRFS_FILES" memcg_run create m
check "btrfs-create-memcg reached the shrinkers" reached
require "btrfs-walk-memcg: ls -lR of them in the cgroup, cold" \
	measure btrfs-walk-memcg "$BTRFS_FILES" memcg_run walk m
check "btrfs-walk-memcg listed every file" walked
check "btrfs-walk-memcg reached the shrinkers" reached
require "umount $MNT" umount "$MNT"
finish
