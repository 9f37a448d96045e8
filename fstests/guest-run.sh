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
# vde LOGWRITES_DEV.  check's output goes to the console and to the second
# serial port (ttyS1), which the host keeps apart from kernel messages.

# shellcheck source=/dev/null
. /run/ctl/params	# FSTYP MKFS_OPTIONS MOUNT_OPTIONS TESTS LABEL SOAK
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

write_config() {
	cat > /opt/fstests/local.config <<EOF
export FSTYP=$FSTYP
export TEST_DEV=/dev/vdb
export TEST_DIR=/mnt/test
export SCRATCH_DEV=/dev/vdc
export SCRATCH_MNT=/mnt/scratch
export LOGWRITES_DEV=/dev/vde
export MKFS_OPTIONS="$MKFS_OPTIONS"
export MOUNT_OPTIONS="$MOUNT_OPTIONS"
export RESULT_BASE=$RES
export KEEP_DMESG=yes
export SOAK_DURATION=$SOAK
EOF
}

save_results() {
	dmesg > "$RES/dmesg.txt" 2>&1
	cat /proc/vmstat > "$RES/vmstat.txt"
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
	case $FSTYP in xfs) force=-f ;; *) force=-F ;; esac
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
	echo "FSTESTS-CHECK-DONE status=$rc"
	save_results
}

main
