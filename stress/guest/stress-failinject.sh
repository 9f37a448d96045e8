# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# stress-failinject: allocation failures injected into XFS, while it works
# and while it recovers its log.  failslab and fail_page_alloc are limited
# by their stack-trace filter (require-start/require-end) to allocations
# with an fs/xfs function among the innermost DEPTH (nofs.fi_depth, 8)
# frames: XFS's own calls of kmem_cache_alloc, kmalloc, kvmalloc/vmalloc,
# alloc_pages and the bulk page allocator; what the page cache, iomap or
# the block layer allocate beneath XFS is deeper and never failed.  The
# range: nofs.xfs_text=FIRST,END, symbols that stress/run.sh finds in
# System.map, looked up in /proc/kallsyms.  ignore-gfp-wait=N: sleeping
# allocations fail too.  task-filter=Y with make-it-fail on every task:
# nothing fails in interrupt context (whose stack the unwinder follows
# into an interrupted XFS function).  verbose=2: each injection is logged
# with its stack, except for __GFP_NOWARN allocations (xfs_buf's page
# arrays, which retry; kvmalloc's first try, which falls back to vmalloc),
# injected but not logged.  __GFP_NOFAIL allocations are never failed.
# Durable files are written and fsynced before any injection.
#
# Workload rounds (nofs.fi_rounds): the five lib-stress.sh loops and an
# xfs_scrub -n loop run for nofs.fi_secs seconds with injection on, at a
# probability that rises from round to round, injecting into failslab,
# fail_page_alloc or both in turn, at most nofs.fi_times failures each.
# Recovery rounds (nofs.fi_recover): the loops run, "shutdown -f", umount,
# then 1..10 failures are injected while mount replays the log, after a
# random share of the allocations that a calibration mount (same steps,
# the attributes' "space" counting and nothing failed) made, so that they
# land anywhere in mount and recovery (nofs.fi_mount_at=PCT fixes that
# share; 1000, ten times what the calibration mount allocated, injects
# nothing, which shows the check below failing; a mount can allocate more
# than the calibration did, so 100 does not); a recovery round in which
# no failure was injected fails, and the rounds whose mount got as far as
# log recovery are counted (recovery_started).  A round's mount can
# allocate less than the calibration mount did (a smaller log), so a
# random point can lie beyond its end: such a round, when the mount
# succeeded and the point was random, lowers the calibration to what
# that mount allocated and runs again, at most RETRIES times; only its
# last try has a trial line, and the summary counts the reruns
# (recovery_retries; nofs.fi_mount_at=beyond puts each round's first
# try at 1000 %, so that every round shows the rerun).  After every round:
# umount, mount (log recovery when the filesystem shut down, without
# injection), the durable files intact, umount, xfs_repair -n clean.
#
# The workload's errors are expected (ENOMEM or EIO to the program, or a
# shutdown with its message) and only counted; what must hold is: no
# splat, hang or memalloc_scope report (the host's scan), no XFS
# corruption report, a consistent filesystem after recovery and repair,
# the fsynced data, and at least one injected failure.  The histogram
# gives the innermost fs/xfs function of each logged injection's stack.
#
# One "trial: round=R kind=workload|recovery injected=... ..." line per
# round; last line: "# stress: scenario=failinject injected=... logged=...
# enomem=... eio=... shutdowns=... mount_failures=... lost=... corrupt=...
# repair_errors=...", read by stress/run.sh.
#
# nofs-disks: 1
# nofs-allow: XFS \([a-z0-9]+\): (Internal error xfs_trans_cancel at line [0-9]+ of file fs/xfs/xfs_trans\.c|Corruption of in-memory data \(0x8\) detected at (xfs_trans_cancel|__xfs_trans_commit)\+)
# (An allocation that fails inside a dirty transaction - in a precommit
# hook that reads an inode cluster or dquot buffer, say, whose page array
# is a __GFP_NOWARN kzalloc - makes XFS cancel it or fail the commit and
# shut down with "Corruption of in-memory data" (0x8) from xfs_trans_cancel
# or __xfs_trans_commit: its designed reaction, a shutdown with a message;
# nothing on disk is corrupt, which recovery and xfs_repair -n check.)
# shellcheck source=../../qemu/guest/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=lib-stress.sh
. /scenarios/lib-stress.sh

