#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test kernel under QEMU once per scenario and judge the result.
#
#   run-scenario.sh [options] NAME...
#     --kernel BZIMAGE       default $BUILD_DIR/arch/x86/boot/bzImage
#     --timeout SECS         hard limit per scenario, boot included (600)
#     --log-dir DIR          serial logs, default $LOG_DIR or $BUILD_DIR/../logs
#     --mem MB               guest memory (1024)
#     --accel auto|kvm|tcg   default $NOFS_ACCEL or auto: probe KVM once
#
# NAME is qemu/guest/scenarios/NAME.sh, or stress/guest/NAME.sh for the
# stress campaign's scenarios.  It passes when the guest prints
# "NOFS-RESULT: NAME PASS" and the kernel log holds no splat (SPLAT_RE).
# Header lines a scenario may carry:
#   # nofs-disks: N        number of virtio disks /dev/vda... (default 1)
#   # nofs-allow: ERE      kernel log lines to exempt from the splat scan
#   # nofs-boots: 2        a crash scenario: the first boot ends in a hard
#                          crash (crash_hard in lib.sh), the second boots
#                          on the same disks with nofs.boot=2 (default 1)
#
# Environment: BUILD_DIR (/root/.cache/nofs-scope/build), LOG_DIR,
# QEMU_CACHE (initramfs and disk images, $BUILD_DIR/../qemu), DISK_SIZE
# (2G, sparse), NOFS_ACCEL, NOFS_LOGLEVEL (guest console loglevel, 7),
# NOFS_APPEND (more kernel command line, e.g. memalloc_scope.redundant=1).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
SCENARIOS=$HERE/guest/scenarios
STRESS_SCENARIOS=$HERE/../stress/guest
: "${BUILD_DIR:=/root/.cache/nofs-scope/build}"
: "${LOG_DIR:=$BUILD_DIR/../logs}"
: "${QEMU_CACHE:=$BUILD_DIR/../qemu}"
: "${DISK_SIZE:=2G}"
: "${NOFS_LOGLEVEL:=7}"
KERNEL=$BUILD_DIR/arch/x86/boot/bzImage
TIMEOUT=600
MEM=1024
ACCEL=${NOFS_ACCEL:-auto}
QBOOT=/usr/share/qemu/qboot.rom
PROBE_TIMEOUT=20	# TCG boots to /init in ~4 s, KVM should be quicker
DEADLINE_MARGIN=20	# guest deadline = timeout - this: room to report

# A kernel log line matching one of these fails the scenario.
SPLAT_RE='WARNING:|BUG:|Oops|kernel BUG|general protection fault'
SPLAT_RE+='|possible circular locking dependency|possible recursive locking'
SPLAT_RE+='|inconsistent lock state|INFO: task .* blocked for more than'
# lockdep's own trouble ("RCU lockdep checking is enabled" is harmless)
SPLAT_RE+='|lockdep is turned off|turning off the locking correctness validator'
SPLAT_RE+='|KASAN|UBSAN|KFENCE|Kernel panic|soft lockup|hard LOCKUP'
# SLUB's own consistency reports (slub_debug): "BUG kmalloc-512 (Not
# tainted): Poison overwritten", and the kinds it names
SPLAT_RE+='|BUG [^ ]+ \([^)]*\): |Poison overwritten|Redzone overwritten'
SPLAT_RE+='|Freepointer corrupt|Object padding overwritten'
SPLAT_RE+='|RCU stall|detected stalls on CPU|self-detected stall'
SPLAT_RE+='|XFS.*(Internal error|Corruption|Assertion failed|Metadata (corruption|CRC error) detected)'
# CONFIG_DEBUG_MEMALLOC_SCOPE reports (mm-scope patch 5)
SPLAT_RE+='|memalloc_scope: '
DISK_LETTERS=abcdefgh
PRINTK_TIME_RE='\[ *[0-9]+\.[0-9]+\]'

say() { printf '==> %s\n' "$*"; }
diag() { sed 's/^/# /'; }
die() { printf 'run-scenario: error: %s\n' "$*" >&2; exit 1; }

usage() {
	sed -n '/^#   run-scenario/,/^#     --accel/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

need() {	# TOOL PACKAGE
	command -v "$1" >/dev/null || die "$1 not found: apt-get install $2"
}

check_host() {
	need qemu-system-x86_64 qemu-system-x86
	need timeout coreutils
	need truncate coreutils
	[ -f "$QBOOT" ] || die "$QBOOT not found: apt-get install qemu-system-data"
	[ -f "$KERNEL" ] || die "kernel image $KERNEL not found: build the kernel first or pass --kernel"
	case $ACCEL in auto|kvm|tcg) ;; *) die "--accel must be auto, kvm or tcg" ;; esac
	case $TIMEOUT in ''|*[!0-9]*) die "--timeout needs seconds" ;; esac
	case $MEM in ''|*[!0-9]*) die "--mem needs megabytes" ;; esac
	[ "$TIMEOUT" -gt "$DEADLINE_MARGIN" ] || die "--timeout must exceed $DEADLINE_MARGIN s"
}

