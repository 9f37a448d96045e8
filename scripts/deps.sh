#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh install   install every Debian package the project uses (root)
# deps.sh check CMD...  check that commands exist; name the package if not
set -eu

# command -> Debian package that provides it
declare -A PKG_OF=(
	[gcc]=gcc [make]=make [flex]=flex [bison]=bison [bc]=bc
	[cpio]=cpio [qemu-system-x86_64]=qemu-system-x86
	[mkfs.xfs]=xfsprogs [xfs_repair]=xfsprogs [busybox]=busybox-static
	[python3]=python3 [git]=git [perl]=perl [xz]=xz-utils
	[timeout]=coreutils [truncate]=coreutils [gzip]=gzip
	[mkfs.ext4]=e2fsprogs [e2fsck]=e2fsprogs [fs_mark]=fsmark
	[gnuplot]=gnuplot-nox [spatch]=coccinelle [objdump]=binutils
	[debootstrap]=debootstrap [tar]=tar
	[mkfs.btrfs]=btrfs-progs [btrfs]=btrfs-progs [sparse]=sparse
)
PACKAGES="linux-source-6.12 gcc libc6-dev make flex bison bc libelf-dev libssl-dev
	cpio qemu-system-x86 xfsprogs busybox-static python3 python3-ply git
	perl kmod xz-utils gzip coreutils attr acl e2fsprogs fsmark python3-scipy
	gnuplot-nox coccinelle debootstrap tar btrfs-progs sparse"

install() {
	local missing=() p
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		echo "==> all packages are installed"
		return 0
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "error: missing packages: ${missing[*]}" >&2
		echo "       'make deps' needs root: run it as root or with sudo" >&2
		exit 1
	fi
	echo "==> installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
}

check() {
	local c bad=0
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 && continue
		[ -x "/usr/sbin/$c" ] || [ -x "/sbin/$c" ] && continue
		echo "error: '$c' not found; install it with 'apt-get install ${PKG_OF[$c]:-?}' or run 'make deps' as root" >&2
		bad=1
	done
	return $bad
}

case "${1:-}" in
install) install ;;
check) shift; check "$@" ;;
*) echo "usage: $0 install | check CMD..." >&2; exit 2 ;;
esac
