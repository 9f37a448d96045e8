#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run.sh: make bench.  The unpatched and the patched kernel, built
# from the same source with the same production-like options, are booted
# in turn ROUNDS times under QEMU (base, patched; patched, base; ...); each
# boot runs the microbenchmark module and two XFS workloads under memory
# pressure (bench/guest/bench-round.sh).  bench/report.py then writes
# Documentation/benchmarks.md and its plots from the measured data.
#
#   bench/run.sh [all|build|rounds|report]     (default: all)
#     build    the two kernels and the module only
#     rounds   build, then boot and measure (no report)
#     report   rewrite the report from the data of the last run
#
# Environment (default): ROUNDS (12: about 20 min of boots under TCG, and
# 30-40 min for make bench with both kernels built cold on an idle 2-core
# machine), ITERS (2000) and TRIALS (101) of the module, BENCH_MEM (160,
# guest MiB), FSMARK_FILES (2000 per thread and loop, 2 threads),
# FSMARK_LOOPS (2), FSMARK_SIZE (4096), META_MAX (24M), WRITE_FILES (3),
# WRITE_MB (256), WRITE_MAX (64M), BENCH_TIMEOUT (900 s per boot), and
# from make: TOP, TREE, CACHE_DIR, LOG_DIR, JOBS, NOFS_ACCEL.
#
# Outputs: kernels in CACHE_DIR/build-bench-base and build-bench, modules
# and initramfs in CACHE_DIR/bench, serial logs in LOG_DIR/bench/rNN-KERNEL,
# parsed data in CACHE_DIR/bench/data (read by bench/report.py).
set -eu -o pipefail

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
: "${CACHE_DIR:=$(dirname "$TREE")}"
: "${LOG_DIR:=$CACHE_DIR/logs}"
: "${JOBS:=2}"
: "${ROUNDS:=12}" "${ITERS:=2000}" "${TRIALS:=101}" "${BENCH_MEM:=160}"
: "${FSMARK_FILES:=2000}" "${FSMARK_LOOPS:=2}" "${FSMARK_SIZE:=4096}"
: "${META_MAX:=24M}" "${WRITE_FILES:=3}" "${WRITE_MB:=256}"
: "${WRITE_MAX:=64M}" "${BENCH_TIMEOUT:=900}"
export ROUNDS

# qemu(), probe_accel(), run_one() and their globals, set in run_rounds
# shellcheck source=../qemu/run-scenario.sh
. "$(dirname "$0")/../qemu/run-scenario.sh"

BASE_TREE=$CACHE_DIR/linux-base
WORK=$CACHE_DIR/bench
DATA=$WORK/data
BLOGS=$LOG_DIR/bench
KERNELS="base patched"
CONFIG=$TOP/bench/bench.config
NAME=bench-round		# bench/guest/$NAME.sh

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
		 FSMARK_SIZE WRITE_FILES WRITE_MB BENCH_TIMEOUT; do
		case ${!v} in ''|*[!0-9]*) die "$v must be a number, not '${!v}'" ;; esac
	done
	[ "$ROUNDS" -ge 1 ] || die "ROUNDS must be at least 1"
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
# WORK/build-times.tsv, marked cold when the build directory had no kernel.
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
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$k" "$secs" \
		"$kind" "$others" "$((cpu1 - cpu0))" >> "$WORK/build-times.tsv"
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
	grep -q 'define PF_MEMALLOC_SCOPE' "$(src_of "$k")/include/linux/sched.h" && want=1
	have=$(grep -c nofs_enter_exit "$dir/nofs_bench.ko" || true)
	[ "$((have > 0))" = "$want" ] ||
		die "$dir/nofs_bench.ko: counted-scope cases $have, expected $want (sched.h)"
	# instructions of each loop function, for the report
	objdump -d --no-show-raw-insn "$dir/nofs_bench.ko" | awk '
		/^[0-9a-f]+ <run_[a-z_]+(\.[a-z0-9.]+)?>:$/ {
			fn = $2; sub(/^</, "", fn); sub(/(\..*)?>:$/, "", fn); next }
		/^$/ { fn = "" }
		fn != "" && /^ +[0-9a-f]+:/ { n[fn]++ }
		END { for (f in n) print f, n[f] }' | sort > "$dir/insns.txt"
}