# qemu ACCEL SECS LOG APPEND [QEMU-ARGS...]: boot $KERNEL with the serial
# console (and QEMU's own messages) in LOG; returns timeout(1)'s status.
# Every command line has no_timer_check: on a loaded host a TCG guest can
# miss the IO-APIC timer check and panic ("IO-APIC + timer doesn't work").
qemu() {
	local accel=$1 secs=$2 log=$3 append=$4 rc=0
	shift 4
	# KASAN=1 kernels (kunit/kasan.config) also check every slab object
	[ "${KASAN:-}" != 1 ] || append+=" slub_debug=FZPU"
	# In the background, so that the INT/TERM trap of main can stop it:
	# timeout(1) runs in a process group of its own and passes it on.
	timeout --kill-after=10 "$secs" qemu-system-x86_64 \
		-accel "$accel" -bios "$QBOOT" -m "$MEM" -smp 2 \
		-nodefaults -display none -no-reboot -serial stdio \
		-kernel "$KERNEL" -append "$append" "$@" \
		</dev/null >"$log" 2>&1 &
	QEMU_PID=$!
	wait $QEMU_PID || rc=$?
	QEMU_PID=
	sed -i 's/\r$//' "$log"
	return $rc
}

# Decide ACCEL and ACCEL_WHY.  KVM is only trusted after it booted the
# kernel as far as the panic for lack of a root filesystem.
probe_accel() {
	local log=$LOG_DIR/kvm-probe.log
	case $ACCEL in
	kvm|tcg) ACCEL_WHY="requested"; return ;;
	esac
	ACCEL=tcg
	if [ ! -w /dev/kvm ]; then
		ACCEL_WHY="no writable /dev/kvm"
		return
	fi
	say "probing KVM: booting the kernel without a root fs (up to $PROBE_TIMEOUT s)"
	qemu kvm "$PROBE_TIMEOUT" "$log" 'console=ttyS0 panic=-1 no_timer_check kunit.enable=0' || true
	if grep -q 'Linux version' "$log" &&
	   grep -q 'Unable to mount root\|Kernel panic' "$log"; then
		ACCEL=kvm
		ACCEL_WHY="KVM probe booted the kernel"
	elif grep -qi 'emulation failure\|KVM internal error' "$log"; then
		ACCEL_WHY="KVM probe hit an emulation failure"
	elif grep -q 'Linux version' "$log"; then
		ACCEL_WHY="KVM probe printed the banner but did not finish booting in $PROBE_TIMEOUT s"
	else
		ACCEL_WHY="KVM probe printed no banner in $PROBE_TIMEOUT s"
	fi
	[ "$ACCEL" = kvm ] || ACCEL_WHY="$ACCEL_WHY (log: $log)"
}

# splat_lines LOG [ALLOW-ERE]: the lines of LOG that count as kernel splats,
# as "N:line": kernel log lines (printk timestamps) matching SPLAT_RE and not
# ALLOW-ERE; every matching line if LOG has no timestamp at all.
splat_lines() {
	local re=$SPLAT_RE
	! grep -qE "$PRINTK_TIME_RE" "$1" || re="$PRINTK_TIME_RE.*($SPLAT_RE)"
	# "^$" matches no line of grep -n: nothing is exempt by default.
	grep -nE "$re" "$1" | grep -vE "${2:-^$}" || true
}

# scan_splats LOG [ALLOW-ERE]: print the first kernel splat in LOG with 20
# lines of context and the next matching lines alone; status 1 if any.
scan_splats() {
	local log=$1 lines n
	grep -qE "$PRINTK_TIME_RE" "$log" ||
		echo "no printk timestamps in $log: scanning every line" | diag
	lines=$(splat_lines "$log" "${2:-}" | cut -d: -f1)
	[ -n "$lines" ] || return 0
	echo "kernel splat: $(echo "$lines" | wc -l) matching lines in $log" | diag
	n=${lines%%$'\n'*}
	{ echo "---- line $n:"
	  sed -n "$((n > 2 ? n - 2 : 1)),$((n + 20))p" "$log"
	  for n in $(echo "$lines" | sed -n 2,11p); do
		echo "---- line $n: $(sed -n "${n}p" "$log")"
	  done; } | diag
	return 1
}

