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
