#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make dquot-race-test: reproduce the known dquot shrinker report
# (Documentation/results.md) on the unpatched 6.12 tree, where the series
# cannot be the cause.
#
# The report comes from a race in xfs_qm_dqflush_done(): the dquot is
# flush-unlocked a few instructions before its attached buffer is
# dropped, and the dquot shrinker can isolate it in between.  The probe
# qemu/probes/xfs-dquot-flush-done-window.patch widens that window with a
# 2 ms delay; nothing else changes.  The worktree and build directory of
# split-fix-test (CACHE_DIR/linux-splitfix at tag "pristine",
# CACHE_DIR/build-splitfix) are reused, so only fs/xfs is rebuilt; each
# script resets the worktree to pristine first.
#
# Passes if the known-dquot-isolate-buf scenario, booted on pristine +
# probe, shows the report AND qemu/run-scenario.sh recognises it as the
# known bug by its full stack.  About 4 min warm, 10 min cold.
set -eu -o pipefail

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
: "${CACHE_DIR:=$(dirname "$TREE")}"
: "${LOG_DIR:=$CACHE_DIR/logs}"
PR_TREE=$CACHE_DIR/linux-splitfix
PR_BUILD=$CACHE_DIR/build-splitfix
LOGS=$LOG_DIR/dquot-race
PROBE=$TOP/qemu/probes/xfs-dquot-flush-done-window.patch
SCENARIO="known-dquot-isolate-buf"
HEADLINE='BUG: sleeping function called from invalid context at kernel/locking/semaphore.c'
KNOWN='known 6.12.118 bug reported, not counted: dquot shrinker sleeps under the list_lru lock'

say() { printf '==> %s\n' "$*"; }
die() { printf 'dquot-race-test: error: %s\n' "$*" >&2; exit 1; }

mkdir -p "$LOGS"
pristine_worktree "$PR_TREE"
git -C "$PR_TREE" apply "$PROBE" || die "$PROBE does not apply to pristine"
trap 'git -C "$PR_TREE" checkout -q -f --detach pristine' EXIT

say "building pristine + ${PROBE##*/} in $PR_BUILD (log: $LOGS/build.log)"
TREE=$PR_TREE BUILD_DIR=$PR_BUILD LOG_DIR=$LOGS \
	KUNITCONFIGS="$TOP/kunit/guest.config" "$TOP/kunit/run.sh" build
say "booting $SCENARIO on the unpatched kernel with the probe"
rc=0
BUILD_DIR=$PR_BUILD LOG_DIR=$LOGS "$TOP/qemu/run-scenario.sh" "$SCENARIO" \
	> "$LOGS/run.out" 2>&1 || rc=$?
log=$LOGS/$SCENARIO.log
[ -f "$log" ] || die "no serial log (see $LOGS/run.out)"
grep -q '^ok .* round 1:' "$log" ||
	die "the workload did not run (see $log and $LOGS/run.out)"

reports=$(grep -c "$HEADLINE" "$log" || true)
known=$(grep -c "$KNOWN" "$LOGS/run.out" || true)
round=$(sed -n 's/^# reproduced in round \([0-9]*\) of.*/\1/p' "$log")
echo "# dquot-race-test: unpatched 6.12.118 + window probe: $reports" \
	"report(s) '$HEADLINE'${round:+ (round $round)}; recognised as the" \
	"known bug: $([ "$known" -gt 0 ] && echo yes || echo no); scenario exit $rc"
if [ "$reports" -gt 0 ] && [ "$known" -gt 0 ]; then
	say "dquot-race-test: reproduced on the unpatched kernel (logs in $LOGS)"
else
	[ "$reports" -gt 0 ] ||
		say "not reproduced: no '$HEADLINE' in $log"
	[ "$known" -gt 0 ] ||
		say "run-scenario.sh did not recognise a report as the known bug (see $LOGS/run.out)"
	say "dquot-race-test: FAILED (logs in $LOGS)"
	exit 1
fi
