# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# bench-round: one boot of make bench (bench/run.sh puts this file in
# /scenarios of an extra initramfs archive, with /bench/nofs_bench.ko and
# /bench/params.sh, which sets the variables used below).
#
#  1. the microbenchmarks: insmod nofs_bench.ko (it prints its own lines)
#  2. fs_mark on a fresh XFS in a memory cgroup of META_MAX: metadata
#  3. xfs_io pwrite of WRITE_FILES files of WRITE_MB MiB each, fsync'd, on a
#     fresh XFS in a memory cgroup of WRITE_MAX: buffered writes
#
# Each workload prints one line that bench/run.sh parses:
#   NOFS-BENCH: WORKLOAD rate=R unit=U secs=S KEY=VALUE...
# with the deltas of /proc/vmstat around it and the cgroup's own counters
# (a new cgroup per workload, so they start at zero).
#
# nofs-disks: 1
# shellcheck source=../../qemu/guest/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=/dev/null
. /bench/params.sh

DEV=/dev/vda
MNT=/mnt
VMSTAT0=/tmp/vmstat.before

# uptime in hundredths of a second
now_cs() { tr -d . < /proc/uptime | cut -d' ' -f1; }

microbench() {
	insmod /bench/nofs_bench.ko iters="$ITERS" trials="$TRIALS" &&
		dmesg | grep -q 'nofs_bench: done'
}

fresh_fs() {
	mkfs.xfs -q -f "$DEV" && mount -t xfs "$DEV" "$MNT"
}

# vm_delta ERE: the sum of the changes of the /proc/vmstat counters whose
# names match ERE since VMSTAT0 was taken.
vm_delta() {
	awk -v re="$1" 'NR == FNR { a[$1] = $2; next }
		$1 ~ re { s += $2 - a[$1] } END { print s + 0 }' \
		"$VMSTAT0" /proc/vmstat
}

# report WORKLOAD RATE UNIT SECS: the NOFS-BENCH line of a workload
report() {
	echo "NOFS-BENCH: $1 rate=$2 unit=$3 secs=$4" \
		"allocstall=$(vm_delta '^allocstall_')" \
		"pgscan=$(vm_delta '^pgscan_(kswapd|direct|khugepaged)$')" \
		"pgsteal=$(vm_delta '^pgsteal_(kswapd|direct|khugepaged)$')" \
		"pgscan_direct=$(vm_delta '^pgscan_direct$')" \
		"slabs_scanned=$(vm_delta '^slabs_scanned$')" \
		"inodesteal=$(vm_delta '^(pginodesteal|kswapd_inodesteal)$')" \
		"memcg_max=$(memcg_val memory.events max)" \
		"memcg_oom_kill=$(memcg_val memory.events oom_kill)" \
		"memcg_pgscan=$(memcg_val memory.stat pgscan)" \
		"memcg_pgsteal=$(memcg_val memory.stat pgsteal)" \
		"memcg_pgscan_direct=$(memcg_val memory.stat pgscan_direct)" \
		"memcg_slab_reclaimable=$(memcg_val memory.stat slab_reclaimable)" \
		"memcg_peak=$(cat "$MEMCG/memory.peak" 2>/dev/null || echo 0)"
}

# fsmark: FSMARK_LOOPS loops of 2 threads creating FSMARK_FILES files each
# of FSMARK_SIZE bytes, all kept, over 16 subdirectories; the rate is the
# mean of fs_mark's files/s over its loops.
fsmark() {
	local t0 t1 rate
	cp /proc/vmstat "$VMSTAT0"
	t0=$(now_cs)
	memcg_run fs_mark -d "$MNT/fsm" -D 16 -t 2 -n "$FSMARK_FILES" \
		-s "$FSMARK_SIZE" -S 0 -L "$FSMARK_LOOPS" -k > /tmp/fsmark.out 2>&1 ||
		{ cat /tmp/fsmark.out; return 1; }
	sync
	t1=$(now_cs)
	cat /tmp/fsmark.out
	rate=$(awk '$1 ~ /^[0-9]+$/ && NF == 5 { s += $4; n++ }
		END { if (n) printf "%.1f", s / n }' /tmp/fsmark.out)
	[ -n "$rate" ] || { echo "no result line in the fs_mark output"; return 1; }
	report fsmark "$rate" files/s "$(((t1 - t0) / 100)).$(((t1 - t0) % 100))"
}

# buffered_write: WRITE_FILES files of WRITE_MB MiB, one after the other,
# each fsync'd; the rate is MiB over the wall time, fsyncs included.
buffered_write() {
	local i=1 t0 t1 cs
	cp /proc/vmstat "$VMSTAT0"
	t0=$(now_cs)
	while [ $i -le "$WRITE_FILES" ]; do
		memcg_run xfs_io -f -c "pwrite -q -b 1m 0 ${WRITE_MB}m" -c fsync \
			"$MNT/w$i" || return 1
		i=$((i + 1))
	done
	t1=$(now_cs)
	cs=$((t1 - t0))
	[ "$cs" -gt 0 ] || cs=1
	report write "$(awk -v mb=$((WRITE_FILES * WRITE_MB)) -v cs="$cs" \
		'BEGIN { printf "%.1f", mb * 100 / cs }')" MiB/s "$((cs / 100)).$((cs % 100))"
}

# cgroup_reclaimed: pages of $MEMCG were reclaimed, whether its memory.max
# or global reclaim (tight guest memory) got there first (a check).
cgroup_reclaimed() {
	local steal
	steal=$(memcg_val memory.stat pgsteal)
	echo "memory.events max=$(memcg_val memory.events max), memory.stat pgsteal=$steal"
	[ "$steal" -gt 0 ]
}

say "kernel $(uname -r); $(grep MemTotal /proc/meminfo)"
require "fs_mark in the initramfs" command -v fs_mark
require "microbenchmarks (nofs_bench.ko iters=$ITERS trials=$TRIALS)" microbench

require "mkfs.xfs and mount $DEV" fresh_fs
require "memory cgroup bench-meta, memory.max $META_MAX" memcg_create bench-meta "$META_MAX"
require "fs_mark: $((2 * FSMARK_LOOPS * FSMARK_FILES)) files of $FSMARK_SIZE bytes" fsmark
memcg_report
check "bench-meta hit memory.max and reclaimed" memcg_reclaimed
check "no OOM kill in bench-meta" memcg_no_oom_kill
require "umount $MNT" umount "$MNT"

require "mkfs.xfs and mount $DEV again" fresh_fs
require "memory cgroup bench-write, memory.max $WRITE_MAX" memcg_create bench-write "$WRITE_MAX"
require "buffered writes: $WRITE_FILES files of $WRITE_MB MiB" buffered_write
memcg_report
check "bench-write pages were reclaimed" cgroup_reclaimed
check "no OOM kill in bench-write" memcg_no_oom_kill
require "umount $MNT" umount "$MNT"
finish
