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
# directory churn) and the removal of old cycles' files, so that intents
# are pending; after a random 3..24 loop iterations and 0..0.9 s
# "xfs_io -x -c shutdown", with or without -f (log flushed first) at
# random; the loops get EIO from then on (counted, not checked); umount; mount, which must run
# log recovery; every recorded file of the last KEEP cycles must read back
# with the same data, owner, size, project and xattrs; every REPAIR_EVERY
# cycles umount, xfs_repair -n, mount.  The first lost or changed file or
# repair finding stops the cycles.  The workload keeps clear of the known
# 6.12.118 xfs_attr_inactive assertion the way reflink-recovery.sh does
# (see lib-stress.sh).
#
# Kernel command line: nofs.cycles=N (100), nofs.repair_every=K (1),
# nofs.keep=W (4), nofs.seed=S (random; the run prints it).
# Last line: "# stress: scenario=crash-recovery cycles=... recoveries=...
# lost=... corrupt=... repair_errors=... ...", read by stress/run.sh.
#
# nofs-disks: 1
# shellcheck source=lib.sh
. /scenarios/lib.sh
# shellcheck source=lib-stress.sh
. /scenarios/lib-stress.sh

num_param CYCLES cycles 100
num_param REPAIR_EVERY repair_every 1
num_param KEEP keep 4
if [ "$KEEP" -lt 1 ] || [ "$REPAIR_EVERY" -lt 1 ]; then
	bail "nofs.keep and nofs.repair_every must be 1 or more"
fi
num_param SEED seed "$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')"
SEED0=$SEED

DONE=0 RECOVERIES=0 LOST=0 CORRUPT=0 REPAIRS=0 REPAIR_ERRORS=0 FORCED=0
INTENT_CYCLES=0		# cycles whose recovery found intents without done items
INTENTS_ALL=0		# intent items log recovery replayed, all cycles

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

# recovered_intents: INTENTS and DONES replayed since the trace was cleared
recovered_intents() {
	INTENTS=$(grep -cE 'item type XFS_LI_(EFI|RUI|CUI|BUI|ATTRI|XMI) ' $TR/trace)
	DONES=$(grep -cE 'item type XFS_LI_(EFD|RUD|CUD|BUD|ATTRD|XMD) ' $TR/trace)
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

# cycle C: one cycle; prints what happened, status 1 on any failure.
cycle() {
	local c=$1 d=$MNT/c$1 n t how drop
	LAPS="" LAP_T=""
	lap start
	durable_files "$d" "$c" ||
		{ echo "writing the durable files failed"; return 1; }
	lap durable
	start_loops "$MNT/w$c" "$MNT/src"
	drop_old "$c" & drop=$!
	# a random moment: after 3..24 loop iterations, then 0..0.9 s
	rand 22; n=$((3 + RAND))
	rand 10; t=$RAND
	wait_iterations $n
	sleep "0.$t"
	how=shutdown
	rand 2; [ $RAND -eq 0 ] || { how="shutdown -f"; FORCED=$((FORCED + 1)); }
	xfs_io -x -c "$how" "$MNT" || { echo "xfs_io $how failed"; return 1; }
	lap work
	wait $drop
	stop_loops
	echo "$how after $(loop_iterations) loop iterations (target $n, then 0.$t s);" \
		"loop errors (ENOMEM EIO other): $(loop_errors)"
	umount "$MNT" || { echo "umount of the shut down filesystem failed"; return 1; }
	echo > $TR/trace
	mount_recover || { echo "mount after the shutdown failed"; return 1; }
	lap recovery
	RECOVERIES=$((RECOVERIES + RECOVERED))
	[ "$RECOVERED" -eq 1 ] || echo "no log recovery on this mount"
	recovered_intents
	echo "log recovery replayed $INTENTS intent and $DONES done items" \
		"($(grep -c 'xfs_log_recover_item_recover:' $TR/trace) items in all)"
	INTENTS_ALL=$((INTENTS_ALL + INTENTS))
	[ "$INTENTS" -le "$DONES" ] || INTENT_CYCLES=$((INTENT_CYCLES + 1))
	# sets LOST and CORRUPT; the cycles stop at the first failure
	verify_durable || return 1
	lap verify
	if [ $((c % REPAIR_EVERY)) -eq 0 ] || [ "$c" -eq "$CYCLES" ]; then
		repair_remount || return 1
		echo "xfs_repair -n: clean"
		lap repair
	fi
	echo "seconds:$LAPS"
}

say "$CYCLES cycles, xfs_repair -n every $REPAIR_EVERY, files of the last $KEEP cycles verified, seed $SEED0"
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
check "recovery ran on every mount after a shutdown ($RECOVERIES of $DONE)" \
	[ "$RECOVERIES" -eq "$DONE" ]
# reported, not asserted: with this workload an intent's done item is
# nearly always in the log too, so few cycles leave an intent pending
say "recovery found intents without their done items in $INTENT_CYCLES of $DONE cycles"
KCORRUPT=$(kmsg_count "$CORRUPT_RE")
check "no XFS corruption report in the kernel log ($KCORRUPT)" [ "$KCORRUPT" -eq 0 ]
say "stress: scenario=crash-recovery cycles=$DONE planned=$CYCLES" \
	"recoveries=$RECOVERIES intents=$INTENTS_ALL intent_cycles=$INTENT_CYCLES" \
	"lost=$LOST corrupt=$CORRUPT" \
	"repair_runs=$REPAIRS repair_errors=$REPAIR_ERRORS forced=$FORCED" \
	"kernel_corruption=$KCORRUPT seed=$SEED0" \
	"secs_per_cycle=$(awk -v a="$T0" -v b="$T1" -v n="$DONE" 'BEGIN { printf "%.1f", n ? (b - a) / n : 0 }')"
finish
