# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# quota-pressure: user, group and project quota with many dquots, in a
# small memory cgroup, while another loop keeps dropping the caches so
# that inodes are evicted, dquots lose their references and the dquot
# shrinker frees them, and the next operation reads them back in.
#
# Files owned by N_OWNERS users and as many groups (uid 10000+i, gid
# 20000+i) are written, appended to, given away with chown (quota
# transfer), unlinked and truncated; two project trees and loose files
# with a project id; hard limits that must refuse a write (EDQUOT for a
# user, ENOSPC for a project).  Verification: every user's, group's and
# project's block and inode usage in xfs_quota's report equals the sum
# over the files (stat) and, for users and groups, the usage the model of
# the workload predicts; again after a remount; xfs_repair -n clean.
#
# nofs-disks: 1
# shellcheck source=lib.sh
. /scenarios/lib.sh

DEV=/dev/vda
MNT=/mnt
TOP=$MNT/q
U=${N_OWNERS:-1000}
MEMMAX=${MEMMAX:-12M}
DROPPING=/tmp/dropping		# the drop_caches loop runs while this exists
HARD_UID=30000

BLK=$(rep "$(rep 0123456789abcdef 4)" 64)	# 4096 bytes

xq() { xfs_quota -x "$@" "$MNT"; }

# put FILE NBLOCKS: append NBLOCKS * 4 KiB with built-ins.
put() {
	local n=0
	while [ $n -lt "$2" ]; do printf '%s' "$BLK" >> "$1" || return 1; n=$((n + 1)); done
}

# Owner i: files d<i%10>/u<i>.1 .. u<i>.<i%4+1>; file j has
# (i+j)%8+1 blocks of 4 KiB; uid 10000+i, gid 20000+i.
workload() {
	local i j k f files
	step "create and chown the files of $U owners"
	mkdir -p "$TOP"/d0 "$TOP"/d1 "$TOP"/d2 "$TOP"/d3 "$TOP"/d4 \
		"$TOP"/d5 "$TOP"/d6 "$TOP"/d7 "$TOP"/d8 "$TOP"/d9 || return 1
	i=1
	while [ $i -le "$U" ]; do
		k=$((i % 4 + 1)) j=1 files=
		while [ $j -le $k ]; do
			f=$TOP/d$((i % 10))/u$i.$j
			put "$f" $(((i + j) % 8 + 1)) || return 1
			files="$files $f"
			j=$((j + 1))
		done
		# shellcheck disable=SC2086
		chown $((10000 + i)):$((20000 + i)) $files || return 1
		i=$((i + 1))
	done
	step "append 4 KiB to u<i>.1 for i % 5 == 0"
	i=5
	while [ $i -le "$U" ]; do put "$TOP/d$((i % 10))/u$i.1" 1 || return 1; i=$((i + 5)); done
	step "chown u<i>.1 to owner i+1 for i % 7 == 0 (quota transfer)"
	i=7
	while [ $i -lt "$U" ]; do
		chown $((10001 + i)):$((20001 + i)) "$TOP/d$((i % 10))/u$i.1" || return 1
		i=$((i + 7))
	done
	step "unlink the last file of owners i % 11 == 0 with two or more files"
	i=11
	while [ $i -le "$U" ]; do
		k=$((i % 4 + 1))
		[ $k -lt 2 ] || rm "$TOP/d$((i % 10))/u$i.$k" || return 1
		i=$((i + 11))
	done
	step "truncate u<i>.1 to 0 for i % 13 == 0"
	i=13
	while [ $i -le "$U" ]; do truncate -s 0 "$TOP/d$((i % 10))/u$i.1" || return 1; i=$((i + 13)); done
	step "project 42: tree p42 (xfs_quota project -s), 20 files of 8 KiB"
	mkdir "$TOP/p42" "$TOP/p42/sub" || return 1
	xq -c "project -s -p $TOP/p42 42" || return 1
	i=1
	while [ $i -le 20 ]; do put "$TOP/p42/sub/f$i" 2 || return 1; i=$((i + 1)); done
	step "project 43: 10 loose files in d0 (xfs_io chproj), 12 KiB each"
	i=1
	while [ $i -le 10 ]; do
		put "$TOP/d0/p43.$i" 3 && xfs_io -c "chproj 43" "$TOP/d0/p43.$i" || return 1
		i=$((i + 1))
	done
	step "limits for owners i % 50 == 0 (user and group, not reached)"
	i=50
	while [ $i -le "$U" ]; do
		xq -c "limit -u bsoft=10m bhard=20m isoft=100 ihard=200 $((10000 + i))" \
		   -c "limit -g bsoft=10m bhard=20m isoft=100 ihard=200 $((20000 + i))" || return 1
		i=$((i + 50))
	done
	step "done"
}

