#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run.sh: make bench.  The unpatched and the patched kernel, built
# from the same source with the same production-like options, are booted
# in turn ROUNDS times under QEMU (base, patched; patched, base; ...); each
# boot runs the microbenchmark module and two XFS workloads under memory
# pressure (bench/guest/bench-round.sh).  bench/report.py then writes
# Documentation/benchmarks.md and its plots from the measured data.
# The insns step boots each kernel INSNS_BOOTS times under TCG with one
# vCPU and a QEMU plugin (bench/plugin/insn_window.c) that counts the
# guest instructions of each case's loop between markers
# (nofs_bench.ko insns=1): deterministic counts beside the times.
#
#   bench/run.sh [all|build|rounds|insns|report]     (default: all)
#     all      build, rounds, insns, then the report
#     build    the two kernels and the module only
#     rounds   build, then boot and measure (no report)
#     insns    build, count instructions, then the report (if there is
#              timed data)
#     report   export the data of the last run, rewrite the report
#
# Environment (default): ROUNDS (12: about 20 min of boots under TCG, and
# 30-40 min for make bench with both kernels built cold on an idle 2-core
# machine), ITERS (2000) and TRIALS (101) of the module, BENCH_MEM (160,
# guest MiB), FSMARK_FILES (2000 per thread and loop, 2 threads),
# FSMARK_LOOPS (2), FSMARK_SIZE (4096), META_MAX (24M), WRITE_FILES (3),
# WRITE_MB (256), WRITE_MAX (64M), BENCH_TIMEOUT (900 s per boot),
# BENCH_IDLE_WAIT (300 s: the longest wait for an idle host before a
# timed boot, wait_idle),
# INSNS_ITERS (1000 iterations per counted window), INSNS_REPS (5 windows
# per case and iteration count), INSNS_BOOTS (2 per kernel: the counts of
# every boot of a kernel must be the same), and from make: TOP, TREE,
# CACHE_DIR, LOG_DIR, JOBS, NOFS_ACCEL (insns always uses TCG).
#
# Outputs: kernels in CACHE_DIR/build-bench-base and build-bench, modules
# and initramfs in CACHE_DIR/bench, serial logs in LOG_DIR/bench/rNN-KERNEL,
# parsed data in CACHE_DIR/bench/data; insns: the plugin in
# CACHE_DIR/bench/plugin, logs in LOG_DIR/bench/insns-bN-KERNEL,
# data/insns-windows.tsv (every window), data/insns.csv (per case) and
# data/insns.meta.  Before the report, export_data copies the data, and
# the facts the report needs from the logs, build directories and host,
# into Documentation/bench/data (committed; see its README.md), and
# bench/report.py reads only that directory (make bench-report reruns it).
set -eu -o pipefail

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
: "${CACHE_DIR:=$(dirname "$TREE")}"
: "${LOG_DIR:=$CACHE_DIR/logs}"
: "${JOBS:=2}"
: "${ROUNDS:=$(sed -n "s/^ROUNDS=//p" "$(dirname "$0")/thresholds.conf")}" "${ITERS:=2000}" "${TRIALS:=101}" "${BENCH_MEM:=160}"
: "${FSMARK_FILES:=2000}" "${FSMARK_LOOPS:=2}" "${FSMARK_SIZE:=4096}"
: "${META_MAX:=24M}" "${WRITE_FILES:=3}" "${WRITE_MB:=256}"
: "${WRITE_MAX:=64M}" "${BENCH_TIMEOUT:=900}"
: "${INSNS_ITERS:=1000}" "${INSNS_REPS:=5}" "${INSNS_BOOTS:=2}"
export ROUNDS

# qemu(), probe_accel(), run_one() and their globals, set in run_rounds
# shellcheck source=../qemu/run-scenario.sh
. "$(dirname "$0")/../qemu/run-scenario.sh"

BASE_TREE=$CACHE_DIR/linux-base
WORK=$CACHE_DIR/bench
DATA=$WORK/data
OUT=$TOP/Documentation/bench/data	# committed: what the report reads
BLOGS=$LOG_DIR/bench
KERNELS="base patched"
CONFIG=$TOP/bench/bench.config
NAME=bench-round		# bench/guest/$NAME.sh
INSNS_NAME=bench-insns		# the guest script of the insns step

say() { printf '==> %s\n' "$*"; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }

src_of() { if [ "$1" = base ]; then echo "$BASE_TREE"; else echo "$TREE"; fi; }
build_of() {
	if [ "$1" = base ]; then echo "$CACHE_DIR/build-bench-base"
	else echo "$CACHE_DIR/build-bench"; fi
}

