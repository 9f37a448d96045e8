#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/workloads.sh: make bench-shrink and make bench-btrfs.  Filesystem
# workloads, the unpatched kernel against the patched one, built from the
# same source with the same options (bench.config plus the suite's own
# fragment) and booted in turn ROUNDS times (base first in odd rounds);
# then each kernel INSNS_BOOTS times under TCG with one vCPU and the
# insn_window plugin, which counts the guest instructions of each
# workload.  The data goes to Documentation/bench/data/SUITE-*, and
# bench/report.py writes the suite's section of
# Documentation/benchmarks.md from there.  Two suites:
#
#   shrink  bench/guest/bench-shrink.sh: XFS and ext4 metadata work in a
#           memory cgroup and under global memory pressure, which makes
#           reclaim run the filesystems' shrinkers (bench/shrink.config)
#   btrfs   bench/guest/bench-btrfs.sh: btrfs creates and cold tree walks,
#           without and in a memory cgroup: the cost of the marked tree
#           locks (bench/btrfs.config).  Its insns step also boots two more
#           kernels: prelocks, the series up to the patch before the one
#           that marks the extent buffer locks (PRELOCKS_BEFORE), so that
#           patched against prelocks prices that patch and the four after
#           it apart from the transaction handle's scope; and debug, the
#           patched source with CONFIG_DEBUG_MEMALLOC_SCOPE
#           (bench/debug.config), for the cost of the debug option
#
#   bench/workloads.sh SUITE [all|build|rounds|insns|report]   (default: all)
#
# Environment (default): for shrink, SHRINK_ROUNDS (thresholds.conf),
# SHRINK_FILES (20000 files in the cgroup), SHRINK_MAX (16M, its
# memory.high), GLOBAL_FILES (50000 per thread, 2 threads), SHRINK_MEM (256
# MiB of guest memory: with less, the dirty inodes of the global workload
# OOM the guest), DQUOTS (5000 XFS user dquots with limits before the
# global workload); for btrfs, BTRFS_ROUNDS and BTRFS_INSNS_BOOTS
# (thresholds.conf), BTRFS_FILES (50000 per workload), BTRFS_HIGH (16M,
# the cgroup's memory.high), BTRFS_MEM (512 MiB); BENCH_TIMEOUT (900 s
# per boot), and those of bench/run.sh for the builds.
#
# Every boot records the host's load average before it; bench/report.py
# calls no verdict on rounds run on a busy host.
set -eu -o pipefail

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
SUITE=${1:-}
WHAT=${2:-all}
# the builds, the plugin and qemu() of make bench
# shellcheck source=bench/run.sh
. "$TOP/bench/run.sh"

limit() { sed -n "s/^$1=//p" "$TOP/bench/thresholds.conf"; }
# usage: the comment at the top of this file, then exit 2
usage() { sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0" >&2; exit 2; }

case $SUITE in
shrink)
	: "${SHRINK_ROUNDS:=$(limit SHRINK_ROUNDS)}" "${SHRINK_FILES:=20000}" "${SHRINK_MAX:=16M}"
	: "${GLOBAL_FILES:=50000}" "${SHRINK_MEM:=256}" "${DQUOTS:=5000}"
	SROUNDS=$SHRINK_ROUNDS SMEM=$SHRINK_MEM SBOOTS=1
	PARAMS="SHRINK_FILES SHRINK_MAX GLOBAL_FILES DQUOTS"
	NUMBERS="SHRINK_ROUNDS SHRINK_FILES GLOBAL_FILES SHRINK_MEM DQUOTS"
	INSNS_KERNELS="base patched" ;;
btrfs)
	: "${BTRFS_ROUNDS:=$(limit BTRFS_ROUNDS)}" "${BTRFS_INSNS_BOOTS:=$(limit BTRFS_INSNS_BOOTS)}"
	: "${BTRFS_FILES:=50000}" "${BTRFS_HIGH:=16M}" "${BTRFS_MEM:=512}"
	SROUNDS=$BTRFS_ROUNDS SMEM=$BTRFS_MEM SBOOTS=$BTRFS_INSNS_BOOTS
	PARAMS="BTRFS_FILES BTRFS_HIGH"
	NUMBERS="BTRFS_ROUNDS BTRFS_INSNS_BOOTS BTRFS_FILES BTRFS_MEM"
	INSNS_KERNELS="base prelocks patched debug" ;;
