#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-doc -Wall on every C file and header the series touch, before and
# after the series: the series may not add warnings.  Files that had
# warnings before (sched/mm.h has two) are judged by what the series adds.
set -eu

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
: "${LOG_DIR:=/tmp}"

need_tree
cd "$TREE"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log="$LOG_DIR/kernel-doc.log"
: > "$log"

files=$(git diff --name-only --diff-filter=AM pristine HEAD -- '*.c' '*.h')
count=$(echo "$files" | grep -c . || true)
echo "TAP version 13"
echo "1..$count"
n=0 failed=0
for f in $files; do
	n=$((n + 1))
	after=$(scripts/kernel-doc -none -Wall "$f" 2>&1 | tee -a "$log" | grep -c 'warning:' || true)
	before=0
	if git cat-file -e "pristine:$f" 2>/dev/null; then
		mkdir -p "$tmp/$(dirname "$f")"
		git show "pristine:$f" > "$tmp/$f"
		before=$(scripts/kernel-doc -none -Wall "$tmp/$f" 2>&1 | grep -c 'warning:' || true)
	fi
	if [ "$after" -gt "$before" ]; then
		echo "not ok $n $f # kernel-doc warnings: $before before the series, $after after"
		scripts/kernel-doc -none -Wall "$f" 2>&1 | sed 's/^/# /'
		failed=$((failed + 1))
	else
		echo "ok $n $f # kernel-doc warnings: $before before, $after after"
	fi
done
echo "# kernel-doc: $count files, $failed with new warnings (log: $log)"
[ "$failed" = 0 ]
