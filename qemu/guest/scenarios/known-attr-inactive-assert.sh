#!/bin/sh
# Known base-kernel issue, not part of SCENARIOS: on Debian 6.12.118 with
# CONFIG_XFS_WARN, unlinking a file smaller than one block whose xattrs need
# blocks makes inodegc hit "Assertion failed: new_size <= XFS_ISIZE(ip)" in
# xfs_itruncate_extents_flags(), called from xfs_attr_inactive(), which
# truncates the attr fork to one block since the stable backport of
# "xfs: close crash window in attr dabtree inactivation".  The code is the
# same before and after this project's series.  This scenario reproduces it,
# so it FAILS on the splat while the issue stands:
#   qemu/run-scenario.sh known-attr-inactive-assert
. /scenarios/lib.sh
DEV=/dev/vda MNT=/mnt

require "mkfs.xfs" mkfs.xfs -f -q $DEV
require "mount" mount -t xfs $DEV $MNT
V=$(head -c 3000 /dev/zero | tr '\0' v)

head -c 8192 /dev/zero > $MNT/big
check "8 KiB file, one 3000-byte xattr, unlinked" \
	sh -c "setfattr -n user.v -v '$V' $MNT/big && rm $MNT/big && sync"

head -c 100 /dev/zero > $MNT/small
check "100-byte file, one 3000-byte xattr, unlinked (asserts)" \
	sh -c "setfattr -n user.v -v '$V' $MNT/small && rm $MNT/small && sync"
sleep 2
check "umount" umount $MNT
finish
