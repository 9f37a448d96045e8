#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit/run.sh build|run|module: build the guest kernel, or build it and
# run the KUnit suites, or build kunit/module.kunitconfig alone (the suite
# as a module, in BUILD_DIR); with tools/testing/kunit/kunit.py over the
# patched tree.
# One build serves both KUnit and the QEMU scenarios: the kunitconfig is
# the project's suites plus the guest options (kunit/guest.config) and
# what a Debian userspace and fstests need (kunit/fstests.config).
set -eu -o pipefail

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
: "${BUILD_DIR:?BUILD_DIR is not set}"
: "${LOG_DIR:?LOG_DIR is not set}"
: "${JOBS:=$(nproc)}"
: "${KUNIT_TIMEOUT:=600}"
# KUNIT_NAME names the logs ($LOG_DIR/$KUNIT_NAME.log, .json); the build
# without the debug option runs as kunit-nodebug (see the Makefile)
: "${KUNIT_NAME:=kunit}"
# Boot the suites in strict mode for two directories: it must not change
# what the allocator does, the suites must leave it on, and it must apply to
# those directories only (memalloc_scope_strict; its table is written for
# this list and for strict=1).  The list starts with "f" on purpose: an
# earlier parser took any value starting so for "false".  Empty for the
# build without the debug option, which has no strict mode.
: "${KUNIT_KERNEL_ARGS=memalloc_scope.strict=fs/ext4/,xfs}"

cmd=${1:-run}
need_tree tools/testing/kunit/kunit.py
mkdir -p "$LOG_DIR" "$BUILD_DIR"

# KUNITCONFIGS: the fragments to merge (the baseline build leaves out
# memalloc_scope.kunitconfig, since the unpatched tree has no such tests)
: "${KUNITCONFIGS:=$TOP/kunit/memalloc_scope.kunitconfig $TOP/kunit/guest.config
	$TOP/kunit/fstests.config}"
args=(--arch=x86_64 --build_dir="$BUILD_DIR" --jobs="$JOBS")
for k in $KUNITCONFIGS; do
	args+=(--kunitconfig="$k")
done

# module: kunit/module.kunitconfig alone, the suite as a module (=m), so
# that a symbol the suite needs and the kernel does not export fails here
# at modpost rather than for the first person who builds it that way.
if [ "$cmd" = module ]; then
	args=(--arch=x86_64 --build_dir="$BUILD_DIR" --jobs="$JOBS"
	      --kunitconfig="$TOP/kunit/module.kunitconfig")
fi

if [ "$cmd" = build ] || [ "$cmd" = module ]; then
	blog=$LOG_DIR/build.log
	[ "$cmd" = build ] || blog=$LOG_DIR/build-module.log
	echo "==> building the kernel in $BUILD_DIR (log: $blog)"
	start=$(date +%s)
	if ! (cd "$TREE" && python3 tools/testing/kunit/kunit.py build "${args[@]}") \
		> "$blog" 2>&1; then
		tail -n 30 "$blog" >&2
		echo "error: kernel build failed; full log: $blog" >&2
		exit 1
	fi
	if [ "$cmd" = module ]; then
		[ -f "$BUILD_DIR/mm/memalloc_scope_kunit.ko" ] || {
			echo "error: the build has no mm/memalloc_scope_kunit.ko: the suite was not built as a module (log: $blog)" >&2
			exit 1
		}
		echo "==> the suite built as a module in $(( $(date +%s) - start )) s: $BUILD_DIR/mm/memalloc_scope_kunit.ko"
		exit 0
	fi
	echo "==> kernel built in $(( $(date +%s) - start )) s: $BUILD_DIR/arch/x86/boot/bzImage"
	exit 0
fi

# KVM only if a probe boot of this kernel works (qemu/accel.sh); with no
# kernel built yet there is nothing to probe, and TCG always works.
accel=$("$TOP/qemu/accel.sh" 2>/dev/null) || accel=tcg
# Two CPUs, like the scenario guests: the lock tests hand locks between
# threads, and real spinlocks find races that a uniprocessor run hides.
qemu_args=(--qemu_args="-smp 2")
# A TCG guest on a loaded host can fail the IO-APIC timer check and panic.
qemu_args+=(--kernel_args=no_timer_check)
for a in $KUNIT_KERNEL_ARGS; do
	qemu_args+=(--kernel_args="$a")
done
[ "$accel" = kvm ] && qemu_args+=(--qemu_args="-accel kvm")
echo "==> KUnit ($KUNIT_NAME): building and running the suites (accel: $accel, log: $LOG_DIR/$KUNIT_NAME.log)"
rc=0
(cd "$TREE" && python3 tools/testing/kunit/kunit.py run "${args[@]}" \
	--timeout="$KUNIT_TIMEOUT" --json="$LOG_DIR/$KUNIT_NAME.json" \
	"${qemu_args[@]}") > "$LOG_DIR/$KUNIT_NAME.log" 2>&1 || rc=$?

# The per-suite results, then kunit.py's own summary line
grep -E '^\[[0-9:]+\] (=+ \[(PASSED|FAILED|SKIPPED|CRASHED)\] |\[(FAILED|CRASHED)\] |# |Testing complete)' \
	"$LOG_DIR/$KUNIT_NAME.log" | sed -E 's/^\[[0-9:]+\] //' || true
if [ "$rc" != 0 ]; then
	grep -q 'Testing complete' "$LOG_DIR/$KUNIT_NAME.log" || tail -n 40 "$LOG_DIR/$KUNIT_NAME.log"
	echo "error: KUnit failed (kunit.py exit $rc); full log: $LOG_DIR/$KUNIT_NAME.log" >&2
	exit 1
fi
# kunit.py passes a run with skipped suites: the results must also match
# the committed skip list of this run exactly (kunit/skips-NAME.txt; none
# if there is no such file), and no suite may have skipped because its
# thread was already in a scope
skips=$TOP/kunit/skips-$KUNIT_NAME.txt
[ -f "$skips" ] || skips=-
if ! python3 "$TOP/kunit/check-results.py" "$LOG_DIR/$KUNIT_NAME.json" \
	"$BUILD_DIR/test.log" "$skips"; then
	echo "error: KUnit results do not match what $KUNIT_NAME must show (skip list: $skips); log: $LOG_DIR/$KUNIT_NAME.log, kernel output: $BUILD_DIR/test.log" >&2
	exit 1
fi
echo "==> KUnit passed (log: $LOG_DIR/$KUNIT_NAME.log, results: $LOG_DIR/$KUNIT_NAME.json)"
