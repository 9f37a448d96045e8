#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make raid56-race-test: reproduce the btrfs RAID5 use-after-free, and the
# same pattern in encoded reads, on the unpatched 6.12 tree, then show both
# silent with their fixes.
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
# The encoded read path (btrfs_encoded_read_regular_fill_pages(), reached
# by the scenario's send --compressed-data) has the same pattern; its probe
# qemu/probes/btrfs-encoded-read-wake-window.patch puts the same delays
# at the same places, and its fix is the second patch of btrfs-conversion/.
#
#   unfixed  pristine + probe: the btrfs-raid56 scenario must show a
#            memory-safety report with its signature (SIGNS below)
#   encoded  pristine + raid56 fix + encoded read probe: the same, with the
#            encoded read's signature (the raid56 report would stop the
#            guest before the send)
#   fixed    pristine + both fixes + both probes: RACE_RUNS boots (default
#            3), each must pass with no report, and the probes must have
#            seen both orders of raid56 (the last end_io completing after
#            its delay, and the submitter dropping the last count: every
#            other batch waits 2 ms first) and the encoded read's delay
#
# RACE_MODES chooses (default "unfixed encoded fixed").  KASAN=1 builds and boots
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
: "${RACE_MODES:=unfixed encoded fixed}"
: "${RACE_RUNS:=3}"
PR_TREE=$CACHE_DIR/linux-splitfix
SCENARIO=btrfs-raid56
FIX=$(ls "$TOP"/btrfs-conversion/0001-btrfs-raid56-fix-use-after-free-*.patch 2>/dev/null || true)
EFIX=$(ls "$TOP"/btrfs-conversion/0002-btrfs-fix-use-after-free-waiting-for-encoded-*.patch 2>/dev/null || true)
P=$TOP/qemu/probes
suffix=
configs="$TOP/kunit/guest.config"
if [ "${KASAN:-}" = 1 ]; then
	suffix=-kasan
	configs+=" $TOP/kunit/kasan.config"
fi
# The guest stops at the first oops (and KASAN report) instead of running
# on, damaged, to the timeout.
append="oops=panic sysctl.kernel.panic_on_rcu_stall=1${NOFS_APPEND:+ $NOFS_APPEND}"
# the scenario takes 30-60 s (KASAN: about 150 s); a guest that spins on a
# damaged lock is stopped at the timeout
timeout=300
# A memory-safety report, and what must follow it.
# Without KASAN the damage is found later: spin_unlock()'s debug code
# stores owner_cpu = -1 into the freed rbio, over the low half of the
# free pointer that SLUB keeps in the object, and the next kmalloc() of
# that size (alloc_rbio() or anyone's) faults on the free list; or the
# spinlock debug checks (or lockdep, "trying to register non-static key")
# complain in the end_io itself: the encoded read's small private struct
# is usually reused at once, and the end_io then spins on a damaged lock
# (an RCU stall, which panics the guest here).
# Only KASAN ties a report to the object and its end_io.
REPORT_RE='BUG: KASAN: [a-z-]*use-after-free|BUG: spinlock (wrong CPU|bad magic|already unlocked|recursion)|INFO: trying to register non-static key|BUG kmalloc-[0-9]* .*(Poison overwritten|Freepointer corrupt|Redzone)|general protection fault|BUG: unable to handle page fault'
STACK_RE='RIP: 0010:__kmalloc|raid_wait_(read|write)_end_io|alloc_rbio'
SIGNS=("$STACK_RE")
ESIGNS=('BUG: spinlock|RIP: 0010:__kmalloc|btrfs_encoded_read')
if [ "${KASAN:-}" = 1 ]; then
	# The access under the end_io's wake-up (raid_wait_*_end_io() tail-calls
	# __wake_up(), so its own frame is not shown), an rbio from alloc_rbio(),
	# freed by rbio_orig_end_io(): each must be in the report.
	# A KASAN kernel under single-threaded TCG boots slowly enough that
	# stop_machine() trips the soft-lockup detector (26 s in
	# multi_cpu_stop() at about 30 s, fixed or not); give it 120 s.
	append+=" kasan.fault=panic watchdog_thresh=60"
	timeout=480
	REPORT_RE='BUG: KASAN: [a-z-]*use-after-free'
	SIGNS=('_raw_spin_lock_irqsave|__wake_up' 'alloc_rbio' 'rbio_orig_end_io')
	ESIGNS=('_raw_spin_lock_irqsave|__wake_up' 'btrfs_encoded_read_regular_fill_pages')
fi
PROBE_MSG='nofs-scope probe: raid56 end_io delays its wake-up'
EPROBE_MSG='nofs-scope probe: encoded read end_io delays its wake-up'
LAST_MSG='nofs-scope probe: raid56 submitter dropped the last count'

say() { printf '==> %s\n' "$*"; }
die() { printf 'raid56-race-test: error: %s\n' "$*" >&2; exit 1; }

if [ -z "$FIX" ] || [ ! -f "$FIX" ] || [ -z "$EFIX" ] || [ ! -f "$EFIX" ]; then
	die "no btrfs-conversion/0001-btrfs-raid56-fix-use-after-free-*.patch or 0002-btrfs-fix-use-after-free-waiting-for-encoded-*.patch"
fi

# apply PATCH...: apply to the worktree, in order, or die naming the patch
apply() {
	local p
	for p in "$@"; do
		git -C "$PR_TREE" apply "$p" ||
			die "${p##*/} does not apply to pristine + the patches before it"
	done
}

