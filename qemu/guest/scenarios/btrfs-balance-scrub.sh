# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# btrfs-balance-scrub: relocation and scrub of a two-device btrfs under
# memory pressure.  Data and metadata are RAID1 over two disks; files,
# reflinks and a snapshot share extents, so that relocation walks backrefs
# and COWs shared tree blocks.  In a small memory cgroup, while a writer
# keeps adding files and fsyncing them: fiemap of the reflinked copies and
# a send and receive of the snapshot (backref walks under commit_root_sem),
# a full balance (every block group relocated, in transactions of its
# own), then a scrub (every copy read and checked against its checksum,
# while the writer's transactions commit and pause it).  Then: the cgroup
# reclaimed, no OOM kill, balance relocated block groups, scrub found no
# errors, the copies share extents and the received snapshot matches, the
# checksums of the files match, btrfs check is clean.
#
# nofs-disks: 2
N_FILES=${N_FILES:-48}
MAX_KIB=${MAX_KIB:-8192}
# shellcheck source=lib.sh
. /scenarios/lib.sh

MNT=/mnt
D=$MNT/vol/d
MEMMAX=${MEMMAX:-12M}

populate() {
	local i
	mkdir -p "$D/data" "$D/clones" "$D/small" || return 1
	step "write and fsync $N_FILES data files (1 KiB..$MAX_KIB KiB)"
	write_files "$D/data" || return 1
	step "reflink data/file10..file19 into clones/, 2000 small files"
	i=10
	while [ $i -lt 20 ]; do
		xfs_io -f -c "reflink $D/data/file$i" "$D/clones/c$i" >/dev/null || return 1
		i=$((i + 1))
	done
	i=0
	while [ $i -lt 2000 ]; do echo "small $i" > "$D/small/s$i" || return 1; i=$((i + 1)); done
	btrfs subvolume snapshot -r "$MNT/vol" "$MNT/snap" >/dev/null || return 1
	sync
}

# writer: files with fsync until /tmp/stop-writer exists
writer() {
	local i=0
	mkdir -p "$D/w"
	while [ ! -e /tmp/stop-writer ]; do
		head -c 16384 /dev/urandom > "$D/w/f$i" && xfs_io -c fsync "$D/w/f$i" || return 1
		i=$((i + 1))
	done
	echo "writer: $i files"
}

# send_receive: the read-only snapshot sent to a stream on the filesystem
# and received back (send walks the backrefs of every shared extent)
send_receive() {
	step "send the snapshot, receive it into recv/"
	mkdir -p "$MNT/recv" || return 1
	btrfs send -q -f "$MNT/snap.stream" "$MNT/snap" || return 1
	btrfs receive -q -f "$MNT/snap.stream" "$MNT/recv" || return 1
	rm -f "$MNT/snap.stream"
}

pressure() {
	local w rc=0
	writer & w=$!
	step "fiemap of the reflinked copies (backref walks)"
	fiemap_shared > /tmp/fiemap.out 2>&1 || rc=1
	send_receive || rc=1
	step "full balance (data and metadata)"
	btrfs balance start --full-balance "$MNT" || rc=1
	step "scrub, both devices"
	btrfs scrub start -B "$MNT" > /tmp/scrub.out 2>&1 || rc=1
	cat /tmp/scrub.out
	touch /tmp/stop-writer
	wait $w || rc=1
	return $rc
}

# fiemap_shared: every reflinked copy (but the small ones, whose data is
# inline in the tree and copied) has an extent flagged shared
# (FIEMAP_EXTENT_SHARED, 0x2000), which btrfs finds by walking backrefs
fiemap_shared() {
	local i=9 f flags shared
	while [ $i -lt 19 ]; do
		i=$((i + 1))
		[ "$(stat -c %s "$D/clones/c$i")" -gt 4096 ] || continue
		f=$(xfs_io -c "fiemap -v" "$D/clones/c$i" | awk '$1 ~ /^[0-9]+:$/ { print $NF }')
		echo "c$i: $f"
		shared=
		for flags in $f; do
			[ $((flags & 0x2000)) -eq 0 ] || shared=1
		done
		[ -n "$shared" ] || return 1
	done
}

received() {
	cat /tmp/fiemap.out
	cmp "$MNT/snap/d/data/file12" "$MNT/recv/snap/d/data/file12" &&
		[ "$(cat "$MNT/recv/snap/d/small/s1234")" = "small 1234" ]
}

relocated() {
	local n
	n=$(dmesg | grep -c 'relocating block group')
	echo "$n block groups relocated"
	[ "$n" -gt 0 ]
}

clones_ok() {
	local i=10
	while [ $i -lt 20 ]; do
		cmp "$D/data/file$i" "$D/clones/c$i" || return 1
		i=$((i + 1))
	done
	[ "$(cat "$MNT/snap/d/small/s1234")" = "small 1234" ]
}

require "mkfs.btrfs -d raid1 -m raid1 on vda and vdb" mkfs.btrfs -f -q -d raid1 -m raid1 /dev/vda /dev/vdb
require "btrfs device scan" btrfs device scan
require "mount on $MNT" mount -t btrfs -o device=/dev/vdb /dev/vda "$MNT"
require "subvolume vol" btrfs subvolume create "$MNT/vol"
require "files, reflinks, small files and a snapshot" populate
require "memory cgroup nofs-btrfs with memory.max $MEMMAX" memcg_create nofs-btrfs "$MEMMAX"
echo 3 > /proc/sys/vm/drop_caches
require "balance and scrub in the cgroup, beside an fsync writer" memcg_run pressure
memcg_report
check "the cgroup hit memory.max and reclaimed" memcg_reclaimed
check "no OOM kill in the cgroup" memcg_no_oom_kill
check "balance relocated block groups" relocated
check "scrub found no errors" btrfs_scrub_clean
check "reflinked copies and the snapshot intact" clones_ok
check "fiemap shows shared extents; the received snapshot matches" received
check "$N_FILES fsynced data files: checksums match" verify_files
require "umount $MNT" umount "$MNT"
check "btrfs check: filesystem clean" btrfs check --readonly /dev/vda
finish