check_params() {
	local v
	for v in ROUNDS ITERS TRIALS BENCH_MEM FSMARK_FILES FSMARK_LOOPS \
		 FSMARK_SIZE WRITE_FILES WRITE_MB BENCH_TIMEOUT INSNS_ITERS \
		 INSNS_REPS INSNS_BOOTS; do
		case ${!v} in ''|*[!0-9]*) die "$v must be a number, not '${!v}'" ;; esac
	done
	[ "$ROUNDS" -ge 1 ] || die "ROUNDS must be at least 1"
	[ "$INSNS_ITERS" -ge 100 ] && [ "$INSNS_ITERS" -le 10000000 ] ||
		die "INSNS_ITERS must be 100..10000000"
	[ "$INSNS_REPS" -ge 1 ] && [ "$INSNS_REPS" -le 100 ] ||
		die "INSNS_REPS must be 1..100"
	[ "$INSNS_BOOTS" -ge 1 ] || die "INSNS_BOOTS must be at least 1"
	"$TOP/scripts/deps.sh" check cpio gzip objdump python3 gnuplot ||
		die "missing tools (see above)"
}

# The unpatched source: a worktree of TREE at tag pristine, as for make
# baseline.
base_tree() {
	need_tree
	if [ ! -e "$BASE_TREE/.git" ]; then
		say "creating the unpatched worktree $BASE_TREE"
		git -C "$TREE" worktree add -q --detach "$BASE_TREE" pristine
	fi
	[ "$(git -C "$BASE_TREE" rev-parse HEAD)" = \
	  "$(git -C "$TREE" rev-parse 'pristine^{commit}')" ] ||
		die "$BASE_TREE is not at tag pristine"
}

# CPU seconds (user + system) of this shell's finished children
child_cpu() {
	times | awk 'NR == 2 { split($1 "m" $2, t, /[ms]/)
		printf "%d", t[1] * 60 + t[2] + t[4] * 60 + t[5] }'
}

# build_kernel KERNEL: kunit.py build with bench.config; the time goes to
# WORK/build-times.tsv (date, kernel, wall s, cold/warm, other builds, CPU s,
# JOBS), marked cold when the build directory had no kernel.
build_kernel() {
	local k=$1 build start secs kind=warm others o cpu0 cpu1
	build=$(build_of "$k")
	[ -f "$build/vmlinux" ] || kind=cold
	# other kernel builds running at the start or the end slow this one
	# down: the report says so
	others=$(pgrep -f -c '^make .*ARCH=x86_64 O=' || true)
	say "[build] $k kernel ($kind, $others other kernel build(s) running) in $build"
	start=$SECONDS cpu0=$(child_cpu)
	TREE=$(src_of "$k") BUILD_DIR=$build LOG_DIR=$BLOGS/build-$k \
		KUNITCONFIGS=$CONFIG "$TOP/kunit/run.sh" build ||
		die "the $k kernel did not build; log: $BLOGS/build-$k/build.log"
	secs=$((SECONDS - start)) cpu1=$(child_cpu)
	o=$(pgrep -f -c '^make .*ARCH=x86_64 O=' || true)
	[ "$o" -le "$others" ] || others=$o	# builds that started meanwhile
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$k" "$secs" \
		"$kind" "$others" "$((cpu1 - cpu0))" "$JOBS" >> "$WORK/build-times.tsv"
}

# build_module KERNEL: nofs_bench.ko in a copy of bench/module under WORK;
# the patched one must have the counted-scope cases, the base one not.
build_module() {
	local k=$1 dir=$WORK/module-$1 build want=0 have
	build=$(build_of "$k")
	rm -rf "$dir" && mkdir -p "$dir"
	cp "$TOP/bench/module/nofs_bench.c" "$TOP/bench/module/Kbuild" "$dir/"
	say "[build] nofs_bench.ko for the $k kernel"
	make -C "$build" M="$dir" modules > "$dir/build.log" 2>&1 ||
		{ tail -n 20 "$dir/build.log" >&2; die "module build failed; log: $dir/build.log"; }
	! grep -q 'warning:' "$dir/build.log" ||
		{ grep 'warning:' "$dir/build.log" >&2; die "module build warnings; log: $dir/build.log"; }
	grep -q 'define MEMALLOC_SCOPE_NOFS' "$(src_of "$k")/include/linux/sched/mm.h" && want=1
	have=$(grep -c nofs_enter_exit "$dir/nofs_bench.ko" || true)
	[ "$((have > 0))" = "$want" ] ||
		die "$dir/nofs_bench.ko: counted-scope cases $have, expected $want (sched/mm.h)"
	# instructions of each loop function, for the report
	objdump -d --no-show-raw-insn "$dir/nofs_bench.ko" | awk '
		/^[0-9a-f]+ <run_[a-z_]+(\.[a-z0-9.]+)?>:$/ {
			fn = $2; sub(/^</, "", fn); sub(/(\..*)?>:$/, "", fn); next }
		/^$/ { fn = "" }
		fn != "" && /^ +[0-9a-f]+:/ { n[fn]++ }
		END { for (f in n) print f, n[f] }' | sort > "$dir/insns.txt"
}

