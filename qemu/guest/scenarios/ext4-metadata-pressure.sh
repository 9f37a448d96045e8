# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# ext4-metadata-pressure: ext4 (with ea_inode) and jbd2 under memory
# pressure.  A metadata and xattr workload runs in a small memory cgroup,
# so that ext4 allocates inside jbd2 handles while the cgroup is at its
# memory.max and direct reclaim runs: a nested directory tree, one large
# htree-indexed directory filled by two writers at once, hard links,
# renames (across directories, over existing entries, of a directory),
# unlinks, fast and slow symlinks, xattrs in the inode, in a shared and in
# private external blocks and in ea_inodes (values larger than a block),
# ACLs (default ACLs inherited at create time, inside the create handle),
# and fsynced data files with checksums.  Then: evidence that the cgroup
# reclaimed, no OOM kill; with the caches dropped, the tree, xattrs and
# ACLs as written and the checksums of the data files; umount, e2fsck -fn,
# the on-disk htree and xattr layout (debugfs).
#
# nofs-disks: 1
N_FILES=${N_FILES:-24}		# fsynced data files (write_files of lib.sh)
MAX_KIB=${MAX_KIB:-1024}
# shellcheck source=lib.sh
. /scenarios/lib.sh

DEV=/dev/vda
MNT=/mnt
TOP=$MNT/meta
N=${N_ENTRIES:-3000}		# files created by each writer in big/ (3000..9999)
MEMMAX=${MEMMAX:-32M}
SFX=entry-name-long-enough-to-fill-directory-blocks	# long names: big/ needs an htree

# Values: a 1000-byte file body, 20-byte xattr values (a 256-byte inode
# holds two of them), a 1000-byte one (an external xattr block, shared
# between files whose block contents are equal), an 8000-byte one (more
# than a 4 KiB block: an ea_inode, also shared) and a 300-byte symlink
# target (too long for the inode: a slow symlink).
BODY=$(rep 0123456789 100)
SVAL=$(rep small 4)
MVAL=$(rep abcdefghij 100)
BIGVAL=$(rep ABCDEFGHIJ 800)
LONGT=$(rep long/path/ 30)

xattrs() {
	local i
	step "xattrs: user.s1..s3 (20 bytes) and user.m (1000 bytes, external block)" \
		"on big/a200..a299, user.d (private blocks) on a200..a249," \
		"user.big (8000 bytes, ea_inode) on a200..a219, private ea_inodes on a220..a229"
	for i in 1 2 3; do
		setfattr -n "user.s$i" -v "$SVAL$i" "$TOP"/big/a2[0-9][0-9]_* || return 1
	done
	setfattr -n user.m -v "$MVAL" "$TOP"/big/a2[0-9][0-9]_* || return 1
	i=200
	while [ $i -le 249 ]; do
		setfattr -n user.d -v "$i$MVAL" "$TOP/big/a${i}_$SFX" || return 1
		i=$((i + 1))
	done
	setfattr -n user.big -v "$BIGVAL" "$TOP"/big/a2[01][0-9]_* || return 1
	i=220
	while [ $i -le 229 ]; do
		setfattr -n user.big -v "$i$BIGVAL" "$TOP/big/a${i}_$SFX" || return 1
		i=$((i + 1))
	done
	step "remove user.m from a250..a299 and user.big from a210..a214 (refcounts)"
	setfattr -x user.m "$TOP"/big/a2[5-9][0-9]_* &&
		setfattr -x user.big "$TOP"/big/a21[0-4]_* || return 1
	i=1
	while [ $i -le 30 ]; do setfattr -n "user.dir$i" -v "$SVAL" "$TOP/big" || return 1; i=$((i + 1)); done
}

