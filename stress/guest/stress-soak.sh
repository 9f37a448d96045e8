# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# stress-soak: a long mixed workload under memory pressure, for
# nofs.soak seconds (600).  stress/run.sh boots it with little guest memory
# (--mem), and a ballast file in the guest's tmpfs (no swap: it cannot be
# reclaimed) leaves only nofs.soak_free MiB (64) available.  In a memory
# cgroup with memory.max nofs.soak_max (32M): the five lib-stress.sh loops
# (reflink+CoW, create/rename/symlink/remote xattr/unlink, quota chown/
# chproj/truncate, fallocate/punch/zero, directory churn) and a streaming
# writer (files of 32 MiB, fsynced, checksummed), so that the cgroup
# reclaims and writes back while XFS allocates in transactions.  Outside
# it: a reader of every file (global reclaim) and an xfs_scrub -n loop.
# The hung-task detector is on (60 s).  Then: no OOM kill, no shutdown, no
# EIO, the cgroup reclaimed, every loop made progress, the durable files
# (fsynced before the soak) and the streamed files intact, xfs_repair -n
# clean.  Reclaim statistics: /proc/vmstat (allocstall, pgscan, pgsteal,
# slabs_scanned) and the cgroup's memory.stat and memory.events.
#
# Last line: "# stress: scenario=soak secs=... iterations=... oom_kills=...
# memcg_max=... memcg_pgscan=... allocstall=... ...", read by stress/run.sh.
#
# nofs-disks: 1
# shellcheck source=../../qemu/guest/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=lib-stress.sh
. /scenarios/lib-stress.sh

num_param SOAK soak 600
MEMMAX=$(param soak_max 32M)
num_param FREE soak_free 64
STREAM_MIB=32
NSTREAM=6			# streamed files, rewritten in turn
STREAM_SUMS=/tmp/stream.sums
LOOP_NAMES="$LOOP_NAMES stream"	# in the cgroup
OUTSIDE="read scrub"		# in the root cgroup

# stream_step: rewrite streamed file N % NSTREAM, fsync, checksum it.
stream_step() {
	local f=$1/s$(($3 % NSTREAM))
	xfs_io -f -c "pwrite -q -b 1m -S $(($3 % 251)) 0 ${STREAM_MIB}m" -c fsync "$f" ||
		return 1
	sha256sum "$f" > "$f.sum.tmp" && mv "$f.sum.tmp" "$STREAM_SUMS.${f##*/}"
}

# read_step: every regular file on the filesystem, to /dev/null (files
# that the loops remove meanwhile fail; not counted)
read_step() { find "$MNT" -type f -exec cat {} + > /dev/null 2>&1; }

scrub_step() { xfs_scrub -n "$MNT"; }

# inside: the loops in the cgroup for SOAK seconds (run by memcg_run).
inside() {
	start_loops "$MNT/w" "$MNT/src"
	sleep "$SOAK"
	stop_loops
}

progress() {
	local l n bad=0
	for l in $LOOP_NAMES $OUTSIDE; do
		n=$(cat "$LOOPS/$l.n" 2>/dev/null || echo 0)
		echo "$l: $n iterations"
		[ "$n" -gt 0 ] || bad=1
	done
	return $bad
}

streamed_intact() {
	local bad
	sync
	echo 3 > /proc/sys/vm/drop_caches
	cat "$STREAM_SUMS".* > "$STREAM_SUMS"
	bad=$(sha256sum -c "$STREAM_SUMS" 2>&1 | grep -v ': OK$')
	echo "$(wc -l < "$STREAM_SUMS") streamed files of $STREAM_MIB MiB checked"
	[ -s "$STREAM_SUMS" ] || return 1
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}

repair_clean() {
	umount "$MNT" && xfs_repair -n "$DEV" > /tmp/repair.out 2>&1 && return 0
	tail -n 20 /tmp/repair.out
	REPAIR_ERRORS=1
	return 1
}

REPAIR_ERRORS=0
say "soak of $SOAK s, memory.max $MEMMAX, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB" \
	"guest memory, $(mem_available) MiB available, hung_task_timeout_secs" \
	"$(cat /proc/sys/kernel/hung_task_timeout_secs)"
