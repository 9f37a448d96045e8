# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# stress-crash-recovery: many shutdown/log-recovery cycles in one boot
# (stress/run.sh; a reboot per cycle would be too slow under TCG).
#
# On a reflink+rmap filesystem with user, group and project quota, each
# cycle: durable files (lib-stress.sh durable_files: reflinks with CoW,
# xattrs, other owners and a project, all fsynced; signatures recorded);
# then the five background loops (reflink+CoW, create/rename/symlink/
# remote xattr/unlink, quota chown/chproj/truncate, fallocate/punch/zero,
# directory churn) and the removal of old cycles' files; after a random
# 3..24 loop iterations and 0..0.9 s, LONG truncates of files of NEXT
# one-block extents start (long chains of deferred frees: an intent is
# committed, its done item comes a roll later), and once they have begun,
# "xfs_io -x -c shutdown", with or without -f (log flushed first) at
# random; without -f, an fsync first writes a checkpoint with the chains
# in flight.  The loops get EIO from then on (counted, not checked);
# umount; mount, which must run log recovery; every recorded file of the
# last KEEP cycles must read back with the same data, owner, size, project
# and xattrs.  The log must have held intents without their done items at
# the shutdown (log recovery replays more intent than done items, and
# finishes the rest): if it did not, the truncates (of twice as many
# extents each time) and a shutdown are tried again, at most ATTEMPTS
# shutdowns per cycle, and a cycle without pending intents fails.  Every REPAIR_EVERY cycles umount, xfs_repair -n
# (which finds the blocks of an intent that recovery left unfinished),
# mount.  The first lost or changed file or repair finding stops the
# cycles.  The workload keeps clear of the known 6.12.118
# xfs_attr_inactive assertion the way reflink-recovery.sh does (see
# lib-stress.sh).
#
# Kernel command line: nofs.cycles=N (100), nofs.repair_every=K (1),
# nofs.keep=W (4), nofs.seed=S (random; the run prints it),
# nofs.long=L (4 files), nofs.next=E (1200 extents), nofs.attempts=A (3);
# nofs.long=0 shows a cycle failing for want of pending intents.
# One "trial: cycle=... how=... attempts=... intents=... dones=...
# pending=... SECONDS" line per cycle, and last "# stress:
# scenario=crash-recovery cycles=... recoveries=... pending_cycles=...
# lost=... corrupt=... repair_errors=... ...", read by stress/run.sh.
#
# nofs-disks: 1
# shellcheck source=../../qemu/guest/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=lib-stress.sh
. /scenarios/lib-stress.sh

num_param CYCLES cycles 100
num_param REPAIR_EVERY repair_every 1
num_param KEEP keep 4
if [ "$KEEP" -lt 1 ] || [ "$REPAIR_EVERY" -lt 1 ]; then
	bail "nofs.keep and nofs.repair_every must be 1 or more"
fi
seed_param
num_param LONG long 4
num_param NEXT next 1200
num_param ATTEMPTS attempts 3
[ "$ATTEMPTS" -ge 1 ] || bail "nofs.attempts must be 1 or more"

DONE=0 RECOVERIES=0 LOST=0 CORRUPT=0 REPAIRS=0 REPAIR_ERRORS=0 FORCED=0
PENDING_CYCLES=0	# cycles whose recovery found intents without done items
INTENTS_ALL=0		# intent items log recovery replayed, all cycles
SHUTDOWNS_ALL=0		# shutdowns, retries included

# The items log recovery replays (pass 2), from the xfs_log_recover_item_recover
# tracepoint: an intent item (EFI, RUI, CUI, BUI, ATTRI, XMI) without its
# done item in the log is work that was pending at the shutdown, which
# recovery then finishes.
TR=/sys/kernel/debug/tracing
EV=$TR/events/xfs/xfs_log_recover_item_recover
trace_recovery() {
	[ -d $EV ] || { echo "no $EV"; return 1; }
	echo 8192 > $TR/buffer_size_kb && echo 'pass == 2' > $EV/filter &&
		echo 1 > $EV/enable && echo 1 > $TR/tracing_on
}

