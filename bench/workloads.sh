#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/shrink.sh: make bench-shrink.  Workloads where NOFS matters: on
# XFS and on ext4, metadata work that makes reclaim run the filesystems'
# shrinkers, in a memory cgroup and under global memory pressure
# (bench/guest/bench-shrink.sh says which).  The unpatched and the patched
# kernel, built with bench.config + shrink.config, are booted in turn
# SHRINK_ROUNDS times (base first in odd rounds); then each once more
# under TCG with one vCPU and the insn_window plugin, which counts the
# guest instructions of each workload.  The data goes to
# Documentation/bench/data/shrink-*, and bench/report.py writes its
# section of Documentation/benchmarks.md from there.
#
#   bench/shrink.sh [all|build|rounds|insns|report]   (default: all)
#
# Environment (default): SHRINK_ROUNDS (8: about 15 min with the
# instruction counts), SHRINK_FILES (20000 files in the cgroup), SHRINK_MAX
# (16M, its memory.high), GLOBAL_FILES (50000 per thread, 2 threads),
# SHRINK_MEM (256 MiB of guest memory: with less, the dirty inodes of the
# global workload OOM the guest), DQUOTS (5000 XFS user dquots with limits
# before the global workload), BENCH_TIMEOUT (900 s per boot), and those
# of bench/run.sh for the builds.
#
# Every boot records the host's load average before it; bench/report.py
# calls no verdict on rounds run on a busy host.
set -eu -o pipefail

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
# the builds, the plugin and qemu() of make bench
# shellcheck source=bench/run.sh
. "$TOP/bench/run.sh"
: "${SHRINK_ROUNDS:=$(sed -n "s/^SHRINK_ROUNDS=//p" "$(dirname "$0")/thresholds.conf")}" "${SHRINK_FILES:=20000}" "${SHRINK_MAX:=16M}"
: "${GLOBAL_FILES:=50000}" "${SHRINK_MEM:=256}" "${DQUOTS:=5000}"
CONFIG="$TOP/bench/bench.config $TOP/bench/shrink.config"
NAME=bench-shrink
SDATA=$WORK/shrink-data
SLOGS=$BLOGS/shrink
WORKLOADS=4	# NOFS-BENCH lines per boot

build_of() {
	if [ "$1" = base ]; then echo "$CACHE_DIR/build-bench-shrink-base"
	else echo "$CACHE_DIR/build-bench-shrink"; fi
}

check_shrink_params() {
	local v
	for v in SHRINK_ROUNDS SHRINK_FILES GLOBAL_FILES SHRINK_MEM DQUOTS BENCH_TIMEOUT; do
		case ${!v} in ''|*[!0-9]*) die "$v must be a number, not '${!v}'" ;; esac
	done
	[ "$SHRINK_ROUNDS" -ge 1 ] || die "SHRINK_ROUNDS must be at least 1"
	"$TOP/scripts/deps.sh" check cpio gzip python3 fs_mark ||
		die "missing tools (see above)"
}

# shrink_initrd KERNEL INSNS: the shared initramfs plus the guest script
# and its parameters
shrink_initrd() {
	local k=$1 root=$WORK/extra-shrink-$1-$2
	rm -rf "$root" && mkdir -p "$root/scenarios" "$root/bench"
	cp "$TOP/bench/guest/$NAME.sh" "$root/scenarios/"
	cat > "$root/bench/params.sh" <<-EOF
	SHRINK_FILES=$SHRINK_FILES SHRINK_MAX=$SHRINK_MAX GLOBAL_FILES=$GLOBAL_FILES
	DQUOTS=$DQUOTS INSNS=$2
	EOF
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
		gzip -6 > "$root.cpio.gz"
	cat "$QEMU_CACHE/initramfs.cpio.gz" "$root.cpio.gz" > "$WORK/initrd-shrink-$k-$2.cpio.gz"
}

prepare_guest() {
	QEMU_CACHE=$WORK/qemu
	mkdir -p "$QEMU_CACHE/disks" "$SDATA" "$SLOGS"
	"$TOP/qemu/mkinitramfs.sh" "$QEMU_CACHE/initramfs.cpio.gz" ||
		die "building the initramfs failed (see above)"
	for k in $KERNELS; do shrink_initrd "$k" "$1"; done
}