# A user over its hard block limit: root writes to a file the user owns.
user_hard_limit() {
	local out b
	mkdir -p "$TOP/hard" && touch "$TOP/hard/f" &&
		chown $HARD_UID:$HARD_UID "$TOP/hard/f" &&
		xq -c "limit -u bhard=256k $HARD_UID" || return 1
	out=$(xfs_io -c "pwrite -b 64k 0 1m" -c fsync "$TOP/hard/f" 2>&1)
	echo "$out"
	b=$(stat -c %b "$TOP/hard/f")
	echo "uid $HARD_UID: $((b / 2)) KiB allocated, hard limit 256 KiB"
	echo "$out" | grep -q 'Disk quota exceeded' && [ "$b" -le 512 ]
}

# A project over its hard block limit: ENOSPC.
project_hard_limit() {
	local out b
	mkdir -p "$TOP/p44" && xq -c "project -s -p $TOP/p44 44" \
		-c "limit -p bhard=1m 44" || return 1
	# (a create reserves blocks for the worst case: leave room for it)
	out=$(xfs_io -f -c "pwrite -b 64k 0 4m" -c fsync "$TOP/p44/f" 2>&1)
	echo "$out"
	b=$(stat -c %b "$TOP/p44/f")
	echo "project 44: $((b / 2)) KiB allocated, hard limit 1024 KiB"
	echo "$out" | grep -q 'No space left on device' && [ "$b" -le 2048 ]
}

drop_loop() {
	local n=0
	while [ -e $DROPPING ]; do
		echo $((2 + n % 2)) > /proc/sys/vm/drop_caches
		n=$((n + 1))
		echo $n > $DROPPING.count
		sleep 1
	done
}

# Inodes that quota counts for uid, gid and project 0 but find does not
# see (the realtime bitmap and summary inodes): measured after mkfs.
hidden_inodes() {
	local q f
	q=$(xq -c "report -u -n -N -i" | awk '$1 == "#0" { print $2 }')
	f=$(find "$MNT" -xdev | wc -l)
	HIDDEN=$((q - f))
	echo "uid 0: $q inodes in quota, $f visible: $HIDDEN hidden (realtime bitmap and summary)"
	[ "$HIDDEN" -ge 0 ]
}

# Usage from the files: "TYPE ID KIB INODES" for user, group and project
# ids, plus the hidden inodes for id 0.  Project ids by tree: p42 and p44
# are projects, d0/p43.* is 43, the rest 0.
usage_from_stat() {
	find "$MNT" -xdev -exec stat -c '%u %g %b %n' {} + |
	awk -v p42="$TOP/p42" -v p44="$TOP/p44" -v p43="$TOP/d0/p43." -v h="$HIDDEN" '
		NR == 1 { ui[0] = gi[0] = pi[0] = h }
		{ u[$1] += $3; ui[$1]++; g[$2] += $3; gi[$2]++
		  p = 0
		  if (index($4, p42) == 1) p = 42
		  else if (index($4, p44) == 1) p = 44
		  else if (index($4, p43) == 1) p = 43
		  pb[p] += $3; pi[p]++ }
		END { for (k in u) print "u", k, u[k] / 2, ui[k]
		      for (k in g) print "g", k, g[k] / 2, gi[k]
		      for (k in pb) print "p", k, pb[k] / 2, pi[k] }' | sort
}

# Usage in the quota report, zero lines left out.
usage_from_quota() {
	local t
	for t in u g p; do
		xq -c "report -$t -n -N -b" > /tmp/rep.b || return 1
		xq -c "report -$t -n -N -i" > /tmp/rep.i || return 1
		awk -v t=$t 'NR == FNR { sub("#", "", $1); b[$1] = $2; next }
			     { sub("#", "", $1); if (b[$1] + $2 > 0) print t, $1, b[$1], $2 }' \
			/tmp/rep.b /tmp/rep.i
	done | sort
}

