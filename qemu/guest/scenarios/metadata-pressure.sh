# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# metadata-pressure: a metadata-heavy workload in a small memory cgroup,
# so that XFS allocates in transactions while the cgroup is at its
# memory.max and direct reclaim runs: creates in two large directories
# (two writers at once), hard links, renames (across directories and over
# existing entries), unlinks, short and long symlinks, xattrs and ACLs.
# Then: evidence that the cgroup reclaimed, a manifest of the tree,
# umount, xfs_repair -n, remount, the expected entry counts and the same
# manifest.
#
# nofs-disks: 1
# shellcheck source=lib.sh
. /scenarios/lib.sh

DEV=/dev/vda
MNT=/mnt
TOP=$MNT/meta
N=${N_ENTRIES:-5000}		# files created in each of d0 and d1 (3000..9999)
MEMMAX=${MEMMAX:-32M}
MANIFEST=/tmp/manifest

# Values: a 1000-byte file body, a 200-byte xattr value, a 3000-byte one
# (stored out of the attr leaf, in remote value blocks) and a 700-byte
# symlink target (too long for the inode: a remote symlink).
BODY=$(rep 0123456789 100)
VAL=$(rep abcdefghij 20)
BIGVAL=$(rep ABCDEFGHIJ 300)
LONGT=$(rep long/path/ 70)

# create DIR PREFIX FIRST LAST: files PREFIX<i> of about 1 KiB, built-ins only.
create() {
	local i=$3
	mkdir -p "$1" || return 1
	while [ "$i" -le "$4" ]; do
		printf '%s %s\n' "$2$i" "$BODY" > "$1/$2$i" || return 1
		i=$((i + 1))
	done
}

workload() {
	local i k rc=0
	step "create $N files in d0 and in d1 (two writers at once)"
	create "$TOP/d0" a 1 "$N" & k=$!
	create "$TOP/d1" b 1 "$N" || rc=1
	wait $k || rc=1
	[ $rc -eq 0 ] || return 1
	step "hard links: links/a100..a999 -> d0/a100..a999 (900)"
	mkdir "$TOP/links" && ln "$TOP"/d0/a[1-9][0-9][0-9] "$TOP/links/" || return 1
	step "rename d0/a1000..a1999 into d1 (1000, across directories)"
	mv "$TOP"/d0/a1[0-9][0-9][0-9] "$TOP/d1/" || return 1
	step "rename d0/a300..a399 to d0/r300..r399 (100, hard-linked files)"
	i=300
	while [ $i -le 399 ]; do mv "$TOP/d0/a$i" "$TOP/d0/r$i" || return 1; i=$((i + 1)); done
	step "rename d1/b1..b50 over d1/b51..b100 (50 replaced entries)"
	i=1
	while [ $i -le 50 ]; do mv -f "$TOP/d1/b$i" "$TOP/d1/b$((i + 50))" || return 1; i=$((i + 1)); done
	step "unlink d1/b2000..b2999 (1000) and d0/a100..a199 (100, still linked)"
	rm "$TOP"/d1/b2[0-9][0-9][0-9] "$TOP"/d0/a1[0-9][0-9] || return 1
	step "symlinks: sym/a200..a299 -> ../d0/a200..a299, sym/long1..long40 (remote)"
	mkdir "$TOP/sym" && (cd "$TOP/sym" && ln -s ../d0/a2[0-9][0-9] .) || return 1
	i=1
	while [ $i -le 40 ]; do ln -s "$LONGT$i" "$TOP/sym/long$i" || return 1; i=$((i + 1)); done
	if [ -n "$HAVE_XATTR" ]; then
		step "xattrs: user.k1..k6 (200 bytes) on d0/a200..a299, remove user.k1," \
			"user.big (3000 bytes) on d0/a200..a259, 30 names on d1"
		for k in 1 2 3 4 5 6; do
			setfattr -n "user.k$k" -v "$VAL$k" "$TOP"/d0/a2[0-9][0-9] || return 1
		done
		setfattr -x user.k1 "$TOP"/d0/a2[0-9][0-9] || return 1
		setfattr -n user.big -v "$BIGVAL" "$TOP"/d0/a2[0-5][0-9] || return 1
		i=1
		while [ $i -le 30 ]; do setfattr -n "user.dir$i" -v "$VAL" "$TOP/d1" || return 1; i=$((i + 1)); done
	else
		step "no setfattr in the initramfs (host package attr): xattrs skipped"
	fi
	if [ -n "$HAVE_ACL" ]; then
		step "ACLs: u:1234:rw on d0/a400..a499, default ACL on d1"
		setfacl -m u:1234:rw,g:5678:r "$TOP"/d0/a4[0-9][0-9] &&
			setfacl -d -m u:1234:rwx "$TOP/d1" || return 1
	fi
	step "create d1/c1..c1000 (1000, into a directory with freed slots)"
	create "$TOP/d1" c 1 1000 || return 1
	step "sync"
	sync
	step "done"
}

# manifest: name, type, link count, size and the data checksum of every
# entry under $TOP, sorted.
manifest() {
	(cd "$TOP" && find . -exec stat -c '%n %F %h %s' {} + | sort) > "$MANIFEST.new" &&
	(cd "$TOP" && find . -type f -exec sha256sum {} + | sort -k 2) >> "$MANIFEST.new"
}