*)
	usage ;;
esac
NAME=bench-$SUITE
# the subject of the btrfs patch that marks the tree locks: the prelocks
# kernel is built from the commit before it, in a worktree of its own
PRELOCKS_BEFORE="btrfs: make extent buffer locks NOFS-marked rw_semaphores"
PRELOCKS_TREE=$CACHE_DIR/linux-prelocks
SDATA=$WORK/$SUITE-data
SLOGS=$BLOGS/$SUITE
WORKLOADS=4	# NOFS-BENCH lines per boot, in both suites

src_of() {
	case $1 in
	base) echo "$BASE_TREE" ;;
	prelocks) echo "$PRELOCKS_TREE" ;;
	*) echo "$TREE" ;;
	esac
}
build_of() {
	case $1 in
	base) echo "$CACHE_DIR/build-bench-$SUITE-base" ;;
	patched) echo "$CACHE_DIR/build-bench-$SUITE" ;;
	prelocks) echo "$CACHE_DIR/build-bench-$SUITE-prelocks" ;;
	debug) echo "$CACHE_DIR/build-bench-$SUITE-debug" ;;
	esac
}

# config_of KERNEL: the fragments of its build.  The debug kernel takes
# bench.config without the two lines that rule out DEBUG_KERNEL and the
# option it adds.
config_of() {
	local own=$TOP/bench/$SUITE.config
	if [ "$1" = debug ]; then
		grep -v -e '^# CONFIG_DEBUG_KERNEL is not set' \
			-e '^# CONFIG_DEBUG_MEMALLOC_SCOPE is not set' \
			"$TOP/bench/bench.config" > "$WORK/bench-debug-base.config"
		echo "$WORK/bench-debug-base.config $own $TOP/bench/debug.config"
	else
		echo "$TOP/bench/bench.config $own"
	fi
}

# prelocks_tree: PRELOCKS_TREE, a worktree of TREE at the parent of the
# commit whose subject is PRELOCKS_BEFORE
prelocks_tree() {
	local c
	c=$(git -C "$TREE" log --format=%H --fixed-strings --grep="$PRELOCKS_BEFORE" \
		pristine..HEAD | tail -n 1)
	[ -n "$c" ] || die "no commit '$PRELOCKS_BEFORE' in $TREE: cannot build the prelocks kernel"
	[ "$(git -C "$TREE" log -1 --format=%s "$c")" = "$PRELOCKS_BEFORE" ] ||
		die "commit $c of $TREE is not '$PRELOCKS_BEFORE'"
	if [ ! -e "$PRELOCKS_TREE/.git" ]; then
		say "creating the worktree $PRELOCKS_TREE"
		git -C "$TREE" worktree add -q --detach "$PRELOCKS_TREE" "$c^"
	fi
	git -C "$PRELOCKS_TREE" checkout -q --detach "$c^" ||
		die "cannot check out $c^ in $PRELOCKS_TREE"
	say "prelocks kernel: $(git -C "$PRELOCKS_TREE" log -1 --format='%h %s')"
}

# check_debug_config: the debug kernel's .config differs from the patched
# one's only in DEBUG_KERNEL, DEBUG_MEMALLOC_SCOPE and DEBUG_INFO_NONE (the
# no-debug-info choice DEBUG_KERNEL shows), so that its counts price the
# option alone
check_debug_config() {
	local extra
	extra=$(diff <(grep '^CONFIG_' "$(build_of patched)/.config") \
		     <(grep '^CONFIG_' "$(build_of debug)/.config") |
		sed -n 's/^[<>] //p' | grep -v -E '^CONFIG_DEBUG_(KERNEL|MEMALLOC_SCOPE|INFO_NONE)=' || true)
	[ -z "$extra" ] || die "the debug kernel's .config differs from the patched one's beyond the option:
$extra
(set them in bench/debug.config)"
}

