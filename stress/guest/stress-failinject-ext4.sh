# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# stress-failinject-ext4: allocation failures injected into ext4 and jbd2
# while they work, so that the error paths where a handle's scope could
# part from its exit run with CONFIG_DEBUG_MEMALLOC_SCOPE on: failed
# handle starts and restarts, aborted journals, truncates, extent
# migration (ext4_ext_migrate() holds s_writepages_rwsem across handle
# restarts) and xattr updates.
#
# failslab and fail_page_alloc are limited by their stack-trace filter
# (require-start/require-end) to allocations with an fs/ext4 or fs/jbd2
# function among the innermost DEPTH (nofs.fi_depth, 8) frames; the range
# nofs.fs_text=FIRST,END comes from stress/run.sh (fs/ext4 and fs/jbd2
# are linked one after the other).  Sleeping allocations fail too
# (ignore-gfp-wait=N), __GFP_NOFAIL ones never; only tasks fail
# (task-filter=Y with make-it-fail on every task).  Each injection is
# logged (verbose=1).
#
# Setup: an ext4 without the extent feature and an 8 MiB journal, with
# MIGRATE (40) files of 40 KiB in indirect-block format, then the
# extent feature switched on (tune2fs) and the durable files written and
# fsynced.  Then nofs.fi_rounds rounds: injection on (failslab,
# fail_page_alloc or both in turn, probability rising, at most
# nofs.fi_times failures each) while four loops run for nofs.fi_secs
# seconds - create/write/rename/xattr/fsync/unlink, fallocate and
# truncate of fragmented files (handle restarts), directory churn, and
# chattr +e and -e of those files (migration to extents and back) - then
# injection off,
# umount, mount (journal recovery if the journal aborted), the durable
# files checked, umount, e2fsck -fy (which may have to finish the orphan
# list that a mount after an error leaves to it), e2fsck -fn clean.
#
# What must hold: no splat or memalloc_scope report (the host's scan),
# no hang, the fsynced files intact, a clean e2fsck -fn after every round,
# and at least one injected failure in all.  The workload's errors are
# expected and only counted.
#
# One "trial: round=R kind=workload injected=... aborts=..." line per
# round (passes=N: see fi_round); last line: "# stress:
# scenario=failinject-ext4 rounds=... injected=... logged=... migrated=...
# enomem=... eio=... erofs=... other_errors=... aborts=... lost=...
# corrupt=... fsck_fixes=... fsck_errors=... seed=...".
#
# nofs-disks: 1
# shellcheck source=../../qemu/guest/scenarios/lib.sh
. /scenarios/lib.sh
FI_VERBOSE=1		# a message per injection, no stack
# shellcheck source=lib-stress.sh
. /scenarios/lib-stress.sh

fi_params
MIGRATE=${MIGRATE:-40}
# fail_page_alloc at 100%: few page allocations have an fs/ext4 or fs/jbd2
# frame among their innermost 8, and at 20% a 10 s round of make test
# injected none in 30 s (stop 20); a round must inject through every
# attribute it claims (fi_injected_each)
PROBS="5 100 50"
ATTRS="failslab fail_page_alloc both"
SUMS=/tmp/ext4.sums
LOOPS=/tmp/ext4loops

LOGGED=0 MIGRATED=0 ENOMEM=0 EIO=0 EROFS=0 OTHER=0 ABORTS=0
LOST=0 CORRUPT=0 FSCK_FIXES=0 FSCK_ERRORS=0

fs_range() {
	text_range fs_text "fs/ext4 + fs/jbd2" /tmp/ext4.syms \
		ext4_truncate ext4_ext_migrate start_this_handle jbd2_journal_stop
}

