# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# btrfs-metadata-pressure: btrfs metadata and xattr work in a small memory
# cgroup, so that btrfs allocates inside transaction handles while the
# cgroup is at its memory.max and direct reclaim runs the shrinkers: a
# nested directory tree, one large directory filled by two writers at
# once, hard links, renames (across directories, over existing entries,
# of a directory), unlinks, symlinks, xattrs (inline in the inode item and
# values of several KiB), ACLs inherited at create time, reflinked copies,
# a subvolume and two snapshots of it (their creation runs in the
# transaction commit), and fsynced data files with checksums.  Then:
# evidence that the cgroup reclaimed, no OOM kill; proactive reclaim of
# the cgroup, which must make the shrinkers scan (the workload's own
# scanning is reported, not judged); a compression property on data/; with the caches
# dropped, the tree, xattrs, ACLs, snapshots, the property (read with the
# inode, under the leaf's tree lock) and the checksums of the data files;
# fstrim (FITRIM discards under chunk_mutex); umount, btrfs check.
#
# nofs-disks: 1
N_FILES=${N_FILES:-24}		# fsynced data files (write_files of lib.sh)
MAX_KIB=${MAX_KIB:-1024}
# shellcheck source=lib.sh
. /scenarios/lib.sh

DEV=/dev/vda
MNT=/mnt
TOP=$MNT/vol/meta
N=${N_ENTRIES:-1500}		# files created by each writer in big/
MEMMAX=${MEMMAX:-16M}
SFX=entry-name-long-enough-to-fill-directory-leaves

BODY=$(rep 0123456789 100)
SVAL=$(rep small 4)
MVAL=$(rep abcdefghij 100)
BIGVAL=$(rep ABCDEFGHIJ 300)

xattrs() {
	local i
	step "xattrs: user.s1..s3 (20 bytes), user.m (1000 bytes) on big/a200..a299," \
		"user.big (3000 bytes) on a200..a249, 30 on big/ itself"
	for i in 1 2 3; do
		setfattr -n "user.s$i" -v "$SVAL$i" "$TOP"/big/a2[0-9][0-9]_* || return 1
	done
	setfattr -n user.m -v "$MVAL" "$TOP"/big/a2[0-9][0-9]_* || return 1
	i=200
	while [ $i -le 249 ]; do
		setfattr -n user.big -v "$i$BIGVAL" "$TOP/big/a${i}_$SFX" || return 1
		i=$((i + 1))
	done
	step "remove user.m from a250..a299"
	setfattr -x user.m "$TOP"/big/a2[5-9][0-9]_* || return 1
	i=1
	while [ $i -le 30 ]; do setfattr -n "user.dir$i" -v "$SVAL" "$TOP/big" || return 1; i=$((i + 1)); done
}