# hang_digest LOG: if LOG has a hung-task report, who held which locks at
# the first one, a line per task (lockdep's "Showing all locks held in the
# system", the watchdog left out), and what each CPU was running then (the
# guest turns on hung_task_all_cpu_backtrace): the holder of the lock a
# blocked task waits for is often running, not blocked.
hang_digest() {
	grep -qE "$PRINTK_TIME_RE INFO: task .* blocked for more than" "$1" || return 0
	echo "hung task: locks held and CPUs at the first report (full report in $1):"
	sed -E "s/^$PRINTK_TIME_RE ?//" "$1" | awk '
	function flush() {
		if (who != "" && who !~ /^khungtaskd\//)
			print "held by " who ": " (locks == "" ? "(running: its locks are not listed)" : locks)
		who = ""; locks = ""
	}
	function cpu_done() {
		if (cpu != "" && comm !~ /^khungtaskd\//)
			print "cpu " cpu " " comm ": " (rip != "" ? rip " < " : "") (frames == "" ? "(no kernel stack)" : frames)
		cpu = ""; comm = ""; rip = ""; frames = ""; nframes = 0; intask = 0
	}
	state == 0 && /^Showing all locks held in the system:/ { state = 1; next }
	state == 1 && /^=+$/ { flush(); state = 2; next }
	state == 1 && / locks? held by / {
		flush(); who = $NF; sub(/:$/, "", who); next
	}
	state == 1 && /^ *#[0-9]+: / {
		name = $0; sub(/^ *#[0-9]+: [0-9a-f]+ \(/, "", name); sub(/\)\{.*/, "", name)
		at = $0; sub(/.*, at: /, "", at); sub(/\+.*/, "", at)
		locks = locks (locks == "" ? "" : ", ") name " at " at
		next
	}
	state != 1 && /^NMI backtrace for cpu [0-9]+ skipped: idling/ { cpu_done(); ncpu++; print "cpu " $5 ": idle"; next }
	state != 1 && /^NMI backtrace for cpu [0-9]+$/ { cpu_done(); ncpu++; cpu = $5; next }
	ncpu && /^INFO: task .* blocked for more than/ { cpu_done(); exit }
	cpu != "" && /^CPU: [0-9]+ .* Comm: / {
		c = $0; sub(/.* PID: /, "", c); pid = c; sub(/ .*/, "", pid)
		sub(/.* Comm: /, "", c); sub(/ .*/, "", c); comm = c "/" pid; next
	}
	cpu != "" && /^RIP: [0-9]+:/ && !intask { r = $2; sub(/^[0-9]+:/, "", r); sub(/\+.*/, "", r); rip = r; next }
	cpu != "" && /^ *<TASK>/ { intask = 1; next }
	cpu != "" && /^ *<\/TASK>/ { cpu_done(); next }
	cpu != "" && intask && /^ +[A-Za-z_][A-Za-z0-9_.]*\+0x/ && nframes < 8 {
		f = $1; sub(/\+.*/, "", f)
		frames = frames (frames == "" ? "" : " < ") f; nframes++
	}
	END { flush(); cpu_done() }'
}

# boot_once LOG QEMU-ARGS...: one boot of scenario $name with the disks given
boot_once() {
	local log=$1
	shift
	qemu "$ACCEL" "$TIMEOUT" "$log" \
		"console=ttyS0 panic=-1 no_timer_check kunit.enable=0 loglevel=$NOFS_LOGLEVEL nofs.scenario=$name nofs.boot=${BOOT:-1} nofs.deadline=$((TIMEOUT - DEADLINE_MARGIN)) ${NOFS_APPEND:-}" \
		-initrd "$INITRD" "$@"
}

# Known bugs of the 6.12.118 base kernel, in code the series does not
# change (Documentation/results.md has the analysis of each, and how each
# was reproduced on the unpatched kernel).  One report kind per line,
# tab-separated: the bug, the report's headline (an ERE), then what the
# report must show to count as that bug.  The report is its lines from
# the headline to the end of its first stack trace, timestamps removed and
# all white space one space, so that an ERE can span lines; a field is
#   ERE          the report matches it
#   !ERE         the report does not match it
#   chain:A,B..  lockdep's dependency chain ("-> #N (LOCK)") holds only
#                these lock classes
#   before:ERE   one of the five log lines before the headline matches it
#   src:TEXT     the source line the headline names ("at FILE:N" of a
#                WARNING, "file: FILE, line: N" of an XFS assertion) holds
#                TEXT, in the source tree of the kernel that printed it
#                (KNOWN_SRC, default the build directory's "source" link):
#                the one WARN_ON of a function that has several
# Each rule pins the whole stack and every lock held, so that another
# reclaim-lock inversion through the same shrinker (an XFS lock held
# around the reclaim, fs_reclaim in the chain) does not pass as the known
# bug.  qemu/known-splat-test.sh tries them on a real report and on
# broken copies of it.
#  - The dquot shrinker's isolate callback, xfs_qm_dquot_isolate(), calls
#    xfs_dquot_detach_buf(), which takes the buffer lock (a semaphore) and
#    releases the buffer under the list_lru spinlock (a race with
#    xfs_qm_dqflush_done(): scripts/dquot-race-test.sh).  Held: the
#    list_lru lock and the dquot lock, after sb_writers when drop_caches
#    runs the shrinker.
#  - The 6.12.y backport of "xfs: scrub: unlock dquot before early return
#    in quota scrub" unlocks the dquot in xchk_quota_item() on a bmap error
#    and xchk_quota() unlocks it again in xfs_qm_dqput(): an assertion and
#    lockdep's bad unlock balance (which turns lockdep off for the boot).
#    Each report is pinned to its stack from the ioctl down and the bad
#    unlock balance to no lock held (qemu/testdata/scrub-quota-unlock-
#    report.log, the unpatched kernel under known-scrub-quota-unlock.sh).
#    The unpatched kernel prints no mutex debug warning for it, and no
#    rule exempts one.
#  - Since the 6.12.y backport of "xfs: close crash window in attr dabtree
#    inactivation", xfs_attr_inactive() truncates an attr fork with blocks
#    to one block through xfs_itruncate_extents_flags(), which asserts that
#    the new size is within the file's data size: a file smaller than a
#    block whose xattrs need blocks, inactivated by inodegc
#    (known-attr-inactive-assert.sh reproduces it on the unpatched kernel).
#  - btrfs_iget_path() reads an inode, then btrfs_add_inode_to_root() fails
#    to allocate its xarray slot; for a directory, iget_failed() makes the
#    inode bad (S_IFREG), and btrfs_destroy_inode() warns on csum_bytes,
#    which shares a union with a directory's index_cnt.  Only reached when
#    that allocation fails (fault injection: known-btrfs-iget-dir-warn.sh).
#  - xfs_dir_open() reads ahead a directory's first block under the
#    directory's ILOCK (shared), and the buffer's pages are allocated with
#    GFP_KERNEL | __GFP_NOLOCKDEP.  Under memory pressure that allocation
#    reclaims directly; the superblock shrinker's xfs_reclaim_inodes_nr()
#    reaches xfs_reclaim_inode(), which takes the ILOCK of a reclaimable
#    inode with a blocking xfs_ilock(XFS_ILOCK_EXCL); for a directory
#    that is the same lock class and subclass: "possible recursive
#    locking".  The reclaimed inode is unreachable, so this is a false
#    positive in code the series does not change.  Pinned to the open's
#    readahead, the two locks (the directory's, from
#    xfs_ilock_data_map_shared(), and s_umount from the shrinker) and the
#    whole stack from the reclaim walk to openat (qemu/testdata/xfs-dir-
#    reclaim-ilock-report.log, the unpatched kernel under
#    known-xfs-dir-reclaim-ilock.sh; make test's stress-soak hit it once
#    on the patched kernel at stop 21).
#  - After a transaction aborted on an injected ENOMEM, unmounting the
#    aborted filesystem releases the global block reserve and finds fewer
#    bytes_may_use in the metadata space_info than the reserve holds: a
#    reservation was released twice (or not counted) on an abort path.
#    Seen with stress-failinject-btrfs on the unpatched kernel; where the
#    extra release happens is not placed yet, and the series changes abort
#    paths, so the rule cannot pin the bug: it is a counted rule (its name
#    starts "counted: "), exempt only in the stress campaign
#    (NOFS_COUNTED=1), which counts its hits per kernel and mode and fails
#    when the patched kernels hit it clearly more often than the unpatched
#    one, or hit it with no unpatched run to compare with.
DQ_HELD='(2 locks held by [^ ]+: #0: [0-9a-f]+ \(&lru->node\[i\]\.lock\)[^#]* #1: [0-9a-f]+ \(&(dqp->q_qlock|xfs_dquot_(group|project)_class)\)|3 locks held by [^ ]+: #0: [0-9a-f]+ \(sb_writers#[0-9]+\)[^#]*#1: [0-9a-f]+ \(&lru->node\[i\]\.lock\)[^#]* #2: [0-9a-f]+ \(&(dqp->q_qlock|xfs_dquot_(group|project)_class)\))'
AI_STACK='Workqueue: xfs-inodegc/\S+ xfs_inodegc_worker .*Call Trace: <TASK> xfs_itruncate_extents_flags\+\S+ (\? \S+ )*xfs_attr_inactive\+\S+ xfs_inactive\+\S+ xfs_inodegc_worker\+\S+ process_one_work\+\S+ (\? \S+ )*worker_thread\+\S+ (\? \S+ )*kthread\+'
BI_STACK='RIP: 0010:btrfs_destroy_inode\+\S+ .*Call Trace: <TASK> destroy_inode\+\S+ btrfs_iget_path\+\S+ (\? \S+ )*btrfs_lookup_dentry\+'
DQ_WALK='xfs_buf_lock\+\S+ xfs_dquot_detach_buf\+\S+ xfs_qm_dquot_isolate\+\S+ __list_lru_walk_one\+\S+ (\? \S+ )*list_lru_walk_one\+\S+ xfs_qm_shrink_scan\+'
SQ_STACK='Call Trace: <TASK> xfs_qm_dqput\+\S+ xchk_quota\+\S+ xfs_scrub_metadata\+\S+ xfs_ioc_scrub_metadata\+'
SQ_UNLOCK='is trying to release lock \(&dqp->q_qlock\) at: \[<[0-9a-f]+>\] xchk_quota\+\S+ but there are no more locks to release! other info that might help us debug this: no locks held by \S+ stack backtrace:'
MU_STACK='Comm: umount .*Call Trace: <TASK> btrfs_block_rsv_release\+\S+ btrfs_release_global_block_rsv\+\S+ btrfs_free_block_groups\+\S+ close_ctree\+'
MU_ABORTED='before:BTRFS info \(device [^ ]+ state [A-Z]*A[A-Z]*\): last unmount of filesystem'
DR_LOCKS='is trying to acquire lock: [0-9a-f]+ \(&xfs_dir_ilock_class\)\S* at: xfs_icwalk_ag\+\S+ but task is already holding lock: [0-9a-f]+ \(&xfs_dir_ilock_class\)\S* at: xfs_ilock_data_map_shared\+\S+ '
DR_HELD='2 locks held by [^ ]+: #0: [0-9a-f]+ \(&xfs_dir_ilock_class\)\S* at: xfs_ilock_data_map_shared\+\S+ #1: [0-9a-f]+ \(&type->s_umount_key#[0-9]+\)\S* at: super_cache_scan\+\S+ stack backtrace:'
DR_STACK='Call Trace: <TASK> dump_stack_lvl\+\S+ print_deadlock_bug\+\S+ __lock_acquire\+\S+ lock_acquire\+\S+ (\? \S+ )*down_write_nested\+\S+ (\? \S+ )*xfs_icwalk_ag\+\S+ (\? \S+ )*xfs_reclaim_inodes_nr\+\S+ super_cache_scan\+\S+ do_shrink_slab\+\S+ (\? \S+ )*shrink_slab\+\S+ (\? \S+ )*shrink_node\+\S+ do_try_to_free_pages\+\S+ try_to_free_pages\+\S+ __alloc_pages_slowpath\S* (\? \S+ )*__alloc_pages_noprof\+\S+ alloc_pages_bulk_noprof\+\S+ (\? \S+ )*xfs_buf_alloc_pages\+\S+ xfs_buf_get_map\+\S+ xfs_buf_read_map\+\S+ (\? \S+ )*xfs_buf_readahead_map\+\S+ (\? \S+ )*xfs_da_reada_buf\+\S+ xfs_dir_open\+\S+ (\? \S+ )*do_dentry_open\+'
KNOWN_BUGS="\
dquot shrinker sleeps under the list_lru lock	BUG: sleeping function called from invalid context at kernel/locking/semaphore.c:[0-9]+	$DQ_HELD	Call Trace: <TASK> dump_stack_lvl\+\S+ __might_resched\+\S+ down\+\S+ $DQ_WALK
dquot shrinker sleeps under the list_lru lock	BUG: scheduling while atomic: 	$DQ_HELD	__schedule\+\S+ (\? \S+ )*schedule\+\S+ schedule_timeout\+\S+ __down_common\+\S+ down\+\S+ $DQ_WALK
dquot shrinker sleeps under the list_lru lock	possible circular locking dependency detected	trying to acquire lock: [0-9a-f]+ \(&bp->b_lock\)\S* at: xfs_buf_rele\+\S+ but task is already holding lock: [0-9a-f]+ \(&lru->node\[i\]\.lock\)	-> #0 \(&bp->b_lock\)\S*: __lock_acquire\+\S+ lock_acquire\+\S+ _raw_spin_lock\+\S+ xfs_buf_rele\+\S+ xfs_qm_dquot_isolate\+\S+ __list_lru_walk_one\+	chain:&bp->b_lock,&bch->bc_lock,&lru->node[i].lock	$DQ_HELD
quota scrub unlocks a dquot twice	XFS: Assertion failed: XFS_DQ_IS_LOCKED\(dqp\), file: fs/xfs/xfs_dquot\.c	src:ASSERT(XFS_DQ_IS_LOCKED(dqp));	$SQ_STACK
quota scrub unlocks a dquot twice	WARNING: .* at fs/xfs/xfs_message.c:[0-9]+ asswarn	$SQ_STACK
quota scrub unlocks a dquot twice	WARNING: bad unlock balance detected	$SQ_UNLOCK	Call Trace: <TASK> dump_stack_lvl\+\S+ (\? \S+ )*print_unlock_imbalance_bug\+\S+ (\? \S+ )*lock_release\+\S+ __mutex_unlock_slowpath\+\S+ xchk_quota\+\S+ xfs_scrub_metadata\+
attr inactivation asserts on a file below a block	XFS: Assertion failed: new_size <= XFS_ISIZE\(ip\), file: fs/xfs/xfs_inode\.c	src:ASSERT(new_size <= XFS_ISIZE(ip));	$AI_STACK
attr inactivation asserts on a file below a block	WARNING: .* at fs/xfs/xfs_message.c:[0-9]+ asswarn	$AI_STACK
btrfs warns on destroying a directory whose iget failed	WARNING: .* at fs/btrfs/inode.c:[0-9]+ btrfs_destroy_inode\+	src:WARN_ON(inode->csum_bytes);	$BI_STACK
directory open's readahead reclaims a directory inode under its own ILOCK (lockdep false positive)	possible recursive locking detected	$DR_LOCKS	$DR_HELD	$DR_STACK
counted: btrfs releases more may-use bytes than reserved at the unmount of an aborted filesystem	WARNING: .* at fs/btrfs/space-info.h:[0-9]+ btrfs_space_info_update_bytes_may_use\+	$MU_STACK	$MU_ABORTED"

# src_line_has TEXT REPORT: the first source location REPORT names is a
# line of the kernel's source tree that holds TEXT.  No source tree, or
# no location, is no match.
src_line_has() {
	local loc file n src=${KNOWN_SRC:-${KERNEL%/arch/x86/boot/bzImage}/source}
	loc=$(grep -oE '(at |file: )[A-Za-z0-9_/.-]+\.[ch](:|, line: )[0-9]+' <<< "$2" |
		head -n 1 | sed -E 's/^(at |file: )//; s/, line: /:/')
	file=${loc%:*} n=${loc##*:}
	[ -n "$loc" ] && [ -f "$src/$file" ] &&
		sed -n "${n}p" "$src/$file" | grep -qF -- "$1"
}

# chain_within LOCKS REPORT: every lock class of lockdep's dependency chain
# in REPORT is one of LOCKS (comma-separated), and there is a chain.
chain_within() {
	local lock n=0
	while read -r lock; do
		case ",$1," in *",$lock,"*) n=$((n + 1)) ;; *) return 1 ;; esac
	done < <(grep -oE -- '-> #[0-9]+ \([^)]*\)' <<< "$2" | sed -E 's/^-> #[0-9]+ \((.*)\)$/\1/')
	[ $n -gt 0 ]
}

# known_splat LOG: if LOG holds reports of the known bugs, print an ERE of
# their headlines (for the splat scan to exempt), then one line per bug
# seen, and return 0.  A headline is exempt only if every report with it in
# LOG is the bug's (see KNOWN_BUGS); any other splat still fails the
# scenario.
known_splat() {
	local log=$1 rule ere='' bugs='' n field ok report
	while IFS=$'\t' read -r -a rule; do
		# a counted rule is exempt only where its hits are counted
		case ${rule[0]} in counted:*) [ "${NOFS_COUNTED:-}" = 1 ] || continue ;; esac
		ok=0	# 0: no such report, 1: all are the bug's, 2: one is not
		while read -r n; do
			ok=1
			report=$(awk -v n="$n" 'NR >= n { print }
				NR >= n && /<\/TASK>/ || NR > n + 200 { exit }' "$log" |
				sed -E "s/^.*$PRINTK_TIME_RE //" | tr -s ' \t\r\n' ' ')
			for field in "${rule[@]:2}"; do
				case $field in
				'!'*) ! grep -qE -- "${field#!}" <<< "$report" || ok=2 ;;
				src:*) src_line_has "${field#src:}" "$report" || ok=2 ;;
				chain:*) chain_within "${field#chain:}" \
					"${report// -> #/$'\n'-> #}" || ok=2 ;;
				before:*) [ "$n" -gt 1 ] &&
					sed -n "$((n > 5 ? n - 5 : 1)),$((n - 1))p" "$log" |
					grep -qE -- "${field#before:}" || ok=2 ;;
				*) grep -qE -- "$field" <<< "$report" || ok=2 ;;
				esac
			done
			[ $ok -eq 1 ] || break
		done < <(grep -nE "${rule[1]}" "$log" | cut -d: -f1)
		[ $ok -eq 1 ] || continue
		ere="${ere:+$ere|}${rule[1]}"
		case $bugs in *"${rule[0]}"*) ;; *) bugs+=$'\n'"${rule[0]}" ;; esac
	done <<< "$KNOWN_BUGS"
	[ -n "$ere" ] && echo "$ere$bugs"
}