fi_params
num_param RROUNDS fi_recover 3
MOUNT_AT=$(param fi_mount_at random)	# PCT, or random
case $MOUNT_AT in random|beyond) ;; *[!0-9]*|'') bail "nofs.fi_mount_at=$MOUNT_AT is not a number" ;; esac
PROBS="2 10 25 50"		# workload rounds, in turn
SPACE_MAX=2147483647		# "space" is an int
ATTRS="failslab fail_page_alloc both"
XFS_SYMS=/tmp/xfs.syms		# fs/xfs function names, for the histogram
HIST=/tmp/inject.hist
LOOP_NAMES="$LOOP_NAMES scrub"

LOGGED=0 ENOMEM=0 EIO=0 OTHER=0 SHUTDOWNS=0 MOUNT_FAILURES=0
RECOVERY_STARTED=0		# recovery rounds whose mount got to log recovery
RECOVERY_RETRIES=0		# recovery tries rerun because they injected nothing
RETRIES=2			# reruns of one recovery round at most
REPAIR_ERRORS=0 LOST=0 CORRUPT=0
CAL_failslab=0 CAL_fail_page_alloc=0
# shellcheck disable=SC2034 # read through eval: a round's points
SP_failslab=0 SP_fail_page_alloc=0

scrub_step() { xfs_scrub -n "$MNT"; }

# xfs_range: the fs/xfs text from nofs.xfs_text, function names in
# XFS_SYMS (for the histogram).
xfs_range() {
	text_range xfs_text fs/xfs "$XFS_SYMS" \
		xfs_trans_alloc xfs_buf_get_map xlog_recover xfs_inode_alloc
}

# budget_left: any fault attribute of FI_ATTRS still has failures to give.
budget_left() {
	local a
	for a in $FI_ATTRS; do [ "$(cat "$DBG/$a/times")" -eq 0 ] || return 0; done
	return 1
}

# account: count the new kernel messages (since the last kmsg call).
account() {
	local n
	n=$(grep -c 'FAULT_INJECTION: forcing a failure' /tmp/kmsg.new)
	LOGGED=$((LOGGED + n))
	n=$(grep -cE "$SHUTDOWN_RE" /tmp/kmsg.new)
	SHUTDOWNS=$((SHUTDOWNS + n))
	grep -E "$SHUTDOWN_RE" /tmp/kmsg.new | sed 's/^\[[^]]*\] //' | head -n 3
}

# after_round: the filesystem must come back: umount, mount (recovery
# if it shut down), durable files, umount, xfs_repair -n, mount.
after_round() {
	umount "$MNT" || { echo "umount failed"; return 1; }
	mount_recover || { echo "mount after the round failed"; return 1; }
	[ "$RECOVERED" -eq 0 ] || echo "log recovery ran on the remount"
	verify_durable || return 1
	repair_remount || return 1
	echo "xfs_repair -n: clean"
}

# errors: add the loops' errors to the totals, print them.
errors() {
	# shellcheck disable=SC2046 # three numbers
	set -- $(loop_errors)
	ENOMEM=$((ENOMEM + $1)) EIO=$((EIO + $2)) OTHER=$((OTHER + $3))
	echo "errors of the workload: ENOMEM $1, EIO $2, other $3"
	[ "$3" -eq 0 ] || loop_error_samples 4
}

# work_round R WHICH PROBABILITY
work_round() {
	local i=0
	kmsg
	start_loops "$MNT/w$1" "$MNT/src"
	fi_on "$2" "$3" || { echo "configuring $2 failed"; stop_loops; return 1; }
	while [ $i -lt $((SECS * 2)) ] && budget_left; do sleep 0.5; i=$((i + 1)); done
	fi_off
	stop_loops
	kmsg
	echo "$FI_COUNT failures injected in $((i / 2)) s ($2, $3 %)"
	account
	errors
	echo "trial: round=$1 kind=workload attr=$2 pct=$3 secs=$((i / 2))" \
		"injected=$FI_COUNT errors=$(loop_errors | tr ' ' ,)"
	after_round
}

# dirty_log: the loops, then "shutdown -f" with their work in flight,
# umount: the next mount has a log to recover.
dirty_log() {
	start_loops "$MNT/r$1" "$MNT/src"
	rand 30
	wait_iterations $((10 + RAND))
	xfs_io -x -c "shutdown -f" "$MNT" || { stop_loops; return 1; }
	stop_loops
	umount "$MNT" || { echo "umount after the shutdown failed"; return 1; }
}

