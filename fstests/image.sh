#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fstests/image.sh: build the Debian 12 root filesystem image the fstests
# guest boots from, with fstests compiled inside it, and cache it.
#
#   fstests/image.sh          prints the image's path (building it if needed)
#   fstests/image.sh source   prints the fstests source it would use, or
#                             fails saying that there is none
#
# Steps: debootstrap (minbase plus the tools fstests needs, from the Debian
# mirror apt on this machine already uses), fstests built in a chroot, the
# fstests users, a small /sbin/fstests-init, then an ext4 image made with
# mkfs.ext4 -d (nothing is mounted on the host).  The init only mounts the
# pseudo filesystems and runs the script that fstests/run.sh puts on the
# control disk (fstests/guest-run.sh), so changing that script does not
# rebuild the image.  The image is rebuilt only when this script or the
# fstests source changes.
#
# Environment: CACHE_DIR (~/.cache/nofs-scope), LOG_DIR (CACHE_DIR/logs;
# the log is LOG_DIR/fstests/image.log), FSTESTS_SRC (an fstests clone or
# tarball; default ../shared/fstests/fstests-*.tar.xz next to the project).
# Needs root (debootstrap, chroot).
set -eu -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
: "${TOP:=$(cd "$HERE/.." && pwd)}"
: "${CACHE_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/nofs-scope}"
: "${LOG_DIR:=$CACHE_DIR/logs}"
WORK=$CACHE_DIR/fstests
ROOT=$WORK/rootfs
DEBS=$WORK/debs		# debootstrap's package cache: a rebuild downloads nothing
IMAGE=$WORK/rootfs.img
STAMP=$WORK/rootfs.stamp
LOG=$LOG_DIR/fstests/image.log
IMAGE_SIZE=3G
SUITE=bookworm

# What fstests' README lists for Debian, less lvm2/indent/git (unused here)
# and plus pkg-config (for liburing), dmsetup, udev, xfsdump, btrfs-progs
# and the basics minbase lacks.
PACKAGES="acl attr automake autoconf bc dbench e2fsprogs fio gawk gcc make
	libacl1-dev libaio-dev libcap-dev libgdbm-dev libgdbm-compat-dev
	libtool libtool-bin liburing-dev libuuid1 uuid-dev uuid-runtime
	xfslibs-dev xfsprogs xfsdump quota psmisc python3 sed sqlite3
	dmsetup udev kmod procps util-linux bsdextrautils file xz-utils
	libcap2-bin keyutils btrfs-progs perl ncurses-bin pkg-config"

say() { printf '==> fstests image: %s\n' "$*" >&2; }
die() {
	printf 'fstests/image.sh: error: %s\n' "$*" >&2
	[ -z "${BUILDING:-}" ] || printf 'fstests/image.sh: log: %s\n' "$LOG" >&2
	exit 1
}

# fstests_src: the fstests source to build, a directory or a tarball
fstests_src() {
	local t
	if [ -n "${FSTESTS_SRC:-}" ]; then
		[ -e "$FSTESTS_SRC" ] || die "FSTESTS_SRC=$FSTESTS_SRC does not exist"
		echo "$FSTESTS_SRC"
		return
	fi
	for t in "$TOP"/../shared/fstests/fstests-*.tar.*; do
		[ -f "$t" ] && { realpath "$t"; return; }
	done
	die "no fstests source: none in $TOP/../shared/fstests/; set FSTESTS_SRC to an fstests clone or tarball"
}

# mirror: the Debian archive apt uses for $SUITE's main component, from
# apt's own view of its sources (so no host name lives in this script)
mirror() {
	apt-cache policy 2>/dev/null |
		awk -v s="$SUITE/main" '$3 == s && $4 == "amd64" && $5 == "Packages" &&
			$2 !~ /security/ { print $2; exit }'
}

# inputs_hash SRC: what the image is built from; a change rebuilds it
inputs_hash() {
	{ cat "$0"
	  if [ -d "$1" ]; then
		git -C "$1" rev-parse HEAD 2>/dev/null || find "$1" -type f -newer "$0" | sort
	  else
		sha256sum < "$1"
	  fi; } | sha256sum | cut -d' ' -f1
}