# Value of a "# nofs-KEY: VALUE" header line of a scenario.
header() { sed -n "s/^# nofs-$2: *//p" "$1" | head -n 1; }

# new_disks IMAGE...: empty sparse disk images of DISK_SIZE.
new_disks() {
	local img
	for img; do
		rm -f "$img"
		truncate -s "$DISK_SIZE" "$img"
	done
}

# run_one INDEX NAME: boot one scenario, print its TAP line, set VERDICT.
run_one() {
	local i=$1 name=$2 file=$SCENARIOS/$2.sh log=$LOG_DIR/$2.log
	[ -f "$file" ] || [ ! -f "$STRESS_SCENARIOS/$2.sh" ] ||
		file=$STRESS_SCENARIOS/$2.sh
	local disks allow boots d imgs=() args=() rc=0 start result known why
	VERDICT=FAIL BOOT=1
	if [ ! -f "$file" ] || [ "$name" = lib ] ||
	   [ -n "$(echo "$name" | tr -d 'A-Za-z0-9_-')" ]; then
		echo "not ok $i $name # no such scenario: $file"
		return
	fi
	disks=$(header "$file" disks); disks=${disks:-1}
	allow=$(header "$file" allow)
	case $disks in [1-8]) ;; *) die "$file: nofs-disks must be 1 to 8" ;; esac
	boots=$(header "$file" boots); boots=${boots:-1}
	case $boots in [12]) ;; *) die "$file: nofs-boots must be 1 or 2" ;; esac
	for d in $(seq 0 $((disks - 1))); do
		imgs+=("$QEMU_CACHE/disks/$name-vd${DISK_LETTERS:d:1}.img")
		args+=(-drive "file=${imgs[d]},if=virtio,format=raw,cache=unsafe")
	done
	say "booting $name ($ACCEL, $disks disk(s), timeout $TIMEOUT s); serial log: $log"
	start=$SECONDS
	new_disks "${imgs[@]}"
	boot_once "$log" "${args[@]}" || rc=$?
	# Boot once more, on fresh disks, when the first boot was lost to
	# something other than the scenario: a guest that died before /init
	# started (under TCG on a loaded host that has been the IO-APIC timer
	# check and a static-key patching oops), or, under TCG, a kernel-mode
	# int3 Oops: the vCPU ran a breakpoint that text_poke_bp() had
	# already removed on the other vCPU while a static key flipped (seen
	# at the sched_clock and crng static keys; never under KVM).  The
	# first log is kept; a second failure counts.
	why=""
	if [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] &&
	   ! grep -q "NOFS-RESULT: $name " "$log" &&
	   ! grep -q '==> init: running' "$log"; then
		why="the guest died before /init ran the scenario"
	elif [ "$ACCEL" = tcg ] && grep -qE "$PRINTK_TIME_RE Oops: int3: " "$log"; then
		why="the guest took a kernel-mode int3 Oops (a TCG static-key patching race)"
	fi
	if [ -n "$why" ]; then
		mv "$log" "$log.boot-failure"
		echo "$name: $why; log kept in $log.boot-failure, booting once more" | diag
		{ sed -n '/Kernel panic\|Oops\|BUG:/{p;q}' "$log.boot-failure"; } | diag
		rc=0
		new_disks "${imgs[@]}"
		boot_once "$log" "${args[@]}" || rc=$?
	fi
	# A crash scenario's first boot ends in a hard crash, marked by a
	# NOFS-CRASH line; the second boot recovers on the same disks.  The
	# two serial logs are joined into one for the checks below.
	if [ "$boots" = 2 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] &&
	   ! grep -q "NOFS-RESULT: $name " "$log"; then
		if grep -q "NOFS-CRASH: $name" "$log"; then
			mv "$log" "$log.boot1"
			say "$name crashed as planned; booting it again on the same disks (serial log: $log.boot2)"
			BOOT=2
			boot_once "$log.boot2" "${args[@]}" || rc=$?
			# A second boot lost before /init ran (under TCG, the int3
			# race at boot) left the disks as the crash did: once more.
			if [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] &&
			   ! grep -q '==> init: running' "$log.boot2"; then
				mv "$log.boot2" "$log.boot2-failure"
				echo "$name: the second boot died before /init ran the scenario; log kept in $log.boot2-failure, booting it once more on the same disks" | diag
				{ sed -n '/Kernel panic\|Oops\|BUG:/{p;q}' "$log.boot2-failure"; } | diag
				rc=0
				boot_once "$log.boot2" "${args[@]}" || rc=$?
			fi
			cat "$log.boot1" "$log.boot2" > "$log"
			rm -f "$log.boot1" "$log.boot2"
		else
			echo "$name: the first boot ended without its NOFS-CRASH line (a crash before the planned one?)" | diag
		fi
	fi
	TIME=$((SECONDS - start))
	result=$(sed -n "s/^.*NOFS-RESULT: $name //p" "$log" | tail -n 1)
	if known=$(known_splat "$log"); then
		echo "$known" | sed 1d | while read -r bug; do
			echo "$name: known 6.12.118 bug reported, not counted: $bug (see Documentation/results.md); serial log: $log"
		done | diag
		allow="${allow:+$allow|}${known%%$'\n'*}"
	fi

	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "$name: timed out after $TIMEOUT s (guest hung?); serial log: $log" | diag
		scan_splats "$log" "$allow" || true
		echo "not ok $i $name # timed out"
	elif [ -z "$result" ]; then
		echo "$name: no NOFS-RESULT line (kernel panic or crash?), qemu status $rc; serial log: $log" | diag
		# Show the splats, or else the end of the log.
		if scan_splats "$log" "$allow"; then
			{ if [ -s "$log" ]; then echo "---- last 30 lines:"; tail -n 30 "$log"
			  else echo "(the log is empty: QEMU or the boot loader gave up)"; fi; } | diag
		fi
		echo "not ok $i $name # no result"
	elif ! scan_splats "$log" "$allow"; then
		{ hang_digest "$log"
		  echo "guest result: $result"
		  [ "$result" = PASS ] || grep -E '^(not ok|Bail out)' "$log"; } | diag
		echo "not ok $i $name # kernel splat"
	elif grep -q '^NOFS-DEBUG-LOCKS: 0$' "$log"; then
		{ echo "$name: lockdep turned itself off during this boot (debug_locks 0 at the end), so its checks after that point did not run; serial log: $log"
		  grep -nE "$PRINTK_TIME_RE.*(possible|inconsistent|bad unlock|lockdep|locking correctness)" "$log" | head -n 5; } | diag
		# once more, on fresh disks: a known bug's lockdep report
		# (exempt above) is what turns it off; a second boot that
		# loses it too fails
		if [ -z "${LOCKDEP_RETRY:-}" ]; then
			mv "$log" "$log.lockdep-off"
			echo "$name: log kept in $log.lockdep-off; booting once more" | diag
			rm -f "$QEMU_CACHE/disks/$name"-vd?.img
			LOCKDEP_RETRY=1 run_one "$i" "$name"
			return
		fi
		echo "not ok $i $name # lockdep was off at the end of the boot, twice"
	elif [ "$result" != PASS ]; then
		case $result in
		*"timed out"*) echo "$name: ${result#FAIL } (scenario hung?); serial log: $log" ;;
		*) echo "$name: ${result#FAIL }; serial log: $log"
		   grep -E '^(not ok|Bail out)' "$log" ;;
		esac | diag
		echo "not ok $i $name # ${result#FAIL }"
	else
		VERDICT=PASS
		echo "ok $i $name"
	fi
	# Keep the disks of a failed run for a look with xfs_db/xfs_repair.
	if [ $VERDICT = PASS ]; then
		rm -f "$QEMU_CACHE/disks/$name"-vd?.img
	else
		echo "disk images kept: $QEMU_CACHE/disks/$name-vd*.img" | diag
	fi
}