# initrd KERNEL: the shared initramfs plus an archive with the module, the
# guest script and its parameters.
initrd() {
	local k=$1 root=$WORK/extra-$1
	rm -rf "$root" && mkdir -p "$root/scenarios" "$root/bench"
	cp "$TOP/bench/guest/$NAME.sh" "$root/scenarios/"
	cp "$WORK/module-$k/nofs_bench.ko" "$root/bench/"
	cat > "$root/bench/params.sh" <<-EOF
	ITERS=$ITERS TRIALS=$TRIALS
	FSMARK_FILES=$FSMARK_FILES FSMARK_LOOPS=$FSMARK_LOOPS FSMARK_SIZE=$FSMARK_SIZE
	META_MAX=$META_MAX WRITE_FILES=$WRITE_FILES WRITE_MB=$WRITE_MB WRITE_MAX=$WRITE_MAX
	EOF
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
		gzip -6 > "$WORK/extra-$k.cpio.gz"
	cat "$QEMU_CACHE/initramfs.cpio.gz" "$WORK/extra-$k.cpio.gz" > "$WORK/initrd-$k.cpio.gz"
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

run_rounds() {
	local r k start n=0 left kdir name load order
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
	{ echo "date=$(date -u +%FT%TZ)"; echo "accel=$ACCEL"; echo "accel_why=$ACCEL_WHY"
	  echo "tree=$(git -C "$TREE" log -1 --format='%h %s')"
	  echo "tree_commits=$(git -C "$TREE" rev-list --count pristine..HEAD)"
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
			name=$(printf 'r%02d-%s' "$r" "$k")
			kdir=$BLOGS/$name
			mkdir -p "$kdir"
			# shellcheck disable=SC2034
			LOG_DIR=$kdir KERNEL=$(build_of "$k")/arch/x86/boot/bzImage
			# shellcheck disable=SC2034
			INITRD=$WORK/initrd-$k.cpio.gz
			# the host's load: other guests and builds share its 2 cores
			load=$(cut -d' ' -f1 /proc/loadavg)
			run_one 1 "$NAME"
			if [ "$VERDICT" = PASS ] && parse "$kdir/$NAME.log" "$r" "$k"; then
				echo "$r $k PASS $TIME $load ${order%% *}" >> "$DATA/boots"
			else
				FAILED=$((FAILED + 1))
				echo "$r $k FAIL $TIME $load ${order%% *}" >> "$DATA/boots"
			fi
			n=$((n + 1))
		done
	done
	echo "secs=$((SECONDS - start))" >> "$DATA/meta"
	trap - INT TERM
	say "rounds done in $(( (SECONDS - start) / 60 )) min, $FAILED failed boot(s); logs in $BLOGS"
}

# The headline numbers of the report, for the terminal
summary() {
	sed -n '/^## Results against/,/^## Microbenchmarks/p' \
		"$TOP/Documentation/benchmarks.md" | grep '^| [^-T]' |
		sed 's/^| //; s/ | /: /; s/ | \([^|]*\) |$/ (\1)/'
	say "report: Documentation/benchmarks.md (data: $DATA, logs: $BLOGS)"
}

main() {
	local what=${1:-all}
	case $what in all|build|rounds|report) ;; *) sed -n '/^#   bench/,/^#     report/s/^# \{0,1\}//p' "$0" >&2; exit 2 ;; esac
	check_params
	[ "$what" = report ] || build_all
	[ "$what" = build ] && return
	FAILED=0
	[ "$what" = report ] || run_rounds
	if [ "$what" != rounds ]; then
		say "[report] Documentation/benchmarks.md and Documentation/bench/*.png"
		python3 "$TOP/bench/report.py" "$DATA" "$WORK/build-times.tsv" "$BLOGS" \
			"$TOP/Documentation/benchmarks.md" "$TOP/Documentation/bench" ||
			die "writing the report failed"
		summary
	fi
	[ "$FAILED" -eq 0 ] || die "$FAILED boot(s) failed (their rounds are left out): see the 'not ok' lines above"
}

main "$@"
