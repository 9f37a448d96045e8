#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kernel at the pristine tree and at every commit of the series,
# oldest first, to show that each patch builds on its own (bisectable); then
# build fs/xfs and fs/btrfs with W=1 at pristine and at the tip and list
# the warnings the series adds.  Uses a separate worktree and build directory, so the tree and
# the main build are left alone; builds are incremental from one commit to
# the next.  Prints one TAP line per build.
set -eu -o pipefail

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
: "${CACHE_DIR:=$(dirname "$TREE")}"
: "${LOG_DIR:=$CACHE_DIR/logs}"
: "${JOBS:=$(nproc)}"
WT=$CACHE_DIR/each-patch-src
OUT=$CACHE_DIR/each-patch-build
# EACH_CONFIG: full (default), the guest kernel's configuration with the
# file systems; or small, tinyconfig with scripts/each-patch-small.config
# (no file system), in a build directory of its own: a full build of each
# mm-scope commit, whose headers every file includes, takes minutes
# instead of a quarter of an hour
case ${EACH_CONFIG:=full} in
full) ;;
small) OUT=$CACHE_DIR/each-patch-build-small ;;
*) echo "error: EACH_CONFIG must be full or small, not '$EACH_CONFIG'" >&2; exit 2 ;;
esac

need_tree
mkdir -p "$LOG_DIR/each-patch" "$OUT"
if [ ! -d "$WT" ]; then
	git -C "$TREE" worktree add -q --detach "$WT" pristine
fi

# The final configuration: symbols a commit does not know yet are dropped
# by olddefconfig, so the same file serves every commit.
# Zoned block devices and ref-verify, so that every file the btrfs series
# touches (zoned.c, ref-verify.c) is compiled.
cat "$TOP/kunit/guest.config" "$TOP/kunit/memalloc_scope.kunitconfig" \
	<(printf 'CONFIG_SERIAL_8250=y\nCONFIG_SERIAL_8250_CONSOLE=y\n') \
	<(printf 'CONFIG_BLK_DEV_ZONED=y\nCONFIG_BTRFS_FS_REF_VERIFY=y\n') > "$OUT/want.config"

# small: tinyconfig and the fragment, made at the last commit (where every
# symbol exists) and checked line by line
small_config() {
	local frag=$TOP/scripts/each-patch-small.config line
	git -C "$WT" checkout -q --detach "$1"
	{ make -C "$WT" O="$OUT" ARCH=x86_64 tinyconfig &&
	  "$WT/scripts/kconfig/merge_config.sh" -m -O "$OUT" "$OUT/.config" "$frag" &&
	  make -C "$WT" O="$OUT" ARCH=x86_64 olddefconfig; } > "$LOG_DIR/each-patch/config.log" 2>&1 ||
		{ echo "error: making the small configuration failed; see $LOG_DIR/each-patch/config.log" >&2; exit 1; }
	while read -r line; do
		case $line in ''|'#'*) continue ;; esac
		grep -qx -- "$line" "$OUT/.config" ||
			{ echo "error: $line does not hold in the small configuration ($frag)" >&2; exit 1; }
	done < "$frag"
	cp "$OUT/.config" "$OUT/want.config"
}
# (resolved in TREE: in the worktree, HEAD is the worktree's own)
[ "$EACH_CONFIG" = full ] || small_config "$(git -C "$TREE" rev-parse "${EACH_TO:-HEAD}")"

# EACH_FROM: the first commit to build (default pristine); a later one,
# such as a series branch, checks only the commits after it.  EACH_TO: the
# last (default HEAD), e.g. mm-scope.
# EACH_OBJECTS: build only these objects, with W=1, at each commit (those
# whose source exists there), and fail on any warning in them; no fs/ W=1
# step.  A quick check of a series that changes a header every file
# includes, where each full build is a build from scratch; it is not the
# proof of bisectability that the full builds are.
from=${EACH_FROM:-pristine}
to=${EACH_TO:-HEAD}
commits="$(git -C "$TREE" rev-parse "$from") $(git -C "$TREE" rev-list --reverse "$from..$to")"
total=$(echo $commits | wc -w)
[ -n "${EACH_OBJECTS:-}" ] || [ "$EACH_CONFIG" = small ] ||
	total=$((total + 2))	# and the two W=1 builds