# initrd KERNEL [SCENARIO]: the shared initramfs plus an archive with the
# module, the guest script (bench-round, or bench-insns: initrd-insns-KERNEL)
# and its parameters.
initrd() {
	local k=$1 name=${2:-$NAME} tag=$1 root
	[ "$name" = "$NAME" ] || tag=insns-$1
	root=$WORK/extra-$tag
	rm -rf "$root" && mkdir -p "$root/scenarios" "$root/bench"
	cp "$TOP/bench/guest/$name.sh" "$root/scenarios/"
	cp "$WORK/module-$k/nofs_bench.ko" "$root/bench/"
	cat > "$root/bench/params.sh" <<-EOF
	ITERS=$ITERS TRIALS=$TRIALS
	FSMARK_FILES=$FSMARK_FILES FSMARK_LOOPS=$FSMARK_LOOPS FSMARK_SIZE=$FSMARK_SIZE
	META_MAX=$META_MAX WRITE_FILES=$WRITE_FILES WRITE_MB=$WRITE_MB WRITE_MAX=$WRITE_MAX
	INSNS_ITERS=$INSNS_ITERS INSNS_REPS=$INSNS_REPS
	EOF
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
		gzip -6 > "$WORK/extra-$tag.cpio.gz"
	cat "$QEMU_CACHE/initramfs.cpio.gz" "$WORK/extra-$tag.cpio.gz" > "$WORK/initrd-$tag.cpio.gz"
}

build_all() {
	local k
	mkdir -p "$WORK" "$BLOGS"
	base_tree
	for k in $KERNELS; do build_kernel "$k"; done
	for k in $KERNELS; do build_module "$k"; done
}

# parse LOG ROUND KERNEL: append the boot's lines to the data files.
parse() {
	local log=$1 r=$2 k=$3
	sed -n 's/^.*nofs_bench: trial case=\([a-z_]*\) t=\([0-9]*\) ns=\([0-9]*\) cycles=\([0-9]*\)$/\1\t\2\t\3\t\4/p' "$log" |
		awk -v r="$r" -v k="$k" -v n="$ITERS" -v OFS='\t' \
		'{ print r, k, $1, $2, $3 / n, $4 / n }' >> "$DATA/micro.tsv"
	sed -n "s/^.*NOFS-BENCH: /$r $k /p" "$log" >> "$DATA/xfs.txt"
	grep -q 'nofs_bench: done' "$log" ||
		{ echo "# no microbenchmark results in $log"; return 1; }
	[ "$(grep -c 'NOFS-BENCH: ' "$log")" -eq 2 ] ||
		{ echo "# expected 2 NOFS-BENCH lines in $log"; return 1; }
	# 0 ns for a loop of ITERS iterations: the case did not run that trial
	! grep -qE 'nofs_bench: trial case=[a-z_]+ t=[0-9]+ ns=0 ' "$log" ||
		{ echo "# a trial with ns=0 in $log: a case did not run"; return 1; }
}

# estimate: minutes for the rounds, from the boots of the last run (or 80 s)
estimate() {
	local per=80 f
	for f in "$DATA/boots" "$DATA.old/boots"; do
		[ -f "$f" ] || continue
		per=$(awk '$3 == "PASS" { s += $4; n++ } END { print n ? int(s / n) : 80 }' "$f")
		break
	done
	echo $(( (2 * ROUNDS * (per + 3) + 59) / 60 ))
}

# wait_idle: wait up to BENCH_IDLE_WAIT seconds (default 300) for the
# host's 1-min load average to fall to the busy limit of thresholds.conf
# (BUSY_LOAD_PER_CORE times the cores), so that a moment's load elsewhere
# does not leave a campaign of many boots unjudged.  The boot then
# records the load it starts at, judged by bench/report.py as before: a
# host still busy after the wait boots anyway, and the report withholds
# its verdicts.
wait_idle() {
	local per limit load waited=0
	per=$(sed -n 's/^BUSY_LOAD_PER_CORE=//p' "$TOP/bench/thresholds.conf")
	limit=$(awk -v p="$per" -v c="$(nproc)" 'BEGIN { print p * c }')
	while load=$(cut -d' ' -f1 /proc/loadavg) &&
	      awk -v a="$load" -v l="$limit" 'BEGIN { exit !(a > l) }'; do
		if [ "$waited" -ge "${BENCH_IDLE_WAIT:-300}" ]; then
			say "host load $load still above $limit after $waited s: booting anyway (this campaign will not be judged)"
			return 0
		fi
		[ "$waited" -gt 0 ] ||
			say "host load $load above $limit: waiting up to ${BENCH_IDLE_WAIT:-300} s for it to fall"
		sleep 10
		waited=$((waited + 10))
	done
	[ "$waited" -eq 0 ] || say "host load $load after $waited s: booting"
}

