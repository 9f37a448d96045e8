# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the scripts that read the kernel tree.

: "${TREE:?TREE is not set}"

# need_tree [FILE]: stop unless TREE is a prepared tree (and holds FILE)
need_tree() {
	if [ -n "${1:-}" ]; then
		[ -e "$TREE/$1" ] && return 0
	else
		[ -d "$TREE/.git" ] && return 0
	fi
	echo "error: no kernel tree at $TREE: run 'make prepare'" >&2
	exit 1
}

# worktree_at DIR REV: DIR is a worktree of TREE at REV, made if missing
# and reset to it (test probes and instrumentation are applied to it and
# must not pile up)
worktree_at() {
	need_tree
	if [ ! -e "$1/.git" ]; then
		echo "==> creating the worktree $1 at $2"
		git -C "$TREE" worktree add -q --detach "$1" "$2"
	fi
	git -C "$1" checkout -q -f --detach "$2"
}

# pristine_worktree DIR: DIR is a worktree of TREE at tag "pristine" (the
# unpatched source)
pristine_worktree() {
	worktree_at "$1" pristine
}
