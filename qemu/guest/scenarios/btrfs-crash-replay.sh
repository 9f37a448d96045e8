# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# btrfs-crash-replay: fsync-heavy work on btrfs, a hard crash, log replay.
# btrfs in 6.12 has no shutdown ioctl, so the first boot ends as a power
# cut would (crash_hard: sysrq-b, no sync, no unmount) and the host boots
# the scenario again on the same disks.
#
# Boot 1: mount with a long commit interval, so that only fsync writes
# metadata; in a small memory cgroup, write and fsync data files (each
# fsync logs the new inode in the log tree), rename fsynced files and
# fsync their directory, set xattrs and fsync, add hard links and fsync,
# unlink and fsync the directory; a second writer creates files without
# fsync meanwhile.  Then, the writer stopped, fsync new files until the
# superblock on disk points to a log tree (at most 3; otherwise the crash
# would test no replay), save the checksums on the second disk, crash.
#
# Boot 2: mount (log replay: "start tree-log replay" in the kernel log),
# the fsynced files, names, xattrs and links as written, umount, btrfs
# check.
#
# nofs-disks: 2
# nofs-boots: 2
N_FILES=${N_FILES:-40}
MAX_KIB=${MAX_KIB:-1024}
# shellcheck source=lib.sh
. /scenarios/lib.sh

DEV=/dev/vda
SAVE=/dev/vdb			# the checksum list of boot 1, raw
MNT=/mnt
D=$MNT/d
MEMMAX=${MEMMAX:-48M}
XVAL=$(rep xattr-value- 20)

# log_root: the log tree root the superblock on disk records (0: none).
log_root() {
	btrfs inspect-internal dump-super "$DEV" | awk '$1 == "log_root" { print $2 }'
}

# background writer: files without fsync until the crash
scribble() {
	local i=0
	mkdir -p "$D/nofsync"
	while :; do
		head -c 8192 /dev/urandom > "$D/nofsync/f$i" 2>/dev/null || return 0
		i=$((i + 1))
	done
}

fsync() { xfs_io -c fsync "$1"; }

workload() {
	local i
	mkdir -p "$D/data" "$D/renamed" "$D/links" || return 1
	step "write and fsync $N_FILES data files (1 KiB..$MAX_KIB KiB)"
	write_files "$D/data" || return 1
	step "rename data/file0..file9 into renamed/ and fsync renamed/ and data/"
	i=0
	while [ $i -lt 10 ]; do
		mv "$D/data/file$i" "$D/renamed/r$i" || return 1
		i=$((i + 1))
	done
	fsync "$D/renamed" && fsync "$D/data" || return 1
	step "xattrs on data/file10..file19, each file fsynced"
	i=10
	[ -n "$HAVE_XATTR" ] || i=20
	while [ $i -lt 20 ]; do
		setfattr -n user.x -v "$i$XVAL" "$D/data/file$i" && fsync "$D/data/file$i" || return 1
		i=$((i + 1))
	done
	step "hard links links/l20..l29 to data/file20..file29, each file fsynced"
	i=20
	while [ $i -lt 30 ]; do
		ln "$D/data/file$i" "$D/links/l$i" && fsync "$D/data/file$i" || return 1
		i=$((i + 1))
	done
	step "unlink data/file30..file34 and fsync data/"
	rm "$D"/data/file3[0-4] && fsync "$D/data"
}

# last_fsync N: write and fsync last/lN, a new file, which btrfs logs, and
# print the log_root the superblock on disk then records.  A directory
# fsync after unlinks or renames, or a commit another writer's work set
# off, can leave no log tree to replay.
last_fsync() {
	mkdir -p "$D/last" &&
		head -c $((5000 + $1 * 4096)) /dev/urandom > "$D/last/l$1" &&
		fsync "$D/last/l$1" && sha256sum "$D/last/l$1" >> "$SUMS" || return 1
	LOGROOT=$(log_root)
	echo "last/l$1 fsynced: log_root ${LOGROOT:-?}"
}

