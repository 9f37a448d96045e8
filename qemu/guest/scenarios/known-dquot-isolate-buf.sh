#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# Known base-kernel issue, not part of SCENARIOS: on Debian 6.12.118,
# xfs_qm_dqflush_done() releases the dquot's flush lock before it drops
# the buffer that the stable backport of "xfs: attach dquot buffer to
# dquot log item buffer" keeps attached to the dquot.  In that window the
# dquot is clean, unpinned and flush-unlocked, so the dquot shrinker's
# isolate callback, xfs_qm_dquot_isolate(), takes it and calls
# xfs_dquot_detach_buf(), which takes the buffer lock (a semaphore, still
# held by the I/O completion) under the list_lru spinlock: "BUG: sleeping
# function called from invalid context", then lockdep's circular
# dependency between &bp->b_lock and the list_lru lock.
#
# The window is a few instructions wide, so the report was seen once in
# all the runs of quota-pressure.  scripts/dquot-race-test.sh boots this
# scenario on the unpatched kernel with qemu/probes/xfs-dquot-flush-done-
# window.patch, which widens the window with a 2 ms delay.  The workload:
# IDS user dquots get new limits (each one dirtied and logged, the buffer
# attached), a freeze writes them all back, and a second task drops the
# slab caches in a loop meanwhile, so that the shrinker walks the dquot
# LRU while the write completions run.  The scenario FAILS when the
# report appears:
#   qemu/run-scenario.sh known-dquot-isolate-buf
# shellcheck source=lib.sh
. /scenarios/lib.sh
DEV=/dev/vda MNT=/mnt
IDS=${IDS:-2000} TRIES=${TRIES:-10}
DROPPING=/tmp/dropping		# the drop_caches loop runs while this exists

reproduced() { dmesg | grep -q 'xfs_qm_dquot_isolate'; }

require "mkfs.xfs" mkfs.xfs -f -q $DEV
require "mount -o uquota" mount -t xfs -o uquota $DEV $MNT

# round N: new limits for every id, so that every dquot is dirty and
# logged (its buffer attached), then a freeze that writes them all back
round() {
	user_limits $MNT 1 "$IDS" $((100 + $1)) $((200 + $1)) &&
		xfs_io -x -c freeze -c thaw $MNT
}

touch $DROPPING
(while [ -e $DROPPING ]; do echo 2 > /proc/sys/vm/drop_caches; done) &
dropper=$!

try=1
while [ $try -le "$TRIES" ]; do
	check "round $try: $IDS dquots dirtied, written back by a freeze" \
		round $try || break
	reproduced && break
	try=$((try + 1))
done
rm -f $DROPPING
wait $dropper
check "umount" umount $MNT
reproduced && say "reproduced in round $try of $TRIES"
check "no dquot shrinker report in the kernel log" \
	sh -c "! dmesg | grep -m 1 'xfs_qm_dquot_isolate'"
finish
