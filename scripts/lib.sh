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

# pristine_worktree DIR: DIR is a worktree of TREE at tag "pristine" (the
# unpatched source), made if missing and reset to the tag (test probes
# are applied to it and must not pile up)
pristine_worktree() {
	need_tree
	if [ ! -e "$1/.git" ]; then
		echo "==> creating the worktree $1 at pristine"
		git -C "$TREE" worktree add -q --detach "$1" pristine
	fi
	git -C "$1" checkout -q -f --detach pristine
}
