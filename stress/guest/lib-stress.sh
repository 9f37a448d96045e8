# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# Helpers of the stress-*.sh scenarios (stress/run.sh, make stress); not a
# scenario.  Source it after lib.sh:
#   . /scenarios/lib.sh
#   . /scenarios/lib-stress.sh
#
# - param NAME DEFAULT, num_param VAR NAME DEFAULT: the value of nofs.NAME=
#   on the kernel command line (stress/run.sh passes the campaign's
#   parameters there).
# - mkfs_mount: a reflink+rmap filesystem on $DEV, mounted on $MNT with
#   user, group and project quota.
# - durable_files DIR TAG: fsynced files (reflinks with CoW, xattrs, other
#   owners) whose signatures go to $DURABLE/TAG.sig; verify_durable checks
#   every recorded file and sets LOST and CORRUPT.
# - start_loops DIR / stop_loops: background loops that leave intents in
#   the log: reflink+CoW, create/rename/symlink/xattr/unlink, quota
#   (chown, chproj, truncate), fallocate/punch/zero, directory churn;
#   the reflink loop clones the files that "sources DIR" writes.
#   They run until stop_loops; their errors are expected after a shutdown
#   or an injected failure and only counted (loop_errors).
#
# The workload keeps clear of a known 6.12.118 base-kernel assertion
# ("new_size <= XFS_ISIZE(ip)" from xfs_attr_inactive, see
# known-attr-inactive-assert.sh): a file only gets an xattr that needs
# blocks (leaf or remote) once a size of a block or more is durable
# (fsynced), and files with such xattrs are never truncated; files below
# a block get at most one short (inline) xattr.  Reflink-recovery.sh does
# the same.

case ${SCENARIO:-} in lib-stress)
	echo "Bail out! lib-stress.sh is a library of the stress-* scenarios"
	exit 1 ;;
esac

DEV=${DEV:-/dev/vda}
MNT=${MNT:-/mnt}
DURABLE=/tmp/durable		# one TAG.sig per durable_files call
LOOPS=/tmp/loops		# counters and stderr of the background loops
STOP=/tmp/loops.stop		# the loops end when this exists
NSRC=${NSRC:-3}			# source files per durable_files call

BIGVAL=$(rep 0123456789 300)	# 3000 bytes: a remote xattr value
MIDVAL=$(rep abcdefghij 30)	# 300 bytes: with others, an attr leaf

# param NAME DEFAULT: nofs.NAME=VALUE from /proc/cmdline, else DEFAULT.
param() {
	local a v=$2
	# shellcheck disable=SC2013 # words are wanted
	for a in $(cat /proc/cmdline); do
		case $a in "nofs.$1="*) v=${a#*=} ;; esac
	done
	echo "$v"
}

# num_param VAR NAME DEFAULT: VAR = param NAME DEFAULT; bail unless it is
# a whole number.
num_param() {
	local v
	v=$(param "$2" "$3")
	case $v in ''|*[!0-9]*) bail "nofs.$2=$v is not a whole number" ;; esac
	eval "$1=\$v"
}

# seed_param: SEED and SEED0 = nofs.seed=, or a random 16-bit number
seed_param() {
	num_param SEED seed "$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')"
	# shellcheck disable=SC2034 # read by the scenarios
	SEED0=$SEED
}

# fi_params: the parameters every fault-injection scenario takes:
# ROUNDS (nofs.fi_rounds, 3), SECS (fi_secs, 20), TIMES (fi_times, 200),
# DEPTH (fi_depth, 8) and the seed
fi_params() {
	num_param ROUNDS fi_rounds 3
	num_param SECS fi_secs 20
	num_param TIMES fi_times 200
	num_param DEPTH fi_depth 8
	seed_param
}

uptime_s() { cut -d' ' -f1 /proc/uptime; }

