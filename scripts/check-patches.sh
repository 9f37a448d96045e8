#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run checkpatch.pl --strict on every patch of every series, in series
# order, and print one TAP line per patch.  Fails on any error or warning;
# CHECKs are counted and shown but do not fail.
set -eu

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
: "${SERIES:=mm-scope xfs-conversion jbd2-conversion btrfs-conversion}"
: "${LOG_DIR:=/tmp}"

need_tree scripts/checkpatch.pl
mkdir -p "$LOG_DIR/checkpatch"

patches=()
for s in $SERIES; do
	[ -f "$TOP/$s/series" ] ||
		{ echo "error: $s has no series file ($TOP/$s/series): its patches cannot be checked" >&2; exit 1; }
	while read -r f; do
		case "$f" in ''|'#'*) continue ;; esac
		patches+=("$s/$f")
	done < "$TOP/$s/series"
done

echo "TAP version 13"
echo "1..${#patches[@]}"
n=0 failed=0 checks=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	log="$LOG_DIR/checkpatch/$(basename "$p" .patch).log"
	# UNKNOWN_COMMIT_ID: the tree is Debian's source tarball, with no
	# upstream history to look a Fixes: id up in; the ids were checked
	# against upstream when they were written.
	(cd "$TREE" && perl scripts/checkpatch.pl --strict --showfile \
		--ignore SPDX_LICENSE_TAG_CHECK_SKIP,UNKNOWN_COMMIT_ID \
		"$TOP/$p") > "$log" 2>&1 || true
	line=$(grep -E '^total: ' "$log" | tail -n 1)
	read -r e w c <<<"$(sed -E 's/^total: ([0-9]+) errors, ([0-9]+) warnings, ([0-9]+) checks.*/\1 \2 \3/' <<<"$line")"
	if [ -z "$line" ]; then
		echo "not ok $n $p # checkpatch did not finish; see $log"
		failed=$((failed + 1))
	elif [ "$e" != 0 ] || [ "$w" != 0 ]; then
		echo "not ok $n $p # $e errors, $w warnings, $c checks; see $log"
		grep -E -A4 '^(ERROR|WARNING):' "$log" | sed 's/^/# /'
		failed=$((failed + 1))
	else
		echo "ok $n $p # $c checks"
	fi
	checks=$((checks + ${c:-0}))
done
echo "# checkpatch --strict: ${#patches[@]} patches, $failed failed, $checks checks (logs in $LOG_DIR/checkpatch)"
[ "$failed" = 0 ]
