# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# Helpers shared by the guest scenarios (busybox sh); source it with
#   . /scenarios/lib.sh
# Output is KTAP-like: "ok N what" / "not ok N what", the plan at the end.
# A scenario ends with "finish", whose status is the scenario's.

NOFS_TESTS=0
NOFS_FAILED=0
SUMS=/tmp/sha256sums	# checksum list of write_files, kept off the disks

echo "KTAP version 1"
echo "# scenario ${SCENARIO:-?}"

say() { echo "# $*"; }

ok() {
	NOFS_TESTS=$((NOFS_TESTS + 1))
	echo "ok $NOFS_TESTS $*"
}

not_ok() {
	NOFS_TESTS=$((NOFS_TESTS + 1))
	NOFS_FAILED=$((NOFS_FAILED + 1))
	echo "not ok $NOFS_TESTS $*"
}

# check DESCRIPTION CMD...: one test point, passing if CMD (a command or
# a function of the scenario) succeeds.  CMD's output follows as KTAP
# diagnostic lines once it is done.
check() {
	local what=$1 rc=0 out=/tmp/.check.out
	shift
	"$@" > "$out" 2>&1 || rc=$?
	sed 's/^/#   /' "$out"
	if [ "$rc" -eq 0 ]; then
		ok "$what"
	else
		not_ok "$what # exit status $rc"
	fi
	return "$rc"
}

# require DESCRIPTION CMD...: like check, but stop the scenario on failure
# (nothing after a failed mkfs or mount is worth running).
require() { check "$@" || bail "$1 failed"; }

bail() {
	echo "Bail out! $*"
	finish
	exit 1
}

# finish: print the plan and a summary; status 0 if everything passed.
finish() {
	echo "1..$NOFS_TESTS"
	say "$NOFS_TESTS tests, $NOFS_FAILED failed"
	[ "$NOFS_FAILED" -eq 0 ]
}

BALLAST=/ballast		# ballast's tmpfs

mem_available() { awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo; }

# ballast FREE [ROOM]: fill a tmpfs of its own (no swap: it cannot be
# reclaimed) until about FREE MiB are available; the tmpfs has ROOM MiB
# (default 0) to spare, for pulses of more pressure.
ballast() {
	local mib
	mib=$(($(mem_available) - $1))
	[ "$mib" -gt 0 ] || { echo "only $(mem_available) MiB available"; return 0; }
	mkdir -p "$BALLAST" &&
		mount -t tmpfs -o "size=$((mib + 1 + ${2:-0}))m" ballast "$BALLAST" &&
		head -c "${mib}m" /dev/zero > "$BALLAST/fill" || return 1
	echo "$mib MiB of ballast in tmpfs; $(mem_available) MiB available now"
}

# write_files DIR... : write N_FILES files of varied sizes (1 KiB to
# MAX_KIB KiB, not block aligned) from /dev/urandom, spread round-robin
# over the given directories, fsync each and record its sha256 in $SUMS.
# Sets BYTES_WRITTEN.
N_FILES=${N_FILES:-64}
MAX_KIB=${MAX_KIB:-4096}
write_files() {
	local i=0 dirs=$# size f kib
	: > "$SUMS"
	BYTES_WRITTEN=0
	while [ $i -lt "$N_FILES" ]; do
		# 1, 2, 4, ... MAX_KIB KiB, plus an odd tail
		kib=$((1 << (i % 13)))
		[ $kib -le "$MAX_KIB" ] || kib=$MAX_KIB
		size=$((kib * 1024 - (i * 997) % 1024))
		eval "f=\${$((i % dirs + 1))}/file$i"
		head -c "$size" /dev/urandom > "$f" || return 1
		xfs_io -c fsync "$f" || return 1
		sha256sum "$f" >> "$SUMS" || return 1
		BYTES_WRITTEN=$((BYTES_WRITTEN + size))
		i=$((i + 1))
	done
}

# verify_files: read back every file in $SUMS from disk (the page cache is
# dropped first) and compare; prints only the mismatches.
verify_files() {
	local bad
	sync
	echo 3 > /proc/sys/vm/drop_caches
	bad=$(sha256sum -c "$SUMS" 2>&1 | grep -v ': OK$')
	[ -z "$bad" ] && return 0
	echo "$bad"
	return 1
}

# rep STRING COUNT: STRING repeated COUNT times (xattr values, long names).
rep() {	# STRING COUNT
	local s="" i=0
	while [ $i -lt "$2" ]; do s="$s$1"; i=$((i + 1)); done
	echo "$s"
}

# Whether the initramfs has the attr and acl tools.  mkinitramfs.sh puts
# them in; a scenario without them cannot run its xattr or ACL steps, and
# that is a failure, not a skip.
# shellcheck disable=SC2034 # used by the scenarios
{
	HAVE_XATTR=; command -v setfattr >/dev/null && HAVE_XATTR=1
	HAVE_ACL=; command -v setfacl >/dev/null && HAVE_ACL=1
	[ -n "$HAVE_XATTR" ] ||
		not_ok "setfattr and getfattr in the initramfs # the xattr steps cannot run"
	[ -n "$HAVE_ACL" ] ||
		not_ok "setfacl and getfacl in the initramfs # the ACL steps cannot run"
}

# Memory cgroup helpers (cgroup v2, mounted on /sys/fs/cgroup by init).
CGROOT=/sys/fs/cgroup