# recovered_intents: INTENTS and DONES replayed since the trace was
# cleared; PENDING, the intents whose done item was not in the log (an
# intent pins the log tail until its done item is written, and a relogged
# intent comes with a done item for the old one).
recovered_intents() {
	INTENTS=$(grep -cE 'item type XFS_LI_(EFI|RUI|CUI|BUI|ATTRI|XMI) ' $TR/trace)
	DONES=$(grep -cE 'item type XFS_LI_(EFD|RUD|CUD|BUD|ATTRD|XMD) ' $TR/trace)
	PENDING=$((INTENTS - DONES))
}

# long_files DIR N: LONG files of N one-block extents each (holey).
long_files() {
	local k=1
	mkdir -p "$1" || return 1
	while [ $k -le "$LONG" ]; do
		holey "$1/long$k" "$2" || return 1
		k=$((k + 1))
	done
}

# long_truncates DIR: truncate the long files at once in the background;
# return once at least half of them have freed blocks (at most 400
# polls, no sleep between them: under KVM a truncate takes milliseconds).
# stat(2) reads the block count without the inode lock, which a truncate
# holds from start to end (xfs_io's stat would wait for it).
long_truncates() {
	local k=1 i=0 begun=0 b0
	[ "$LONG" -gt 0 ] || return 0
	b0=$(stat -c %b "$1/long1")
	while [ $k -le "$LONG" ]; do
		truncate -s 0 "$1/long$k" 2>/dev/null &
		k=$((k + 1))
	done
	while [ $((begun * 2)) -lt "$LONG" ] && [ $i -lt 400 ]; do
		begun=$(stat -c %b "$1"/long* | awk -v b="$b0" '$1 < b { n++ } END { print n + 0 }')
		i=$((i + 1))
	done
	echo "$begun of $LONG long truncates under way after $i polls"
}

# shut HOW DIR: the long truncates of DIR, then "xfs_io -x -c HOW"; before
# a shutdown without -f, an fsync forces a checkpoint with them in flight.
shut() {
	long_truncates "$2"
	if [ "$1" = shutdown ]; then
		xfs_io -f -c "pwrite -q 0 4k" -c fsync "$2/ping" ||
			{ echo "the fsync before the shutdown failed"; return 1; }
	fi
	xfs_io -x -c "$1" "$MNT" || { echo "xfs_io $1 failed"; return 1; }
	SHUTDOWNS_ALL=$((SHUTDOWNS_ALL + 1))
}

# recover: umount the shut down filesystem, mount it (log recovery must
# run), count the items recovery replayed, check the durable files.
recover() {
	wait	# the truncates, which failed with EIO at the shutdown
	umount "$MNT" || { echo "umount of the shut down filesystem failed"; return 1; }
	echo > $TR/trace
	mount_recover || { echo "mount after the shutdown failed"; return 1; }
	RECOVERIES=$((RECOVERIES + RECOVERED))
	[ "$RECOVERED" -eq 1 ] || echo "no log recovery on this mount"
	recovered_intents
	echo "log recovery replayed $INTENTS intent and $DONES done items" \
		"($(grep -c 'xfs_log_recover_item_recover:' $TR/trace) items in all):" \
		"$PENDING intents pending"
	INTENTS_ALL=$((INTENTS_ALL + INTENTS))
	# sets LOST and CORRUPT; the cycles stop at the first failure
	verify_durable
}