workload() {
	local i k rc=0
	step "nested tree: 64 directories, 1024 files"
	tree || return 1
	step "create $N files in big/ twice (two writers at once)"
	create "$TOP/big" a 1 "$N" & k=$!
	create "$TOP/big" b 1 "$N" || rc=1
	wait $k || rc=1
	[ $rc -eq 0 ] || return 1
	step "hard links: links/ -> big/a100..a999 (900)"
	mkdir "$TOP/links" && ln "$TOP"/big/a[1-9][0-9][0-9]_* "$TOP/links/" || return 1
	step "rename big/a1000..a1499 into t/a1/b1/c1 (500, across directories)"
	mv "$TOP"/big/a1[0-4][0-9][0-9]_* "$TOP/t/a1/b1/c1/" || return 1
	step "rename big/b1..b50 over big/b51..b100 (50 replaced entries)"
	i=1
	while [ $i -le 50 ]; do
		mv -f "$TOP/big/b${i}_$SFX" "$TOP/big/b$((i + 50))_$SFX" || return 1
		i=$((i + 1))
	done
	step "rename directory t/a2/b2 to t/a3/moved"
	mv "$TOP/t/a2/b2" "$TOP/t/a3/moved" || return 1
	step "unlink big/b1000..b1499 (500) and big/a100..a199 (100, still linked)"
	rm "$TOP"/big/b1[0-4][0-9][0-9]_* "$TOP"/big/a1[0-9][0-9]_* || return 1
	step "symlinks: sym/ -> big/a200..a299"
	mkdir "$TOP/sym" && (cd "$TOP/sym" && ln -s ../big/a2[0-9][0-9]_* .) || return 1
	if [ -n "$HAVE_XATTR" ]; then
		xattrs || return 1
	else
		step "no setfattr in the initramfs (host package attr): xattrs skipped"
	fi
	if [ -n "$HAVE_ACL" ]; then
		step "ACLs: default ACL on acl/, 200 files created in it"
		mkdir "$TOP/acl" && setfacl -d -m u:1234:rwx,g:5678:rx "$TOP/acl" &&
			create "$TOP/acl" i 1 200 || return 1
	fi
	step "write and fsync $N_FILES data files (1 KiB..$MAX_KIB KiB) in data/"
	mkdir "$TOP/data" && write_files "$TOP/data" || return 1
	step "reflink data/file12 (4 KiB) and data/file20 into clones/"
	mkdir "$TOP/clones" &&
		xfs_io -f -c "reflink $TOP/data/file12" "$TOP/clones/c12" &&
		xfs_io -f -c "reflink $TOP/data/file20" "$TOP/clones/c20" || return 1
	step "snapshots of the subvolume: snap1 now, snap2 after 300 more files"
	btrfs subvolume snapshot "$MNT/vol" "$MNT/snap1" >/dev/null || return 1
	create "$TOP/big" c 1 300 || return 1
	btrfs subvolume snapshot -r "$MNT/vol" "$MNT/snap2" >/dev/null || return 1
	step "sync"
	sync
	step "done"
}

tree_ok() {
	local n d
	n=$(find "$TOP/t" -type f | wc -l)
	d=$(find "$TOP/t" -type d | wc -l)
	echo "t/: $n files (expected 1524), $d directories (expected 85)"
	[ "$n" -eq 1524 ] && [ "$d" -eq 85 ] &&
		[ -f "$TOP/t/a3/moved/c4/f224-16_$SFX" ] && [ ! -e "$TOP/t/a2/b2" ]
}

xattrs_ok() {
	local s m b
	s=$(getfattr --absolute-names -d "$TOP"/big/a2[0-9][0-9]_* | grep -c '^user\.s[1-3]=')
	m=$(getfattr --absolute-names -d "$TOP"/big/a2[0-9][0-9]_* | grep -c '^user\.m=')
	b=$(getfattr --absolute-names -d "$TOP"/big/a2[0-9][0-9]_* | grep -c '^user\.big=')
	echo "big/a2xx: $s user.s* (expected 300), $m user.m (50), $b user.big (50)"
	[ "$(getfattr --absolute-names --only-values -n user.m "$TOP/big/a237_$SFX")" = "$MVAL" ] ||
		{ echo "user.m of a237 differs"; return 1; }
	[ "$(getfattr --absolute-names --only-values -n user.big "$TOP/big/a226_$SFX")" = "226$BIGVAL" ] ||
		{ echo "user.big of a226 differs"; return 1; }
	[ "$(getfattr --absolute-names -d "$TOP/big" | grep -c '^user\.dir')" -eq 30 ] ||
		{ echo "big/ lost some of its 30 xattrs"; return 1; }
	[ "$s" -eq 300 ] && [ "$m" -eq 50 ] && [ "$b" -eq 50 ]
}

acls_ok() {
	local n
	n=$(getfacl -p "$TOP"/acl/i* 2>/dev/null | grep -c '^user:1234:')
	echo "acl/: $n of 200 files inherited user:1234"
	[ "$n" -eq 200 ]
}

clones_ok() {
	cmp "$TOP/data/file12" "$TOP/clones/c12" && cmp "$TOP/data/file20" "$TOP/clones/c20"
}

