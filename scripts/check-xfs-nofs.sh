#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static check of the conversions' goals: after the series, fs/xfs holds no
# GFP_NOFS, no saved-cookie scope calls and no saved-flags state, fs/jbd2
# and fs/ext4 no saved-cookie scope calls and no handle cookie, and fs/btrfs
# no saved-cookie scope calls (the remaining GFP_NOFS of ext4, jbd2 and
# btrfs are counted, not required to be gone: see the changelogs).
# Prints the counts of code lines (comments aside) in the pristine tree and
# in the patched one; fails if anything that should be gone is left.
set -eu

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_tree
cd "$TREE"

# name|extended regexp; the first group must reach zero
GONE=(
	'GFP_NOFS|\bGFP_NOFS\b'
	'memalloc_nofs_save/restore|\bmemalloc_nofs_(save|restore)\('
	'memalloc_flags_save/restore|\bmemalloc_flags_(save|restore)\('
	't_pflags|\bt_pflags\b'
	'xfs_trans_*_context()|\bxfs_trans_(set|clear|switch)_context\('
	'current_*_flags_nested()|\bcurrent_(set|restore)_flags_nested\b'
	'PF_MEMALLOC_NOFS tests|\bPF_MEMALLOC_NOFS\b'
)
NEW=(
	'memalloc_nofs_enter/exit|\bmemalloc_nofs_(enter|exit)\('
	'memalloc_nofs guards|guard\(memalloc_nofs\)'
	'memalloc_scope (helpers)|\bmemalloc_scope_(current|enter|exit)\(|guard\(memalloc_scope'
	'marked-lock calls|\bmemalloc_(mutex|down|up)_[a-z_]*\('
	'WQ_MEM_NOFS workqueues|\bWQ_MEM_NOFS\b'
)

# For fs/jbd2 and fs/ext4 (only when the jbd2-conversion series is applied)
JBD2_GONE=(
	'memalloc_nofs_save/restore|\bmemalloc_nofs_(save|restore)\('
	'saved_alloc_context|\bsaved_alloc_context\b'
	'PF_MEMALLOC_NOFS tests|\bPF_MEMALLOC_NOFS\b'
)
JBD2_COUNTED=(
	'GFP_NOFS|\bGFP_NOFS\b'
	'memalloc_nofs_enter/exit|\bmemalloc_nofs_(enter|exit)\('
	'memalloc_nofs guards|guard\(memalloc_nofs\)'
)

PATHS=('fs/xfs/*.c' 'fs/xfs/*.h')

# For fs/btrfs (only when the btrfs-conversion series is applied)
BTRFS_GONE=(
	'memalloc_nofs_save/restore|\bmemalloc_nofs_(save|restore)\('
	'memalloc_noio_save/restore|\bmemalloc_noio_(save|restore)\('
)

# Lines of code (not comment lines) in PATHS at REV that match ERE
code_lines() {
	git grep -n -E "$2" "$1" -- "${PATHS[@]}" 2>/dev/null |
		grep -v -E '^[^:]+:[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' || true
}

count() { code_lines "$1" "$2" | grep -c . || true; }

jbd2=0
[[ " ${SERIES:-jbd2-conversion} " == *" jbd2-conversion "* ]] && jbd2=1
btrfs=0
[[ " ${SERIES:-btrfs-conversion} " == *" btrfs-conversion "* ]] && btrfs=1

echo "TAP version 13"
echo "1..$((${#GONE[@]} + jbd2 * ${#JBD2_GONE[@]} + btrfs * ${#BTRFS_GONE[@]}))"
n=0 failed=0

# check_gone LABEL NAME|ERE...: one TAP line per pattern that must be gone
check_gone() {
	local label=$1 e name re before after
	shift
	for e in "$@"; do
		n=$((n + 1))
		name=${e%%|*} re=${e#*|}
		before=$(count pristine "$re") after=$(count HEAD "$re")
		if [ "$after" -ne 0 ]; then
			echo "not ok $n no $name left in $label # $before -> $after"
			code_lines HEAD "$re" | sed 's/^HEAD:/#   /'
			failed=$((failed + 1))
		else
			echo "ok $n no $name left in $label # $before -> $after"
		fi
	done
}

# show LABEL NAME|ERE...: the counts, pristine and patched
show() {
	local label=$1 e name re
	shift
	printf '# %-34s %9s %8s\n' "in $label" pristine patched
	for e in "$@"; do
		name=${e%%|*} re=${e#*|}
		printf '# %-34s %9s %8s\n' "$name" "$(count pristine "$re")" "$(count HEAD "$re")"
	done
}

check_gone fs/xfs "${GONE[@]}"
show fs/xfs "${NEW[@]}"
if [ "$jbd2" = 1 ]; then
	PATHS=('fs/jbd2/*.c' 'fs/ext4/*.c' 'fs/ext4/*.h' 'include/linux/jbd2.h')
	check_gone "fs/jbd2+fs/ext4" "${JBD2_GONE[@]}"
	show "fs/jbd2+fs/ext4" "${JBD2_COUNTED[@]}"
fi
if [ "$btrfs" = 1 ]; then
	PATHS=('fs/btrfs/*.c' 'fs/btrfs/*.h')
	check_gone fs/btrfs "${BTRFS_GONE[@]}"
	show fs/btrfs "${JBD2_COUNTED[@]}"
fi
echo "# static check: $failed of $n checks failed"
[ "$failed" = 0 ]
