# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# xfs-split-worker-scope: BMBT splits pushed to the split worker while the
# caller is inside a NOFS scope of its own (direct I/O write completion).
#
# xfs_btree_split() hands a BMBT split to xfs_alloc_wq once the
# transaction has allocated (t_highest_agno set): a leaf split allocates
# a block, so the split of the full node above it in the same
# transaction goes to the worker.  Direct I/O writes into an unwritten
# extent are converted at completion by xfs_dio_write_end_io(), inside a
# memalloc_nofs_save() scope, one transaction per extent.
#
# The filesystem has 1 KiB blocks (59 records per BMBT block); a file
# gets one 8 MiB unwritten extent, then WRITES (4000) one-block direct
# writes two blocks apart: each conversion adds two records, the tree
# reaches height 3 and its level-1 nodes split, each time through the
# worker.  The scenario checks the extent count (xfs_io bmap) and the data.
#
# By itself the scenario cannot see the allocation context.  It is run by
# scripts/split-fix-test.sh on the unpatched tree with a probe
# (qemu/probes/xfs-dio-end-io-nofs.patch) that warns when
# xfs_dio_write_end_io() finds PF_MEMALLOC_NOFS gone before it leaves its
# scope: without xfs-conversion patch 1 the probe fires, with it it must
# not.  The harness fails the scenario on the probe's warning.
#
# nofs-disks: 1
# shellcheck source=lib.sh
. /scenarios/lib.sh

DEV=/dev/vda
MNT=/mnt
WRITES=${WRITES:-4000}
F=$MNT/f

# dio_writes: WRITES one-block O_DIRECT writes, two blocks apart, 500 to
# an xfs_io
dio_writes() {
	local i=0 j
	while [ $i -lt "$WRITES" ]; do
		set --
		j=0
		while [ $j -lt 500 ] && [ $i -lt "$WRITES" ]; do
			set -- "$@" -c "pwrite -q -S 0x$(printf %x $((i % 250 + 1))) $((i * 2048)) 1024"
			i=$((i + 1)) j=$((j + 1))
		done
		xfs_io -d "$@" "$F" || return 1
	done
	echo "$WRITES writes done"
}

extents() {
	local n
	n=$(xfs_io -r -c bmap "$F" | grep -vc -e ':$' -e 'hole')
	echo "$F: $n extents"
	[ "$n" -ge "$WRITES" ]
}

verify() {
	local i=0 bad=0 want got
	while [ $i -lt 40 ]; do
		want=$(printf '%02x' $((i * 97 % WRITES % 250 + 1)))
		got=$(xfs_io -r -c "pread -q -v $((i * 97 % WRITES * 2048)) 1" "$F" |
			awk '{ print $2; exit }')
		[ "$got" = "$want" ] || { echo "block $((i * 97 % WRITES * 2)): $got, want $want"; bad=1; }
		i=$((i + 1))
	done
	[ $bad -eq 0 ] && echo "40 sampled blocks hold what was written"
}

require "mkfs.xfs -b size=1024, mount" sh -c \
	"mkfs.xfs -f -q -b size=1024 $DEV && mount -t xfs $DEV $MNT"
require "one 8 MiB unwritten extent" xfs_io -f -c "falloc 0 8m" "$F"
check "$WRITES direct one-block writes into it, two blocks apart" dio_writes
check "the conversions split the extent into records" extents
check "data" verify
require "umount" umount "$MNT"
check "xfs_repair -n clean" xfs_repair -n "$DEV"
finish
