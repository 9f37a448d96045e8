#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fstests/guest-run.sh: runs inside the fstests guest, started by the
# image's /sbin/fstests-init from the control disk that fstests/run.sh
# wrote.  It reads /run/ctl/params, formats the test device, runs
# fstests' ./check on the list, and writes /results (the xunit report,
# check's output, each test's .full/.out.bad/.dmesg, the whole dmesg) back
# onto the control disk as a tar archive.
#
# Disks: vda root (snapshot), vdb TEST_DEV, vdc SCRATCH_DEV, vdd control,
# vde LOGWRITES_DEV, and with POOL=N (btrfs) vdf... : SCRATCH_DEV_POOL is
# then vdc and those N, and fstests takes SCRATCH_DEV from its first.  check's output goes to the console and to the second
# serial port (ttyS1), which the host keeps apart from kernel messages.

# shellcheck source=/dev/null
. /run/ctl/params	# FSTYP MKFS_OPTIONS MOUNT_OPTIONS TESTS LABEL SOAK MEMCG POOL
# the kernel starts init with no PATH, and util-linux's mkfs -t needs one
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CTL=/dev/vdd
RES=/results

log() { echo "==> fstests-guest: $*"; }

start_udev() {
	# dmsetup waits for udev to make /dev/mapper nodes; without udevd,
	# libdevmapper makes them itself
	if /lib/systemd/systemd-udevd --daemon >/dev/null 2>&1; then
		udevadm trigger --action=add >/dev/null 2>&1
		udevadm settle --timeout=60 || log "udevadm settle timed out"
		log "udevd running"
	else
		export DM_DISABLE_UDEV=1
		log "udevd did not start: libdevmapper manages /dev/mapper"
	fi
}

# memcg_enter: move this shell, and so check and every test, into a memory
# cgroup with memory.high at MEMCG MiB.  Above it, each task reclaims in
# the cgroup on its way back to user space (the shrinkers included) and is
# throttled, but nothing is OOM-killed.
memcg_enter() {
	local cg=/sys/fs/cgroup/fstests
	[ "${MEMCG:-0}" != 0 ] || return 0
	if echo +memory > /sys/fs/cgroup/cgroup.subtree_control &&
	   mkdir -p $cg && echo "${MEMCG}M" > $cg/memory.high &&
	   echo $$ > $cg/cgroup.procs; then
		log "check runs in a memory cgroup, memory.high ${MEMCG} MiB"
	else
		echo "FSTESTS-ERROR: could not set up the memory cgroup"
	fi
}

# scratch: SCRATCH_DEV, or SCRATCH_DEV_POOL with POOL more disks (fstests
# wants SCRATCH_DEV unset then)
scratch() {
	local i pool=/dev/vdc letters=fghijklm
	if [ "${POOL:-0}" -eq 0 ]; then
		echo "export SCRATCH_DEV=/dev/vdc"
		return
	fi
	for ((i = 0; i < POOL; i++)); do
		pool+=" /dev/vd${letters:i:1}"
	done
	echo "export SCRATCH_DEV_POOL=\"$pool\""
}

write_config() {
	cat > /opt/fstests/local.config <<EOF
export FSTYP=$FSTYP
export TEST_DEV=/dev/vdb
export TEST_DIR=/mnt/test
$(scratch)
export SCRATCH_MNT=/mnt/scratch
export LOGWRITES_DEV=/dev/vde
export MKFS_OPTIONS="$MKFS_OPTIONS"
export MOUNT_OPTIONS="$MOUNT_OPTIONS"
export RESULT_BASE=$RES
export KEEP_DMESG=yes
export SOAK_DURATION=$SOAK
export KCONFIG_PATH=/run/ctl/kconfig
EOF
}

save_results() {
	dmesg > "$RES/dmesg.txt" 2>&1
	cat /proc/vmstat > "$RES/vmstat.txt"
	if [ -d /sys/fs/cgroup/fstests ]; then
		cat /sys/fs/cgroup/fstests/memory.events > "$RES/memcg-events.txt"
		cat /sys/fs/cgroup/fstests/memory.stat > "$RES/memcg-stat.txt"
	fi
	cat /proc/cmdline > "$RES/cmdline.txt"
	uname -r > "$RES/uname.txt"
	sync
	if tar -cf "$CTL" -C / "${RES#/}"; then
		log "results written to the control disk ($(du -sk "$RES" | cut -f1) KiB)"
	else
		echo "FSTESTS-ERROR: writing the results to $CTL failed"
	fi
}

main() {
	local rc force
	mkdir -p "$RES"
	dmesg > "$RES/dmesg-boot.txt"
	log "kernel $(uname -r), FSTYP=$FSTYP, label $LABEL"
	log "cmdline: $(cat /proc/cmdline)"
	start_udev
	write_config
	memcg_enter
	case $FSTYP in xfs|btrfs) force=-f ;; *) force=-F ;; esac
	log "mkfs.$FSTYP $MKFS_OPTIONS /dev/vdb (TEST_DEV)"
	# shellcheck disable=SC2086 # options are words
	if ! "mkfs.$FSTYP" $force $MKFS_OPTIONS /dev/vdb \
		> "$RES/mkfs-test.txt" 2>&1; then
		echo "FSTESTS-ERROR: mkfs of TEST_DEV failed"
		cat "$RES/mkfs-test.txt"
		save_results
		return
	fi
	log "running: ./check -R xunit-quiet $TESTS"
	cd /opt/fstests || return
	# shellcheck disable=SC2086 # a list of tests and options
	./check -R xunit-quiet $TESTS 2>&1 | tee "$RES/check.out" /dev/ttyS1
	rc=${PIPESTATUS[0]}
	log "check finished, status $rc"
	# the completion marker: without it the host counts the boot as lost
	# (a panic, a hang or a kill before check finished)
	echo "$rc" > "$RES/check-done"
	echo "FSTESTS-CHECK-DONE status=$rc"
	save_results
}

main
