# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# scrub: online scrub (and the repair entry points) of a populated
# filesystem with reflink, rmap and all three quota types: files of many
# sizes, sparse and fragmented files (extent btree), unwritten extents,
# holes, reflinked and deduped ranges, a directory large enough for the
# node format, inline and remote symlinks, hard links, fifos and device
# nodes, xattrs in every attr fork format (shortform, leaf, remote values,
# node) and ACLs.  Then xfs_scrub -n (must exit 0), xfs_scrub -n -v -x
# (summarised; -x reads all file data back), xfs_scrub in repair mode
# (preen, repairs if needed, FITRIM), with XFS_SCRUB_FORCE_REPAIR (a
# repair call for every object, which must happen: the kernel's repair
# setup runs, though on clean metadata it rebuilds nothing, as the
# rebuild tracepoints show) and a forced rebuild of every AG's free
# space, inode, rmap and refcount btrees (xfs-force-rebuild, since
# xfsprogs 6.1 cannot set XFS_SCRUB_IFLAG_FORCE_REBUILD: new btree blocks
# must be written, where a plain repair call writes none), in a memory
# cgroup whose memory.high (MEMHIGH) is below what those runs use, so that
# they are reclaimed as they go (memory.max would OOM-kill them: their
# inode allocations come in transactions); then data checksums, umount,
# xfs_repair -n.
#
# nofs-disks: 1
# shellcheck source=lib.sh
. /scenarios/lib.sh

DEV=/dev/vda
MNT=/mnt
T=$MNT/pop
OUT=/tmp/scrub.out
MEMHIGH=${MEMHIGH:-5M}