check_suite_params() {
	local v
	for v in $NUMBERS BENCH_TIMEOUT; do
		case ${!v} in ''|*[!0-9]*) die "$v must be a number, not '${!v}'" ;; esac
	done
	[ "$SROUNDS" -ge 1 ] || die "the number of rounds must be at least 1"
	[ "$SBOOTS" -ge 1 ] || die "the number of counting boots must be at least 1"
	"$TOP/scripts/deps.sh" check cpio gzip python3 fs_mark ||
		die "missing tools (see above)"
}

# suite_initrd KERNEL INSNS: the shared initramfs plus the guest script,
# its library and its parameters
suite_initrd() {
	local k=$1 root=$WORK/extra-$SUITE-$1-$2 v
	rm -rf "$root" && mkdir -p "$root/scenarios" "$root/bench"
	cp "$TOP/bench/guest/$NAME.sh" "$TOP/bench/guest/lib-bench.sh" "$root/scenarios/"
	{ for v in $PARAMS; do echo "$v=${!v}"; done; echo "INSNS=$2"; } > "$root/bench/params.sh"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
		gzip -6 > "$root.cpio.gz"
	cat "$QEMU_CACHE/initramfs.cpio.gz" "$root.cpio.gz" > "$WORK/initrd-$SUITE-$k-$2.cpio.gz"
}

# prepare_guest INSNS KERNEL...
prepare_guest() {
	local insns=$1 k
	shift
	QEMU_CACHE=$WORK/qemu
	mkdir -p "$QEMU_CACHE/disks" "$SDATA" "$SLOGS"
	"$TOP/qemu/mkinitramfs.sh" "$QEMU_CACHE/initramfs.cpio.gz" ||
		die "building the initramfs failed (see above)"
	for k in "$@"; do suite_initrd "$k" "$insns"; done
}

# suite_parse LOG ROUND KERNEL: the boot's NOFS-BENCH lines
suite_parse() {
	[ "$(grep -c 'NOFS-BENCH: ' "$1")" -eq $WORKLOADS ] ||
		{ echo "# expected $WORKLOADS NOFS-BENCH lines in $1"; return 1; }
	sed -n "s/^.*NOFS-BENCH: /$2 $3 /p" "$1" >> "$SDATA/runs.txt"
}

# suite_meta: the facts of a campaign, and its parameters
suite_meta() {
	local v k
	echo "date=$(date -u +%FT%TZ)"; echo "accel=$ACCEL"; echo "cpus=$(nproc)"
	echo "tree=$(git -C "$TREE" log -1 --format='%h %s')"
	echo "series=$("$TOP/scripts/series-id.sh")"
	echo "${SUITE^^}_ROUNDS=$SROUNDS"; echo "${SUITE^^}_MEM=$SMEM"
	for v in $PARAMS; do echo "$v=${!v}"; done
	[ "$SUITE" != btrfs ] ||
		echo "prelocks=$(git -C "$PRELOCKS_TREE" log -1 --format='%h %s')"
	for k in $INSNS_KERNELS; do
		[ -f "$(build_of "$k")/arch/x86/boot/bzImage" ] || continue
		echo "bzimage_$k=$(sha256sum < "$(build_of "$k")/arch/x86/boot/bzImage" | cut -c1-16)"
	done
}

