#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# known-splat-test.sh: the known-bug rules of run-scenario.sh tried on a
# real report and on broken copies of it, as TAP (make test runs it).
#
# qemu/testdata/dquot-isolate-report.log is the dquot shrinker report as
# the unpatched 6.12.118 kernel printed it under scripts/dquot-race-test.sh
# (register dumps left out).  A copy with one more lock held, with
# fs_reclaim in lockdep's chain or with another function under the
# list_lru walk is another bug and must not be exempt.
# qemu/testdata/attr-inactive-report.log is the attr inactivation
# assertion as the unpatched kernel printed it under
# known-attr-inactive-assert.sh; the same assertion from another caller
# of xfs_itruncate_extents_flags() must not be exempt.
# qemu/testdata/btrfs-iget-dir-warn-report.log is the btrfs_destroy_inode
# warning as the unpatched kernel printed it under
# known-btrfs-iget-dir-warn.sh (register dumps left out); the same warning under another caller of
# destroy_inode() must not be exempt.
# qemu/testdata/btrfs-may-use-underflow-report.log is the bytes_may_use
# underflow at the unmount of an aborted btrfs as the unpatched kernel
# printed it under stress-failinject-btrfs (register dumps left out); the
# same warning at the unmount of a filesystem that was not aborted, or
# from another release of a reserve, must not be exempt.
# qemu/testdata/xfs-dir-reclaim-ilock-report.log is lockdep's recursive
# locking report of a directory open's readahead reclaiming a directory
# inode, as the unpatched kernel printed it under
# known-xfs-dir-reclaim-ilock.sh (register dumps left out); a third lock
# held, the directory's ILOCK taken elsewhere, or the reclaim entered
# from another allocation under the ILOCK must not be exempt.
#
# qemu/testdata/hung-task-report.log is a hung-task report of the patched
# kernel: a write blocked on a frozen XFS (xfs_io -x -c freeze) for more
# than 60 s while dd read /dev/zero on the other CPU.  hang_digest must
# name the lock the writer held and what the busy CPU ran, and leave the
# watchdog out; with the writer's lock line gone it must say the holder
# ran; without lockdep's list it must still show the CPUs; a log without a
# hung-task report gives no digest.
set -eu -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu/run-scenario.sh
. "$HERE/run-scenario.sh"
DQ=dquot-isolate-report.log
AI=attr-inactive-report.log
BI=btrfs-iget-dir-warn-report.log
MU=btrfs-may-use-underflow-report.log
SQ=scrub-quota-unlock-report.log
HT=hung-task-report.log
DR=xfs-dir-reclaim-ilock-report.log
# the headlines, as the logs have them
SLEEP='BUG: sleeping function called from invalid context at kernel/locking/semaphore.c:59'
ATOMIC='BUG: scheduling while atomic: sh/79/0x00000002'
CIRCULAR='WARNING: possible circular locking dependency detected'
ASSERT='XFS: Assertion failed: new_size <= XFS_ISIZE(ip), file: fs/xfs/xfs_inode.c, line: 1028'
ASSWARN='WARNING: CPU: 0 PID: 9 at fs/xfs/xfs_message.c:89 asswarn+0x23/0x30'
BIWARN=$(head -n 1 "$HERE/testdata/$BI" | sed 's/^\[[^]]*\] //')
SQASSERT='XFS: Assertion failed: XFS_DQ_IS_LOCKED(dqp), file: fs/xfs/xfs_dquot.c, line: 1128'
SQWARN='WARNING: CPU: 1 PID: 175 at fs/xfs/xfs_message.c:89 asswarn+0x23/0x30'
SQUNLOCK='WARNING: bad unlock balance detected!'
SQMUTEX='WARNING: CPU: 1 PID: 175 at kernel/locking/mutex.c:571 nofs_mutex_unlock+0x1/0x2' 
RECURSIVE='WARNING: possible recursive locking detected'
MUWARN=$(grep -m 1 'WARNING:' "$HERE/testdata/$MU" | sed 's/^\[[^]]*\] //')
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# the unpatched source the reports were printed from, for the rules'
# src: fields: the files they name, from the tree's pristine tag
: "${TREE:=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/nofs-scope}/linux}"
SRC_FILES="fs/btrfs/inode.c fs/xfs/xfs_inode.c fs/btrfs/space-info.h fs/xfs/xfs_dquot.c"
mkdir -p "$TMP/src"
# shellcheck disable=SC2086 # a list of paths
git -C "$TREE" archive pristine $SRC_FILES | tar -x -C "$TMP/src" ||
	{ echo "Bail out! the pristine source of $SRC_FILES is not in $TREE (make prepare)"; exit 1; }
