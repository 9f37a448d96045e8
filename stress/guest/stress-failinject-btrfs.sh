# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# stress-failinject-btrfs: allocation failures injected into btrfs while
# it works, so that the error paths where a transaction handle's scope
# could part from its exit run with CONFIG_DEBUG_MEMALLOC_SCOPE on: failed
# transaction starts and joins, aborted transactions (btrfs then forces
# itself read-only), failed commits and their cleanup, fsync falling back
# to a full commit, snapshot creation in the commit and subvolume
# deletion.
#
# failslab and fail_page_alloc are limited by their stack-trace filter
# (require-start/require-end) to allocations with an fs/btrfs function
# among the innermost DEPTH (nofs.fi_depth, 8) frames; the range
# nofs.fs_text=FIRST,END comes from stress/run.sh.  Sleeping allocations
# fail too (ignore-gfp-wait=N), __GFP_NOFAIL ones never; only tasks fail
# (task-filter=Y with make-it-fail on every task).  Each injection is
# logged (verbose=1).
#
# Setup: a btrfs with a subvolume and 8 durable files (fsynced, with an
# xattr).  Then nofs.fi_rounds rounds: injection on (failslab,
# fail_page_alloc or both in turn, probability rising, at most
# nofs.fi_times failures each) while four loops run for nofs.fi_secs
# seconds - create/write/xattr/rename/fsync/unlink, fallocate and
# truncate, directory churn, and snapshots of the subvolume made and
# deleted - then injection off, umount, mount (log replay if an fsync
# left a log tree), the durable files checked, umount, btrfs check.
#
# What must hold: no splat or memalloc_scope report (the host's scan),
# no hang, the fsynced files intact, a clean btrfs check after every
# round, and at least one injected failure in all.  The workload's errors
# (ENOMEM, EROFS after an abort) are expected and only counted.
#
# One "trial: round=R kind=workload injected=... aborts=..." line per
# round (passes=N: see fi_round); last line: "# stress:
# scenario=failinject-btrfs rounds=... injected=... logged=...
# snapshots=... enomem=... eio=... erofs=...
# other_errors=... aborts=... lost=... check_errors=... seed=...".
#
# nofs-disks: 1
# shellcheck source=../../qemu/guest/scenarios/lib.sh
. /scenarios/lib.sh
FI_VERBOSE=1		# a message per injection, no stack
# shellcheck source=lib-stress.sh
. /scenarios/lib-stress.sh

fi_params
PROBS="5 20 50"
ATTRS="failslab fail_page_alloc both"
SUMS=/tmp/btrfs.sums
LOOPS=/tmp/btrfsloops
SV=$MNT/sv
ABORT_RE='BTRFS: Transaction aborted|BTRFS.*: forced readonly'

LOGGED=0 SNAPS=0 ENOMEM=0 EIO=0 EROFS=0 OTHER=0 ABORTS=0
LOST=0 CHECK_ERRORS=0

fs_range() {
	text_range fs_text "fs/btrfs" /tmp/btrfs.syms \
		btrfs_start_transaction btrfs_commit_transaction \
		btrfs_end_transaction btrfs_sync_file
}

setup() {
	local i
	mkfs.btrfs -f -q "$DEV" && mount -t btrfs "$DEV" "$MNT" &&
		btrfs subvolume create "$SV" > /dev/null &&
		mkdir "$SV/durable" || return 1
	i=0
	while [ $i -lt 8 ]; do
		head -c $(((i + 1) * 12345)) /dev/urandom > "$SV/durable/d$i" &&
			setfattr -n user.k -v "v$i" "$SV/durable/d$i" 2>/dev/null
		i=$((i + 1))
	done
	xfs_io -r -c fsync "$SV"/durable/d* "$SV/durable" &&
		sha256sum "$SV"/durable/d* > $SUMS || return 1
	echo "a subvolume with 8 durable files (fsynced)"
}

# snap_loop: a snapshot of the subvolume (created in the transaction
# commit), then the previous one deleted.
snap_loop() {
	local n=0
	while [ ! -e $STOP ]; do
		btrfs subvolume snapshot "$SV" "$MNT/s$n" > /dev/null &&
			echo "s$n" >> $LOOPS/snaps
		[ ! -d "$MNT/s$((n - 1))" ] ||
			btrfs subvolume delete "$MNT/s$((n - 1))" > /dev/null
		n=$((n + 1))
	done 2>> $LOOPS/snap.err
}

# snap_loops: one pass of a round's loops; SNAPS_R counts its snapshots
snap_loops() {
	fi_loops "$SV" snap_loop 1
	SNAPS_R=$((SNAPS_R + $(wc -l < $LOOPS/snaps 2>/dev/null || echo 0)))
}

round() {	# R
	SNAPS_R=0
	fi_round "$1" snap_loops "$ABORT_RE" || return 1
	ABORTS=$((ABORTS + FI_ABORTS)) SNAPS=$((SNAPS + SNAPS_R))
	fi_round_said "$1" "abort message(s)" "$SNAPS_R snapshots" "snapshots=$SNAPS_R"
}

after_round() {
	umount "$MNT" || { echo "umount failed"; return 1; }
	mount -t btrfs "$DEV" "$MNT" || { echo "mount after the round failed"; return 1; }
	sha256sum -c -s $SUMS ||
		{ echo "durable files changed or lost"; LOST=$((LOST + 1)); return 1; }
	umount "$MNT" || return 1
	btrfs check --readonly "$DEV" > /tmp/check.out 2>&1 ||
		{ CHECK_ERRORS=$((CHECK_ERRORS + 1)); cat /tmp/check.out; return 1; }
	grep -E 'no error found' /tmp/check.out
	mount -t btrfs "$DEV" "$MNT"
}

summary() {
	echo "# stress: scenario=failinject-btrfs rounds=$ROUNDS injected=$INJECTED" \
		"logged=$LOGGED snapshots=$SNAPS enomem=$ENOMEM eio=$EIO erofs=$EROFS" \
		"other_errors=$OTHER aborts=$ABORTS lost=$LOST check_errors=$CHECK_ERRORS" \
		"seed=$SEED0"
}

say "seed $SEED0, $ROUNDS rounds of $SECS s, at most $TIMES failures per attribute and round"
require "fault range: fs/btrfs" fs_range
require "every task may fail (make-it-fail)" mark_tasks
require "btrfs with a subvolume and durable files" setup
fi_rounds "remount, durable files, btrfs check"
finish