# pick I WORD...: word number I (from 0, modulo their number).
pick() {
	shift $(($1 % ($# - 1) + 1))
	echo "$1"
}

# rand N: RAND = a pseudo-random number 0..N-1, from an LCG on SEED (set
# by the scenario; dash has no $RANDOM).  Call it in the main shell: in a
# subshell the sequence would not advance.
# shellcheck disable=SC2034 # RAND is for the caller
rand() {
	SEED=$(((SEED * 1103515245 + 12345) % 2147483648))
	RAND=$((SEED / 65536 % $1))
}

# lap NAME: append "NAME SECONDS-SINCE-LAST-LAP" to LAPS (a first call
# with LAP_T empty only starts the clock).
lap() {
	local now
	now=$(uptime_s)
	[ -z "${LAP_T:-}" ] ||
		LAPS="$LAPS $1 $(awk -v a="$LAP_T" -v b="$now" 'BEGIN { printf "%.1f", b - a }')"
	LAP_T=$now
}

mkfs_mount() {
	mkfs.xfs -f -q -m reflink=1,rmapbt=1 "$DEV" &&
		mount -t xfs -o uquota,gquota,pquota "$DEV" "$MNT"
}

fsync() { xfs_io -c fsync "$@"; }

# lsproj FILE...: "P path projid" per file, with one xfs_io ("stat"
# names the file it describes, so a file that fails to open is skipped).
lsproj() {
	local f
	for f in "$@"; do
		set -- "$@" -c "open -r $f" -c stat
		shift
	done
	xfs_io "$@" 2>/dev/null | awk '$1 == "fd.path" { f = $3; gsub(/"/, "", f) }
		$1 == "fsxattr.projid" { print "P", f, $3 }'
}

# signatures FILE...: "path sha256 uid:gid:size:project xattrs" per file,
# the xattrs being getfattr's dump folded into one word.  A file that
# cannot be read gets no line.
signatures() {
	local f
	{
		sha256sum "$@" | sed 's/^/S /'
		stat -c 'O %n %u:%g:%s' "$@"
		lsproj "$@"
		[ -z "$HAVE_XATTR" ] ||
			getfattr --absolute-names -d "$@" | sed 's/^/A /'
	} 2>/dev/null | awk '
		$1 == "S" { sum[$3] = $2; next }
		$1 == "O" { own[$2] = $3; next }
		$1 == "P" { proj[$2] = $3; next }
		$1 == "A" && $2 == "#" { f = $4; next }
		$1 == "A" && NF > 1 { x[f] = x[f] "|" substr($0, 3) }
		END { for (f in sum)
			if (f in own) print f, sum[f], own[f] ":" proj[f], "x" x[f] }' |
		sort
}

# sources DIR: NSRC files of 64 KiB..512 KiB for the reflink loop, fsynced.
sources() {
	local i=0
	mkdir -p "$1" || return 1
	while [ $i -lt "$NSRC" ]; do
		head -c $(((64 << i) * 1024)) /dev/urandom > "$1/src$i" &&
			fsync "$1/src$i" || return 1
		i=$((i + 1))
	done
}

# durable_files DIR TAG: NSRC sources (64 KiB..512 KiB, unaligned tails),
# reflinked copies with CoW overwrites, partial reflinks with CoW, a CoW
# overwrite of every other source, other owners for the copies, a project
# id for the parts; all fsynced; then xattrs (short, leaf, remote) on
# copies and parts, fsynced again.  Their signatures go to
# $DURABLE/TAG.sig.  (xfs_io runs its commands on each file it is given.)
durable_files() {
	local d=$1 t=$2 i=0 kib uid
	mkdir -p "$d" "$DURABLE" || return 1
	: > /tmp/durable.attrs
	while [ $i -lt "$NSRC" ]; do
		kib=$((64 << (i % 4)))
		uid=$((1000 + (t + i) % 50))
		head -c $((kib * 1024 + i * 777 + 1)) /dev/urandom > "$d/src$i" &&
		xfs_io -f -c "reflink $d/src$i" \
			-c "pwrite -q -S 0x$((i + 41)) 4096 16384" \
			-c "pwrite -q -S 0x$((i + 61)) $((20000 + i * 4321)) 7000" \
			"$d/copy$i" > /dev/null || return 1
		if [ $((i % 2)) -eq 0 ]; then
			xfs_io -c "pwrite -q -S 0x7e 32768 8192" "$d/src$i" || return 1
		fi
		xfs_io -f -c "reflink $d/copy$i 16384 0 32768" \
			-c "pwrite -q -S 0x$((i + 21)) 8192 4096" "$d/part$i" > /dev/null &&
			chown "$uid:$((uid + 1000))" "$d/copy$i" || return 1
		printf '# file: %s\nuser.tag="%s"\nuser.big="%s"\n\n' \
			"$d/copy$i" "$t" "$BIGVAL" >> /tmp/durable.attrs
		printf '# file: %s\nuser.m1="%s"\nuser.m2="%s"\n\n' \
			"$d/part$i" "$MIDVAL" "$MIDVAL$t" >> /tmp/durable.attrs
		i=$((i + 1))
	done
	xfs_io -c "chproj $((t % 7 + 1))" "$d"/part* &&
		fsync "$d"/src* "$d"/copy* "$d"/part* || return 1
	# copies and parts are 32 KiB or more, and that size is durable now
	if [ -n "$HAVE_XATTR" ]; then
		setfattr --restore=/tmp/durable.attrs &&
			fsync "$d"/copy* "$d"/part* || return 1
	fi
	signatures "$d"/src* "$d"/copy* "$d"/part* > "$DURABLE/$t.sig"
	[ "$(wc -l < "$DURABLE/$t.sig")" -eq $((3 * NSRC)) ] ||
		{ echo "durable_files: could not read back the files of $d"; return 1; }
	# broken-input mode (make mutants): nofs.break_durable=1 alters one
	# recorded file, once, after its signature was taken, so that
	# verify_durable must report it
	if [ "$(param break_durable 0)" = 1 ] && [ ! -e /tmp/durable.broken ]; then
		printf x >> "$d/src0" && fsync "$d/src0" && : > /tmp/durable.broken &&
			echo "broken-input mode: $d/src0 altered after its signature was taken"
	fi
}

# verify_durable: read back every recorded file (caches dropped first) and
# compare its signature.  Sets LOST (files gone or unreadable) and CORRUPT
# (data, owner, size, project or xattrs differ); status 1 if either.
verify_durable() {
	local exp=/tmp/durable.exp now=/tmp/durable.now
	: > /tmp/durable.bad
	sync
	echo 3 > /proc/sys/vm/drop_caches
	cat "$DURABLE"/*.sig 2>/dev/null | sort > "$exp"
	# shellcheck disable=SC2046 # one word per path
	signatures $(cut -d' ' -f1 "$exp") > "$now"
	# shellcheck disable=SC2046 # two numbers
	set -- $(awk 'NR == FNR { now[$1] = $0; next }
		!($1 in now) { lost++; print "lost: " $1 > "/tmp/durable.bad"; next }
		now[$1] != $0 { bad++; print "differs: " $1 > "/tmp/durable.bad" }
		END { print lost + 0, bad + 0 }' "$now" "$exp")
	LOST=$1 CORRUPT=$2
	head -n 10 /tmp/durable.bad
	echo "$(wc -l < "$exp") fsynced files: $LOST lost, $CORRUPT differ"
	[ "$LOST" -eq 0 ] && [ "$CORRUPT" -eq 0 ]
}

# retire_durable DIR TAG: stop verifying TAG's files and remove DIR.
retire_durable() { rm -f "$DURABLE/$2.sig" && rm -rf "$1"; }

# ---- background loops -------------------------------------------------
# loop NAME FUNC DIR SRC: call "FUNC DIR SRC N" for N = 0, 1, ... until
# $STOP exists or the directory is gone (shut down); counts in
# $LOOPS/NAME.n, stderr in $LOOPS/NAME.err.
loop() {
	local name=$1 fn=$2 d=$3 src=$4 n=0
	mkdir -p "$d" 2>/dev/null
	while [ ! -e "$STOP" ] && [ $n -lt 100000 ]; do
		"$fn" "$d" "$src" $n 2>> "$LOOPS/$name.err" >/dev/null
		n=$((n + 1))
		echo $n > "$LOOPS/$name.n"
		# a shut-down filesystem fails everything: do not spin
		[ -d "$d" ] || sleep 0.2
	done
	echo $n > "$LOOPS/$name.n"
}

# reflink a source into a new file, CoW-write it, a short xattr, unlink
cow_step() {
	local d=$1 s=$2 n=$3
	xfs_io -f -c "reflink $s/src$((n % NSRC))" \
		-c "pwrite -q -S 0x55 $(((n * 12345) % 60000)) 20000" "$d/f$n"
	[ -z "$HAVE_XATTR" ] || setfattr -n user.n -v "$n" "$d/f$n"
	[ $((n % 4)) -ne 0 ] || fsync "$d/f$n"
	rm -f "$d/f$((n - 3))"
}

# create, size made durable before a remote xattr, rename, symlink, unlink
meta_step() {
	local d=$1 n=$3
	xfs_io -f -c "pwrite -q -S 0x6d 0 8192" -c fsync "$d/m$n" &&
		mv "$d/m$n" "$d/r$n"
	ln -s "r$n" "$d/s$n"
	[ -z "$HAVE_XATTR" ] || setfattr -n user.m -v "$BIGVAL" "$d/r$n"
	rm -f "$d/r$((n - 4))" "$d/s$((n - 4))"
}

# quota: writes, chown/chgrp (dquot transfer), project ids, truncate, unlink
quota_step() {
	local d=$1 n=$3 f
	f=$d/u$((n % 48))
	xfs_io -f -c "pwrite -q 0 $(((n % 8 + 1) * 4096))" "$f" &&
		chown "$((2000 + n % 37)):$((3000 + n % 23))" "$f"
	[ $((n % 11)) -ne 0 ] || xfs_io -c "chproj $((n % 5 + 1))" "$f"
	[ $((n % 5)) -ne 0 ] || truncate -s $(((n % 3) * 1000)) "$f"
	[ $((n % 7)) -ne 0 ] || rm -f "$f"
}

# preallocation, writes into it, hole punching, zeroing, truncation
punch_step() {
	local d=$1 n=$3 f o
	f=$d/p$((n % 3))
	o=$(((n * 7919) % 1024 * 4096))
	xfs_io -f -c "falloc $o 262144" -c "pwrite -q $((o + 4096)) 12288" \
		-c "fpunch $((o + 65536)) 32768" -c "fzero $((o + 131072)) 8192" "$f"
	[ $((n % 13)) -ne 0 ] || truncate -s $(((n % 5) * 1048576)) "$f"
	[ $((n % 6)) -ne 0 ] || fsync "$f"
}

# directories: mkdir, 40 entries, rename the directory, remove an old one
dir_step() {
	local d=$1 n=$3 k=$(($3 % 97))
	# shellcheck disable=SC2046 # 40 names
	mkdir "$d/d$n" && (cd "$d/d$n" && touch $(seq 1 40 | sed "s/\$/-$k/"))
	mv "$d/d$n" "$d/D$n"
	rm -rf "$d/D$((n - 2))"
}

LOOP_NAMES="cow meta quota punch dir"

# start_loops DIR SRC: the five loops in DIR/<name>, reflinking SRC/src*.
start_loops() {
	local l
	rm -f "$STOP"
	mkdir -p "$LOOPS"
	for l in $LOOP_NAMES; do rm -f "$LOOPS/$l.n" "$LOOPS/$l.err"; done
	LOOP_PIDS=
	for l in $LOOP_NAMES; do
		loop "$l" "${l}_step" "$1/$l" "$2" &
		LOOP_PIDS="$LOOP_PIDS $!"
	done
}

# loop_iterations: iterations of all loops so far.
loop_iterations() {
	local l n s=0
	for l in $LOOP_NAMES; do
		n=0
		[ ! -f "$LOOPS/$l.n" ] || read -r n < "$LOOPS/$l.n"
		s=$((s + ${n:-0}))
	done
	echo $s
}

# wait_iterations N: until the loops did N iterations in all (at most 60 s).
wait_iterations() {
	local i=0
	while [ "$(loop_iterations)" -lt "$1" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# stop_loops: end the loops, print their iterations; sets LOOP_ITERS.
stop_loops() {
	local l s=""
	touch "$STOP"
	# shellcheck disable=SC2086 # a list of PIDs
	wait $LOOP_PIDS
	LOOP_ITERS=0
	for l in $LOOP_NAMES; do
		s="$s $l=$(cat "$LOOPS/$l.n" 2>/dev/null || echo ?)"
		LOOP_ITERS=$((LOOP_ITERS + $(cat "$LOOPS/$l.n" 2>/dev/null || echo 0)))
	done
	echo "loop iterations:$s"
}

# loop_errors: error messages of the loops by errno, "ENOMEM EIO OTHER".
loop_errors() {
	cat "$LOOPS"/*.err 2>/dev/null | awk '
		/Cannot allocate memory/ { m++; next }
		/Input\/output error/ { e++; next }
		NF { o++ }
		END { print m + 0, e + 0, o + 0 }'
}

# loop_error_samples: the commonest messages other than ENOMEM and EIO
# (numbers folded).
loop_error_samples() {
	cat "$LOOPS"/*.err 2>/dev/null | grep -v -e 'Cannot allocate memory' \
		-e 'Input/output error' | sed 's/[0-9][0-9]*/N/g' | sort | uniq -c |
		sort -rn | head -n "${1:-4}"
}

# ---- the kernel log ---------------------------------------------------
# kmsg: move the new kernel messages from the ring buffer to $KMSG (all of
# the run) and /tmp/kmsg.new (since the last call).
KMSG=/tmp/kmsg
kmsg() { dmesg -c > /tmp/kmsg.new; cat /tmp/kmsg.new >> "$KMSG"; }

# Evidence of on-disk corruption that the host's splat scan misses: XFS
# verifier and corruption reports.
# shellcheck disable=SC2034 # used by the scenarios
CORRUPT_RE='Metadata corruption detected|Unmount and run xfs_repair|Corruption warning|Corruption detected'
# shellcheck disable=SC2034 # used by the scenarios
SHUTDOWN_RE='XFS \([a-z0-9]+\): .*(Shutting down filesystem|Filesystem has been shut down)'

# kmsg_count ERE: matching lines in $KMSG.
kmsg_count() { grep -cE "$1" "$KMSG"; }

# mount_recover: mount $DEV on $MNT; RECOVERED=1 if log recovery ran.
# shellcheck disable=SC2034 # RECOVERED is for the caller
mount_recover() {
	kmsg
	mount -t xfs -o uquota,gquota,pquota "$DEV" "$MNT" || { kmsg; return 1; }
	kmsg
	RECOVERED=0
	[ "$(grep -cE "XFS \(${DEV#/dev/}\): (Starting|Ending) recovery" /tmp/kmsg.new)" -ne 2 ] ||
		RECOVERED=1
}

# vmstat_snap FILE: the reclaim counters of /proc/vmstat.
vmstat_snap() { cat /proc/vmstat > "$1"; }

# vmstat_delta BEFORE AFTER: what reclaim did in between (allocstall
# summed over zones).
vmstat_delta() {
	awk 'NR == FNR { b[$1] = $2; next }
	     { d = $2 - b[$1]; k = $1 }
	     k ~ /^allocstall_/ { stall += d; next }
	     k ~ /^(pg(scan|steal)_(kswapd|direct)|slabs_scanned|workingset_refault_file|oom_kill|compact_stall|pgmajfault)$/ {
		s = s " " k "=" d }
	     END { print "allocstall=" stall + 0 s }' "$1" "$2"
}

# repair_remount: umount $MNT, xfs_repair -n $DEV (counted in REPAIRS, a
# failure in REPAIR_ERRORS with the end of its output), mount it again.
repair_remount() {
	local rc=0
	umount "$MNT" || return 1
	REPAIRS=$((${REPAIRS:-0} + 1))
	xfs_repair -n "$DEV" > /tmp/repair.out 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		REPAIR_ERRORS=$((${REPAIR_ERRORS:-0} + 1))
		tail -n 20 /tmp/repair.out
		echo "xfs_repair -n: exit status $rc"
		return 1
	fi
	mount -t xfs -o uquota,gquota,pquota "$DEV" "$MNT"
}

# ---- fault injection ----------------------------------------------------
# For stress-failinject*.sh: failslab and fail_page_alloc limited by their
# stack-trace filter to the text of one filesystem (FI_START..FI_END),
# DEPTH frames deep.  FI_VERBOSE (2) is the attributes' verbose level.
DBG=/sys/kernel/debug
FI_VERBOSE=${FI_VERBOSE:-2}
INJECTED=0 BUDGET_USED_UP=0

# sym_addr NAME: the address of NAME in /proc/kallsyms (one match only).
sym_addr() {
	local a
	a=$(awk -v s="$1" '$3 == s { print $1 }' /proc/kallsyms)
	case $a in
	*[!0-9a-f]*|'') echo "symbol '$1': '$a' in /proc/kallsyms" >&2; return 1 ;;
	esac
	echo "$a"
}

# text_range PARAM LABEL SYMS FUNCTION...: FI_START and FI_END from
# nofs.PARAM=FIRST,END (stress/run.sh finds them in System.map), the names
# of the functions in between in SYMS (kallsyms is in address order); each
# FUNCTION must be in the range, the allocator must not.
text_range() {
	local text first end f label=$2 syms=$3
	text=$(param "$1" "")
	first=${text%,*} end=${text#*,}
	if [ -z "$text" ] || [ "$first" = "$text" ]; then
		echo "no nofs.$1=FIRST,END on the kernel command line"
		return 1
	fi
	shift 3
	FI_START=$(sym_addr "$first") && FI_END=$(sym_addr "$end") || return 1
	[ $((0x$FI_END - 0x$FI_START)) -gt 0 ] ||
		{ echo "$end does not come after $first"; return 1; }
	awk -v s="$first" -v e="$end" '$3 == s { on = 1 } $3 == e { on = 0 }
		on && $2 ~ /^[tT]$/ { print $3 }' /proc/kallsyms > "$syms"
	echo "$label text: 0x$FI_START ($first) .. 0x$FI_END ($end)," \
		"$(((0x$FI_END - 0x$FI_START) / 1024)) KiB, $(grep -vc '^__pfx_' "$syms") functions"
	for f in "$@"; do
		grep -qx "$f" "$syms" || { echo "$f is not in the range"; return 1; }
	done
	! grep -qx -e kmem_cache_alloc_noprof -e __alloc_pages_noprof "$syms" ||
		{ echo "the allocator is in the range"; return 1; }
}

# fi_set ATTR PROBABILITY TIMES [SPACE]: configure one fault attribute.
fi_set() {
	local d=$DBG/$1
	echo 0 > "$d/probability" &&
	echo "$DEPTH" > "$d/stacktrace-depth" &&
	echo "0x$FI_START" > "$d/require-start" &&
	echo "0x$FI_END" > "$d/require-end" &&
	echo 0 > "$d/reject-start" && echo 0 > "$d/reject-end" &&
	echo N > "$d/ignore-gfp-wait" &&
	echo 1 > "$d/interval" && echo "${4:-0}" > "$d/space" &&
	echo "$FI_VERBOSE" > "$d/verbose" &&
	echo 100000 > "$d/verbose_ratelimit_burst" &&
	echo Y > "$d/task-filter" &&
	echo "$3" > "$d/times" &&
	echo "$2" > "$d/probability"
}

# fi_attrs WHICH: FI_ATTRS, the attributes "both" stands for.
fi_attrs() {
	FI_ATTRS=$1
	[ "$1" != both ] || FI_ATTRS="failslab fail_page_alloc"
}

# fi_on WHICH PROBABILITY: failslab, fail_page_alloc or both, TIMES each.
fi_on() {
	local a
	fi_attrs "$1"
	FI_TIMES=$TIMES
	for a in $FI_ATTRS; do fi_set "$a" "$2" "$TIMES" || return 1; done
}

# fi_off: injection off; FI_COUNT = failures injected since fi_on, added
# to INJECTED; FI_EACH "failslab=N fail_page_alloc=M" per attribute;
# FI_NONE the attributes that injected nothing; BUDGET_USED_UP counts
# attributes that ran out of failures.
fi_off() {
	local a left
	FI_COUNT=0 FI_EACH='' FI_NONE=''
	for a in failslab fail_page_alloc; do echo 0 > "$DBG/$a/probability"; done
	for a in $FI_ATTRS; do
		left=$(cat "$DBG/$a/times")
		[ "$left" -gt 0 ] || BUDGET_USED_UP=$((BUDGET_USED_UP + 1))
		FI_COUNT=$((FI_COUNT + FI_TIMES - left))
		FI_EACH="${FI_EACH:+$FI_EACH }$a=$((FI_TIMES - left))"
		[ "$left" -ne "$FI_TIMES" ] || FI_NONE="${FI_NONE:+$FI_NONE }$a"
	done
	INJECTED=$((INJECTED + FI_COUNT))
}

# fi_injected_each: a round's check that it injected failures through
# every attribute it turned on (a "both" round that only ever failed
# slab allocations did not test what it claims)
fi_injected_each() {
	[ -z "$FI_NONE" ] && return 0
	echo "no failure injected through $FI_NONE in this round ($FI_EACH)"
	return 1
}

# every task, kernel threads included (and so their future children),
# may fail: task-filter then only keeps interrupt context out
mark_tasks() {
	local f
	for f in /proc/[0-9]*/make-it-fail /proc/[0-9]*/task/[0-9]*/make-it-fail; do
		echo 1 > "$f"
	done 2>/dev/null
	[ "$(cat /proc/2/make-it-fail)" = 1 ] && [ "$(cat /proc/self/make-it-fail)" = 1 ]
}

# ---- the loops of the ext4 and btrfs fault-injection rounds -------------
# Each runs until $STOP exists and appends its failed commands' errors to
# $LOOPS/NAME.err; the rounds count those errors (fi_errors), not fail.

# fi_meta_loop DIR [SYNC]: create, write and fsync, xattr, rename, unlink
# of the file three before; with SYNC=1 the renamed file is fsynced too.
fi_meta_loop() {
	local n=0 d=$1
	mkdir -p "$d"
	while [ ! -e $STOP ]; do
		xfs_io -f -c "pwrite -q 0 $((n % 7 * 4096 + 100))" -c fsync "$d/f$n" &&
			setfattr -n user.a -v "$n$MIDVAL" "$d/f$n" &&
			mv "$d/f$n" "$d/g$n" &&
			{ [ "${2:-0}" != 1 ] || xfs_io -c fsync "$d/g$n"; }
		rm -f "$d/g$((n - 3))"
		n=$((n + 1))
	done 2>> $LOOPS/meta.err
}

# fi_trunc_loop BASE: BASE0 and BASE1 in turn: 64 one-block fallocates
# 128 KiB apart (a fragmented file), a truncate, an fsync.
fi_trunc_loop() {
	local n=0 f=$1 i
	while [ ! -e $STOP ]; do
		set --
		i=0
		while [ $i -lt 64 ]; do
			set -- "$@" -c "falloc $((i * 131072)) 4096"
			i=$((i + 1))
		done
		xfs_io -f "$@" -c "truncate $((n % 3 * 65536))" -c fsync "$f$((n % 2))"
		n=$((n + 1))
	done 2>> $LOOPS/trunc.err
}

# fi_dir_loop DIR: a directory of 30 files made, the previous one removed.
fi_dir_loop() {
	local n=0 d=$1 i
	while [ ! -e $STOP ]; do
		i=0
		mkdir -p "$d/$n" || i=30	# no files without the directory
		while [ $i -lt 30 ]; do echo "$n $i" > "$d/$n/$i"; i=$((i + 1)); done
		rm -rf "${d:?}/$((n - 1))"
		n=$((n + 1))
	done 2>> $LOOPS/dir.err
}

# fi_loops BASE FOURTH [SYNC]: the three loops above under BASE and the
# scenario's own FOURTH loop, for SECS seconds (injection is on).
fi_loops() {
	local p1 p2 p3 p4
	rm -f $STOP
	fi_meta_loop "$1/meta" "${3:-0}" & p1=$!
	fi_trunc_loop "$1/trunc" & p2=$!
	fi_dir_loop "$1/dirs" & p3=$!
	$2 & p4=$!
	sleep "$SECS"
	# a round tests each attribute it turned on: past SECS it goes on, up
	# to six times as long, until every one of them injected a failure
	# (fi_injected_each then checks that they did)
	local t=$SECS a
	while [ $t -lt $((6 * SECS)) ]; do
		for a in $FI_ATTRS; do
			[ "$(cat "$DBG/$a/times")" -ne "$FI_TIMES" ] || break
			a=
		done
		[ -n "$a" ] || break
		sleep 1
		t=$((t + 1))
	done
	touch $STOP
	wait $p1 $p2 $p3 $p4
}

# fi_errors: add the loops' error lines to ENOMEM, EIO, EROFS and OTHER,
# and print the four most frequent (numbers made N).
fi_errors() {
	local e
	e=$(cat $LOOPS/*.err 2>/dev/null)
	ENOMEM=$((ENOMEM + $(echo "$e" | grep -c 'Cannot allocate memory')))
	EIO=$((EIO + $(echo "$e" | grep -c 'Input/output error')))
	EROFS=$((EROFS + $(echo "$e" | grep -c 'Read-only file system')))
	OTHER=$((OTHER + $(echo "$e" |
		grep -vcE '^$|Cannot allocate memory|Input/output error|Read-only file system')))
	echo "$e" | grep -vE '^$' | sed 's/[0-9][0-9]*/N/g' | sort | uniq -c | sort -rn | head -n 4
}

# fi_round R LOOPS ABORT_RE: the injection of round R of the ext4 and
# btrfs scenarios: ATTRS' R-th entry at PROBS' R-th probability while the
# function LOOPS runs the scenario's loops (once per pass, $LOOPS fresh),
# then injection off.  Sets FI_COUNT, FI_EACH (per pass), FI_ABORTS (lines
# matching ABORT_RE) and FI_PASSES.  A file system that aborted refuses
# writes from then on, so an attribute that had injected nothing by then
# never would: the round then remounts (after_round, which checks the
# durable files) and goes on with injection through the attributes still
# missing, at most twice.  fi_injected_each judges the last pass.
fi_round() {
	local which prob pass=1 count=0 each='' a
	which=$(pick $(($1 - 1)) $ATTRS)
	prob=$(pick $(($1 - 1)) $PROBS)
	FI_ABORTS=0
	while :; do
		rm -rf $LOOPS && mkdir -p $LOOPS
		kmsg
		fi_on "$which" "$prob" || return 1
		$2
		fi_off
		kmsg
		LOGGED=$((LOGGED + $(grep -c 'FAULT_INJECTION: forcing a failure' /tmp/kmsg.new)))
		a=$(grep -cE "$3" /tmp/kmsg.new)
		FI_ABORTS=$((FI_ABORTS + a)) count=$((count + FI_COUNT))
		each="${each:+$each }$FI_EACH"
		fi_errors
		[ -n "$FI_NONE" ] && [ "$a" -gt 0 ] && [ $pass -lt 3 ] || break
		echo "pass $pass aborted before $FI_NONE injected ($FI_EACH):" \
			"remount and go on with $FI_NONE"
		after_round || return 1
		which=$FI_NONE pass=$((pass + 1))
	done
	# shellcheck disable=SC2034 # read by the scenarios
	FI_COUNT=$count FI_EACH=$each FI_PASSES=$pass FI_WHICH=$(pick $(($1 - 1)) $ATTRS)
	# shellcheck disable=SC2034 # read by the scenarios
	FI_PROB=$prob
}

# fi_round_said R ABORTS WHAT KV: round R's two lines, after fi_round: what
# it injected, its aborts (ABORTS: how the scenario calls them) and WHAT
# its loops did, then its trial line with KV; then fi_injected_each.
fi_round_said() {
	echo "$FI_WHICH at $FI_PROB%: $FI_COUNT failures injected, $FI_ABORTS $2," \
		"$3, $FI_PASSES pass(es)"
	echo "trial: round=$1 kind=workload attr=$FI_WHICH pct=$FI_PROB injected=$FI_COUNT" \
		"aborts=$FI_ABORTS $4 passes=$FI_PASSES $FI_EACH"
	fi_injected_each
}

# fi_rounds WHAT: the rounds of the ext4 and btrfs fault-injection
# scenarios: ROUNDS times "round R" (the scenario's loops under injection)
# and "after_round" (WHAT: what it checks), stopping at the first failed
# after_round with the scenario's summary; then the check that failures
# were injected, and the summary.
fi_rounds() {
	local r=1
	while [ $r -le "$ROUNDS" ]; do
		check "round $r: loops under injection" round $r
		check "round $r: $1" after_round || { summary; bail "round $r"; }
		r=$((r + 1))
	done
	check "failures were injected: $INJECTED ($LOGGED logged)" [ "$INJECTED" -gt 0 ]
	summary
}
