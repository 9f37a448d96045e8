# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# btrfs-zoned-mount: a zoned btrfs, mounted again after writes, so that
# mount reads the zone information of every block group
# (btrfs_load_block_group_zone_info(), which allocates before and after
# it takes dev_replace->rwsem, and the zoned data space info).  Patch 18
# of btrfs-conversion made those allocations GFP_KERNEL on the argument
# that mount holds no lock reclaim takes; make verify-conversions checks
# the locks held at each.  The device is a memory-backed, host-managed
# null_blk made through configfs (kunit/btrfs-zoned.config, merged only
# by scripts/verify-conversions.sh): SIZE_MB in zones of ZONE_MB.
# Checked: mkfs and both mounts succeed, the filesystem says it is zoned,
# and every file reads back after the remount.
N_FILES=${N_FILES:-32}
SIZE_MB=${SIZE_MB:-2048}
ZONE_MB=${ZONE_MB:-64}
# shellcheck source=lib.sh
. /scenarios/lib.sh

CFG=/sys/kernel/config
NB=$CFG/nullb/zoned
MNT=/mnt
D=$MNT/d

# zoned_nullb: the device, its name in DEV (the disk that appears when it
# is powered on: null_blk may name it after the configfs directory)
zoned_nullb() {
	local before name
	grep -q " $CFG configfs " /proc/mounts || mount -t configfs configfs "$CFG" || return 1
	[ -d "$CFG/nullb" ] || { echo "no $CFG/nullb: null_blk is not built in"; return 1; }
	mkdir "$NB" || return 1
	echo 4096 > "$NB/blocksize" && echo 1 > "$NB/memory_backed" &&
		echo 1 > "$NB/zoned" && echo "$ZONE_MB" > "$NB/zone_size" &&
		echo "$SIZE_MB" > "$NB/size" || return 1
	before=$(ls /sys/block)
	echo 1 > "$NB/power" || return 1
	name=$(ls /sys/block | grep -vxF "$before")
	[ -n "$name" ] && [ -b "/dev/$name" ] ||
		{ echo "no new block device after power on: $(ls /sys/block | xargs)"; return 1; }
	DEV=/dev/$name
	echo "$DEV: $(cat "/sys/block/$name/queue/zoned"), $(cat "/sys/block/$name/queue/nr_zones") zones of $ZONE_MB MiB"
	[ "$(cat "/sys/block/$name/queue/zoned")" = host-managed ]
}

# is_zoned: btrfs lists the zoned incompat feature of the mounted filesystem
is_zoned() {
	local uuid
	uuid=$(btrfs filesystem show "$MNT" | sed -n 's/.*uuid: //p')
	ls "/sys/fs/btrfs/$uuid/features"
	[ -e "/sys/fs/btrfs/$uuid/features/zoned" ]
}

require "a zoned null_blk of $SIZE_MB MiB" zoned_nullb
require "mkfs.btrfs on $DEV (zoned)" mkfs.btrfs -f -q -d single -m single "$DEV"
require "mount $DEV" mount -t btrfs "$DEV" "$MNT"
check "the filesystem is zoned" is_zoned
require "mkdir $D" mkdir -p "$D"
require "write and fsync $N_FILES files" write_files "$D"
require "umount $MNT" umount "$MNT"
step "mount again: read every block group's zone information"
require "mount $DEV again" mount -t btrfs "$DEV" "$MNT"
check "$N_FILES files after the remount: checksums match" verify_files
require "umount $MNT" umount "$MNT"
finish