suite_rounds() {
	local r k n=0 start order
	# shellcheck disable=SC2086 # lists of kernels
	prepare_guest 0 $KERNELS
	# shellcheck disable=SC2034 # globals of run-scenario.sh's run_one
	SCENARIOS=$TOP/bench/guest MEM=$SMEM TIMEOUT=$BENCH_TIMEOUT
	ACCEL=${NOFS_ACCEL:-auto} LOG_DIR=$SLOGS KERNEL=$(build_of patched)/arch/x86/boot/bzImage
	probe_accel
	say "accelerator: $ACCEL ($ACCEL_WHY); $SROUNDS rounds of 2 boots"
	QEMU_PID=
	trap '[ -z "$QEMU_PID" ] || kill "$QEMU_PID"; echo "interrupted" >&2; exit 130' INT TERM
	rm -f "$SDATA/runs.txt" "$SDATA/boots"
	suite_meta > "$SDATA/meta"
	FAILED=0 start=$SECONDS
	for r in $(seq 1 "$SROUNDS"); do
		order=$KERNELS
		[ $((r % 2)) -eq 1 ] || order="patched base"
		for k in $order; do
			say "[$SUITE $r/$SROUNDS] $k kernel (elapsed $(( (SECONDS - start) / 60 )) min, boot $((n + 1)) of $((2 * SROUNDS)))"
			bench_boot "$SLOGS/$(printf 'r%02d-%s' "$r" "$k")" \
				"$WORK/initrd-$SUITE-$k-0.cpio.gz" "$k" "$r" \
				"${order%% *}" suite_parse "$SDATA/boots"
			n=$((n + 1))
		done
	done
	trap - INT TERM
	say "rounds done in $(( (SECONDS - start) / 60 )) min, $FAILED failed boot(s); logs in $SLOGS"
}

# suite_insns: each kernel SBOOTS times under TCG, one vCPU, with the
# plugin, kernels in turn; SDATA/insns.tsv gets kernel, boot, window,
# instructions, memory accesses, translation blocks
suite_insns() {
	local b k log plog dir img rc start=$SECONDS
	build_plugin
	# shellcheck disable=SC2086
	prepare_guest 1 $INSNS_KERNELS
	rm -f "$SDATA/insns.tsv" "$SDATA"/insns-*.txt
	for b in $(seq 1 "$SBOOTS"); do
	for k in $INSNS_KERNELS; do
		dir=$SLOGS/insns-b$b-$k log=$dir/$NAME.log plog=$dir/plugin.log
		img=$QEMU_CACHE/disks/$SUITE-insns-vda.img
		mkdir -p "$dir" && rm -f "$log" "$plog"
		new_disks "$img"
		say "[$SUITE insns $b/$SBOOTS] $k kernel (TCG, 1 vCPU, plugin; elapsed $(( (SECONDS - start) / 60 )) min); serial log: $log"
		# shellcheck disable=SC2034 # qemu()'s globals
		KERNEL=$(build_of "$k")/arch/x86/boot/bzImage MEM=$SMEM
		rc=0
		qemu tcg,thread=single "$BENCH_TIMEOUT" "$log" \
			"console=ttyS0 panic=-1 no_timer_check kunit.enable=0 loglevel=$NOFS_LOGLEVEL nofs.scenario=$NAME nofs.deadline=$((BENCH_TIMEOUT - DEADLINE_MARGIN))" \
			-initrd "$WORK/initrd-$SUITE-$k-1.cpio.gz" -smp 1 \
			-drive "file=$img,if=virtio,format=raw,cache=unsafe" \
			-plugin "$PLUGIN" -d plugin -D "$plog" || rc=$?
		grep -q "NOFS-RESULT: $NAME PASS" "$log" ||
			die "$k: qemu status $rc, $(grep 'NOFS-RESULT:' "$log" || echo 'no NOFS-RESULT line'); serial log: $log"
		scan_splats "$log" || die "$k: kernel splat in $log"
		! grep -E '^insn-(warning|window [0-9]+ no-start)' "$plog" ||
			die "the plugin complained in $plog (above)"
		[ "$(grep -c '^insn-window ' "$plog")" -eq $WORKLOADS ] ||
			die "$k: expected $WORKLOADS windows in $plog"
		sed -n "s/^insn-window \([0-9]*\) \([0-9]*\) \([0-9]*\) \([0-9]*\)$/$k\t$b\t\1\t\2\t\3\t\4/p" \
			"$plog" >> "$SDATA/insns.tsv"
		sed -n "s/^.*NOFS-BENCH: /insns $k /p" "$log" > "$SDATA/insns-$k-$b.txt"
	done
	done
	{ suite_meta; echo "insns_secs=$((SECONDS - start))"; } > "$SDATA/insns.meta"
}

