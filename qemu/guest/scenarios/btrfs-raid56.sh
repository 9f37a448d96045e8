# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# btrfs-raid56: RAID5 on three disks, through its read-modify-write,
# parity scrub and degraded recovery, under memory pressure.  Data is
# RAID5 and compressed (compress-force=zstd: every write goes through the
# compression workers), metadata RAID1.  In a small memory cgroup: fsynced
# files of odd sizes and small overwrites inside them (partial stripes, so
# every write reads the rest of its stripe and rewrites parity), then a
# scrub (which checks the parity of every full stripe), and compressible
# files in a read-only snapshot sent with --compressed-data (encoded reads
# of the compressed extents).  Then the start of
# the third disk is wiped (its superblock and first mirror), the
# filesystem is mounted degraded from the other two, and every file is
# read back, in the cgroup, through reconstruction from parity.  Checked:
# the cgroup reclaimed, no OOM kill, the scrub found no errors, every
# checksum matches after the overwrites and again from the degraded mount.
#
# nofs-disks: 3
N_FILES=${N_FILES:-40}
MAX_KIB=${MAX_KIB:-4096}
# shellcheck source=lib.sh
. /scenarios/lib.sh

MNT=/mnt
D=$MNT/d
MEMMAX=${MEMMAX:-16M}

# overwrite: 4 KiB of new data at an odd offset in every third file, each
# fsynced, and the checksums recorded again
overwrite() {
	local i=0 f
	while [ $i -lt "$N_FILES" ]; do
		f=$D/file$i
		if [ -f "$f" ] && [ $((i % 3)) -eq 0 ]; then
			xfs_io -c "pwrite -q -S 0x5a $(( (i * 1237) % 2048 )) 4096" \
				-c fsync "$f" || return 1
		fi
		i=$((i + 1))
	done
	: > "$SUMS"
	i=0
	while [ $i -lt "$N_FILES" ]; do
		sha256sum "$D/file$i" >> "$SUMS" || return 1
		i=$((i + 1))
	done
}

write_and_scrub() {
	mkdir -p "$D" || return 1
	step "write and fsync $N_FILES files (partial RAID5 stripes)"
	write_files "$D" || return 1
	step "overwrite 4 KiB inside every third file (read-modify-write)"
	overwrite || return 1
	sync
	step "scrub (data and parity)"
	btrfs scrub start -B "$MNT" > /tmp/scrub.out 2>&1
	cat /tmp/scrub.out
}

# read_degraded: every file read back from disk through reconstruction
# send_compressed: compressible files, then a read-only snapshot sent with
# --compressed-data, which reads their compressed extents as they are on
# disk (encoded reads, btrfs_encoded_read_regular_fill_pages())
send_compressed() {
	local i=0 bytes
	mkdir -p "$MNT/c" || return 1
	while [ $i -lt 8 ]; do
		yes "nofs-scope $i" | head -c 524288 > "$MNT/c/text$i" || return 1
		i=$((i + 1))
	done
	sync
	btrfs subvolume snapshot -r "$MNT" "$MNT/snap" > /dev/null || return 1
	echo 3 > /proc/sys/vm/drop_caches
	bytes=$(btrfs send -q --compressed-data "$MNT/snap" | wc -c)
	echo "# send stream: $bytes bytes"
	[ "$bytes" -gt 0 ]
}

read_degraded() {
	step "read every file back from the degraded filesystem"
	verify_files
}

require "mkfs.btrfs -d raid5 -m raid1 on vda, vdb and vdc" \
	mkfs.btrfs -f -q -d raid5 -m raid1 /dev/vda /dev/vdb /dev/vdc
require "btrfs device scan" btrfs device scan
require "mount on $MNT, data compressed" mount -t btrfs -o compress-force=zstd /dev/vda "$MNT"
require "memory cgroup nofs-raid56 with memory.max $MEMMAX" memcg_create nofs-raid56 "$MEMMAX"
echo 3 > /proc/sys/vm/drop_caches
require "writes, overwrites and a scrub in the cgroup" memcg_run write_and_scrub
check "scrub found no errors" btrfs_scrub_clean
check "$N_FILES files after the overwrites: checksums match" verify_files
check "send --compressed-data of a read-only snapshot (encoded reads)" \
	memcg_run send_compressed
require "umount $MNT" umount "$MNT"
require "wipe vdc (the third device is gone)" \
	dd if=/dev/zero of=/dev/vdc bs=1M count=65 status=none
require "forget the scanned devices" btrfs device scan --forget
require "mount degraded from vda and vdb" \
	mount -t btrfs -o degraded,device=/dev/vdb /dev/vda "$MNT"
check "the filesystem is degraded" btrfs_degraded "$MNT"
check "$N_FILES files from the degraded filesystem: checksums match" \
	memcg_run read_degraded
memcg_report
check "the cgroup hit memory.max and reclaimed" memcg_reclaimed
check "no OOM kill in the cgroup" memcg_no_oom_kill
require "umount $MNT" umount "$MNT"
finish
