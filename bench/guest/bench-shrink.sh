# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# bench-shrink: one boot of bench/shrink.sh.  Metadata workloads that
# make reclaim run the filesystems' shrinkers, on XFS (user and group
# quota) and on ext4 (quota feature), each on a fresh filesystem:
#
#   FS-memcg   fs_mark creates SHRINK_FILES empty files in a memory cgroup
#              whose memory.high is SHRINK_MAX: no page cache to speak of,
#              so reclaim in the cgroup must free inodes and dentries (the
#              memcg-aware super block shrinker).  memory.high, not .max:
#              the inodes are allocated in transactions and freed only
#              once the log has them, so a hard limit OOM-kills fs_mark
#   FS-global  two fs_mark threads create GLOBAL_FILES empty files each
#              in the root cgroup of a small guest: global reclaim, which
#              also runs the shrinkers that are not memcg-aware (XFS
#              buffers and dquots, jbd2's checkpointed buffers).  On XFS,
#              DQUOTS user dquots get limits first (outside the measured
#              window), so that the dquot shrinker has unused dquots to
#              reclaim
#
# Each workload prints one line that bench/shrink.sh parses:
#   NOFS-BENCH: WORKLOAD rate=R unit=files/s secs=S files=N KEY=VALUE...
# with the deltas of /proc/vmstat around it (slabs_scanned: objects the
# shrinkers scanned; allocstall: entries into global direct reclaim), the
# cgroup's memory.events high for FS-memcg and, on XFS, the dquots the
# dquot shrinker reclaimed (/proc/fs/xfs/xqmstat).  It checks that
# slabs_scanned moved: a workload that never reaches the shrinkers
# measures nothing this benchmark is about.
#
# With INSNS=1 (bench/shrink.sh insns: TCG, one vCPU, the insn_window
# plugin) each workload runs between insn-mark start and end, window ID
# 1 to 4 in the order above, so that the plugin counts its instructions.
#
# nofs-disks: 1
# shellcheck source=../../qemu/guest/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=/dev/null
. /bench/params.sh

DEV=/dev/vda
MNT=/mnt
VMSTAT0=/tmp/vmstat.before
XQM0=/tmp/xqm.before
WINDOW=0

now_cs() { tr -d . < /proc/uptime | cut -d' ' -f1; }

# vm_delta ERE: the change of the /proc/vmstat counters matching ERE
vm_delta() {
	awk -v re="$1" 'NR == FNR { a[$1] = $2; next }
		$1 ~ re { s += $2 - a[$1] } END { print s + 0 }' \
		"$VMSTAT0" /proc/vmstat
}

# dq_delta: dquots reclaimed since XQM0 (xqmstat's first number)
dq_delta() {
	[ -f /proc/fs/xfs/xqmstat ] || { echo 0; return; }
	awk 'NR == FNR { a = $2; next } { print $2 - a }' "$XQM0" /proc/fs/xfs/xqmstat
}

fresh_fs() {
	case $1 in
	xfs) mkfs.xfs -q -f "$DEV" && mount -t xfs -o uquota,gquota "$DEV" "$MNT" ;;
	ext4) mkfs.ext4 -q -F -O quota -N 400000 "$DEV" && mount -t ext4 "$DEV" "$MNT" ;;
	esac
}

# measure WORKLOAD FILES CMD...: CMD between the markers and the
# counters, then the NOFS-BENCH line
measure() {
	local wl=$1 files=$2 t0 t1 cs mx=0
	shift 2
	WINDOW=$((WINDOW + 1))
	cp /proc/vmstat "$VMSTAT0"
	cat /proc/fs/xfs/xqmstat > "$XQM0" 2>/dev/null || echo "qm 0" > "$XQM0"
	t0=$(now_cs)
	[ "$INSNS" != 1 ] || insn-mark start $WINDOW
	"$@" > /tmp/workload.out 2>&1 || { cat /tmp/workload.out; return 1; }
	[ "$INSNS" != 1 ] || insn-mark end $WINDOW
	t1=$(now_cs)
	cs=$((t1 - t0))
	[ "$cs" -gt 0 ] || cs=1
	case $wl in *-memcg) mx=$(memcg_val memory.events high) ;; esac
	echo "NOFS-BENCH: $wl rate=$(awk -v n="$files" -v cs="$cs" \
		'BEGIN { printf "%.1f", n * 100 / cs }') unit=files/s" \
		"secs=$((cs / 100)).$((cs % 100)) files=$files window=$WINDOW" \
		"slabs_scanned=$(vm_delta '^slabs_scanned$')" \
		"allocstall=$(vm_delta '^allocstall_')" \
		"pgscan=$(vm_delta '^pgscan_(kswapd|direct|khugepaged)$')" \
		"pgsteal=$(vm_delta '^pgsteal_(kswapd|direct|khugepaged)$')" \
		"memcg_high=$mx dqreclaims=$(dq_delta)"
	SLABS=$(vm_delta '^slabs_scanned$')
}

create_in_memcg() {
	memcg_run fs_mark -d "$MNT/m" -D 64 -t 1 -n "$SHRINK_FILES" -s 0 -S 0 \
		-L 1 -k
}

create_in_root() {
	fs_mark -d "$MNT/g" -D 64 -t 2 -n "$GLOBAL_FILES" -s 0 -S 0 -L 1 -k
}

# reached: the shrinkers scanned objects during the last workload
reached() { echo "slabs_scanned=$SLABS"; [ "$SLABS" -gt 0 ]; }

# dquots: DQUOTS user dquots with limits, unused once xfs_quota exits
dquots() { user_limits "$MNT" 10001 "$DQUOTS" 100 200; }

say "kernel $(uname -r); $(grep MemTotal /proc/meminfo)"
require "fs_mark in the initramfs" command -v fs_mark
for fs in xfs ext4; do
	require "mkfs and mount $fs with quota" fresh_fs $fs
	require "memory cgroup shrink-$fs, memory.high $SHRINK_MAX" \
		memcg_create "shrink-$fs" max
	echo "$SHRINK_MAX" > "$MEMCG/memory.high"
	require "$fs-memcg: $SHRINK_FILES empty files in the cgroup" \
		measure "$fs-memcg" "$SHRINK_FILES" create_in_memcg
	check "$fs-memcg reached the shrinkers" reached
	[ $fs != xfs ] || require "$DQUOTS user dquots with limits" dquots
	require "$fs-global: $((2 * GLOBAL_FILES)) empty files in the root cgroup" \
		measure "$fs-global" "$((2 * GLOBAL_FILES))" create_in_root
	check "$fs-global reached the shrinkers" reached
	require "umount $MNT" umount "$MNT"
done
finish