export KNOWN_SRC=$TMP/src

# report|name|sed script for the copy|headlines exempt|headlines not exempt
CASES=(
"$DQ|the unpatched kernel's report is the known bug||$SLEEP;$ATOMIC;$CIRCULAR|"
"$DQ|a fourth lock held (an XFS ilock) is another bug|s/3 locks held by/4 locks held by/; /#2: .*q_qlock/a [   12.8] #3: ffffa007813c2000 (\\&xfs_nondir_ilock_class){++++}-{3:3}, at: xfs_ilock+0x1/0x2||$SLEEP;$ATOMIC;$CIRCULAR"
"$DQ|fs_reclaim in lockdep's chain is another bug|s/-> #1 (&bch->bc_lock)/-> #1 (fs_reclaim)/|$SLEEP;$ATOMIC|$CIRCULAR"
"$DQ|another function under the list_lru walk is another bug|0,/xfs_dquot_detach_buf+/s/xfs_dquot_detach_buf+/xfs_qm_dqflush+/|$ATOMIC;$CIRCULAR|$SLEEP"
"$DQ|the report cut before its stack is not the bug|/Call Trace:/,\$d||$SLEEP;$ATOMIC;$CIRCULAR"
"$AI|the unpatched kernel's attr inactivation assertion is the known bug||$ASSERT;$ASSWARN|"
"$AI|the assertion from a data fork truncate is another bug|s/xfs_attr_inactive+0x1f9/xfs_inactive_truncate+0x1f9/||$ASSERT;$ASSWARN"
"$AI|the assertion outside inodegc is another bug|s/Workqueue: xfs-inodegc/Workqueue: xfs-blockgc/||$ASSERT;$ASSWARN"
"$BI|the warning after a failed directory iget is the known bug||$BIWARN|"
"$BI|the warning from another iget caller is another bug|s/btrfs_iget_path+/btrfs_orphan_cleanup+/||$BIWARN"
"$BI|the warning on an ordinary inode eviction is another bug|s/ destroy_inode+/ evict+/||$BIWARN"
"$BI|another WARN_ON of btrfs_destroy_inode is another bug|s/inode.c:7762/inode.c:7758/||${BIWARN/7762/7758}"
"$AI|the assertion at another line is another bug|s/line: 1028/line: 1027/||${ASSERT/1028/1027}"
"$SQ|the unpatched kernel's quota scrub report is the known bug||$SQASSERT;$SQWARN;$SQUNLOCK|"
"$SQ|the assertion at another line is another bug|s/line: 1128/line: 1127/||${SQASSERT/1128/1127}"
"$SQ|the assertion from another caller of xfs_qm_dqput is another bug|0,/xchk_quota+0xe9/s/xchk_quota+0xe9/xfs_qm_dqpurge+0xe9/||$SQASSERT;$SQWARN"
"$SQ|the bad unlock balance with a lock still held is another bug|s#no locks held by xfs_io/175.#1 lock held by xfs_io/175:#||$SQUNLOCK"
"$SQ|a mutex warning under xchk_quota is another bug (the old rule exempted it)|/User initiated shutdown/a [   23.326300] $SQMUTEX|$SQASSERT;$SQWARN;$SQUNLOCK|$SQMUTEX"
"$DR|the unpatched kernel's directory-open reclaim report is the known bug||$RECURSIVE|"
"$DR|a third lock held (a transaction) is another bug|s/2 locks held by find/3 locks held by find/; /#1: .*s_umount_key/a [  441.475436]  #2: ffffa1b8c4282600 (sb_internal#2){.+.+}-{0:0}, at: xfs_trans_alloc+0x1/0x2||$RECURSIVE"
"$DR|the directory's ILOCK taken elsewhere is another bug|s/at: xfs_ilock_data_map_shared+0x1a/at: xfs_ilock+0x1a/g||$RECURSIVE"
"$DR|the reclaim entered from readdir's read is another bug|s/ xfs_dir_open+0x77/ xfs_readdir+0x77/||$RECURSIVE"
"$DR|the report cut before its stack is not the bug|/Call Trace:/,\$d||$RECURSIVE"
"$MU|the underflow at the unmount of an aborted btrfs is the known bug||$MUWARN|"
"$MU|the underflow at the unmount of a btrfs not aborted is another bug|s/ state EA)/)/||$MUWARN"
"$MU|the underflow from another reserve release is another bug|s/btrfs_release_global_block_rsv+/btrfs_delalloc_release_metadata+/||$MUWARN"
)
# report|name|sed script|EREs the digest must have (;)|EREs it must not have
DIGEST=(
"$HT|a hung task: the lock the writer held and the busy CPU||^hung task: ;^held by sh/83: sb_writers#7 at path_openat$;^cpu 1 dd/84: lock_acquire < __might_fault < read_zero < vfs_read|khungtaskd;rcu_read_lock"
"$HT|a holder listed without its locks is said to be running|/#0: .*(sb_writers#7)/d|^held by sh/83: \\(running: its locks are not listed\\)$|sb_writers"
"$HT|without lockdep's list of held locks, the CPUs are still shown|/Showing all locks held/,/=====/d|^cpu 1 dd/84: lock_acquire < __might_fault|^held by"
"$HT|no hung-task report, no digest|/INFO: task .* blocked for more than/d||."
)