workload() {
	local i k rc=0
	step "nested tree: 64 directories, 1024 files"
	tree || return 1
	step "create $N files in big/ twice (two writers at once): htree"
	create "$TOP/big" a 1 "$N" & k=$!
	create "$TOP/big" b 1 "$N" || rc=1
	wait $k || rc=1
	[ $rc -eq 0 ] || return 1
	step "hard links: links/ -> big/a100..a999 (900)"
	mkdir "$TOP/links" && ln "$TOP"/big/a[1-9][0-9][0-9]_* "$TOP/links/" || return 1
	step "rename big/a1000..a1999 into t/a1/b1/c1 (1000, across directories)"
	mv "$TOP"/big/a1[0-9][0-9][0-9]_* "$TOP/t/a1/b1/c1/" || return 1
	step "rename big/a300..a399 to big/r300..r399 (100, hard-linked files)"
	i=300
	while [ $i -le 399 ]; do mv "$TOP/big/a${i}_$SFX" "$TOP/big/r$i" || return 1; i=$((i + 1)); done
	step "rename big/b1..b50 over big/b51..b100 (50 replaced entries)"
	i=1
	while [ $i -le 50 ]; do
		mv -f "$TOP/big/b${i}_$SFX" "$TOP/big/b$((i + 50))_$SFX" || return 1
		i=$((i + 1))
	done
	step "rename directory t/a2/b2 to t/a3/moved"
	mv "$TOP/t/a2/b2" "$TOP/t/a3/moved" || return 1
	step "unlink big/b2000..b2999 (1000) and big/a100..a199 (100, still linked)"
	rm "$TOP"/big/b2[0-9][0-9][0-9]_* "$TOP"/big/a1[0-9][0-9]_* || return 1
	step "symlinks: sym/ -> big/a200..a299 (fast), sym/long1..long40 (slow)"
	mkdir "$TOP/sym" && (cd "$TOP/sym" && ln -s ../big/a2[0-9][0-9]_* .) || return 1
	i=1
	while [ $i -le 40 ]; do ln -s "$LONGT$i" "$TOP/sym/long$i" || return 1; i=$((i + 1)); done
	if [ -n "$HAVE_XATTR" ]; then
		xattrs || return 1
	else
		step "no setfattr in the initramfs (host package attr): xattrs skipped"
	fi
	if [ -n "$HAVE_ACL" ]; then
		step "ACLs: u:1234:rw on big/a400..a499; default ACL on acl/, 200 files created in it"
		setfacl -m u:1234:rw,g:5678:r "$TOP"/big/a4[0-9][0-9]_* &&
			mkdir "$TOP/acl" && setfacl -d -m u:1234:rwx,g:5678:rx "$TOP/acl" &&
			create "$TOP/acl" i 1 200 || return 1
	fi
	step "write and fsync $N_FILES data files (1 KiB..$MAX_KIB KiB) in data/"
	mkdir "$TOP/data" && write_files "$TOP/data" || return 1
	step "create big/c1..c1000 (1000, into a directory with freed slots)"
	create "$TOP/big" c 1 1000 || return 1
	step "sync"
	sync
	step "done"
}