# memcg_create NAME MAX: enable the memory controller for the children of
# the root cgroup and make the child NAME with memory.max MAX (e.g. 32M).
# Sets MEMCG to its directory.
memcg_create() {
	MEMCG=$CGROOT/$1
	grep -qw memory "$CGROOT/cgroup.controllers" ||
		{ echo "no memory controller in $CGROOT/cgroup.controllers"; return 1; }
	echo +memory > "$CGROOT/cgroup.subtree_control" || return 1
	mkdir -p "$MEMCG" || return 1
	echo "$2" > "$MEMCG/memory.max" || return 1
	echo "$MEMCG: memory.max=$(cat "$MEMCG/memory.max")"
}

# memcg_run CMD...: run CMD in a subshell moved into $MEMCG; its children
# stay there.  "0" names the writing task: in a subshell $$ is still the
# parent's PID.
memcg_run() {
	(
		echo 0 > "$MEMCG/cgroup.procs" || exit 1
		grep -q "^0::${MEMCG#"$CGROOT"}\$" /proc/self/cgroup ||
			{ echo "not in $MEMCG: $(cat /proc/self/cgroup)"; exit 1; }
		"$@"
	)
}

# memcg_val FILE KEY: the value of KEY in $MEMCG/FILE (memory.stat,
# memory.events), 0 if absent.
memcg_val() {
	awk -v k="$2" '$1 == k { v = $2 } END { print v + 0 }' "$MEMCG/$1"
}

# memcg_report: the reclaim evidence of $MEMCG as diagnostic lines.
memcg_report() {
	local f k
	say "$MEMCG: memory.peak $(cat "$MEMCG/memory.peak" 2>/dev/null || echo ?)" \
		"memory.current $(cat "$MEMCG/memory.current")"
	say "memory.events: $(tr '\n' ' ' < "$MEMCG/memory.events")"
	f=""
	for k in pgscan pgsteal pgscan_direct pgsteal_direct pgscan_kswapd \
		 slab_reclaimable slab_unreclaimable file anon \
		 workingset_refault_file; do
		f="$f $k=$(memcg_val memory.stat $k)"
	done
	say "memory.stat:$f"
}

# memcg_reclaimed: $MEMCG hit its memory.max and reclaimed pages (a check).
memcg_reclaimed() {
	local max scan
	max=$(memcg_val memory.events max)
	scan=$(memcg_val memory.stat pgscan)
	echo "memory.events max=$max, memory.stat pgscan=$scan pgsteal=$(memcg_val memory.stat pgsteal)"
	[ "$max" -gt 0 ] && [ "$scan" -gt 0 ]
}

# memcg_no_oom_kill: no task of $MEMCG was OOM-killed (a check).
memcg_no_oom_kill() {
	local n
	n=$(memcg_val memory.events oom_kill)
	echo "oom_kill=$n oom=$(memcg_val memory.events oom)"
	[ "$n" -eq 0 ]
}

# user_limits MNT FIRST N ISOFT IHARD: inode limits ISOFT and IHARD for
# the user ids FIRST .. FIRST+N-1, in one xfs_quota run: N dquots made
# (or dirtied) and logged
user_limits() {
	local i=$2 last=$(($2 + $3))
	while [ "$i" -lt "$last" ]; do
		echo "limit -u isoft=$4 ihard=$5 $i"
		i=$((i + 1))
	done > /tmp/limits
	xfs_quota -x "$1" < /tmp/limits
}

# btrfs_scrub_clean: the report of "btrfs scrub start -B", which the
# scenario saved in /tmp/scrub.out, says no errors (a check)
btrfs_scrub_clean() {
	grep -E 'Error summary|no errors' /tmp/scrub.out
	grep -qE 'Error summary: +no errors found' /tmp/scrub.out
}

# btrfs_degraded MNT: the btrfs mounted on MNT shows a missing device
btrfs_degraded() {
	btrfs filesystem show "$1" > /tmp/show.out 2>&1
	cat /tmp/show.out
	grep -qi missing /tmp/show.out
}

# step WHAT...: a progress line with the guest's uptime.
step() { echo "$(cut -d' ' -f1 /proc/uptime)s: $*"; }

# create DIR PREFIX FIRST LAST: files PREFIX<i>_$SFX of about 1 KiB
# ("PREFIX<i> $BODY"; the scenario sets SFX and BODY), built-ins only.
create() {
	local i=$3
	mkdir -p "$1" || return 1
	while [ "$i" -le "$4" ]; do
		printf '%s %s\n' "$2$i" "$BODY" > "$1/$2${i}_$SFX" || return 1
		i=$((i + 1))
	done
}

# tree: $TOP/t/a1..a4/b1..b4/c1..c4, 16 files (create) in each of the 64
# leaves.
tree() {
	local a b c
	for a in 1 2 3 4; do for b in 1 2 3 4; do for c in 1 2 3 4; do
		create "$TOP/t/a$a/b$b/c$c" "f$a$b$c-" 1 16 || return 1
	done; done; done
}

# count_is DIR EXPECTED: DIR holds EXPECTED entries (a check).
count_is() {
	local n
	n=$(find "$1" -mindepth 1 -maxdepth 1 | wc -l)
	echo "$1: $n entries, expected $2"
	[ "$n" -eq "$2" ]
}

# vmstat KEY: the value of KEY in /proc/vmstat (slabs_scanned counts the
# objects that shrinkers were asked to scan, memcg reclaim included).
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

# crash_hard: end the first boot of a crash scenario (# nofs-boots: 2) as a
# power cut would: no sync, no unmount.  The NOFS-CRASH line goes through
# the kernel log, which reaches the serial console before sysrq-b resets
# the machine; the host then boots the scenario again (NOFS_BOOT=2).
crash_hard() {
	echo "NOFS-CRASH: $SCENARIO" > /dev/kmsg
	echo b > /proc/sysrq-trigger
	sleep 60
	echo "sysrq-b did not reset the guest"
	exit 1
}