# The checksum list, with the renamed files under their new names.
save_sums() {
	sed -E 's|/data/file([0-9])$|/renamed/r\1|; s|/data/file3[0-4]$|&.gone|' "$SUMS" |
		grep -v '\.gone$' > /tmp/sums.saved
	echo "$(wc -l < /tmp/sums.saved) checksums saved on $SAVE"
	dd if=/tmp/sums.saved of="$SAVE" conv=fsync 2>/dev/null
}

boot1() {
	require "mkfs.btrfs $DEV" mkfs.btrfs -f -q "$DEV"
	require "mount $DEV on $MNT (commit=600: only fsync writes)" \
		mount -t btrfs -o commit=600 "$DEV" "$MNT"
	mkdir -p "$D"
	require "memory cgroup nofs-btrfs with memory.max $MEMMAX" memcg_create nofs-btrfs "$MEMMAX"
	memcg_run scribble & SCRIBBLER=$!
	require "fsync workload in the cgroup" memcg_run workload
	memcg_report
	# The writer without fsync stops first; then new files are fsynced
	# until the superblock points to a log tree (at most 3), the state the
	# crash must leave for replay.
	kill "$SCRIBBLER" 2>/dev/null; wait "$SCRIBBLER" 2>/dev/null
	LOGROOT=0 n=0
	while [ "${LOGROOT:-0}" -eq 0 ] && [ $n -lt 3 ]; do
		check "last fsync $n" last_fsync $n || break
		n=$((n + 1))
	done
	require "the superblock on disk points to a log tree (log_root ${LOGROOT:-?})" \
		test "${LOGROOT:-0}" -gt 0
	require "save the checksums of the fsynced files" save_sums
	say "crashing with the filesystem mounted"
	crash_hard
}

names_ok() {
	local i n
	n=$(find "$D/renamed" -type f | wc -l)
	echo "renamed/: $n files (expected 10)"
	[ "$n" -eq 10 ] || return 1
	for i in 0 1 2 3 4 5 6 7 8 9 30 31 32 33 34; do
		[ ! -e "$D/data/file$i" ] || { echo "data/file$i is back"; return 1; }
	done
}

xattrs_ok() {
	local i v
	i=10
	while [ $i -lt 20 ]; do
		v=$(getfattr --absolute-names --only-values -n user.x "$D/data/file$i")
		[ "$v" = "$i$XVAL" ] || { echo "data/file$i: user.x is '$v'"; return 1; }
		i=$((i + 1))
	done
	echo "user.x of data/file10..file19 intact"
}

links_ok() {
	local i
	i=20
	while [ $i -lt 30 ]; do
		[ "$(stat -c %h "$D/data/file$i")" -eq 2 ] && cmp "$D/data/file$i" "$D/links/l$i" ||
			{ echo "data/file$i: $(stat -c %h "$D/data/file$i") links"; return 1; }
		i=$((i + 1))
	done
	echo "data/file20..file29 have 2 links each"
}

boot2() {
	require "read the checksums saved by boot 1" \
		sh -c "dd if=$SAVE bs=64k count=16 2>/dev/null | tr -d '\\000' > $SUMS && test -s $SUMS"
	say "$(wc -l < "$SUMS") checksums"
	require "mount $DEV on $MNT after the crash" mount -t btrfs "$DEV" "$MNT"
	check "the mount replayed the log tree" sh -c "dmesg | grep 'start tree-log replay'"
	check "fsynced data files: checksums match" verify_files
	check "fsynced renames and unlinks survived" names_ok
	if [ -n "$HAVE_XATTR" ]; then
		check "fsynced xattrs survived" xattrs_ok
	else
		ok "fsynced xattrs survived # SKIP no setfattr/getfattr"
	fi
	check "fsynced hard links survived" links_ok
	require "umount $MNT" umount "$MNT"
	check "btrfs check: filesystem clean" btrfs check --readonly "$DEV"
	finish
}

say "boot $NOFS_BOOT of 2"
case $NOFS_BOOT in
1) boot1 ;;
2) boot2 ;;
esac