# bench_boot KDIR INITRD KERNEL ROUND FIRST PARSE BOOTS: one boot of
# $NAME with its serial log in KDIR; PARSE LOG ROUND KERNEL takes its
# data, and a row (round, kernel, result, seconds, host load before it,
# kernel first in the round) goes to BOOTS.  Counts failures in FAILED.
bench_boot() {
	local kdir=$1 k=$3 r=$4 first=$5 parse=$6 boots=$7 load
	mkdir -p "$kdir"
	# shellcheck disable=SC2034 # globals of run-scenario.sh's run_one
	LOG_DIR=$kdir KERNEL=$(build_of "$k")/arch/x86/boot/bzImage INITRD=$2
	# the host's load: other guests and builds share its cores
	wait_idle
	load=$(cut -d' ' -f1 /proc/loadavg)
	run_one 1 "$NAME"
	if [ "$VERDICT" = PASS ] && "$parse" "$kdir/$NAME.log" "$r" "$k"; then
		echo "$r $k PASS $TIME $load $first" >> "$boots"
	else
		FAILED=$((FAILED + 1))
		echo "$r $k FAIL $TIME $load $first" >> "$boots"
	fi
}

run_rounds() {
	local r k start n=0 left order
	# shellcheck disable=SC2034 # globals of run-scenario.sh's run_one
	SCENARIOS=$TOP/bench/guest
	# shellcheck disable=SC2034
	MEM=$BENCH_MEM TIMEOUT=$BENCH_TIMEOUT
	QEMU_CACHE=$WORK/qemu
	ACCEL=${NOFS_ACCEL:-auto}
	mkdir -p "$QEMU_CACHE/disks"
	"$TOP/qemu/mkinitramfs.sh" "$QEMU_CACHE/initramfs.cpio.gz" ||
		die "building the initramfs failed (see above)"
	for k in $KERNELS; do initrd "$k"; done
	KERNEL=$(build_of patched)/arch/x86/boot/bzImage
	LOG_DIR=$BLOGS
	probe_accel
	say "accelerator: $ACCEL ($ACCEL_WHY)"
	say "$ROUNDS rounds of 2 boots: about $(estimate) min"
	QEMU_PID=
	trap '[ -z "$QEMU_PID" ] || kill "$QEMU_PID"; echo "interrupted" >&2; exit 130' INT TERM

	rm -rf "$DATA.old"; [ ! -d "$DATA" ] || mv "$DATA" "$DATA.old"
	mkdir -p "$DATA"
	# the instruction counts stay (insns.meta names the kernels they are of)
	cp "$DATA.old"/insns* "$DATA/" 2>/dev/null || true
	{ echo "date=$(date -u +%FT%TZ)"; echo "accel=$ACCEL"; echo "accel_why=$ACCEL_WHY"
	  echo "tree=$(git -C "$TREE" log -1 --format='%h %s')"
	  echo "tree_commits=$(git -C "$TREE" rev-list --count pristine..HEAD)"
	  echo "series=$("$TOP/scripts/series-id.sh")"
	  echo "case_order=random"	# nofs_bench.c shuffles the cases each trial
	  for v in ROUNDS ITERS TRIALS BENCH_MEM FSMARK_FILES FSMARK_LOOPS FSMARK_SIZE \
		   META_MAX WRITE_FILES WRITE_MB WRITE_MAX; do echo "$v=${!v}"; done
	} > "$DATA/meta"
	FAILED=0
	start=$SECONDS
	for r in $(seq 1 "$ROUNDS"); do
		# base first in odd rounds, patched first in even ones, so that
		# whatever favours the first or second boot of a round cancels
		order=$KERNELS
		[ $((r % 2)) -eq 1 ] || order="patched base"
		for k in $order; do
			left=""
			[ "$n" -eq 0 ] || left=", about $(( (SECONDS - start) * (2 * ROUNDS - n) / n / 60 + 1)) min left"
			say "[round $r/$ROUNDS] $k kernel (elapsed $(( (SECONDS - start) / 60 )) min$left)"
			bench_boot "$BLOGS/$(printf 'r%02d-%s' "$r" "$k")" \
				"$WORK/initrd-$k.cpio.gz" "$k" "$r" "${order%% *}" \
				parse "$DATA/boots"
			n=$((n + 1))
		done
	done
	echo "secs=$((SECONDS - start))" >> "$DATA/meta"
	trap - INT TERM
	say "rounds done in $(( (SECONDS - start) / 60 )) min, $FAILED failed boot(s); logs in $BLOGS"
}