# calibrate: what a recovery mount allocates that the filter lets
# through: CAL_failslab (bytes), CAL_fail_page_alloc (pages).
calibrate() {
	local a
	kmsg
	dirty_log 0 || return 1
	fi_attrs both
	for a in $FI_ATTRS; do fi_set "$a" 100 1 $SPACE_MAX || return 1; done
	mount_recover || { echo "mount failed"; return 1; }
	for a in $FI_ATTRS; do
		echo 0 > "$DBG/$a/probability"
		eval "CAL_$a=$((SPACE_MAX - $(cat "$DBG/$a/space")))"
	done
	echo "a recovery mount (recovery ran: $RECOVERED) passed the filter with" \
		"$CAL_failslab bytes of slab and $CAL_fail_page_alloc pages"
	[ "$RECOVERED" -eq 1 ] && [ "$CAL_failslab" -gt 0 ] && after_round
}

# lower_calibration: after a mount that injected nothing, what it
# allocated through the filter (the point less the space left) becomes
# the calibration of each attribute where it is smaller.
lower_calibration() {
	local a cal sp used
	for a in $FI_ATTRS; do
		eval "cal=\$CAL_$a sp=\$SP_$a"
		used=$((sp - $(cat "$DBG/$a/space")))
		echo "$a: this mount allocated $used through the filter, the calibration mount $cal"
		[ "$used" -ge "$cal" ] || eval "CAL_$a=$used"
	done
}

# recovery_round R WHICH [TRY]: 1..10 failures from a random point of
# the mount that recovers a log on.
recovery_round() {
	local rc=0 a cal sp where="" started try=${3:-1}
	kmsg
	dirty_log "$1" || return 1
	kmsg
	fi_attrs "$2"
	rand 10
	FI_TIMES=$((1 + RAND))
	for a in $FI_ATTRS; do
		eval "cal=\$CAL_$a"
		rand 100
		case $MOUNT_AT in
		random) ;;
		beyond) [ "$try" -gt 1 ] || RAND=1000 ;;
		*) RAND=$MOUNT_AT ;;
		esac
		sp=$((cal * RAND / 100))
		where="$where $a after $sp of $cal"
		eval "SP_$a=$sp"
		fi_set "$a" 100 "$FI_TIMES" "$sp" || return 1
	done
	mount -t xfs -o uquota,gquota,pquota "$DEV" "$MNT" || rc=$?
	fi_off
	kmsg
	echo "$FI_COUNT failures injected into mount and log recovery ($FI_TIMES per attribute,$where)"
	if [ "$FI_COUNT" -eq 0 ] && [ $rc -eq 0 ] && [ "$try" -le "$RETRIES" ] &&
	   { [ "$MOUNT_AT" = random ] || [ "$MOUNT_AT" = beyond ]; }; then
		lower_calibration
		account
		after_round || return 1
		RECOVERY_RETRIES=$((RECOVERY_RETRIES + 1))
		echo "no failure was injected: the point lay beyond this mount's end;" \
			"round $1 runs again (try $((try + 1)) of $((RETRIES + 1)))"
		recovery_round "$1" "$2" $((try + 1))
		return
	fi
	started=0
	if grep -qE 'XFS \([a-z0-9]+\): Starting recovery' /tmp/kmsg.new; then
		echo "log recovery started under injection"
		RECOVERY_STARTED=$((RECOVERY_STARTED + 1)) started=1
	fi
	echo "trial: round=$1 kind=recovery attr=$2 injected=$FI_COUNT" \
		"recovery=$started mount=$([ $rc -eq 0 ] && echo ok || echo failed) try=$try"
	account
	if [ "$FI_COUNT" -eq 0 ]; then
		echo "no failure was injected into the mount: the round tested nothing"
		[ $rc -ne 0 ] || after_round
		return 1
	fi
	if [ $rc -ne 0 ]; then
		MOUNT_FAILURES=$((MOUNT_FAILURES + 1))
		echo "mount failed (status $rc); the kernel said:"
		grep -E 'XFS \(' /tmp/kmsg.new | sed 's/^\[[^]]*\] //' | tail -n 4
		# after_round starts with an umount
		mount_recover || { echo "mount without injection failed"; return 1; }
		[ "$RECOVERED" -eq 0 ] || echo "the mount without injection recovered the log"
	else
		echo "mount succeeded"
	fi
	after_round
}

