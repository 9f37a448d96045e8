# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# lib-bench.sh: what the guest scripts of the workload benchmarks
# (bench/workloads.sh: bench-shrink.sh, bench-btrfs.sh) share.  Each
# workload runs in measure(), which prints the line bench/workloads.sh
# parses:
#   NOFS-BENCH: WORKLOAD rate=R unit=files/s secs=S files=N window=W KEY=VALUE...
# with the deltas of /proc/vmstat around it (slabs_scanned: objects the
# shrinkers scanned; allocstall: entries into global direct reclaim;
# pgscan, pgsteal), memory.events high of the cgroup $MEMCG for a
# workload whose name ends in -memcg, and what the script's
# window_counters prints.  With INSNS=1 (the insns step: TCG, one vCPU,
# the insn_window plugin) each workload runs between insn-mark start and
# end, window W, numbered from 1 in the order of the calls.

VMSTAT0=/tmp/vmstat.before
WINDOW=0

now_cs() { tr -d . < /proc/uptime | cut -d' ' -f1; }

# vm_delta ERE: the change of the /proc/vmstat counters matching ERE
# since the workload began
vm_delta() {
	awk -v re="$1" 'NR == FNR { a[$1] = $2; next }
		$1 ~ re { s += $2 - a[$1] } END { print s + 0 }' \
		"$VMSTAT0" /proc/vmstat
}

# measure WORKLOAD FILES CMD...: CMD between the markers and the
# counters, then the NOFS-BENCH line; SLABS gets its slabs_scanned.
# The script defines window_start (called before the window) and
# window_counters (KEY=VALUE words for the line).
measure() {
	local wl=$1 files=$2 t0 t1 cs mx=0
	shift 2
	WINDOW=$((WINDOW + 1))
	window_start
	cp /proc/vmstat "$VMSTAT0"
	t0=$(now_cs)
	[ "$INSNS" != 1 ] || insn-mark start $WINDOW
	"$@" > /tmp/workload.out 2>&1 || { cat /tmp/workload.out; return 1; }
	[ "$INSNS" != 1 ] || insn-mark end $WINDOW
	t1=$(now_cs)
	cs=$((t1 - t0))
	[ "$cs" -gt 0 ] || cs=1
	case $wl in *-memcg) mx=$(memcg_val memory.events high) ;; esac
	SLABS=$(vm_delta '^slabs_scanned$')
	echo "NOFS-BENCH: $wl rate=$(awk -v n="$files" -v cs="$cs" \
		'BEGIN { printf "%.1f", n * 100 / cs }') unit=files/s" \
		"secs=$(printf '%d.%02d' $((cs / 100)) $((cs % 100))) files=$files window=$WINDOW" \
		"slabs_scanned=$SLABS" \
		"allocstall=$(vm_delta '^allocstall_')" \
		"pgscan=$(vm_delta '^pgscan_(kswapd|direct|khugepaged)$')" \
		"pgsteal=$(vm_delta '^pgsteal_(kswapd|direct|khugepaged)$')" \
		"memcg_high=$mx $(window_counters)"
}