# build_plugin: the insn_window plugin against the installed QEMU's header
build_plugin() {
	local inc dir=$WORK/plugin
	say "[insns] QEMU's plugin header (bench/plugin/fetch-header.sh)"
	inc=$(CACHE_DIR=$CACHE_DIR LOG_DIR=$LOG_DIR "$TOP/bench/plugin/fetch-header.sh") ||
		die "no QEMU plugin header (see above)"
	mkdir -p "$dir"
	say "[insns] the insn_window plugin in $dir"
	make -C "$TOP/bench/plugin" QEMU_INC="$inc" O="$dir" > "$dir/build.log" 2>&1 ||
		{ tail -n 20 "$dir/build.log" >&2; die "plugin build failed; log: $dir/build.log"; }
	PLUGIN=$dir/libinsn_window.so
	PLUGIN_API=$(sed -n 's/^#define QEMU_PLUGIN_VERSION //p' "$inc/qemu/qemu-plugin.h")
}

# parse_insns SERIAL-LOG PLUGIN-LOG KERNEL BOOT: pair the module's window
# lines with the plugin's counts, in order, into DATA/insns-windows.tsv
# (kernel, boot, case, iterations, rep, instructions, memory accesses,
# translation blocks).
parse_insns() {
	local log=$1 plog=$2 k=$3 b=$4 w c n
	n=$(sed -n 's/^.*nofs_bench: windows=\([0-9]*\)$/\1/p' "$log")
	[ -n "$n" ] || { echo "# no 'nofs_bench: windows=' line in $log"; return 1; }
	w=$(sed -n 's/^.*nofs_bench: window seq=\([0-9]*\) case=\([a-z_]*\) iters=\([0-9]*\) rep=\([0-9]*\)$/\1\t\2\t\3\t\4/p' "$log")
	c=$(sed -n 's/^insn-window 1 \([0-9]*\) \([0-9]*\) \([0-9]*\)$/\1\t\2\t\3/p' "$plog")
	! grep -E '^insn-(warning|window [0-9]+ no-start)' "$plog" ||
		{ echo "# the plugin complained in $plog (above)"; return 1; }
	[ "$(grep -c . <<< "$w")" -eq "$n" ] && [ "$(grep -c . <<< "$c")" -eq "$n" ] ||
		{ echo "# $n windows: $(grep -c . <<< "$w") window lines in $log, $(grep -c . <<< "$c") counts in $plog"; return 1; }
	paste <(echo "$w") <(echo "$c") | awk -v k="$k" -v b="$b" -v OFS='\t' '
		$1 != NR - 1 { print "# window line " NR " has seq=" $1 > "/dev/stderr"; exit 1 }
		{ print k, b, $2, $3, $4, $5, $6, $7 }' >> "$DATA/insns-windows.tsv"
}

# insns_boot KERNEL BOOT: one boot under TCG, one vCPU, with the plugin
insns_boot() {
	local k=$1 b=$2 dir log plog rc=0 start=$SECONDS
	dir=$BLOGS/insns-b$b-$k
	log=$dir/$INSNS_NAME.log plog=$dir/plugin.log
	mkdir -p "$dir" && rm -f "$log" "$plog"
	say "[insns $b/$INSNS_BOOTS] $k kernel (TCG, 1 vCPU, plugin); serial log: $log"
	# shellcheck disable=SC2034 # qemu()'s globals
	KERNEL=$(build_of "$k")/arch/x86/boot/bzImage MEM=$BENCH_MEM
	qemu tcg,thread=single "$BENCH_TIMEOUT" "$log" \
		"console=ttyS0 panic=-1 no_timer_check kunit.enable=0 loglevel=$NOFS_LOGLEVEL nofs.scenario=$INSNS_NAME nofs.deadline=$((BENCH_TIMEOUT - DEADLINE_MARGIN))" \
		-initrd "$WORK/initrd-insns-$k.cpio.gz" -smp 1 \
		-plugin "$PLUGIN" -d plugin -D "$plog" || rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q "NOFS-RESULT: $INSNS_NAME PASS" "$log"; then
		echo "# $k: qemu status $rc, $(grep "NOFS-RESULT:" "$log" || echo "no NOFS-RESULT line"); last lines of $log:"
		tail -n 15 "$log" | sed 's/^/#   /'
		return 1
	fi
	scan_splats "$log" || return 1
	parse_insns "$log" "$plog" "$k" "$b" || return 1
	say "[insns $b/$INSNS_BOOTS] $k: $(grep -c . "$plog") plugin lines in $((SECONDS - start)) s"
}