# prop_ok: data/ has the compression property set before drop_caches
prop_ok() {
	local v
	v=$(btrfs property get "$TOP/data" compression) || return 1
	echo "$v"
	[ "$v" = compression=zstd ]
}

# snapshots_ok: snap1 has big/ without the c files, snap2 with them.
snapshots_ok() {
	local s1 s2 n
	n=$((2 * N - 1150))
	s1=$(find "$MNT/snap1/meta/big" -mindepth 1 | wc -l)
	s2=$(find "$MNT/snap2/meta/big" -mindepth 1 | wc -l)
	echo "snap1/meta/big: $s1 entries (expected $n), snap2: $s2 (expected $((n + 300)))"
	[ "$s1" -eq "$n" ] && [ "$s2" -eq $((n + 300)) ] &&
		cmp "$MNT/snap1/meta/data/file7" "$TOP/data/file7"
}

require "mkfs.btrfs $DEV" mkfs.btrfs -f -q "$DEV"
require "mount $DEV on $MNT" mount -t btrfs "$DEV" "$MNT"
say "$(grep " $MNT " /proc/mounts)"
require "subvolume vol" btrfs subvolume create "$MNT/vol"
mkdir -p "$TOP"
require "memory cgroup nofs-btrfs with memory.max $MEMMAX" memcg_create nofs-btrfs "$MEMMAX"
SCANNED0=$(vmstat slabs_scanned)
require "metadata workload in the cgroup ($((2 * N + 1524)) creates, renames, links, unlinks, symlinks, xattrs, ACLs, reflinks, 2 snapshots, $N_FILES fsynced files)" \
	memcg_run workload
SCANNED1=$(vmstat slabs_scanned)
memcg_report
check "the cgroup hit memory.max and reclaimed" memcg_reclaimed
check "no OOM kill in the cgroup" memcg_no_oom_kill
# The workload's own reclaim may be met from the page cache alone, at
# priorities where the shrinkers are asked to scan nothing (slabs_scanned
# 0 -> 0 in 1 of 13 runs): it is reported, not judged.  Then proactive
# reclaim of the cgroup, from this shell (no scope), for all it holds:
# past its page cache, reclaim must scan its dentries, inodes and extent
# maps, whose btrfs inodes are then evicted from reclaim; that is the
# check.
say "the workload's own reclaim: slabs_scanned $SCANNED0 -> $SCANNED1"
HELD=$(cat "$MEMCG/memory.current")
echo "$HELD" > "$MEMCG/memory.reclaim" 2> /dev/null ||
	say "memory.reclaim reclaimed less than the $HELD bytes asked (EAGAIN)"
SCANNED2=$(vmstat slabs_scanned)
check "proactive memory.reclaim of the cgroup ran the shrinkers (slabs_scanned $SCANNED1 -> $SCANNED2)" \
	test "$SCANNED2" -gt "$SCANNED1"
check "compression property set on data/" btrfs property set "$TOP/data" compression zstd
sync
echo 3 > /proc/sys/vm/drop_caches
check "t/ holds the nested tree and the moved directory" tree_ok
check "big/ holds $((2 * N - 850)) entries" count_is "$TOP/big" $((2 * N - 850))
check "links/ holds 900 entries" count_is "$TOP/links" 900
if [ -n "$HAVE_XATTR" ]; then
	check "xattrs present with their values" xattrs_ok
else
	ok "xattrs present with their values # SKIP no setfattr/getfattr"
fi
if [ -n "$HAVE_ACL" ]; then
	check "ACLs inherited" acls_ok
else
	ok "ACLs inherited # SKIP no setfacl/getfacl"
fi
check "reflinked copies equal their sources" clones_ok
check "snapshots hold the subvolume as it was" snapshots_ok
check "$N_FILES fsynced data files: checksums match after drop_caches" verify_files
check "the property read back with the inode after drop_caches" prop_ok
check "fstrim discards the free space (FITRIM)" fstrim -v "$MNT"
require "umount $MNT" umount "$MNT"
check "btrfs check: filesystem clean" btrfs check --readonly "$DEV"
finish