nlinks_are() {	# expected counts of link count 1 and 2 in links/
	local n1 n2
	n1=$(stat -c %h "$TOP"/links/* | grep -c '^1$')
	n2=$(stat -c %h "$TOP"/links/* | grep -c '^2$')
	echo "links/: $n1 with 1 link (expected $1), $n2 with 2 (expected $2)"
	[ "$n1" -eq "$1" ] && [ "$n2" -eq "$2" ]
}

tree_ok() {
	local n
	n=$(find "$TOP/t" -type f | wc -l)
	echo "t/: $n files (expected 2024), $(find "$TOP/t" -type d | wc -l) directories (expected 85)"
	[ "$n" -eq 2024 ] && [ "$(find "$TOP/t" -type d | wc -l)" -eq 85 ] &&
		[ -f "$TOP/t/a3/moved/c4/f224-16_$SFX" ] && [ ! -e "$TOP/t/a2/b2" ]
}

symlinks_ok() {
	local n t
	n=$(cat "$TOP"/sym/a2[0-9][0-9]_* | wc -l)
	echo "read $n files through sym/a200..a299 (expected 100)"
	[ "$n" -eq 100 ] || return 1
	t=$(readlink "$TOP/sym/long17")
	[ "$t" = "${LONGT}17" ] || { echo "sym/long17 -> '$t'"; return 1; }
	echo "sym/long17 target intact (${#t} bytes)"
}

# getval NAME FILE: the value of xattr NAME of big/FILE_$SFX.
getval() { getfattr --absolute-names --only-values -n "$1" "$TOP/big/$2_$SFX"; }

xattrs_ok() {
	local s m d b
	s=$(getfattr --absolute-names -d "$TOP"/big/a2[0-9][0-9]_* | grep -c '^user\.s[1-3]=')
	m=$(getfattr --absolute-names -d "$TOP"/big/a2[0-9][0-9]_* | grep -c '^user\.m=')
	d=$(getfattr --absolute-names -d "$TOP"/big/a2[0-9][0-9]_* | grep -c '^user\.d=')
	b=$(getfattr --absolute-names -d "$TOP"/big/a2[0-9][0-9]_* | grep -c '^user\.big=')
	echo "big/a2xx: $s user.s* (expected 300), $m user.m (50), $d user.d (50), $b user.big (25)"
	[ "$(getval user.s2 a288)" = "${SVAL}2" ] || { echo "user.s2 of a288 differs"; return 1; }
	[ "$(getval user.m a237)" = "$MVAL" ] || { echo "user.m of a237 differs"; return 1; }
	[ "$(getval user.d a237)" = "237$MVAL" ] || { echo "user.d of a237 differs"; return 1; }
	[ "$(getval user.big a217)" = "$BIGVAL" ] || { echo "user.big of a217 differs"; return 1; }
	[ "$(getval user.big a226)" = "226$BIGVAL" ] || { echo "user.big of a226 differs"; return 1; }
	[ "$(getfattr --absolute-names -d "$TOP/big" | grep -c '^user\.dir')" -eq 30 ] ||
		{ echo "big/ lost some of its 30 xattrs"; return 1; }
	[ "$s" -eq 300 ] && [ "$m" -eq 50 ] && [ "$d" -eq 50 ] && [ "$b" -eq 25 ]
}

acls_ok() {
	local n
	getfacl -p "$TOP/big/a456_$SFX" | grep -q '^user:1234:rw-' ||
		{ echo "big/a456: no user:1234:rw- entry"; return 1; }
	n=$(getfacl -p "$TOP"/acl/i* 2>/dev/null | grep -c '^user:1234:')
	echo "acl/: $n of 200 files inherited user:1234"
	[ "$n" -eq 200 ]
}

verify_tree() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	check "t/ holds the nested tree, the moved directory and the renamed files" tree_ok
	check "big/ holds $((2 * N - 1150)) entries" count_is "$TOP/big" $((2 * N - 1150))
	check "links/ holds 900 entries" count_is "$TOP/links" 900
	check "link counts: 100 orphaned links, 800 shared" nlinks_are 100 800
	check "sym/ holds 140 entries" count_is "$TOP/sym" 140
	check "symlinks resolve, slow symlink target intact" symlinks_ok
	if [ -n "$HAVE_XATTR" ]; then
		check "xattrs present with their values (inode, blocks, ea_inodes)" xattrs_ok
	else
		ok "xattrs present with their values # SKIP no setfattr/getfattr"
	fi
	if [ -n "$HAVE_ACL" ]; then
		check "ACLs present and inherited" acls_ok
	else
		ok "ACLs present and inherited # SKIP no setfacl/getfacl"
	fi
	check "$N_FILES fsynced data files: checksums match after drop_caches" verify_files
}

# flags_of PATH: i_flags of PATH (under $TOP) from debugfs, in decimal.
flags_of() {
	local f
	f=$(debugfs -R "stat ${TOP#"$MNT"}/$1" "$DEV" 2>/dev/null | sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
	echo $((${f:-0}))
}

# layout_ok: on the unmounted device, big/ is hash-indexed (EXT4_INDEX_FL)
# and the xattrs of big/a237 live in an external block ("File ACL").
layout_ok() {
	local fl blk
	fl=$(flags_of big)
	echo "big/: i_flags $(printf 0x%x "$fl"), $(debugfs -R "htree_dump ${TOP#"$MNT"}/big" "$DEV" 2>/dev/null |
		grep -c '^Entry #') htree index entries"
	[ $((fl & 0x1000)) -ne 0 ] || { echo "big/ is not hash-indexed"; return 1; }
	[ -n "$HAVE_XATTR" ] || return 0
	blk=$(debugfs -R "stat ${TOP#"$MNT"}/big/a237_$SFX" "$DEV" 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
	echo "big/a237: xattr block ${blk:-none}"
	[ "${blk:-0}" -gt 0 ]
}

require "mkfs.ext4 -O ea_inode $DEV" mkfs.ext4 -F -q -O ea_inode "$DEV"
say "$(dumpe2fs -h "$DEV" 2>/dev/null | grep -E '^Filesystem features')"
require "mount $DEV on $MNT" mount -t ext4 "$DEV" "$MNT"
say "$(grep " $MNT " /proc/mounts)"
require "memory cgroup nofs-ext4 with memory.max $MEMMAX" memcg_create nofs-ext4 "$MEMMAX"
require "metadata workload in the cgroup ($((2 * N + 2224)) creates, renames, links, unlinks, symlinks, xattrs, ACLs, $N_FILES fsynced files)" \
	memcg_run workload
memcg_report
check "the cgroup hit memory.max and reclaimed" memcg_reclaimed
check "no OOM kill in the cgroup" memcg_no_oom_kill
verify_tree
require "umount $MNT" umount "$MNT"
check "e2fsck -fn: filesystem clean" e2fsck -fn "$DEV"
check "on disk: big/ is htree-indexed, xattrs in an external block" layout_ok
finish