main() {
	local names=() i=0 failed=0 rows=()
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) KERNEL=$2; shift 2 ;;
		--timeout) TIMEOUT=$2; shift 2 ;;
		--log-dir) LOG_DIR=$2; shift 2 ;;
		--mem) MEM=$2; shift 2 ;;
		--accel) ACCEL=$2; shift 2 ;;
		-h|--help) usage ;;
		-*) echo "unknown option $1" >&2; usage ;;
		*) names+=("$1"); shift ;;
		esac
	done
	[ ${#names[@]} -gt 0 ] || usage
	check_host
	QEMU_PID=
	trap '[ -z "$QEMU_PID" ] || kill "$QEMU_PID"; echo "interrupted" >&2; exit 130' INT TERM
	mkdir -p "$LOG_DIR" "$QEMU_CACHE/disks"
	LOG_DIR=$(realpath "$LOG_DIR") QEMU_CACHE=$(realpath "$QEMU_CACHE")
	INITRD=$QEMU_CACHE/initramfs.cpio.gz
	"$HERE/mkinitramfs.sh" "$INITRD" ||
		die "building the initramfs failed (see above)"
	probe_accel
	say "accelerator: $ACCEL ($ACCEL_WHY)"

	echo "TAP version 13"
	echo "1..${#names[@]}"
	for name in "${names[@]}"; do
		i=$((i + 1))
		run_one "$i" "$name"
		[ $VERDICT = PASS ] || failed=$((failed + 1))
		rows+=("$(printf '%-24s %-7s %6s  %s' "$name" "$VERDICT" "${TIME:-0}" "$ACCEL")")
		TIME=0
	done

	{ printf '%-24s %-7s %6s  %s\n' scenario verdict secs accel
	  printf '%s\n' "${rows[@]}"
	  echo "$((i - failed)) passed, $failed failed; logs in $LOG_DIR"; } | diag
	[ "$failed" -eq 0 ]
}

# Sourcing this file only defines the functions (e.g. to try scan_splats).
# strict_arg FSTYP...: the kernel argument for strict mode in the source
# directories of those file systems only, so that lockdep's first report is
# about them and not about another user of GFP_NOFS (memalloc_scope.strict
# in kernel-parameters.txt); ext4 brings jbd2.  For stress/ and fstests/.
strict_arg() {
	local fstyp dirs=''
	for fstyp in "$@"; do
		case $fstyp in
		ext4) dirs+=,ext4,jbd2 ;;
		*) dirs+=,$fstyp ;;
		esac
	done
	echo "memalloc_scope.strict=${dirs#,}"
}

[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
