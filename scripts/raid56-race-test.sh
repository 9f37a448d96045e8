#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make raid56-race-test: reproduce the btrfs RAID5 use-after-free on the
# unpatched 6.12 tree, then show it silent with the fix.
#
# raid56's end_io functions drop rbio->stripes_pending and then wake the
# waiter; a waiter that sees the count reach zero before the wake-up goes
# on and frees the rbio while the end_io is still to take the wait queue's
# lock.  The probe qemu/probes/btrfs-raid56-wake-window.patch widens that
# window (20 ms between the decrement and the wake-up, 2 ms between the
# submission and the wait); nothing else changes.  The fix is the first
# patch of btrfs-conversion/; with it, the same delays sit between the
# decrement and complete() (qemu/probes/btrfs-raid56-wake-window-fixed.patch).
#
#   unfixed  pristine + probe: the btrfs-raid56 scenario must show a
#            memory-safety report with its signature (STACK_RE below)
#   fixed    pristine + fix + probe: RACE_RUNS boots (default 3), each must
#            pass with no report, and the probe must have seen both orders:
#            the last end_io completing after its delay, and the submitter
#            dropping the last count (every other batch waits 2 ms first)
#
# RACE_MODES chooses (default "unfixed fixed").  KASAN=1 builds and boots
# KASAN kernels (kunit/kasan.config, slub_debug) in their own build
# directories.  The worktree CACHE_DIR/linux-splitfix is shared with
# split-fix-test and dquot-race-test and reset to pristine each time; each
# mode has its own build directory, so a warm rerun compiles one file.
set -eu -o pipefail

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
: "${CACHE_DIR:=$(dirname "$TREE")}"
: "${LOG_DIR:=$CACHE_DIR/logs}"
: "${RACE_MODES:=unfixed fixed}"
: "${RACE_RUNS:=3}"
PR_TREE=$CACHE_DIR/linux-splitfix
SCENARIO=btrfs-raid56
FIX=$(ls "$TOP"/btrfs-conversion/0001-btrfs-raid56-fix-use-after-free-*.patch 2>/dev/null || true)
suffix=
configs="$TOP/kunit/guest.config"
if [ "${KASAN:-}" = 1 ]; then
	suffix=-kasan
	configs+=" $TOP/kunit/kasan.config"
fi
# The guest stops at the first oops (and KASAN report) instead of running
# on, damaged, to the timeout.
append="oops=panic${NOFS_APPEND:+ $NOFS_APPEND}"
# A memory-safety report, and what must follow it within 60 lines.
# Without KASAN the damage is found later: spin_unlock()'s debug code
# stores owner_cpu = -1 into the freed rbio, over the low half of the
# free pointer that SLUB keeps in the object, and the next kmalloc() of
# that size (alloc_rbio() or anyone's) faults on the free list; or the
# spinlock debug checks of the end_io itself complain.  KASAN catches the
# end_io's access to the freed rbio where it happens.
REPORT_RE='BUG: KASAN: [a-z-]*use-after-free|BUG: spinlock (wrong CPU|bad magic|already unlocked|recursion)|BUG kmalloc-[0-9]* .*(Poison overwritten|Freepointer corrupt|Redzone)|general protection fault|BUG: unable to handle page fault'
STACK_RE='RIP: 0010:__kmalloc|raid_wait_(read|write)_end_io|alloc_rbio'
if [ "${KASAN:-}" = 1 ]; then
	append+=" kasan.fault=panic"
	REPORT_RE='BUG: KASAN: [a-z-]*use-after-free'
	STACK_RE='raid_wait_(read|write)_end_io'
fi
PROBE_MSG='nofs-scope probe: raid56 end_io delays its wake-up'
LAST_MSG='nofs-scope probe: raid56 submitter dropped the last count'

say() { printf '==> %s\n' "$*"; }
die() { printf 'raid56-race-test: error: %s\n' "$*" >&2; exit 1; }

if [ -z "$FIX" ] || [ ! -f "$FIX" ]; then
	die "no btrfs-conversion/0001-btrfs-raid56-fix-use-after-free-*.patch"
fi