# exempt LINE: the splat scan would let LINE pass (it matches ere)
exempt() { [ -n "$ere" ] && grep -qE -- "$ere" <<< "$1"; }

# memory-safety reports the splat scan must catch (one per line), and
# lines it must not
MEMSAFE=(
"BUG kmalloc-512 (Not tainted): Poison overwritten"
"BUG kmalloc-64 (Tainted: G    B): Object already free"
"Freepointer corrupt"
"Redzone overwritten"
"BUG: KFENCE: use-after-free read in alloc_rbio+0x1f/0x2a0"
"BUG: KASAN: slab-use-after-free in __wake_up+0x1f/0x50"
)
QUIET=("BUGS fixed: none" "kfence: initialized - using 2097152 bytes")

n=0 bad=0
echo "TAP version 13"
echo "1..$((${#CASES[@]} + ${#DIGEST[@]} + 2))"
n=$((n + 1))
{ for l in "${MEMSAFE[@]}" "${QUIET[@]}"; do echo "[    1.000000] $l"; done; } > "$TMP/log"
got=$(splat_lines "$TMP/log" | wc -l)
if [ "$got" -eq ${#MEMSAFE[@]} ] && ! splat_lines "$TMP/log" | grep -qE 'BUGS|initialized'; then
	echo "ok $n SLUB, KASAN and KFENCE reports are splats, their look-alikes are not"
else
	echo "not ok $n SLUB, KASAN and KFENCE reports are splats # $got of ${#MEMSAFE[@]}:"
	splat_lines "$TMP/log" | sed 's/^/# /'
	bad=$((bad + 1))
fi
# the counted rules (the may-use underflow) are exempt only in the stress
# campaign, which counts them
n=$((n + 1))
if NOFS_COUNTED= known_splat "$HERE/testdata/$MU" > /dev/null; then
	echo "not ok $n outside the stress campaign a counted rule exempts nothing"
	bad=$((bad + 1))
else
	echo "ok $n outside the stress campaign a counted rule exempts nothing"
fi
export NOFS_COUNTED=1
for c in "${CASES[@]}"; do
	IFS='|' read -r report name script exempt kept <<< "$c"
	n=$((n + 1))
	sed -e "$script" "$HERE/testdata/$report" > "$TMP/log"
	ere=$(known_splat "$TMP/log") || ere=
	ere=${ere%%$'\n'*}	# the headlines; the bugs' names follow
	why=
	IFS=';' read -r -a want <<< "$exempt"
	for h in "${want[@]}"; do
		exempt "$h" || why+=" '$h' not exempt;"
	done
	IFS=';' read -r -a want <<< "$kept"
	for h in "${want[@]}"; do
		! exempt "$h" || why+=" '$h' exempt;"
	done
	if [ -z "$why" ]; then
		echo "ok $n $name"
	else
		echo "not ok $n $name #$why"
		bad=$((bad + 1))
	fi
done
for c in "${DIGEST[@]}"; do
	IFS='|' read -r report name script have lack <<< "$c"
	n=$((n + 1))
	sed -e "$script" "$HERE/testdata/$report" > "$TMP/log"
	hang_digest "$TMP/log" > "$TMP/digest"
	why=
	IFS=';' read -r -a want <<< "$have"
	for re in "${want[@]}"; do
		grep -qE -- "$re" "$TMP/digest" || why+=" no line matches '$re';"
	done
	IFS=';' read -r -a want <<< "$lack"
	for re in "${want[@]}"; do
		! grep -qE -- "$re" "$TMP/digest" || why+=" a line matches '$re';"
	done
	if [ -z "$why" ]; then
		echo "ok $n $name"
	else
		echo "not ok $n $name #$why"
		sed 's/^/# /' "$TMP/digest"
		bad=$((bad + 1))
	fi
done
[ $bad -eq 0 ]