count_is() {	# DIR EXPECTED
	local n
	n=$(find "$1" -mindepth 1 -maxdepth 1 | wc -l)
	echo "$1: $n entries, expected $2"
	[ "$n" -eq "$2" ]
}

nlinks_are() {	# expected counts of link count 1 and 2 in links/
	local n1 n2
	n1=$(stat -c %h "$TOP"/links/* | grep -c '^1$')
	n2=$(stat -c %h "$TOP"/links/* | grep -c '^2$')
	echo "links/: $n1 with 1 link (expected $1), $n2 with 2 (expected $2)"
	[ "$n1" -eq "$1" ] && [ "$n2" -eq "$2" ]
}

symlinks_ok() {
	local n t
	n=$(cat "$TOP"/sym/a2[0-9][0-9] | wc -l)
	echo "read $n files through sym/a200..a299 (expected 100)"
	[ "$n" -eq 100 ] || return 1
	t=$(readlink "$TOP/sym/long17")
	[ "$t" = "${LONGT}17" ] || { echo "sym/long17 -> '$t'"; return 1; }
	echo "sym/long17 target intact (${#t} bytes)"
}

xattrs_ok() {
	local n b v
	n=$(getfattr --absolute-names -d "$TOP"/d0/a2[0-9][0-9] | grep -c '^user\.k[1-6]=')
	b=$(getfattr --absolute-names -d "$TOP"/d0/a2[0-9][0-9] | grep -c '^user\.big=')
	v=$(getfattr --absolute-names --only-values -n user.big "$TOP/d0/a237")
	echo "d0/a2xx: $n user.k* xattrs (expected 500), $b user.big (expected 60)"
	[ "$v" = "$BIGVAL" ] || { echo "user.big of d0/a237 differs (${#v} bytes)"; return 1; }
	[ "$(getfattr --absolute-names --only-values -n user.k4 "$TOP/d0/a288")" = "${VAL}4" ] ||
		{ echo "user.k4 of d0/a288 differs"; return 1; }
	[ "$(getfattr --absolute-names -d "$TOP/d1" | grep -c '^user\.dir')" -eq 30 ] ||
		{ echo "d1 lost some of its 30 xattrs"; return 1; }
	[ "$n" -eq 500 ] && [ "$b" -eq 60 ]
}

acls_ok() {
	getfacl -p "$TOP/d0/a456" | grep -q '^user:1234:rw-' &&
		getfacl -p "$TOP/d1" | grep -q '^default:user:1234:rwx'
}

verify_tree() {
	check "d0 holds $((N - 1100)) entries" count_is "$TOP/d0" $((N - 1100))
	check "d1 holds $((N + 950)) entries" count_is "$TOP/d1" $((N + 950))
	check "links/ holds 900 entries" count_is "$TOP/links" 900
	check "link counts: 100 orphaned links, 800 shared" nlinks_are 100 800
	check "sym/ holds 140 entries" count_is "$TOP/sym" 140
	check "symlinks resolve, remote symlink target intact" symlinks_ok
	if [ -n "$HAVE_XATTR" ]; then
		check "xattrs present with their values" xattrs_ok
	else
		ok "xattrs present with their values # SKIP no setfattr/getfattr"
	fi
	if [ -n "$HAVE_ACL" ]; then
		check "ACLs present" acls_ok
	else
		ok "ACLs present # SKIP no setfacl/getfacl"
	fi
}

same_manifest() {
	manifest || return 1
	if ! cmp -s "$MANIFEST" "$MANIFEST.new"; then
		diff "$MANIFEST" "$MANIFEST.new" | head -n 20
		return 1
	fi
	echo "$(wc -l < "$MANIFEST") manifest lines unchanged"
}

require "mkfs.xfs $DEV" mkfs.xfs -f "$DEV"
require "mount $DEV on $MNT" mount -t xfs "$DEV" "$MNT"
require "memory cgroup nofs-meta with memory.max $MEMMAX" memcg_create nofs-meta "$MEMMAX"
require "metadata workload in the cgroup ($((2 * N + 1000)) creates, renames, links, unlinks, symlinks, xattrs)" \
	memcg_run workload
memcg_report
check "the cgroup hit memory.max and reclaimed" memcg_reclaimed
check "no OOM kill in the cgroup" memcg_no_oom_kill
verify_tree
require "record a manifest of $TOP" manifest
mv "$MANIFEST.new" "$MANIFEST"
say "manifest: $(grep -c ' regular file ' "$MANIFEST") files, $(grep -c ' directory ' "$MANIFEST") directories, $(grep -c ' symbolic link ' "$MANIFEST") symlinks"
require "umount $MNT" umount "$MNT"
check "xfs_repair -n: filesystem clean" xfs_repair -n "$DEV"
require "mount $DEV again" mount -t xfs "$DEV" "$MNT"
verify_tree
check "manifest (names, link counts, sizes, checksums) unchanged after remount" same_manifest
require "umount $MNT" umount "$MNT"
finish