# shrink_parse LOG ROUND KERNEL: the boot's NOFS-BENCH lines
shrink_parse() {
	[ "$(grep -c 'NOFS-BENCH: ' "$1")" -eq $WORKLOADS ] ||
		{ echo "# expected $WORKLOADS NOFS-BENCH lines in $1"; return 1; }
	sed -n "s/^.*NOFS-BENCH: /$2 $3 /p" "$1" >> "$SDATA/shrink.txt"
}

shrink_rounds() {
	local r k n=0 start order
	prepare_guest 0
	# shellcheck disable=SC2034 # globals of run-scenario.sh's run_one
	SCENARIOS=$TOP/bench/guest MEM=$SHRINK_MEM TIMEOUT=$BENCH_TIMEOUT
	ACCEL=${NOFS_ACCEL:-auto} LOG_DIR=$SLOGS KERNEL=$(build_of patched)/arch/x86/boot/bzImage
	probe_accel
	say "accelerator: $ACCEL ($ACCEL_WHY); $SHRINK_ROUNDS rounds of 2 boots"
	QEMU_PID=
	trap '[ -z "$QEMU_PID" ] || kill "$QEMU_PID"; echo "interrupted" >&2; exit 130' INT TERM
	rm -f "$SDATA/shrink.txt" "$SDATA/boots"
	{ echo "date=$(date -u +%FT%TZ)"; echo "accel=$ACCEL"; echo "cpus=$(nproc)"
	  echo "tree=$(git -C "$TREE" log -1 --format='%h %s')"
	  echo "series=$("$TOP/scripts/series-id.sh")"
	  for v in SHRINK_ROUNDS SHRINK_FILES SHRINK_MAX GLOBAL_FILES SHRINK_MEM DQUOTS; do
		echo "$v=${!v}"; done
	  for k in $KERNELS; do
		echo "bzimage_$k=$(sha256sum < "$(build_of "$k")/arch/x86/boot/bzImage" | cut -c1-16)"
	  done; } > "$SDATA/meta"
	FAILED=0 start=$SECONDS
	for r in $(seq 1 "$SHRINK_ROUNDS"); do
		order=$KERNELS
		[ $((r % 2)) -eq 1 ] || order="patched base"
		for k in $order; do
			say "[shrink $r/$SHRINK_ROUNDS] $k kernel (elapsed $(( (SECONDS - start) / 60 )) min, boot $((n + 1)) of $((2 * SHRINK_ROUNDS)))"
			bench_boot "$SLOGS/$(printf 'r%02d-%s' "$r" "$k")" \
				"$WORK/initrd-shrink-$k-0.cpio.gz" "$k" "$r" \
				"${order%% *}" shrink_parse "$SDATA/boots"
			n=$((n + 1))
		done
	done
	trap - INT TERM
	say "rounds done in $(( (SECONDS - start) / 60 )) min, $FAILED failed boot(s); logs in $SLOGS"
}

