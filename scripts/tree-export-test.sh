#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Test of "tree.sh export" on a throwaway tree of one file and one series
# of one patch: the export writes the patch and a cover letter whose text
# is the one in the repository's file, so that an edit of the file
# survives the next export (it did not when the text came from the branch
# description set at prepare), and the patch count is renewed.
#
#   tree-export-test.sh [TREE_SH]     default: the tree.sh next to it
set -eu -o pipefail

TREE_SH=${1:-$(cd "$(dirname "$0")" && pwd)/tree.sh}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tree=$tmp/linux top=$tmp/repo
failed=0

g() { git -C "$tree" -c user.name=t -c user.email=t@example.org "$@"; }
export_series() {
	TREE=$tree TOP=$top SERIES=demo "$TREE_SH" export > "$tmp/export.log" 2>&1 ||
		{ echo "not ok - export failed:"; sed 's/^/# /' "$tmp/export.log"; exit 1; }
}
cover() {	# SUBJECT BODY: the cover letter as a developer writes it
	printf 'Subject: [PATCH 0/1] %s\n\n%s\n\nt (1):\n  x\n' "$1" "$2" \
		> "$top/demo/0000-cover-letter.patch"
}
expect() {	# WHAT ERE: the exported cover letter matches ERE
	if grep -qE -- "$2" "$top/demo/0000-cover-letter.patch"; then
		echo "ok - $1"
	else
		echo "not ok - $1 (no /$2/ in the cover letter)"
		failed=$((failed + 1))
	fi
}

mkdir -p "$tree" "$top/demo"
g init -q -b nofs-work
echo a > "$tree/f"
g add f && g commit -q -m pristine && g tag pristine
echo b > "$tree/f"
g commit -q -a -m "demo: change f" && g branch demo

cover "first subject" "First body."
# what make prepare leaves: the branch description from the file
g config branch.demo.description "$(printf 'first subject\n\nFirst body.\n')"
export_series
expect "the first export keeps the file's text" '^First body\.$'
cover "second subject" "Second body, edited after the first export."
export_series
expect "an edit of the file survives the next export" '^Second body, edited after'
expect "the subject is the edited one" '^Subject: \[PATCH 0/1\] second subject$'
echo c > "$tree/f"
g commit -q -a -m "demo: change f again" && g branch -f demo
export_series
expect "the patch count is renewed" '^Subject: \[PATCH 0/2\] second subject$'
echo "# tree.sh export: $failed failed"
[ "$failed" -eq 0 ]