setup() {
	local i
	mkfs.ext4 -F -q -O ^extent,^64bit -J size=8 "$DEV" &&
		mount -t ext4 "$DEV" "$MNT" && mkdir "$MNT/ind" || return 1
	i=0
	while [ $i -lt "$MIGRATE" ]; do
		head -c 40960 /dev/urandom > "$MNT/ind/m$i" || return 1
		i=$((i + 1))
	done
	umount "$MNT" && tune2fs -O extent "$DEV" > /dev/null &&
		mount -t ext4 "$DEV" "$MNT" || return 1
	mkdir "$MNT/durable" && i=0
	while [ $i -lt 8 ]; do
		head -c $(((i + 1) * 12345)) /dev/urandom > "$MNT/durable/d$i" &&
			setfattr -n user.k -v "v$i" "$MNT/durable/d$i" 2>/dev/null
		i=$((i + 1))
	done
	xfs_io -r -c fsync "$MNT"/durable/d* "$MNT/durable" &&
		sha256sum "$MNT"/durable/d* > $SUMS || return 1
	lsattr "$MNT/ind/m0" | grep -q -- '-e-' &&
		{ echo "m0 is extent-mapped: the indirect setup failed"; return 1; }
	echo "$MIGRATE indirect-block files, 8 durable files (fsynced), extent feature on"
}

# migrate_loop: each file to extents (chattr +e: ext4_ext_migrate()) and
# back (chattr -e: ext4_ind_migrate(), for files of one extent within
# the direct blocks, which these 40 KiB files are), one after the other.
migrate_loop() {
	local i=0 f
	while [ ! -e $STOP ]; do
		f=$MNT/ind/m$((i % MIGRATE))
		chattr +e "$f" && echo "+e $f" >> $LOOPS/migrated &&
			chattr -e "$f" && echo "-e $f" >> $LOOPS/migrated
		i=$((i + 1))
	done 2>> $LOOPS/migrate.err
}

# migrate_loops: one pass of a round's loops; MIGRATED_R counts its
# migrations
migrate_loops() {
	fi_loops "$MNT" migrate_loop
	MIGRATED_R=$((MIGRATED_R + $(wc -l < $LOOPS/migrated 2>/dev/null || echo 0)))
}

round() {	# R
	MIGRATED_R=0
	fi_round "$1" migrate_loops 'Aborting journal' || return 1
	ABORTS=$((ABORTS + FI_ABORTS)) MIGRATED=$((MIGRATED + MIGRATED_R))
	fi_round_said "$1" "journal abort(s)" "$MIGRATED_R migrations" \
		"migrations=$MIGRATED_R"
}

after_round() {
	local rc=0
	umount "$MNT" || { echo "umount failed"; return 1; }
	mount -t ext4 "$DEV" "$MNT" || { echo "mount after the round failed"; return 1; }
	sha256sum -c -s $SUMS ||
		{ echo "durable files changed or lost"; LOST=$((LOST + 1)); return 1; }
	umount "$MNT" || return 1
	e2fsck -fy "$DEV" > /tmp/fsck.out 2>&1 || rc=$?
	case $rc in
	0) ;;
	1) FSCK_FIXES=$((FSCK_FIXES + 1))
	   echo "e2fsck -fy repaired:"
	   grep -vE '^(Pass [1-5]|e2fsck [0-9])' /tmp/fsck.out | head -n 8 ;;
	*) FSCK_ERRORS=$((FSCK_ERRORS + 1)); cat /tmp/fsck.out
	   echo "e2fsck -fy: exit status $rc"; return 1 ;;
	esac
	e2fsck -fn "$DEV" > /tmp/fsck.out 2>&1 ||
		{ FSCK_ERRORS=$((FSCK_ERRORS + 1)); cat /tmp/fsck.out; return 1; }
	tail -n 1 /tmp/fsck.out
	mount -t ext4 "$DEV" "$MNT"
}

summary() {
	echo "# stress: scenario=failinject-ext4 rounds=$ROUNDS injected=$INJECTED" \
		"logged=$LOGGED migrated=$MIGRATED enomem=$ENOMEM eio=$EIO erofs=$EROFS" \
		"other_errors=$OTHER aborts=$ABORTS lost=$LOST corrupt=$CORRUPT" \
		"fsck_fixes=$FSCK_FIXES fsck_errors=$FSCK_ERRORS seed=$SEED0"
}

say "seed $SEED0, $ROUNDS rounds of $SECS s, at most $TIMES failures per attribute and round"
require "fault range: fs/ext4 and fs/jbd2" fs_range
require "every task may fail (make-it-fail)" mark_tasks
require "ext4 with indirect files, then extents; durable files" setup
fi_rounds "remount, durable files, e2fsck"
finish
