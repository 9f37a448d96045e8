# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# btrfs-mount-paths: the mount-time paths whose allocations
# btrfs-conversion converts without a scope of their own (patches 17, 18
# and 22).  RAID1 data and metadata on two disks.  In order: files
# written under -o ref_verify (every extent reference recorded under its
# handle); a balance paused and the filesystem remounted with -o
# ref_verify,skip_balance, so that mount reads the balance item
# (btrfs_recover_balance()) and ref-verify walks the whole extent tree;
# the balance cancelled and more files written; then the second disk
# wiped and the filesystem mounted degraded, so that the system chunk
# array names a missing device (add_missing_dev() under chunk_mutex, in
# the scope of btrfs_read_sys_array()) and the chunk tree is read under
# uuid_mutex alone.  Checked: ref-verify found nothing and stayed on,
# the balance was recovered paused, the degraded filesystem shows the
# missing device and every file reads back.  Lockdep and the debug
# option judge the allocation contexts; make verify-conversions reports
# each site.
#
# nofs-disks: 2
N_FILES=${N_FILES:-48}
# shellcheck source=lib.sh
. /scenarios/lib.sh

MNT=/mnt
D=$MNT/d

# ref_verify_clean: ref-verify disables itself (and drops the option
# from the mount) when it finds a bad reference, and reports it as a
# btrfs error
ref_verify_clean() {
	grep " $MNT btrfs " /proc/mounts
	grep " $MNT btrfs " /proc/mounts | grep -q ref_verify || return 1
	! dmesg | grep -E 'BTRFS (error|critical)'
}

# pause_balance: start a full balance in the background and pause it; a
# balance that finished before the pause is started again (3 tries)
pause_balance() {
	local try=1
	while [ $try -le 3 ]; do
		btrfs balance start --full-balance --bg "$MNT" || return 1
		btrfs balance pause "$MNT" 2>&1
		btrfs balance status "$MNT" | tee /tmp/balance.out
		grep -q 'is paused' /tmp/balance.out && return 0
		try=$((try + 1))
	done
	return 1
}

balance_paused() {
	btrfs balance status "$MNT" | tee /tmp/balance.out
	grep -q 'is paused' /tmp/balance.out
}

write_more() {
	local i=0
	mkdir -p "$MNT/more" || return 1
	while [ $i -lt 16 ]; do
		head -c $((i * 4096 + 100)) /dev/urandom > "$MNT/more/f$i" || return 1
		i=$((i + 1))
	done
	sync
}

require "mkfs.btrfs -d raid1 -m raid1 on vda and vdb" \
	mkfs.btrfs -f -q -d raid1 -m raid1 /dev/vda /dev/vdb
require "btrfs device scan" btrfs device scan
require "mount -o ref_verify" mount -t btrfs -o ref_verify /dev/vda "$MNT"
require "mkdir $D" mkdir -p "$D"
step "write $N_FILES files under ref_verify"
require "write and fsync $N_FILES files" write_files "$D"
check "ref-verify found nothing while writing" ref_verify_clean
require "umount $MNT" umount "$MNT"
require "mount" mount -t btrfs /dev/vda "$MNT"
step "start a full balance and pause it"
require "a full balance, paused" pause_balance
require "umount with the balance paused" umount "$MNT"
step "mount: recover the balance item and walk the extent tree for ref-verify"
require "mount -o ref_verify,skip_balance" \
	mount -t btrfs -o ref_verify,skip_balance /dev/vda "$MNT"
check "mount recovered the paused balance" balance_paused
check "ref-verify found nothing in the extent tree at mount" ref_verify_clean
check "cancel the balance" btrfs balance cancel "$MNT"
check "write 16 more files under ref_verify" write_more
check "ref-verify found nothing after the cancel and the writes" ref_verify_clean
check "$N_FILES files: checksums match" verify_files
require "umount $MNT" umount "$MNT"
require "wipe vdb (the second device is gone)" \
	dd if=/dev/zero of=/dev/vdb bs=1M count=65 status=none
require "forget the scanned devices" btrfs device scan --forget
step "mount degraded: the system chunk array names a missing device"
require "mount degraded from vda" mount -t btrfs -o degraded /dev/vda "$MNT"
check "the filesystem is degraded" btrfs_degraded "$MNT"
check "$N_FILES files from the degraded filesystem: checksums match" verify_files
require "umount $MNT" umount "$MNT"
finish