# insns_csv: per kernel, boot and case, the smallest count of the windows
# of INSNS_ITERS/2 (a) and of INSNS_ITERS (b) iterations and how many
# windows had it; per iteration, the difference over the iterations
# between them: instructions, memory accesses and translation blocks; and
# the instructions outside the loop body (call, markers, loop entry/exit).
insns_csv() {
	awk -F'\t' -v OFS=, -v a="$((INSNS_ITERS / 2))" -v b="$INSNS_ITERS" '
		{ key = $1 OFS $2 OFS $3
		  if (!(key in seen)) { seen[key]; order[n++] = key }
		  i = $4 == b; reps[key] += i
		  if (!((key, i) in lo) || $6 + 0 < lo[key, i]) { lo[key, i] = $6 + 0; at[key, i] = 0 }
		  if ($6 + 0 == lo[key, i]) at[key, i]++
		  if (!((key, i) in mlo) || $7 + 0 < mlo[key, i]) mlo[key, i] = $7 + 0
		  if (!((key, i) in blo) || $8 + 0 < blo[key, i]) blo[key, i] = $8 + 0 }
		END {
		  print "kernel,boot,case,iters_a,iters_b,reps,insns_a,insns_b,at_min_a,at_min_b," \
			"insns_per_iter,insns_fixed,mem_per_iter,blocks_per_iter"
		  for (j = 0; j < n; j++) {
			k = order[j]; d = b - a; p = (lo[k, 1] - lo[k, 0]) / d
			printf "%s,%d,%d,%d,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f\n", k, a, b,
				reps[k], lo[k, 0], lo[k, 1], at[k, 0], at[k, 1], p,
				lo[k, 1] - b * p, (mlo[k, 1] - mlo[k, 0]) / d,
				(blo[k, 1] - blo[k, 0]) / d } }' "$DATA/insns-windows.tsv"
}

# insns_same: print the cases whose counts differ between boots of a kernel
insns_same() {
	awk -F, 'NR > 1 { key = $1 " " $3; v = $7 " and " $8 " (" $13 " mem, " $14 " blocks/iter)"
		if (!(key in first)) { first[key] = v; fb[key] = $2; next }
		if (first[key] != v)
			printf "# %s: boot %s counted %s, boot %s %s\n", key, fb[key],
				first[key], $2, v }' "$DATA/insns.csv"
}

run_insns() {
	local k b fails=0 start=$SECONDS diff
	build_plugin
	QEMU_CACHE=$WORK/qemu
	mkdir -p "$QEMU_CACHE" "$DATA"
	"$TOP/qemu/mkinitramfs.sh" "$QEMU_CACHE/initramfs.cpio.gz" ||
		die "building the initramfs failed (see above)"
	for k in $KERNELS; do initrd "$k" "$INSNS_NAME"; done
	say "[insns] $INSNS_BOOTS boot(s) of each kernel, some 10-30 s each under TCG"
	QEMU_PID=
	trap '[ -z "$QEMU_PID" ] || kill "$QEMU_PID"; echo "interrupted" >&2; exit 130' INT TERM
	rm -f "$DATA"/insns*
	for b in $(seq 1 "$INSNS_BOOTS"); do
		for k in $KERNELS; do
			insns_boot "$k" "$b" || fails=$((fails + 1))
		done
	done
	trap - INT TERM
	[ "$fails" -eq 0 ] || die "$fails counting boot(s) failed (see above); logs in $BLOGS/insns-b*"
	insns_csv > "$DATA/insns.csv"
	diff=$(insns_same)
	{ echo "date=$(date -u +%FT%TZ)"
	  echo "iters=$INSNS_ITERS"; echo "reps=$INSNS_REPS"; echo "boots=$INSNS_BOOTS"
	  echo "plugin_api=$PLUGIN_API"
	  echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
	  for k in $KERNELS; do
		echo "uname_$k=$(sed -n 's/^# kernel \([^;]*\);.*/\1/p' "$BLOGS/insns-b1-$k/$INSNS_NAME.log")"
		echo "bzimage_$k=$(sha256sum < "$(build_of "$k")/arch/x86/boot/bzImage" | cut -c1-16)"
	  done
	  echo "identical=$([ -z "$diff" ] && echo yes || echo no)"
	  echo "series=$("$TOP/scripts/series-id.sh")"
	  echo "secs=$((SECONDS - start))"
	} > "$DATA/insns.meta"
	say "[insns] per iteration (min over $INSNS_REPS windows), boot 1: instructions (memory accesses, blocks)"
	awk -F, 'NR > 1 && $2 == 1 { v[$3, $1] = sprintf("%g (%g, %g)", $11, $13, $14)
			if (!($3 in s)) { s[$3]; o[n++] = $3 } }
		END { printf "  %-22s %-22s %s\n", "case", "base", "patched"
		      for (i = 0; i < n; i++) printf "  %-22s %-22s %s\n", o[i],
			((o[i], "base") in v) ? v[o[i], "base"] : "-",
			((o[i], "patched") in v) ? v[o[i], "patched"] : "-" }' "$DATA/insns.csv"
	if [ -n "$diff" ]; then
		echo "$diff"
		say "[insns] the counts differ between boots of the same kernel (above)"
		INSNS_DIFFER=1
	elif [ "$INSNS_BOOTS" -gt 1 ]; then
		say "[insns] every count is the same in the $INSNS_BOOTS boots of each kernel"
	fi
	say "[insns] data: $DATA/insns.csv, $DATA/insns-windows.tsv ($((SECONDS - start)) s)"
}