echo "TAP version 13"
echo "1..$total"
n=0 failed=0
for c in $commits; do
	n=$((n + 1))
	subj=$(git -C "$TREE" log -1 --format=%s "$c")
	log="$LOG_DIR/each-patch/$(printf '%02d' $n).log"
	git -C "$WT" checkout -q --detach "$c"
	echo "==> [$n/$total] building $subj (log: $log)" >&2
	start=$(date +%s)
	objs=() what=(-j"$JOBS")
	if [ -n "${EACH_OBJECTS:-}" ]; then
		for o in $EACH_OBJECTS; do
			[ ! -f "$WT/${o%.o}.c" ] || objs+=("$o")
		done
		# none: make would build the whole kernel, or check nothing
		[ ${#objs[@]} -gt 0 ] || objs=(no-such-object-of-EACH_OBJECTS.o)
		what=(-j"$JOBS" W=1 "${objs[@]}")
	fi
	if { cp "$OUT/want.config" "$OUT/.config" &&
	     make -C "$WT" O="$OUT" ARCH=x86_64 olddefconfig &&
	     make -C "$WT" O="$OUT" ARCH=x86_64 "${what[@]}"; } > "$log" 2>&1 &&
	   ! { [ -n "${EACH_OBJECTS:-}" ] &&
	       grep -qE '^[^ :]+\.[ch]:[0-9]+:[0-9]+: warning:' "$log"; }; then
		echo "ok $n $subj # $(( $(date +%s) - start )) s"
	else
		echo "not ok $n $subj # build failed; see $log"
		grep -E '(error|[ch]:[0-9]+:[0-9]+: warning):' "$log" | head -n 5 | sed 's/^/# /'
		failed=$((failed + 1))
	fi
done
if [ -n "${EACH_OBJECTS:-}" ]; then
	echo "# each patch compiles ${EACH_OBJECTS} where present, W=1: $total commits, $failed failed (logs in $LOG_DIR/each-patch)"
	[ "$failed" = 0 ]
	exit
fi
if [ "$EACH_CONFIG" = small ]; then
	echo "# each patch builds, small configuration (scripts/each-patch-small.config): $total builds, $failed failed (logs in $LOG_DIR/each-patch)"
	[ "$failed" = 0 ]
	exit
fi

# fs/xfs and fs/btrfs with W=1, from scratch, at pristine and at the tip.
# Warnings are compared without line numbers, which the series shifts.
w1() {	# REV DIR LOG
	git -C "$WT" checkout -q --detach "$1"
	rm -rf "${OUT:?}/$2"
	make -C "$WT" O="$OUT" ARCH=x86_64 -j"$JOBS" W=1 "$2/" > "$3" 2>&1 || true
	# no warning is no match: grep's status must not end the script
	{ grep -E "^[^ ]*$2/[^:]+:[0-9]+:[0-9]+: warning:" "$3" || true; } |
		sed -E "s|^.*($2/[^:]+):[0-9]+:[0-9]+:|\1:|" | sort -u
}
for d in fs/xfs fs/btrfs; do
	n=$((n + 1))
	b=${d#fs/}
	echo "==> [$n/$total] $d with W=1 at pristine and at the tip" >&2
	w1 pristine "$d" "$LOG_DIR/each-patch/w1-$b-pristine.log" > "$OUT/w1-$b-before"
	w1 "$(git -C "$TREE" rev-parse HEAD)" "$d" "$LOG_DIR/each-patch/w1-$b-tip.log" > "$OUT/w1-$b-after"
	added=$(comm -13 "$OUT/w1-$b-before" "$OUT/w1-$b-after")
	if [ -n "$added" ]; then
		echo "not ok $n $d W=1: the series adds warnings"
		echo "$added" | sed 's/^/# /'
		failed=$((failed + 1))
	else
		echo "ok $n $d W=1: no new warnings # $(wc -l < "$OUT/w1-$b-before") before, $(wc -l < "$OUT/w1-$b-after") after"
	fi
done
echo "# each patch builds: $total builds, $failed failed (logs in $LOG_DIR/each-patch)"
[ "$failed" = 0 ]