# suite_export: SDATA into OUT/SUITE-* (README.md there says what each is)
suite_export() {
	local b k
	[ -f "$SDATA/runs.txt" ] || die "no $SDATA/runs.txt: run bench/workloads.sh $SUITE rounds"
	mkdir -p "$OUT"
	cp "$SDATA/meta" "$OUT/$SUITE-meta"
	kv_csv "$SDATA/runs.txt" > "$OUT/$SUITE.csv"
	awk -v OFS=, 'BEGIN { print "round,kernel,result,secs,load,first" }
		{ print $1, $2, $3, $4, $5, $6 }' "$SDATA/boots" > "$OUT/$SUITE-boots.csv"
	[ -f "$SDATA/insns.tsv" ] || { say "[export] $OUT/$SUITE-* (no instruction counts)"; return; }
	cp "$SDATA/insns.meta" "$OUT/$SUITE-insns.meta"
	# the workload of each window, from the same boot's NOFS-BENCH lines
	{ echo "kernel,boot,workload,files,insns,mem,blocks"
	  for f in "$SDATA"/insns-*-*.txt; do
		k=${f##*/insns-} b=${k##*-} k=${k%-*} b=${b%.txt}
		awk -v k="$k" -v b="$b" -v OFS=, 'NR == FNR { for (i = 4; i <= NF; i++) {
				split($i, kv, "="); if (kv[1] == "window") w = kv[2]
				if (kv[1] == "files") f = kv[2] }
				wl[w] = $3; fl[w] = f; next }
			$1 == k && $2 == b { print k, b, wl[$3], fl[$3], $4, $5, $6 }' \
			"$f" "$SDATA/insns.tsv"
	  done; } > "$OUT/$SUITE-insns.csv"
	say "[export] $OUT/$SUITE-*"
}

# unjudged PAGE: fail when the suite's section of PAGE has a verdict it
# could not give (no paired round, too few counting boots, no counts, a
# busy host)
unjudged() {
	local n title
	case $SUITE in
	btrfs) title='btrfs metadata workloads' ;;
	shrink) title='Workloads that reach the shrinkers' ;;
	esac
	n=$(awk -v t="## $title" 'index($0, t) == 1 { on = 1; next }
		/^## / { on = 0 } on' "$1" |
		grep -cE '^\|.*(UNJUDGED|not judged)|^No instruction counts' || true)
	[ "$n" -eq 0 ] || die "$n UNJUDGED line(s) in the section '$title' of $1 (see there)"
}

suite_main() {
	local k
	case $WHAT in all|build|rounds|insns|report) ;;
	*) usage ;;
	esac
	check_params
	check_suite_params
	if [ "$WHAT" != report ]; then
		mkdir -p "$WORK" "$BLOGS"
		base_tree
		[ "$SUITE" != btrfs ] || prelocks_tree
		for k in $INSNS_KERNELS; do
			CONFIG=$(config_of "$k") build_kernel "$k"
		done
		[ "$SUITE" != btrfs ] || check_debug_config
	fi
	[ "$WHAT" = build ] && return
	FAILED=0
	case $WHAT in all|rounds) suite_rounds ;; esac
	case $WHAT in all|insns) suite_insns ;; esac
	[ "$WHAT" = rounds ] || [ "$WHAT" = insns ] || suite_export
	if [ "$WHAT" != rounds ] && [ "$WHAT" != insns ]; then
		python3 "$TOP/bench/report.py" "$OUT" \
			"$TOP/Documentation/benchmarks.md" "$TOP/Documentation/bench" ||
			die "writing the report failed"
		say "report: Documentation/benchmarks.md (data: $OUT/$SUITE-*, logs: $SLOGS)"
		unjudged "$TOP/Documentation/benchmarks.md"
	fi
	[ "$FAILED" -eq 0 ] || die "$FAILED boot(s) failed (their rounds are left out): see the 'not ok' lines above"
}

suite_main