# prepare MODE: the worktree at pristine with the mode's fixes and probes
prepare_tree() {
	pristine_worktree "$PR_TREE"
	case $1 in
	unfixed) apply "$P/btrfs-raid56-wake-window.patch" ;;
	encoded) apply "$FIX" "$P/btrfs-encoded-read-wake-window.patch" ;;
	fixed)	apply "$FIX" "$EFIX" "$P/btrfs-raid56-wake-window-fixed.patch" \
			"$P/btrfs-encoded-read-wake-window-fixed.patch" ;;
	*)	die "unknown mode '$1' (RACE_MODES: unfixed encoded fixed)" ;;
	esac
}

# boot LOGS RUN SIGN...: one boot of the scenario; prints the verdict words
# "<reports> <signs-found> <end_io-delayed> <submitter-last> <encoded-delayed> <exit>"
boot() {
	local logs=$1 run=$2 rc=0 log reports stack probe last eprobe sign excerpt
	BUILD_DIR=$build LOG_DIR=$logs NOFS_APPEND=$append \
		"$TOP/qemu/run-scenario.sh" --timeout "$timeout" "$SCENARIO" \
		> "$logs/run$run.out" 2>&1 || rc=$?
	log=$logs/$SCENARIO.log
	[ -f "$log" ] || die "no serial log (see $logs/run$run.out)"
	cp "$log" "$logs/$SCENARIO.run$run.log"
	reports=$(grep -acE "$REPORT_RE" "$log" || true)
	# how many of SIGNS follow the first report (within 300 lines: an
	# interrupted KASAN report can be long)
	# (the excerpt is read once: "grep | grep -q" under pipefail fails
	# whenever grep -q stops reading early)
	excerpt=$(grep -a -A300 -E "$REPORT_RE" "$log" || true)
	stack=0
	for sign in "${@:3}"; do
		if grep -qE "$sign" <<< "$excerpt"; then
			stack=$((stack + 1))
		fi
	done
	probe=$(grep -ac "$PROBE_MSG" "$log" || true)
	last=$(grep -ac "$LAST_MSG" "$log" || true)
	eprobe=$(grep -ac "$EPROBE_MSG" "$log" || true)
	echo "$reports $stack $probe $last $eprobe $rc"
}

trap 'git -C "$PR_TREE" checkout -q -f --detach pristine 2>/dev/null || true' EXIT
failed=0
declare -A WHAT=([unfixed]="pristine + raid56 probe"
	[encoded]="pristine + raid56 fix + encoded read probe"
	[fixed]="pristine + both fixes + both probes")
for mode in $RACE_MODES; do
	build=$CACHE_DIR/build-raid56-$mode$suffix
	logs=$LOG_DIR/raid56-race/$mode$suffix
	mkdir -p "$logs"
	prepare_tree "$mode"
	say "[$mode$suffix] building ${WHAT[$mode]} in $build (log: $logs/build.log)"
	TREE=$PR_TREE BUILD_DIR=$build LOG_DIR=$logs KUNITCONFIGS="$configs" \
		"$TOP/kunit/run.sh" build > "$logs/build.out" 2>&1 ||
		die "build failed (see $logs/build.log)"
	case $mode in
	unfixed|encoded)
		want=("${SIGNS[@]}")
		[ "$mode" = unfixed ] || want=("${ESIGNS[@]}")
		say "[$mode$suffix] booting $SCENARIO on ${WHAT[$mode]}"
		read -r reports stack probe last eprobe rc < <(boot "$logs" 1 "${want[@]}")
		echo "# raid56-race-test [$mode$suffix]: $reports memory-safety report line(s), $stack of ${#want[@]} signs (${want[*]}) after the first, raid56 probe: $probe, encoded read probe: $eprobe, scenario exit $rc (log: $logs/$SCENARIO.run1.log)"
		if [ "$reports" -gt 0 ] && [ "$stack" -eq "${#want[@]}" ]; then
			say "[$mode$suffix] reproduced"
		else
			say "[$mode$suffix] NOT reproduced: no report followed by ${want[*]}"
			failed=1
		fi
		;;
	fixed)
		run=1
		while [ "$run" -le "$RACE_RUNS" ]; do
			say "[$mode$suffix] run $run/$RACE_RUNS: booting $SCENARIO on ${WHAT[$mode]}"
			read -r reports stack probe last eprobe rc < <(boot "$logs" "$run" "${SIGNS[@]}")
			echo "# raid56-race-test [$mode$suffix] run $run/$RACE_RUNS: $reports report line(s), raid56 end_io delayed its completion: $probe, submitter dropped the last count: $last, encoded read end_io delayed: $eprobe, scenario exit $rc (log: $logs/$SCENARIO.run$run.log)"
			if [ "$reports" -ne 0 ] || [ "$rc" -ne 0 ] || [ "$probe" -eq 0 ] ||
			   [ "$last" -eq 0 ] || [ "$eprobe" -eq 0 ]; then
				say "[$mode$suffix] run $run FAILED (a report, a failed scenario, or a probe path never taken)"
				failed=1
			fi
			run=$((run + 1))
		done
		;;
	esac
done
if [ "$failed" -ne 0 ]; then
	say "raid56-race-test: FAILED (logs in $LOG_DIR/raid56-race)"
	exit 1
fi
say "raid56-race-test: passed ($RACE_MODES$suffix; logs in $LOG_DIR/raid56-race)"
