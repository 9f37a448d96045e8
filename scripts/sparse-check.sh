#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/sparse-check.sh: sparse (make C=2) over every C file that the
# series changes or that takes a NOFS-marked lock, in the patched tree and
# in the unpatched one, and a failure for every warning the patched tree
# has that the unpatched one has not.
#
# The inner lock of struct nofs_mutex, nofs_rwsem and nofs_percpu_rwsem is
# __private: mutex_lock(&m->mutex) or down_read(&s->rwsem), which take the
# lock without its scope, are such warnings; lockdep's annotations reach
# the lock through nofs_*_inner().  A warning is compared without its line
# and column, so that moved code keeps its old warnings; a file the series
# adds must be clean.  The two trees are built with their own
# configurations (the unpatched one has no KUnit suite or debug option), so
# a warning that depends on the configuration would count as new: a false
# failure, never a false pass.
#
#   scripts/sparse-check.sh [FILE.c...]   the files named, or by default
#                                         every file described above
#
# Environment: TREE and BUILD_DIR (the patched kernel, built), BASE_TREE
# and BASE_BUILD_DIR (the unpatched one, built: scripts/baseline.sh build),
# LOG_DIR (logs go to LOG_DIR/sparse), JOBS.
set -euo pipefail
export LC_ALL=C

: "${CACHE_DIR:?CACHE_DIR is not set}"
: "${TREE:?TREE is not set}"
: "${BUILD_DIR:?BUILD_DIR is not set}"
: "${LOG_DIR:?LOG_DIR is not set}"
: "${BASE_TREE:=$CACHE_DIR/linux-base}"
: "${BASE_BUILD_DIR:=$CACHE_DIR/build-base}"
OUT=$LOG_DIR/sparse
mkdir -p "$OUT"

say() { printf '==> sparse: %s\n' "$*"; }
die() { printf 'scripts/sparse-check.sh: error: %s\n' "$*" >&2; exit 1; }

command -v sparse >/dev/null ||
	die "sparse not found; install it with 'apt-get install sparse' or run 'make deps' as root"
for d in "$TREE" "$BASE_TREE"; do
	[ -d "$d" ] || die "no kernel tree at $d ('make prepare', scripts/baseline.sh build)"
done
for d in "$BUILD_DIR" "$BASE_BUILD_DIR"; do
	[ -f "$d/vmlinux" ] || die "no built kernel in $d (make kernel; scripts/baseline.sh build)"
done

# the files: changed by the series, or users of the marked locks; only
# those this configuration builds (an object exists) can be checked
if [ $# -gt 0 ]; then
	files=("$@")
else
	mapfile -t files < <({ git -C "$TREE" diff --name-only pristine HEAD -- '*.c'
			       git -C "$TREE" grep -l -E '\bnofs_(mutex|rwsem|percpu_rwsem|down|up|percpu_down|percpu_up|init_rwsem|percpu_init_rwsem)' -- '*.c'
			     } | sort -u)
fi
# the files the guest configuration does not build, named so that no
# other file is skipped unseen: no BLK_DEV_ZONED, no btrfs sanity tests,
# and mballoc.c includes mballoc-test.c only with EXT4_KUNIT_TESTS
NOT_BUILT="fs/btrfs/tests/btrfs-tests.c fs/btrfs/zoned.c fs/ext4/mballoc-test.c"
objs=() skipped=()
for f in "${files[@]}"; do
	if [ -f "$BUILD_DIR/${f%.c}.o" ]; then
		objs+=("${f%.c}.o")
	elif [ $# -eq 0 ] && [[ " $NOT_BUILT " == *" $f "* ]]; then
		skipped+=("$f")
	else
		die "$f is not built in $BUILD_DIR, so sparse cannot check it"
	fi
done
[ ${#objs[@]} -gt 0 ] || die "none of the ${#files[@]} files is built in $BUILD_DIR"
say "${#objs[@]} files built in this configuration; not built, not checked: ${skipped[*]:-none}"

# run_sparse TREE BUILD LOG OBJS...: sparse on the objects that exist in
# TREE; the warnings, without line and column, sorted, on stdout
run_sparse() {
	local tree build=$2 log=$3 o present=()
	# kbuild prints the real path of the source tree
	tree=$(realpath "$1")
	shift 3
	for o in "$@"; do
		[ -f "$tree/${o%.o}.c" ] && present+=("$o")
	done
	if [ ${#present[@]} -gt 0 ] &&
	   ! make -C "$tree" O="$build" ARCH=x86_64 C=2 CF=-fmax-warnings=unlimited \
		--jobs="${JOBS:-2}" \
		"${present[@]}" > "$log" 2>&1; then
		die "make C=2 failed in $build; the log is $log"
	fi
	[ ${#present[@]} -gt 0 ] || : > "$log"
	# sparse's lines; gcc's end in [-Wname] and are not compared
	grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): ' "$log" |
		grep -vE '\[-W[^]]*\]$' |
		sed -E -e "s|^$tree/||" -e 's/^([^:]+):[0-9]+:[0-9]+: /\1: /' | sort || true
}

say "patched tree ($TREE)"
run_sparse "$TREE" "$BUILD_DIR" "$OUT/patched.log" "${objs[@]}" > "$OUT/patched.txt"
say "unpatched tree ($BASE_TREE)"
run_sparse "$BASE_TREE" "$BASE_BUILD_DIR" "$OUT/base.txt.log" "${objs[@]}" > "$OUT/base.txt"

# the patched warnings that the unpatched files do not have as often
comm -23 "$OUT/patched.txt" "$OUT/base.txt" > "$OUT/new.txt"
echo "sparse: ${#objs[@]} files; patched $(wc -l < "$OUT/patched.txt") warnings, unpatched $(wc -l < "$OUT/base.txt"), new $(wc -l < "$OUT/new.txt")"
if [ -s "$OUT/new.txt" ]; then
	sed 's/^/  new: /' "$OUT/new.txt"
	die "sparse warns where the unpatched kernel does not (lines above; logs in $OUT)"
fi
say "no new warning"