# xfs_io_each FILE CMD-FORMAT FIRST LAST STEP: one xfs_io with a -c for
# each i, CMD-FORMAT being a printf format of i.
xfs_io_each() {
	local f=$1 fmt=$2 i=$3 last=$4 step=$5
	set --
	while [ "$i" -le "$last" ]; do
		# shellcheck disable=SC2059 # the format is the argument
		set -- "$@" -c "$(printf "$fmt" "$i")"
		i=$((i + step))
	done
	[ $# -gt 0 ] && xfs_io -f "$@" "$f" < /dev/null
}

# attr_dump FILE PREFIX N VALUE: a setfattr --restore file setting
# N xattrs PREFIX1..PREFIXN on FILE.
attr_dump() {
	local i=1
	echo "# file: $1"
	while [ $i -le "$3" ]; do echo "user.$2$i=\"$4\""; i=$((i + 1)); done
	echo
}

populate() {
	local i v
	mkdir -p "$T/files/a/b/c" "$T/big" "$T/sparse" "$T/links" "$T/attrs" \
		"$T/special" "$T/proj" || return 1
	N_FILES=40 MAX_KIB=1024
	write_files "$T/files" "$T/files/a" "$T/files/a/b" \
		"$T/files/a/b/c" || return 1
	echo "40 files, $BYTES_WRITTEN bytes, in a 4-level tree"
	i=1
	while [ $i -le 3000 ]; do
		: > "$T/big/entry-with-a-longish-name-$i" || return 1
		i=$((i + 1))
	done
	rm "$T"/big/entry-with-a-longish-name-*7 || return 1
	echo "big/: 3000 entries created, 300 removed (node directory with free space)"
	xfs_io_each "$T/sparse/frag" "pwrite -q %d 4096" 0 $((8192 * 299)) 8192 &&
		xfs_io -c fsync "$T/sparse/frag" || return 1
	echo "sparse/frag: 300 separate 4 KiB extents (extent btree)"
	xfs_io -f -c "pwrite -q 0 4m" -c fsync "$T/sparse/holes" &&
		xfs_io_each "$T/sparse/holes" "fpunch %d 16384" 0 $((65536 * 63)) 65536 &&
		xfs_io -f -c "falloc 0 2m" -c "pwrite -q 65536 4096" "$T/sparse/unwritten" &&
		xfs_io -f -c "truncate 1g" -c "pwrite -q 500m 8192" "$T/sparse/huge-hole" || return 1
	echo "sparse/: 64 punched holes, unwritten extents, a 1 GiB file with one block"
	xfs_io -f -c "reflink $T/files/file12" "$T/links/whole" &&
		xfs_io -f -c "reflink $T/files/a/file9 4096 8192 65536" \
			-c "pwrite -q 0 4096" "$T/links/part" &&
		cp "$T/sparse/holes" "$T/links/dup1" && cp "$T/sparse/holes" "$T/links/dup2" &&
		xfs_io -c "dedupe $T/links/dup1 0 0 1m" "$T/links/dup2" &&
		xfs_io -c "pwrite -q 8192 4096" "$T/links/whole" || return 1
	ln "$T/files/file0" "$T/links/hard0" && ln "$T/files/file0" "$T/links/hard1" &&
		ln -s ../files/a/file1 "$T/links/short" &&
		ln -s "$(rep ./ 300)../files/a/b/file2" "$T/links/remote" &&
		mkfifo "$T/special/fifo" && mknod "$T/special/null" c 1 3 &&
		mknod "$T/special/loop" b 7 0 || return 1
	echo "links/: reflinked whole and partial copies with CoW, a deduped 1 MiB," \
		"hard links, inline and remote symlinks; special/: fifo, devices"
	cat "$T/links/short" "$T/links/remote" > /dev/null || return 1
	if [ -n "$HAVE_XATTR" ]; then
		v=$(rep abcdefghij 10)
		: > "$T/attrs/sf" && setfattr -n user.one -v 1 "$T/attrs/sf" &&
			head -c 20000 /dev/urandom > "$T/attrs/leaf" &&
			attr_dump "$T/attrs/leaf" l 30 "$v" > /tmp/attrs.leaf &&
			setfattr --restore=/tmp/attrs.leaf &&
			head -c 8192 /dev/urandom > "$T/attrs/remote" &&
			setfattr -n user.remote -v "$(rep "$v" 40)" "$T/attrs/remote" &&
			head -c 8192 /dev/urandom > "$T/attrs/node" &&
			attr_dump "$T/attrs/node" n 600 "$v" > /tmp/attrs.node &&
			setfattr --restore=/tmp/attrs.node &&
			setfattr -n user.dir -v "$v" "$T/big" || return 1
		echo "attrs/: shortform, leaf (30), remote (4000 bytes) and node (600) xattrs"
	else
		echo "no setfattr in the initramfs (host package attr): xattrs skipped"
	fi
	if [ -n "$HAVE_ACL" ]; then
		setfacl -m u:1000:rwx,g:100:rx "$T/files/a/b/c/file3" &&
			setfacl -d -m u:1000:rwx "$T/files/a" &&
			: > "$T/files/a/inherits-acl" || return 1
		echo "ACLs: access ACL on files/a/b/c/file3, default ACL on files/a"
	fi
	xfs_quota -x -c "project -s -p $T/proj 7" "$MNT" > /dev/null &&
		head -c 100000 /dev/urandom > "$T/proj/f" &&
		chown 1234:5678 "$T/files/file4" || return 1
	echo "project 7 tree, a file owned by 1234:5678"
	sync
}

# scrub_ok ARGS...: xfs_scrub ARGS $MNT with its output in $OUT.
scrub_ok() {
	local rc=0
	xfs_scrub "$@" "$MNT" > "$OUT" 2>&1 || rc=$?
	grep -viE '^(EXPERIMENTAL|Phase [0-9]|Info: .*(Optimizations|optimized))' "$OUT" | tail -n 15
	echo "xfs_scrub $*: exit status $rc, $(wc -l < "$OUT") lines of output"
	return $rc
}

scrub_verbose() {
	scrub_ok -n -v -x || return 1
	grep -E '^Phase [0-9]|used|found|checked|verif' "$OUT" | head -n 20
}

# force_repair: every object gets a repair call.  On clean metadata the
# kernel rebuilds nothing (xfsprogs 6.1 cannot set the force-rebuild
# flag); the xrep_dir_rebuild_tree / xrep_xattr_rebuild_tree tracepoints
# count what was rebuilt, so the log says so rather than implying it.
TR=/sys/kernel/debug/tracing
force_repair() {
	local ev n_calls n_rebuilt
	for ev in xrep_dir_rebuild_tree xrep_xattr_rebuild_tree; do
		[ -d $TR/events/xfs_scrub/$ev ] || { echo "no $ev tracepoint"; return 1; }
		echo 1 > $TR/events/xfs_scrub/$ev/enable
	done
	echo > $TR/trace
	XFS_SCRUB_FORCE_REPAIR=1 scrub_ok -d -k || return 1
	n_calls=$(grep -c 'Attempting repair' "$OUT")
	n_rebuilt=$(grep -cE 'xrep_(dir|xattr)_rebuild_tree:' $TR/trace)
	echo "$n_calls repair calls, $n_rebuilt directory or xattr trees rebuilt (tracepoints)"
	[ "$n_calls" -gt 0 ]
}

# rebuild [-n]: xfs-force-rebuild [-n] on the AG btrees of every AG, and
# the number of btree blocks the bulk loader wrote meanwhile (the
# xfs_btree_bload_block tracepoint) in $BLOCKS.
AG_BTREES="bnobt cntbt inobt finobt rmapbt refcountbt"
rebuild() {
	local ags rc=0 ev=$TR/events/xfs/xfs_btree_bload_block
	ags=$(xfs_io -c statfs "$MNT" | sed -n 's/^geom.agcount = //p')
	[ -n "$ags" ] || { echo "no geom.agcount from xfs_io statfs"; return 1; }
	[ -d $ev ] || { echo "no xfs_btree_bload_block tracepoint"; return 1; }
	echo 1 > $ev/enable
	echo > $TR/trace
	# shellcheck disable=SC2086 # a list of btree types
	xfs-force-rebuild "$@" "$MNT" "$ags" $AG_BTREES > "$OUT" 2>&1 || rc=$?
	echo 0 > $ev/enable
	BLOCKS=$(grep -c 'xfs_btree_bload_block:' $TR/trace)
	grep -v ': ok, ' "$OUT" | head -n 10
	echo "xfs-force-rebuild${1:+ $1}: $(grep -c ': ok, ' "$OUT") of" \
		"$(wc -l < "$OUT") calls ok, $BLOCKS btree blocks written (tracepoint)"
	return $rc
}

# plain_repair_writes_nothing: the control of forced_rebuild
plain_repair_writes_nothing() { rebuild -n && [ "$BLOCKS" -eq 0 ]; }
forced_rebuild() { rebuild && [ "$BLOCKS" -gt 0 ]; }

high_reclaimed() {
	local n
	n=$(memcg_val memory.events high)
	echo "memory.events high=$n, memory.peak $(cat "$MEMCG/memory.peak")"
	[ "$n" -gt 0 ]
}

require "mkfs.xfs -m reflink=1,rmapbt=1 $DEV" mkfs.xfs -f -m reflink=1,rmapbt=1 "$DEV"
require "mount $DEV on $MNT with uquota,gquota,pquota" \
	mount -t xfs -o uquota,gquota,pquota "$DEV" "$MNT"
require "populate $T" populate
check "xfs_scrub -n: clean, exit 0" scrub_ok -n
check "xfs_scrub -n -v -x (file data read too): clean" scrub_verbose
check "xfs_scrub (repair mode, FITRIM): exit 0" scrub_ok
require "memory cgroup nofs-scrub with memory.high $MEMHIGH" memcg_create nofs-scrub max
echo "$MEMHIGH" > "$MEMCG/memory.high"
echo 3 > /proc/sys/vm/drop_caches
check "XFS_SCRUB_FORCE_REPAIR=1 xfs_scrub -d -k in the cgroup: exit 0, repair calls made" \
	memcg_run force_repair
check "repair calls without the force-rebuild flag: all ok, no btree block written" \
	memcg_run plain_repair_writes_nothing
check "forced rebuild of the AG btrees in the cgroup: all ok, new btree blocks written" \
	memcg_run forced_rebuild
memcg_report
check "the cgroup went over memory.high and was reclaimed" high_reclaimed
check "no OOM kill in the cgroup" memcg_no_oom_kill
check "xfs_scrub -n after the repair runs: clean" scrub_ok -n
check "file checksums unchanged" verify_files
require "umount $MNT" umount "$MNT"
check "xfs_repair -n: filesystem clean" xfs_repair -n "$DEV"
finish