# Config options the report lists (from build-bench/.config)
REPORT_CONFIG="PREEMPT_VOLUNTARY PREEMPT_DYNAMIC HZ SLUB SLAB_FREELIST_HARDENED
	INIT_ON_ALLOC_DEFAULT_ON TRANSPARENT_HUGEPAGE MEMCG XFS_FS MODULES
	DEBUG_KERNEL PROVE_LOCKING DEBUG_VM KASAN DEBUG_MEMALLOC_SCOPE XFS_WARN
	XFS_DEBUG"

# facts: "key<TAB>value" lines (dotted keys) of what the report used to read
# from the logs, the build directories and the host at report time
facts() {
	local k log f v b g
	printf 'exported\t%s\n' "$(date -u +%FT%TZ)"
	printf 'host.cpu\t%s\n' "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	printf 'host.cores\t%s\n' "$(nproc)"
	printf 'host.mem_gib\t%s\n' "$(awk 'NR == 1 { print int($2 / 1024 / 1024) }' /proc/meminfo)"
	printf 'host.kernel\t%s\n' "$(uname -r)"
	printf 'host.os\t%s\n' "$(sed -n 's/^PRETTY_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release)"
	printf 'host.qemu\t%s\n' "$(qemu-system-x86_64 --version 2>/dev/null | head -n 1)"
	printf 'host.gcc\t%s\n' "$(gcc --version 2>/dev/null | head -n 1)"
	printf 'source\tDebian %s\n' "$(awk '$2 == "=" && $1 ~ /^(VERSION|PATCHLEVEL|SUBLEVEL)$/ {
		v[$1] = $3 } END { print v["VERSION"] "." v["PATCHLEVEL"] "." v["SUBLEVEL"] }' "$TREE/Makefile")"
	# the fs_mark shape fixed in the guest script
	g=$TOP/bench/guest/$NAME.sh
	printf 'workload.fsmark_dirs\t%s\n' "$(sed -n 's/.*fs_mark .* -D \([0-9]*\) .*/\1/p' "$g")"
	printf 'workload.fsmark_threads\t%s\n' "$(sed -n 's/.*fs_mark .* -t \([0-9]*\) .*/\1/p' "$g")"
	printf 'workload.write_block\t%s\n' "$(sed -n 's/.*xfs_io .*pwrite -q -b \([0-9a-z]*\) .*/\1/p' "$g")"
	for k in $KERNELS; do
		log=$BLOGS/r01-$k/$NAME.log
		[ -f "$log" ] || { echo "bench: warning: no $log: no guest facts for $k" >&2; continue; }
		sed -n "s/^# kernel \([^;]*\); MemTotal: *\([0-9]*\) kB.*/guest.$k.uname\t\1\nguest.$k.mem_mib\t\2/p" "$log" |
			awk -F'\t' -v OFS='\t' '/mem_mib/ { $2 = int($2 / 1024) } { print }'
		sed -n "s/^==> init: kernel [^,]*, \([0-9]*\) CPUs.*/guest.$k.cpus\t\1/p" "$log" | head -n 1
	done
	f=$(build_of patched)/.config
	[ -f "$f" ] || die "no $f: build the bench kernels first"
	for v in $REPORT_CONFIG; do
		printf 'config.%s\t%s\n' "$v" "$(sed -n "s/^CONFIG_$v=//p" "$f" | head -n 1 | grep . || echo n)"
	done
	# the latest cold build of each kernel
	[ ! -f "$WORK/build-times.tsv" ] || awk -F'\t' -v OFS='\t' '$4 == "cold" { c[$2] = $0 }
		END { for (k in c) { split(c[k], f, "\t")
			print "builds." k ".date", f[1]; print "builds." k ".secs", f[3]
			print "builds." k ".others", f[5]; print "builds." k ".cpu_secs", f[6]
			if (f[7] != "") print "builds." k ".jobs", f[7] } }' \
		"$WORK/build-times.tsv" | sort
	for k in $KERNELS; do
		b=$(build_of "$k")/arch/x86/boot/bzImage
		[ ! -f "$b" ] || printf 'bzimage.%s\t%s\n' "$k" "$(sha256sum < "$b" | cut -c1-16)"
	done
}

# facts_json: the facts as nested JSON (digit strings become numbers)
facts_json() {
	python3 -c '
import json, re, sys
out = {}
for line in sys.stdin:
    key, _, val = line.rstrip("\n").partition("\t")
    d = out
    *path, last = key.split(".")
    for p in path:
        d = d.setdefault(p, {})
    d[last] = int(val) if re.fullmatch(r"0|[1-9][0-9]*", val) else val
print(json.dumps(out, indent=1))'
}