# drop_old C: remove the work directories of earlier cycles and the
# durable files of cycle C - KEEP and older (runs with the loops, so that
# the unlinks are in flight at the shutdown).
drop_old() {
	local x n
	for x in "$MNT"/c* "$MNT"/w*; do
		[ -e "$x" ] || continue
		n=${x##*/}
		case $n in
		c*) n=${n#c}; [ "$n" -gt $(($1 - KEEP)) ] || retire_durable "$x" "$n" ;;
		w*) n=${n#w}; [ "$n" -ge "$1" ] || rm -rf "$x" ;;
		esac
	done 2>/dev/null
}

# cycle C: one cycle; prints what happened and its trial line, status 1
# on any failure.
cycle() {
	local c=$1 d=$MNT/c$1 w=$MNT/w$1 n t how drop a=1
	LAPS="" LAP_T=""
	lap start
	durable_files "$d" "$c" ||
		{ echo "writing the durable files failed"; return 1; }
	long_files "$w/long" "$NEXT" || { echo "writing the long files failed"; return 1; }
	lap durable
	start_loops "$w" "$MNT/src"
	drop_old "$c" & drop=$!
	# a random moment: after 3..24 loop iterations, then 0..0.9 s
	rand 22; n=$((3 + RAND))
	rand 10; t=$RAND
	wait_iterations $n
	sleep "0.$t"
	how=shutdown
	rand 2; [ $RAND -eq 0 ] || { how="shutdown -f"; FORCED=$((FORCED + 1)); }
	shut "$how" "$w/long" || return 1
	lap work
	wait $drop
	stop_loops
	echo "$how after $(loop_iterations) loop iterations (target $n, then 0.$t s);" \
		"loop errors (ENOMEM EIO other): $(loop_errors)"
	recover || return 1
	lap recovery
	# no intent pending: the truncates and a shutdown once more, with
	# twice as many extents each time (longer chains)
	while [ "$PENDING" -le 0 ] && [ $a -lt "$ATTEMPTS" ]; do
		a=$((a + 1))
		echo "attempt $a: long truncates of $((NEXT << (a - 1))) extents and $how again"
		long_files "$w/long$a" $((NEXT << (a - 1))) &&
			shut "$how" "$w/long$a" && recover || return 1
		lap retry
	done
	if [ $((c % REPAIR_EVERY)) -eq 0 ] || [ "$c" -eq "$CYCLES" ]; then
		repair_remount || return 1
		echo "xfs_repair -n: clean"
		lap repair
	fi
	echo "seconds:$LAPS"
	echo "trial: cycle=$c how=$(echo "$how" | sed 's/ -/-/') attempts=$a" \
		"iterations=$(loop_iterations) intents=$INTENTS dones=$DONES" \
		"pending=$PENDING$(echo "$LAPS" | awk '{ for (i = 1; i < NF; i += 2) printf " %s=%s", $i, $(i + 1) }')"
	[ "$PENDING" -gt 0 ] || { echo "no intent was pending at any of $a shutdowns"; return 1; }
	PENDING_CYCLES=$((PENDING_CYCLES + 1))
}

say "$CYCLES cycles, xfs_repair -n every $REPAIR_EVERY, files of the last $KEEP cycles verified," \
	"$LONG long truncates of $NEXT extents, at most $ATTEMPTS shutdowns per cycle, seed $SEED0"
require "mkfs.xfs -m reflink=1,rmapbt=1, mount with uquota,gquota,pquota" mkfs_mount
require "source files for the reflink loop" sources "$MNT/src"
require "trace the items log recovery replays" trace_recovery
kmsg
T0=$(uptime_s)
c=1
while [ $c -le "$CYCLES" ]; do
	check "cycle $c of $CYCLES: work, shutdown, recovery, files intact" cycle $c ||
		break
	DONE=$c
	c=$((c + 1))
done
T1=$(uptime_s)
grep -q " $MNT " /proc/mounts && umount "$MNT"
kmsg
check "recovery ran on every mount after a shutdown ($RECOVERIES of $SHUTDOWNS_ALL)" \
	[ "$RECOVERIES" -eq "$SHUTDOWNS_ALL" ]
# (that intents were pending at a shutdown of every cycle is cycle's own
# check: a cycle with none fails, so PENDING_CYCLES is DONE by construction)
KCORRUPT=$(kmsg_count "$CORRUPT_RE")
check "no XFS corruption report in the kernel log ($KCORRUPT)" [ "$KCORRUPT" -eq 0 ]
say "stress: scenario=crash-recovery cycles=$DONE planned=$CYCLES" \
	"recoveries=$RECOVERIES shutdowns=$SHUTDOWNS_ALL intents=$INTENTS_ALL" \
	"pending_cycles=$PENDING_CYCLES lost=$LOST corrupt=$CORRUPT" \
	"repair_runs=$REPAIRS repair_errors=$REPAIR_ERRORS forced=$FORCED" \
	"kernel_corruption=$KCORRUPT seed=$SEED0" \
	"secs_per_cycle=$(awk -v a="$T0" -v b="$T1" -v n="$DONE" 'BEGIN { printf "%.1f", n ? (b - a) / n : 0 }')"
finish