# shrink_insns: each kernel once under TCG, one vCPU, with the plugin;
# SDATA/insns.tsv gets kernel, window, instructions, memory accesses,
# translation blocks
shrink_insns() {
	local k log plog dir img rc start=$SECONDS
	build_plugin
	prepare_guest 1
	rm -f "$SDATA/insns.tsv"
	for k in $KERNELS; do
		dir=$SLOGS/insns-$k log=$dir/$NAME.log plog=$dir/plugin.log
		img=$QEMU_CACHE/disks/shrink-insns-vda.img
		mkdir -p "$dir" && rm -f "$log" "$plog"
		new_disks "$img"
		say "[shrink insns] $k kernel (TCG, 1 vCPU, plugin); serial log: $log"
		# shellcheck disable=SC2034 # qemu()'s globals
		KERNEL=$(build_of "$k")/arch/x86/boot/bzImage MEM=$SHRINK_MEM
		rc=0
		qemu tcg,thread=single "$BENCH_TIMEOUT" "$log" \
			"console=ttyS0 panic=-1 no_timer_check kunit.enable=0 loglevel=$NOFS_LOGLEVEL nofs.scenario=$NAME nofs.deadline=$((BENCH_TIMEOUT - DEADLINE_MARGIN))" \
			-initrd "$WORK/initrd-shrink-$k-1.cpio.gz" -smp 1 \
			-drive "file=$img,if=virtio,format=raw,cache=unsafe" \
			-plugin "$PLUGIN" -d plugin -D "$plog" || rc=$?
		grep -q "NOFS-RESULT: $NAME PASS" "$log" ||
			die "$k: qemu status $rc, $(grep 'NOFS-RESULT:' "$log" || echo 'no NOFS-RESULT line'); serial log: $log"
		scan_splats "$log" || die "$k: kernel splat in $log"
		! grep -E '^insn-(warning|window [0-9]+ no-start)' "$plog" ||
			die "the plugin complained in $plog (above)"
		[ "$(grep -c '^insn-window ' "$plog")" -eq $WORKLOADS ] ||
			die "$k: expected $WORKLOADS windows in $plog"
		sed -n "s/^insn-window \([0-9]*\) \([0-9]*\) \([0-9]*\) \([0-9]*\)$/$k\t\1\t\2\t\3\t\4/p" \
			"$plog" >> "$SDATA/insns.tsv"
		sed -n "s/^.*NOFS-BENCH: /insns $k /p" "$log" > "$SDATA/insns-$k.txt"
	done
	echo "insns_secs=$((SECONDS - start))" >> "$SDATA/meta"
}

# shrink_export: SDATA into OUT/shrink-* (README.md there says what each is)
shrink_export() {
	[ -f "$SDATA/shrink.txt" ] || die "no $SDATA/shrink.txt: run bench/shrink.sh rounds"
	mkdir -p "$OUT"
	cp "$SDATA/meta" "$OUT/shrink-meta"
	kv_csv "$SDATA/shrink.txt" > "$OUT/shrink.csv"
	awk -v OFS=, 'BEGIN { print "round,kernel,result,secs,load,first" }
		{ print $1, $2, $3, $4, $5, $6 }' "$SDATA/boots" > "$OUT/shrink-boots.csv"
	if [ -f "$SDATA/insns.tsv" ]; then
		# the workload of each window, from the same boot's NOFS-BENCH lines
		{ echo "kernel,workload,files,insns,mem,blocks"
		  for k in $KERNELS; do
			awk -v k="$k" -v OFS=, 'NR == FNR { for (i = 4; i <= NF; i++) {
					split($i, kv, "="); if (kv[1] == "window") w = kv[2]
					if (kv[1] == "files") f = kv[2] }
					wl[w] = $3; fl[w] = f; next }
				$1 == k { print k, wl[$2], fl[$2], $3, $4, $5 }' \
				"$SDATA/insns-$k.txt" "$SDATA/insns.tsv"
		  done; } > "$OUT/shrink-insns.csv"
	fi
	say "[export] $OUT/shrink-*"
}

shrink_main() {
	local what=${1:-all} k
	case $what in all|build|rounds|insns|report) ;;
	*) sed -n '/^#   bench\/shrink/,/^#   bench\/shrink/s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
	check_params
	check_shrink_params
	if [ "$what" != report ]; then
		mkdir -p "$WORK" "$BLOGS"
		base_tree
		for k in $KERNELS; do build_kernel "$k"; done
	fi
	[ "$what" = build ] && return
	FAILED=0
	case $what in all|rounds) shrink_rounds ;; esac
	case $what in all|insns) shrink_insns ;; esac
	[ "$what" = rounds ] || [ "$what" = insns ] || shrink_export
	if [ "$what" != rounds ] && [ "$what" != insns ]; then
		python3 "$TOP/bench/report.py" "$OUT" \
			"$TOP/Documentation/benchmarks.md" "$TOP/Documentation/bench" ||
			die "writing the report failed"
		sed -n '/^## Workloads that reach the shrinkers/,/^## /p' \
			"$TOP/Documentation/benchmarks.md" | grep '^| ' | head -n 20
		say "report: Documentation/benchmarks.md (data: $OUT/shrink-*, logs: $SLOGS)"
	fi
	[ "$FAILED" -eq 0 ] || die "$FAILED boot(s) failed (their rounds are left out): see the 'not ok' lines above"
}

shrink_main "$@"