# prepare MODE: the worktree at pristine with the probe (and the fix)
prepare_tree() {
	pristine_worktree "$PR_TREE"
	if [ "$1" = fixed ]; then
		git -C "$PR_TREE" apply "$FIX" ||
			die "${FIX##*/} does not apply to pristine"
		git -C "$PR_TREE" apply "$TOP/qemu/probes/btrfs-raid56-wake-window-fixed.patch" ||
			die "the fixed-variant probe does not apply to pristine + fix"
	else
		git -C "$PR_TREE" apply "$TOP/qemu/probes/btrfs-raid56-wake-window.patch" ||
			die "the probe does not apply to pristine"
	fi
}

# boot LOGS RUN: one boot of the scenario; prints the verdict words
# "<reports> <signature-lines> <end_io-delayed> <submitter-last> <exit>"
boot() {
	local logs=$1 run=$2 rc=0 log reports stack probe last
	BUILD_DIR=$build LOG_DIR=$logs NOFS_APPEND=$append \
		"$TOP/qemu/run-scenario.sh" "$SCENARIO" \
		> "$logs/run$run.out" 2>&1 || rc=$?
	log=$logs/$SCENARIO.log
	[ -f "$log" ] || die "no serial log (see $logs/run$run.out)"
	cp "$log" "$logs/$SCENARIO.run$run.log"
	reports=$(grep -cE "$REPORT_RE" "$log" || true)
	# the end_io within the 40 lines after a report
	stack=$(grep -A60 -E "$REPORT_RE" "$log" | grep -cE "$STACK_RE" || true)
	probe=$(grep -c "$PROBE_MSG" "$log" || true)
	last=$(grep -c "$LAST_MSG" "$log" || true)
	echo "$reports $stack $probe $last $rc"
}

trap 'git -C "$PR_TREE" checkout -q -f --detach pristine 2>/dev/null || true' EXIT
failed=0
for mode in $RACE_MODES; do
	build=$CACHE_DIR/build-raid56-$mode$suffix
	logs=$LOG_DIR/raid56-race/$mode$suffix
	mkdir -p "$logs"
	prepare_tree "$mode"
	say "[$mode$suffix] building pristine$([ "$mode" = fixed ] && echo ' + fix') + probe in $build (log: $logs/build.log)"
	TREE=$PR_TREE BUILD_DIR=$build LOG_DIR=$logs KUNITCONFIGS="$configs" \
		"$TOP/kunit/run.sh" build > "$logs/build.out" 2>&1 ||
		die "build failed (see $logs/build.log)"
	case $mode in
	unfixed)
		say "[$mode$suffix] booting $SCENARIO on the unpatched kernel with the probe"
		read -r reports stack probe last rc < <(boot "$logs" 1)
		echo "# raid56-race-test [$mode$suffix]: $reports memory-safety report line(s), $stack with the signature ($STACK_RE) after it, probe ran: $probe, scenario exit $rc (log: $logs/$SCENARIO.run1.log)"
		if [ "$reports" -gt 0 ] && [ "$stack" -gt 0 ]; then
			say "[$mode$suffix] reproduced on the unpatched kernel"
		else
			say "[$mode$suffix] NOT reproduced: no report followed by $STACK_RE"
			failed=1
		fi
		;;
	fixed)
		run=1
		while [ "$run" -le "$RACE_RUNS" ]; do
			say "[$mode$suffix] run $run/$RACE_RUNS: booting $SCENARIO on pristine + fix with the probe"
			read -r reports stack probe last rc < <(boot "$logs" "$run")
			echo "# raid56-race-test [$mode$suffix] run $run/$RACE_RUNS: $reports report line(s), end_io delayed its completion: $probe, submitter dropped the last count: $last, scenario exit $rc (log: $logs/$SCENARIO.run$run.log)"
			if [ "$reports" -ne 0 ] || [ "$rc" -ne 0 ] ||
			   [ "$probe" -eq 0 ] || [ "$last" -eq 0 ]; then
				say "[$mode$suffix] run $run FAILED (a report, a failed scenario, or a probe path never taken)"
				failed=1
			fi
			run=$((run + 1))
		done
		;;
	*) die "unknown mode '$mode' (RACE_MODES: unfixed fixed)" ;;
	esac
done
if [ "$failed" -ne 0 ]; then
	say "raid56-race-test: FAILED (logs in $LOG_DIR/raid56-race)"
	exit 1
fi
say "raid56-race-test: passed ($RACE_MODES$suffix; logs in $LOG_DIR/raid56-race)"