# kv_csv FILE: "ROUND KERNEL WORKLOAD key=value..." lines to CSV, the
# columns in the order the keys first appear
kv_csv() {
	awk '{ for (i = 4; i <= NF; i++) { k = $i; sub(/=.*/, "", k)
			if (!(k in seen)) { seen[k]; keys[n++] = k } } line[NR] = $0 }
		END { printf "round,kernel,workload"; for (j = 0; j < n; j++) printf ",%s", keys[j]
		      print ""
		      for (r = 1; r <= NR; r++) { split(line[r], w, " "); delete kv
			for (i = 4; i in w; i++) { k = w[i]; sub(/=.*/, "", k); v = w[i]; sub(/^[^=]*=/, "", v); kv[k] = v }
			printf "%s,%s,%s", w[1], w[2], w[3]
			for (j = 0; j < n; j++) printf ",%s", (keys[j] in kv) ? kv[keys[j]] : ""
			print "" } }' "$@"
}

# export_data: DATA and the facts into OUT, in the formats of OUT/README.md
export_data() {
	local f k tmp
	for f in meta boots micro.tsv xfs.txt; do
		[ -f "$DATA/$f" ] || die "no $DATA/$f: nothing to export (bench/run.sh rounds)"
	done
	[ -f "$(build_of patched)/.config" ] ||
		die "no $(build_of patched)/.config: build the bench kernels first"
	mkdir -p "$OUT"
	tmp=$(mktemp -d "$OUT/.export.XXXXXX")
	cp "$DATA/meta" "$tmp/meta"
	awk -v OFS=, 'BEGIN { print "round,kernel,result,secs,load,first" }
		{ print $1, $2, $3, $4, $5, $6 }' "$DATA/boots" > "$tmp/boots.csv"
	# per trial: ns and cycles per iteration as measured, gzip -n: the
	# same bytes for the same data
	awk -F'\t' -v OFS=, 'BEGIN { print "round,kernel,case,trial,ns_per_op,cycles_per_op" }
		{ print $1, $2, $3, $4, $5, $6 }' "$DATA/micro.tsv" | gzip -9n > "$tmp/micro.csv.gz"
	# per round and workload
	kv_csv "$DATA/xfs.txt" > "$tmp/xfs.csv"
	for f in insns.csv insns.meta insns-windows.tsv; do
		[ ! -f "$DATA/$f" ] || cp "$DATA/$f" "$tmp/"
	done
	# instructions of each loop function (objdump of the modules)
	{ echo "kernel,function,instructions"
	  for k in $KERNELS; do
		[ ! -f "$WORK/module-$k/insns.txt" ] ||
			awk -v k="$k" -v OFS=, '{ print k, $1, $2 }' "$WORK/module-$k/insns.txt"
	  done; } > "$tmp/loop-insns.csv"
	facts | facts_json > "$tmp/facts.json" ||
		{ rm -rf "$tmp"; die "collecting the facts for $OUT/facts.json failed"; }
	# replace the generated files; README.md and notes.md are written by hand
	rm -f "$OUT"/meta "$OUT"/boots.csv "$OUT"/micro.csv.gz "$OUT"/xfs.csv \
		"$OUT"/insns.csv "$OUT"/insns.meta "$OUT"/insns-windows.tsv \
		"$OUT"/loop-insns.csv "$OUT"/facts.json
	mv "$tmp"/* "$OUT/" && rmdir "$tmp"
	say "[export] $OUT: $(du -sk "$OUT" | cut -f1) KiB"
}

# The headline numbers of the report, for the terminal
summary() {
	sed -n '/^## Results against/,/^## Microbenchmarks/p' \
		"$TOP/Documentation/benchmarks.md" | grep '^| [^-T]' |
		sed 's/^| //; s/ | /: /; s/ | \([^|]*\) |$/ (\1)/'
	say "report: Documentation/benchmarks.md (data: $OUT, logs: $BLOGS)"
}

main() {
	local what=${1:-all}
	case $what in all|build|rounds|insns|report) ;; *) sed -n '/^#   bench/,/^#     report/s/^# \{0,1\}//p' "$0" >&2; exit 2 ;; esac
	check_params
	[ "$what" = report ] || build_all
	[ "$what" = build ] && return
	FAILED=0 INSNS_DIFFER=0
	case $what in all|rounds) run_rounds ;; esac
	case $what in all|insns) run_insns ;; esac
	if [ "$what" = insns ] && [ ! -f "$DATA/micro.tsv" ]; then
		say "no timed data in $DATA (bench/run.sh rounds): report not written"
	elif [ "$what" != rounds ]; then
		export_data
		say "[report] Documentation/benchmarks.md and Documentation/bench/*.png"
		python3 "$TOP/bench/report.py" "$OUT" \
			"$TOP/Documentation/benchmarks.md" "$TOP/Documentation/bench" ||
			die "writing the report failed"
		summary
	fi
	[ "$FAILED" -eq 0 ] || die "$FAILED boot(s) failed (their rounds are left out): see the 'not ok' lines above"
	[ "$INSNS_DIFFER" -eq 0 ] || die "instruction counts differ between boots of the same kernel (see above)"
}

# Sourcing this file only defines the functions (bench/workloads.sh does).
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