require "mkfs.xfs -m reflink=1,rmapbt=1, mount with uquota,gquota,pquota" mkfs_mount
require "source files for the reflink loop" sources "$MNT/src"
require "durable files written and fsynced before the soak" durable_files "$MNT/durable" 0
require "memory cgroup nofs-soak with memory.max $MEMMAX" memcg_create nofs-soak "$MEMMAX"
require "tmpfs ballast, leaving about $FREE MiB available" ballast "$FREE"
kmsg
vmstat_snap /tmp/vmstat.before
T0=$(uptime_s)
rm -rf "$LOOPS" "$STOP"
mkdir -p "$LOOPS"
for l in $OUTSIDE; do
	loop "$l" "${l}_step" "$MNT/w/$l" "" &
	OUT_PIDS="${OUT_PIDS:-} $!"
done
check "$SOAK s of the loops in the cgroup" memcg_run inside
touch "$STOP"
# shellcheck disable=SC2086 # a list of PIDs
wait $OUT_PIDS
T1=$(uptime_s)
vmstat_snap /tmp/vmstat.after
kmsg
umount "$BALLAST"
memcg_report
RECLAIM=$(vmstat_delta /tmp/vmstat.before /tmp/vmstat.after)
say "/proc/vmstat during the soak: $RECLAIM"
check "the cgroup hit memory.max and reclaimed" memcg_reclaimed
check "no OOM kill in the cgroup" memcg_no_oom_kill
OOMS=$(echo "$RECLAIM" | tr ' ' '\n' | sed -n 's/^oom_kill=//p')
check "no OOM kill in the guest (/proc/vmstat oom_kill +${OOMS:-?})" [ "${OOMS:-1}" -eq 0 ]
check "every loop made progress" progress
# shellcheck disable=SC2046 # three numbers
set -- $(loop_errors)
ENOMEM=$1 EIO=$2 OTHER=$3
SHUTDOWNS=$(kmsg_count "$SHUTDOWN_RE")
check "no shutdown and no EIO (EIO $EIO, shutdowns $SHUTDOWNS; ENOMEM $ENOMEM, other $OTHER)" \
	test "$EIO" -eq 0 -a "$SHUTDOWNS" -eq 0
[ "$OTHER" -eq 0 ] || { say "commonest other errors (races of the loops):"; loop_error_samples 4 | sed 's/^/#   /'; }
[ ! -s "$LOOPS/scrub.err" ] || { say "xfs_scrub -n said:"; head -n 10 "$LOOPS/scrub.err" | sed 's/^/#   /'; }
check "durable files intact" verify_durable
check "streamed files intact" streamed_intact
check "xfs_repair -n: clean" repair_clean
KCORRUPT=$(kmsg_count "$CORRUPT_RE")
check "no XFS corruption report in the kernel log ($KCORRUPT)" [ "$KCORRUPT" -eq 0 ]
say "stress: scenario=soak secs=$(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%d", b - a }')" \
	"iterations=$(loop_iterations) streamed=$(cat "$LOOPS/stream.n" 2>/dev/null || echo 0)" \
	"reads=$(cat "$LOOPS/read.n" 2>/dev/null || echo 0) scrubs=$(cat "$LOOPS/scrub.n" 2>/dev/null || echo 0)" \
	"enomem=$ENOMEM eio=$EIO other_errors=$OTHER shutdowns=$SHUTDOWNS" \
	"oom_kills=$(( $(memcg_val memory.events oom_kill) + ${OOMS:-0} ))" \
	"memcg_max=$(memcg_val memory.events max) memcg_high=$(memcg_val memory.events high)" \
	"memcg_pgscan=$(memcg_val memory.stat pgscan) memcg_pgsteal=$(memcg_val memory.stat pgsteal)" \
	"$RECLAIM lost=${LOST:-0} corrupt=${CORRUPT:-0} repair_errors=$REPAIR_ERRORS" \
	"kernel_corruption=$KCORRUPT"
finish