# histogram: the innermost fs/xfs function of each logged injection.  A
# stack dump is an injection's if should_fail_ex is in it, and
# should_failslab or should_fail_alloc_page names the attribute (the
# "FAULT_INJECTION: forcing a failure" line before it can interleave
# with another CPU's output, the dump itself cannot).
histogram() {
	awk 'FILENAME == ARGV[1] { xfs[$1] = 1; next }
	     /Call Trace:/ { inj = 0; attr = "?"; fn = ""; next }
	     /<\/TASK>/ { if (inj) h[(fn == "" ? "(none)" : fn) "|" attr]++; inj = 0; next }
	     { f = $0; sub(/^\[[^]]*\] */, "", f); sub(/^\? /, "", f); sub(/\+.*/, "", f) }
	     f == "should_fail_ex" { inj = 1 }
	     f == "should_failslab" { attr = "failslab" }
	     f == "should_fail_alloc_page" { attr = "fail_page_alloc" }
	     inj && fn == "" && (f in xfs) { fn = f }
	     END { for (k in h) print h[k], k }' "$XFS_SYMS" "$KMSG" |
		sort -rn > "$HIST"
	echo "where the logged injections hit (innermost fs/xfs function, attribute):"
	head -n 25 "$HIST" | awk '{ split($2, k, "|"); printf "%6d  %s (%s)\n", $1, k[1], k[2] }'
	[ "$(wc -l < "$HIST")" -le 25 ] || echo "  ... $(($(wc -l < "$HIST") - 25)) more"
	HISTOGRAM_TOTAL=$(awk '{ n += $1 } END { print n + 0 }' "$HIST")
	echo "$HISTOGRAM_TOTAL stack dumps of injections, $LOGGED injection messages"
	! grep -q '^[0-9]* (none)|' "$HIST"
}

say "seed $SEED0; $ROUNDS workload rounds of $SECS s, $RROUNDS recovery rounds," \
	"at most $TIMES failures per attribute and round, stack depth $DEPTH"
require "fs/xfs text range from nofs.xfs_text" xfs_range
require "fault-injection attributes in debugfs" \
	test -w $DBG/failslab/require-start -a -w $DBG/fail_page_alloc/require-start
require "make-it-fail on every task" mark_tasks
# a stack trace with every shutdown, to see what an injection led to
require "fs.xfs.error_level 11" sh -c 'echo 11 > /proc/sys/fs/xfs/error_level'
require "mkfs.xfs -m reflink=1,rmapbt=1, mount with uquota,gquota,pquota" mkfs_mount
require "source files for the reflink loop" sources "$MNT/src"
require "durable files written and fsynced before any injection" \
	durable_files "$MNT/durable" 0
kmsg
r=1
while [ $r -le "$ROUNDS" ]; do
	# shellcheck disable=SC2086 # lists of words
	p=$(pick $((r - 1)) $PROBS) a=$(pick $((r - 1)) $ATTRS)
	check "workload round $r: $a at $p %, fs consistent and files intact after it" \
		work_round $r "$a" "$p" || break
	r=$((r + 1))
done
if [ "$RROUNDS" -gt 0 ]; then
	check "calibration: a recovery mount's allocations through the filter" calibrate
fi
r=1
while [ $r -le "$RROUNDS" ]; do
	# shellcheck disable=SC2086 # a list of words
	a=$(pick $((r + 1)) $ATTRS)
	check "recovery round $r: $a fails during mount, fs consistent and files intact after it" \
		recovery_round $r "$a" || break
	r=$((r + 1))
done
grep -q " $MNT " /proc/mounts && umount "$MNT"
kmsg
check "failures were injected ($INJECTED; $LOGGED logged)" [ "$INJECTED" -gt 0 ]
check "every logged injection has an fs/xfs function on its stack" histogram
KCORRUPT=$(kmsg_count "$CORRUPT_RE")
check "no XFS corruption report in the kernel log ($KCORRUPT)" [ "$KCORRUPT" -eq 0 ]
say "stress: scenario=failinject rounds=$ROUNDS recovery_rounds=$RROUNDS" \
	"injected=$INJECTED logged=$LOGGED enomem=$ENOMEM eio=$EIO other_errors=$OTHER" \
	"shutdowns=$SHUTDOWNS mount_failures=$MOUNT_FAILURES budget_used_up=$BUDGET_USED_UP" \
	"recovery_started=$RECOVERY_STARTED recovery_retries=$RECOVERY_RETRIES" \
	"lost=$LOST corrupt=$CORRUPT repair_errors=$REPAIR_ERRORS" \
	"kernel_corruption=$KCORRUPT seed=$SEED0"
finish
