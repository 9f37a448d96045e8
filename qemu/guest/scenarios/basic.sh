# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# basic: the smoke test.  mkfs, write a tree of files with fsync, read them
# back, check the unmounted filesystem with xfs_repair -n, remount and
# read them back again.
#
# nofs-disks: 1
# shellcheck source=lib.sh
. /scenarios/lib.sh

DEV=/dev/vda
MNT=/mnt
DIRS="$MNT/tree/a $MNT/tree/a/b $MNT/tree/a/b/c $MNT/tree/d $MNT/tree/d/e $MNT/tree/f"

make_tree() {
	# shellcheck disable=SC2086
	mkdir -p $DIRS && ln -s a/b/c "$MNT/tree/link" && [ -d "$MNT/tree/link" ]
}

# shellcheck disable=SC2086
write_tree() { write_files $DIRS; }

require "mkfs.xfs $DEV" mkfs.xfs -f "$DEV"
require "mount $DEV on $MNT" mount -t xfs "$DEV" "$MNT"
require "create a directory tree ($(echo "$DIRS" | wc -w) directories)" make_tree
require "write $N_FILES files with fsync" write_tree
say "wrote $N_FILES files, $BYTES_WRITTEN bytes"
check "read back $N_FILES files, checksums match" verify_files
require "umount $MNT" umount "$MNT"
check "xfs_repair -n: filesystem clean" xfs_repair -n "$DEV"
require "mount $DEV again" mount -t xfs "$DEV" "$MNT"
check "checksums match after remount" verify_files
check "xfs_scrub -n: online scrub clean" xfs_scrub -n "$MNT"
require "umount $MNT" umount "$MNT"
finish
