#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make split-fix-test: xfs-conversion patch 1 (the btree split worker fix)
# tested on its own, on the unpatched 6.12 tree, as stable would take it.
#
# A worktree of TREE at tag "pristine" (CACHE_DIR/linux-splitfix) gets a
# test probe, qemu/probes/xfs-dio-end-io-nofs.patch, that warns when
# xfs_dio_write_end_io() finds PF_MEMALLOC_NOFS gone before it leaves its
# own memalloc_nofs_save() scope.  It is built with the guest options in
# CACHE_DIR/build-splitfix and boots the xfs-split-worker-scope scenario,
# whose direct I/O completions split BMBT nodes through the worker:
#   1. probe only: the probe must fire (the bug is there and reached);
#   2. probe + xfs-conversion/0001: the scenario must pass, no warning.
# Exit status 0 if both hold.  About 10 min cold (the build), 3 min warm.
set -eu -o pipefail

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
: "${CACHE_DIR:=$(dirname "$TREE")}"
: "${LOG_DIR:=$CACHE_DIR/logs}"
SF_TREE=$CACHE_DIR/linux-splitfix
SF_BUILD=$CACHE_DIR/build-splitfix
LOGS=$LOG_DIR/split-fix
PROBE=$TOP/qemu/probes/xfs-dio-end-io-nofs.patch
FIX=$(ls "$TOP"/xfs-conversion/0001-*.patch)
SCENARIO=xfs-split-worker-scope
PROBE_MSG='xfs_dio_write_end_io: NOFS context lost inside its scope'

say() { printf '==> %s\n' "$*"; }
die() { printf 'split-fix-test: error: %s\n' "$*" >&2; exit 1; }

mkdir -p "$LOGS"
pristine_worktree "$SF_TREE"

# build_boot STEP: build SF_TREE as it is now, boot the scenario; its
# serial log goes to $LOGS/STEP.log
build_boot() {
	local rc=0
	say "$1: building $SF_BUILD (log: $LOGS/build.log)"
	TREE=$SF_TREE BUILD_DIR=$SF_BUILD LOG_DIR=$LOGS \
		KUNITCONFIGS="$TOP/kunit/guest.config" "$TOP/kunit/run.sh" build
	say "$1: booting $SCENARIO"
	BUILD_DIR=$SF_BUILD LOG_DIR=$LOGS/$1 "$TOP/qemu/run-scenario.sh" \
		"$SCENARIO" > "$LOGS/$1.out" 2>&1 || rc=$?
	cp "$LOGS/$1/$SCENARIO.log" "$LOGS/$1.log" 2>/dev/null ||
		die "$1: no serial log (see $LOGS/$1.out)"
	return $rc
}

git -C "$SF_TREE" apply "$PROBE" || die "$PROBE does not apply to pristine"
rc=0
build_boot probe-only || rc=$?
fired=$(grep -c "$PROBE_MSG" "$LOGS/probe-only.log" || true)
reached=$(grep -c '^ok .* direct one-block writes' "$LOGS/probe-only.log" || true)
[ "$reached" -eq 1 ] || die "probe-only: the workload did not run (see $LOGS/probe-only.out)"
say "probe-only: scenario exit $rc, probe fired: $fired"

git -C "$SF_TREE" apply "$FIX" || die "${FIX##*/} does not apply to pristine"
rc2=0
build_boot probe+fix || rc2=$?
fired2=$(grep -c "$PROBE_MSG" "$LOGS/probe+fix.log" || true)
say "probe+fix: scenario exit $rc2, probe fired: $fired2"
git -C "$SF_TREE" checkout -q -f --detach pristine

echo "# split-fix-test: without the fix the probe fired $fired time(s);" \
	"with ${FIX##*/} $fired2, scenario $([ $rc2 -eq 0 ] && echo PASS || echo FAIL)"
if [ "$fired" -gt 0 ] && [ "$fired2" -eq 0 ] && [ $rc2 -eq 0 ]; then
	say "split-fix-test: passed (logs in $LOGS)"
else
	say "split-fix-test: FAILED (logs in $LOGS)"
	exit 1
fi