# write_init: the guest's PID 1.  The control disk (the last virtio disk,
# /dev/vdd) holds a tar archive written by fstests/run.sh; its guest-run.sh
# does the rest and writes the results back onto the same disk.
write_init() {
	cat <<'INIT'
#!/bin/bash
# fstests guest init, written by fstests/image.sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null || true
# what udev's static nodes would give: bash's <(...) needs /dev/fd
ln -sfn /proc/self/fd /dev/fd
ln -sfn /proc/self/fd/0 /dev/stdin
ln -sfn /proc/self/fd/1 /dev/stdout
ln -sfn /proc/self/fd/2 /dev/stderr
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null || true
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
mount -o remount,rw /
hostname fstests
mkdir -p /run/ctl
if tar -xf /dev/vdd -C /run/ctl && [ -f /run/ctl/guest-run.sh ]; then
	echo "==> fstests-init: running the control disk's guest-run.sh"
	bash /run/ctl/guest-run.sh
else
	echo "FSTESTS-ERROR: no control archive on /dev/vdd"
fi
sync
echo "==> fstests-init: done, rebooting (QEMU runs with -no-reboot)"
echo b > /proc/sysrq-trigger
INIT
}

build_rootfs() {
	local src=$1 uri
	uri=$(mirror)
	[ -n "$uri" ] || die "apt knows no Debian $SUITE mirror (apt-cache policy lists none): configure apt first"
	command -v debootstrap >/dev/null || die "debootstrap not found: apt-get install debootstrap (or make deps)"
	command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 not found: apt-get install e2fsprogs"
	[ "$(id -u)" = 0 ] || die "building the image needs root (debootstrap, chroot)"

	rm -rf "$ROOT" "$IMAGE" "$STAMP"
	# shellcheck disable=SC2086 # PACKAGES is a list of words
	say "[1/4] debootstrap $SUITE (minbase + $(echo $PACKAGES | wc -w) packages) from apt's mirror; a few minutes"
	mkdir -p "$DEBS"
	# shellcheck disable=SC2086 # PACKAGES is a list of words
	debootstrap --variant=minbase --cache-dir="$DEBS" \
		--include="$(echo $PACKAGES | tr ' ' ,)" \
		"$SUITE" "$ROOT" "$uri" >>"$LOG" 2>&1 ||
		die "debootstrap failed: $(tail -n 3 "$LOG" | tr '\n' ' ')"

	say "[2/4] building fstests in the chroot (source: $src)"
	mkdir -p "$ROOT/opt/fstests"
	if [ -d "$src" ]; then
		cp -a "$src/." "$ROOT/opt/fstests/"
	else
		tar -xaf "$src" -C "$ROOT/opt/fstests" --strip-components=1
	fi
	# shellcheck disable=SC2016 # nproc runs in the chroot
	chroot "$ROOT" /bin/sh -c 'cd /opt/fstests && make -j"$(nproc)"' \
		>>"$LOG" 2>&1 || die "building fstests failed"
	[ -x "$ROOT/opt/fstests/ltp/fsstress" ] || die "fstests built, but ltp/fsstress is missing"

	say "[3/4] users, mount points and the guest init"
	chroot "$ROOT" /bin/sh -e -c '
		useradd -m -U fsgqa
		useradd -m -U fsgqa2
		useradd -m -U 123456-fsgqa
		echo fstests > /etc/hostname
		printf "127.0.0.1 localhost fstests\n" > /etc/hosts
		mkdir -p /mnt/test /mnt/scratch /results' >>"$LOG" 2>&1 ||
		die "setting up the users failed"
	write_init > "$ROOT/sbin/fstests-init"
	chmod 755 "$ROOT/sbin/fstests-init"

	say "[4/4] ext4 image of $IMAGE_SIZE (sparse): $IMAGE"
	mkfs.ext4 -q -F -L fstests-root -d "$ROOT" "$IMAGE" "$IMAGE_SIZE" \
		>>"$LOG" 2>&1 || die "mkfs.ext4 -d failed"
}

main() {
	local src hash
	mkdir -p "$WORK" "$(dirname "$LOG")"
	src=$(fstests_src)
	if [ "${1:-}" = source ]; then
		echo "$src"
		return
	fi
	hash=$(inputs_hash "$src")
	if [ -f "$IMAGE" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$hash" ]; then
		say "cached: $IMAGE"
	else
		: > "$LOG"
		BUILDING=1
		start=$SECONDS
		build_rootfs "$src"
		echo "$hash" > "$STAMP"
		say "built in $((SECONDS - start)) s: $(du -sh --apparent-size "$IMAGE" | cut -f1) apparent, $(du -sh "$IMAGE" | cut -f1) used"
	fi
	echo "$IMAGE"
}

main "$@"
