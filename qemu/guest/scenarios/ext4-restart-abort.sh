# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# ext4-restart-abort: jbd2 handle restarts that fail because the journal
# is aborted while the restarting handle waits.
#
# jbd2__journal_restart() stops the handle (ending its NOFS scope) and
# starts it again in start_this_handle(), which waits for a locked
# transaction and then checks for an aborted journal.  If the journal was
# aborted meanwhile, the restart fails with -EROFS and leaves the handle
# detached (no transaction, no scope); ext4 stops it later with
# jbd2_journal_stop().  Were the detached branch of jbd2_journal_stop() to
# end the scope again, the task's NOFS depth would go below zero: counted
# scopes report that in every configuration ("exit without enter"), and
# the harness fails the scenario on the report.
#
# Each of up to CYCLES (6) cycles makes a fresh ext4 with a 4 MiB journal
# (transactions of at most 256 blocks) and 1 MiB block groups, mounts it
# data=journal, fills it with NFILES (3) fallocated files and truncates
# them all at once: every freed block of a data=journal file needs a
# revoke record and every group a bitmap, so the truncates outgrow their
# transactions, restart their handles and wait for the commits that the
# restarts start.  A short while in (DELAY tenths of
# a second, cycle C waits C), every write to the disk fails
# (fail_make_request): the next commit fails and aborts the journal while
# the restarting handles wait for it.  The jbd2_handle_restart tracepoint
# reports tid 0 for a restart that failed; the scenario runs at least
# MIN_CYCLES (3) cycles and stops once WANT (6) failed restarts were seen;
# it fails if it saw none (then it proved nothing).  Each cycle ends with a recovery mount, e2fsck -fy for the
# orphan list that ext4 leaves to e2fsck after an error, and e2fsck -fn.
#
# nofs-disks: 1
# shellcheck source=lib.sh
. /scenarios/lib.sh

DEV=/dev/vda
MNT=/mnt
CYCLES=${CYCLES:-6}
NFILES=${NFILES:-3}
WANT=${WANT:-6}
MIN_CYCLES=${MIN_CYCLES:-3}
TR=/sys/kernel/debug/tracing
EV=$TR/events/jbd2/jbd2_handle_restart
FI=/sys/kernel/debug/fail_make_request
FAIL=/sys/block/${DEV#/dev/}/make-it-fail

setup() {
	[ -d $EV ] || { echo "no $EV (CONFIG_EVENT_TRACING?)"; return 1; }
	[ -d $FI ] && [ -f $FAIL ] ||
		{ echo "no $FI or $FAIL (CONFIG_FAIL_MAKE_REQUEST?)"; return 1; }
	echo 8192 > $TR/buffer_size_kb && echo 1 > $EV/enable &&
		echo 1 > $TR/tracing_on || return 1
	# once $FAIL is set, every bio to the disk fails, silently
	echo 100 > $FI/probability && echo 1 > $FI/interval &&
		echo -1 > $FI/times && echo 0 > $FI/verbose
}

# restarts: "TOTAL FAILED" handle restarts in the trace since it was cleared
restarts() {
	local all failed
	all=$(grep -c 'jbd2_handle_restart:' $TR/trace)
	failed=$(grep -c 'jbd2_handle_restart: .* tid 0 ' $TR/trace)
	echo "$all $failed"
}

# cycle C: mkfs, fill, truncates, I/O errors C tenths of a second in
cycle() {
	local c=$1 i pids=
	mkfs.ext4 -F -q -J size=4 -g 256 "$DEV" &&
		mount -t ext4 -o data=journal "$DEV" $MNT || return 1
	i=0
	while [ $i -lt "$NFILES" ]; do
		xfs_io -f -c "falloc 0 $((1800 / NFILES))M" -c fsync $MNT/f$i || return 1
		i=$((i + 1))
	done
	echo "$NFILES files of $((1800 / NFILES)) MiB fallocated"
	echo > $TR/trace
	dmesg -c > /dev/null
	i=0
	while [ $i -lt "$NFILES" ]; do
		xfs_io -c "truncate 0" $MNT/f$i 2>/dev/null &
		pids="$pids $!"
		i=$((i + 1))
	done
	sleep "0.$c"
	echo 1 > $FAIL
	# shellcheck disable=SC2086 # one word per pid
	wait $pids
	echo 0 > $FAIL
	dmesg | grep -E "Aborting journal|Detected aborted journal" | head -n 2
	umount $MNT || { echo "umount after the abort failed"; return 1; }
	# shellcheck disable=SC2046 # two words
	set -- $(restarts)
	echo "writes failing after 0.$c s: $1 handle restarts, $2 of them failed"
	ALL=$((ALL + $1))
	FAILED=$((FAILED + $2))
}

# recover_fsck: recovery mount and umount, then e2fsck.  After the I/O
# error ext4 has recorded errors, and a mount of a filesystem with errors
# leaves its orphan list (the truncated inodes) to e2fsck ("Errors on
# filesystem, clearing orphan list"): e2fsck -fy may repair that (exit 1,
# its output is in the log); a second e2fsck -fn must then find nothing.
recover_fsck() {
	local rc=0
	mount -t ext4 "$DEV" $MNT && umount $MNT || return 1
	e2fsck -fy "$DEV" > /tmp/fsck.out 2>&1 || rc=$?
	grep -vE '^(Pass [1-5]|e2fsck [0-9])' /tmp/fsck.out
	[ $rc -le 1 ] || { echo "e2fsck -fy: exit status $rc"; return 1; }
	rc=0
	e2fsck -fn "$DEV" > /tmp/fsck.out 2>&1 || rc=$?
	tail -n 1 /tmp/fsck.out
	[ $rc -eq 0 ] || { cat /tmp/fsck.out; echo "e2fsck -fn: exit status $rc"; return 1; }
}

require "jbd2_handle_restart tracepoint and fail_make_request" setup
ALL=0
FAILED=0
c=1
while [ $c -le "$CYCLES" ] &&
	{ [ $c -le "$MIN_CYCLES" ] || [ $FAILED -lt "$WANT" ]; }; do
	say "cycle $c of at most $CYCLES ($FAILED of $WANT failed restarts so far)"
	require "cycle $c: $NFILES truncates, the journal aborted by I/O errors 0.$c s in" \
		cycle $c
	check "cycle $c: recovery mount; after e2fsck -fy, e2fsck -fn clean" recover_fsck
	c=$((c + 1))
done
check "failed handle restarts seen: $FAILED (of $ALL restarts in $((c - 1)) cycles)" \
	[ $FAILED -gt 0 ]
finish
