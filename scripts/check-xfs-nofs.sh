#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static check of the xfs-conversion goal: after the series, fs/xfs holds no
# GFP_NOFS, no saved-cookie scope calls and no saved-flags state.  Prints the
# counts of code lines (comments aside) in the pristine tree and in the
# patched one; fails if anything that should be gone is left.
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

# Lines of code (not comment lines) in fs/xfs at REV that match ERE
code_lines() {
	git grep -n -E "$2" "$1" -- 'fs/xfs/*.c' 'fs/xfs/*.h' 2>/dev/null |
		grep -v -E '^[^:]+:[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' || true
}

count() { code_lines "$1" "$2" | grep -c . || true; }

echo "TAP version 13"
echo "1..${#GONE[@]}"
printf '# %-34s %9s %8s\n' "in fs/xfs" pristine patched
n=0 failed=0
for e in "${GONE[@]}"; do
	n=$((n + 1))
	name=${e%%|*} re=${e#*|}
	before=$(count pristine "$re") after=$(count HEAD "$re")
	if [ "$after" -ne 0 ]; then
		echo "not ok $n no $name left # $before -> $after"
		code_lines HEAD "$re" | sed 's/^HEAD:/#   /'
		failed=$((failed + 1))
	else
		echo "ok $n no $name left # $before -> $after"
	fi
done
for e in "${NEW[@]}"; do
	name=${e%%|*} re=${e#*|}
	printf '# %-34s %9s %8s\n' "$name" "$(count pristine "$re")" "$(count HEAD "$re")"
done
echo "# fs/xfs static check: $failed of ${#GONE[@]} checks failed"
[ "$failed" = 0 ]