# Usage of the owners as the workload's model predicts (users, groups).
usage_from_model() {
	awk -v U="$U" 'BEGIN {
		for (i = 1; i <= U; i++)
			for (j = 1; j <= i % 4 + 1; j++) { own[i, j] = i; sz[i, j] = (i + j) % 8 + 1 }
		for (i = 5; i <= U; i += 5) sz[i, 1]++
		for (i = 7; i < U; i += 7) own[i, 1] = i + 1
		for (i = 11; i <= U; i += 11) if (i % 4 + 1 >= 2) own[i, i % 4 + 1] = 0
		for (i = 13; i <= U; i += 13) sz[i, 1] = 0
		for (i = 1; i <= U; i++)
			for (j = 1; j <= i % 4 + 1; j++)
				if ((o = own[i, j])) { b[o] += 4 * sz[i, j]; n[o]++ }
		for (o in n) { print "u", 10000 + o, b[o], n[o]; print "g", 20000 + o, b[o], n[o] }
	}' | sort
}

quota_matches_files() {
	usage_from_stat > /tmp/use.stat || return 1
	usage_from_quota > /tmp/use.quota || return 1
	echo "ids with usage: $(grep -c '^u' /tmp/use.quota) users, $(grep -c '^g' /tmp/use.quota) groups, $(grep -c '^p' /tmp/use.quota) projects"
	grep -E '^(u 0|u 10001|u 10008|g 20035|p) ' /tmp/use.quota | sed 's/^/quota: /'
	cmp -s /tmp/use.stat /tmp/use.quota && return 0
	echo "differences (< files, > quota):"
	diff /tmp/use.stat /tmp/use.quota | head -n 20
	return 1
}

quota_matches_model() {
	usage_from_model > /tmp/use.model || return 1
	awk -v U="$U" '($1 == "u" && $2 > 10000 && $2 <= 10000 + U) ||
		       ($1 == "g" && $2 > 20000 && $2 <= 20000 + U)' /tmp/use.quota > /tmp/use.owners
	echo "model: $(wc -l < /tmp/use.model) user and group ids with usage"
	cmp -s /tmp/use.model /tmp/use.owners && return 0
	echo "differences (< model, > quota):"
	diff /tmp/use.model /tmp/use.owners | head -n 20
	return 1
}

limits_kept() {
	local l
	l=$(xq -c "report -u -n -N -b" | awk '$1 == "#10050" { print $3, $4 }')
	echo "uid 10050 block limits (soft hard): $l"
	[ "$l" = "10240 20480" ] || return 1
	l=$(xq -c "report -p -n -N -b" | awk '$1 == "#44" { print $4 }')
	echo "project 44 block hard limit: $l"
	[ "$l" = 1024 ]
}

dquots_reclaimed() {
	local s
	s=$(cat /proc/fs/xfs/xqmstat)
	echo "xqmstat (qm dqreclaims misses dups cachemisses cachehits wants): $s"
	echo "drop_caches writes: $(cat $DROPPING.count)"
	[ "$(echo "$s" | cut -d' ' -f2)" -gt 0 ]
}

require "mkfs.xfs $DEV" mkfs.xfs -f "$DEV"
require "mount $DEV on $MNT with uquota,gquota,pquota" \
	mount -t xfs -o uquota,gquota,pquota "$DEV" "$MNT"
require "quota accounting and enforcement on" sh -c "xfs_quota -x -c state $MNT | grep -c 'Enforcement: ON' | grep -qx 3"
require "count the inodes of uid 0 that find does not see" hidden_inodes
require "memory cgroup nofs-quota with memory.max $MEMMAX" memcg_create nofs-quota "$MEMMAX"
touch $DROPPING
drop_loop &
DROP_PID=$!
require "quota workload of $U owners in the cgroup while caches are dropped" \
	memcg_run workload
check "user over its 256 KiB hard block limit gets EDQUOT" memcg_run user_hard_limit
check "project over its 1 MiB hard block limit gets ENOSPC" memcg_run project_hard_limit
rm -f $DROPPING
wait $DROP_PID
memcg_report
check "the cgroup hit memory.max and reclaimed" memcg_reclaimed
check "no OOM kill in the cgroup" memcg_no_oom_kill
check "dquots were reclaimed and read back" dquots_reclaimed
sync
check "quota usage of every user, group and project matches the files" quota_matches_files
check "quota usage of the $U owners matches the workload's model" quota_matches_model
check "limits set" limits_kept
require "umount $MNT" umount "$MNT"
check "xfs_repair -n: filesystem (and quota counts) clean" xfs_repair -n "$DEV"
require "mount $DEV again with uquota,gquota,pquota" \
	mount -t xfs -o uquota,gquota,pquota "$DEV" "$MNT"
echo 3 > /proc/sys/vm/drop_caches
check "after remount: quota usage matches the files" quota_matches_files
check "after remount: quota usage matches the model" quota_matches_model
check "after remount: limits kept" limits_kept
require "umount $MNT" umount "$MNT"
finish
