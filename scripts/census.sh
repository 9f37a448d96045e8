#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# GFP_NOFS and allocation-scope census, per filesystem directory.
#
#   census.sh [report]       count in the distro tree (CENSUS_BASE) and in
#                            TREE, print the table and write it, with the
#                            trees' versions and the date, to
#                            Documentation/gfp-nofs-census.md (make census)
#   census.sh print TREE...  print the table for any trees, side by side
#
# Rows: each fs/*/ directory, the files directly in fs/ ("fs/*.c"), the fs
# total, and totals for mm/, block/, drivers/ and net/; only rows with a
# count.  Columns, one per tree: occurrences in C code (.c and .h files,
# comments and string literals removed) of
#   GFP_NOFS      the GFP_NOFS flag
#   legacy scope  memalloc_nofs_save/restore(), memalloc_noio_save/restore()
#   new scope     memalloc_nofs_enter/exit(), memalloc_noio_enter/exit(),
#                 memalloc_scope_*() (not the memalloc_scope_owner_*()
#                 and memalloc_scope_assert_*() checks), guard() and
#                 scoped_guard() of memalloc_*,
#                 WQ_MEM_NOFS, WQ_MEM_NOIO
#   marked locks  struct nofs_mutex/nofs_rwsem/nofs_percpu_rwsem declarations
#                 (not pointers) and DEFINE_NOFS_MUTEX/RWSEM()
#
# Environment: TREE, CENSUS_BASE (default CACHE_DIR/linux-base), TOP.
set -eu
export LC_ALL=C

TOP=$(cd "$(dirname "$0")/.." && pwd)
: "${CACHE_DIR:=$HOME/.cache/nofs-scope}"
: "${TREE:=$CACHE_DIR/linux}"
: "${CENSUS_BASE:=$CACHE_DIR/linux-base}"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

DIRS="fs mm block drivers net"
DOC=$TOP/Documentation/gfp-nofs-census.md

die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Counts every metric in the files named on the command line; prints
# "file n1 n2 n3 n4" for the files with a count.  Comments and the contents
# of string and character literals are dropped first, with one regular
# expression that reads the file left to right (runs of ordinary characters
# in one step), so that "/*" in a string or a quote in a comment cannot
# confuse it.  No preprocessing: code under #if 0 or an unset CONFIG_ counts.
read -r -d '' COUNT_PL <<'EOF' || true
use strict;
my @re = (
	qr/\bGFP_NOFS\b/,
	qr/\bmemalloc_no(?:fs|io)_(?:save|restore)\s*\(/,
	qr/\bmemalloc_no(?:fs|io)_(?:enter|exit)\s*\(|\bmemalloc_scope_(?!owner_|assert_)\w+\s*\(|guard\s*\(\s*memalloc_\w+|\bWQ_MEM_NO(?:FS|IO)\b/,
	qr/\bstruct\s+nofs_(?:mutex|rwsem|percpu_rwsem)\s+\w|\bDEFINE_NOFS_(?:MUTEX|RWSEM)\s*\(/,
);
for my $f (@ARGV) {
	open(my $fh, '<', $f) or die "$f: $!\n";
	local $/;
	my $s = <$fh>;
	close($fh);
	$s =~ s{([^/"']+)|/\*.*?\*/|//[^\n]*|("(?:\\.|[^"\\\n])*")|
		('(?:\\.|[^'\\\n])*')|(.)}
	       {defined $1 ? $1 : defined $2 ? '""' : defined $3 ? "''" :
		defined $4 ? $4 : ' '}gsex;
	my @n = map { scalar(() = $s =~ /$_/g) } @re;
	print join(' ', $f, @n), "\n" if grep { $_ } @n;
}
EOF

# count_tree TREE: "dir n1 n2 n3 n4" per file with a count, dir as in the table
count_tree() {
	local t=$1
	# shellcheck disable=SC2086 # DIRS is a list
	git -C "$t" grep -l -F -e GFP_NOFS -e memalloc_ -e WQ_MEM_NO \
		-e DEFINE_NOFS_ -e 'struct nofs_' -- $DIRS | grep -E '\.[ch]$' |
		(cd "$t" && xargs -r perl -e "$COUNT_PL") |
		awk '{
			n = split($1, p, "/")
			if (p[1] != "fs") d = p[1] "/"
			else if (n == 2) d = "fs/*.c"
			else d = "fs/" p[2] "/"
			print d, $2, $3, $4, $5
		}'
}

# table TREE...: the markdown table, one column per tree for each metric
table() {
	local i=0 t
	local tmp
	tmp=$(mktemp -d)
	for t in "$@"; do
		[ -f "$t/Makefile" ] || die "no kernel tree at $t"
		git -C "$t" rev-parse --git-dir >/dev/null 2>&1 ||
			die "$t is not a git tree (census.sh lists files with git grep)"
		count_tree "$t" | sed "s/^/$i /" >> "$tmp/counts"
		i=$((i + 1))
	done
	touch "$tmp/counts"
	if [ -z "${NAMES:-}" ]; then
		for t in "$@"; do NAMES="${NAMES:-}${NAMES:+ }$(basename "$t")"; done
	fi
	awk -v ntrees="$#" -v names="$NAMES" '
	BEGIN { nm = split("GFP_NOFS|legacy scope|new scope|marked locks", m, "|")
		split(names, tn, " ") }
	{	c[$2, $1, 1] += $3; c[$2, $1, 2] += $4
		c[$2, $1, 3] += $5; c[$2, $1, 4] += $6
		seen[$2] = 1
		if ($2 ~ /^fs\//) for (k = 1; k <= 4; k++) c["fs total", $1, k] += $(k + 2)
		for (k = 1; k <= 4; k++) c["total", $1, k] += $(k + 2)
	}
	function row(d,   s, k, i) {
		s = "| " d
		for (k = 1; k <= nm; k++)
			for (i = 0; i < ntrees; i++)
				s = s " | " (c[d, i, k] + 0)
		print s " |"
	}
	END {
		s = "| directory"; r = "|---"
		for (k = 1; k <= nm; k++)
			for (i = 0; i < ntrees; i++) {
				s = s " | " m[k] (ntrees > 1 ? " " tn[i + 1] : "")
				r = r "|--:"
			}
		print s " |"; print r "|"
		n = 0
		for (d in seen) if (d ~ /^fs\/[^*]/) list[++n] = d
		# insertion sort: awk has no portable sort
		for (a = 2; a <= n; a++) { v = list[a]
			for (b = a - 1; b > 0 && list[b] > v; b--) list[b + 1] = list[b]
			list[b + 1] = v }
		for (a = 1; a <= n; a++) row(list[a])
		if ("fs/*.c" in seen) row("fs/*.c")
		row("fs total")
		split("mm/ block/ drivers/ net/", o, " ")
		for (a = 1; a <= 4; a++) if (o[a] in seen) row(o[a])
		row("total")
	}' "$tmp/counts"
	rm -rf "$tmp"
}

# describe TREE: git describe, commit and subject of its HEAD
describe() {
	# shellcheck disable=SC2016 # the backquotes are markdown
	printf '`%s`, commit `%s` "%s"' \
		"$(git -C "$1" describe --tags --always --dirty 2>/dev/null)" \
		"$(git -C "$1" rev-parse --short=12 HEAD)" \
		"$(git -C "$1" log -1 --format=%s HEAD)"
}

report() {
	local start=$SECONDS tab left
	[ -f "$CENSUS_BASE/Makefile" ] ||
		die "no distro tree at $CENSUS_BASE (CENSUS_BASE): it is the worktree of tag pristine"
	echo "==> census of $CENSUS_BASE (base) and $TREE (patched)"
	tab=$(NAMES="base patched" table "$CENSUS_BASE" "$TREE")
	printf '%s\n' "$tab"
	left=$(python3 "$TOP/scripts/census_sites.py" "$TOP/scripts/census-remaining.txt" "$TREE") ||
		die "some GFP_NOFS sites have no reason: add them to scripts/census-remaining.txt (the page is not written)"
	cat > "$DOC" <<EOF
# GFP_NOFS census

Written by \`make census\` (scripts/census.sh) on $(date -u +%Y-%m-%d); do not
edit by hand.  It counts, per filesystem directory, how the distro tree and
the patched tree ask for NOFS and NOIO allocations.

- base: the distro source, $(describe "$CENSUS_BASE")
- patched: TREE, $(describe "$TREE")

Each column counts occurrences in C code, in the \`.c\` and \`.h\` files
under \`fs/\`, \`mm/\`, \`block/\`, \`drivers/\` and \`net/\`, after the
comments and the contents of string literals are removed (a regular
expression, no preprocessor: code under \`#if 0\` counts):

- **GFP_NOFS**: the flag, wherever it appears in code (an allocation, a
  mask kept in a variable or a structure, a comparison).
- **legacy scope**: calls of \`memalloc_nofs_save()\`,
  \`memalloc_nofs_restore()\`, \`memalloc_noio_save()\`,
  \`memalloc_noio_restore()\`.
- **new scope**: calls of \`memalloc_nofs_enter()\`/\`exit()\`,
  \`memalloc_noio_enter()\`/\`exit()\` and \`memalloc_scope_*()\` (not the
  \`memalloc_scope_owner_*()\` and \`memalloc_scope_assert_*()\` checks),
  \`guard()\`/\`scoped_guard()\` of a \`memalloc_*\` class, and the
  \`WQ_MEM_NOFS\`/\`WQ_MEM_NOIO\` workqueue flags.
- **marked locks**: \`struct nofs_mutex\`/\`nofs_rwsem\`/\`nofs_percpu_rwsem\`
  declarations (not pointers) and \`DEFINE_NOFS_MUTEX/RWSEM()\`.

Rows are the \`fs/*/\` directories, the files directly in \`fs/\`
(\`fs/*.c\`), then totals; a row appears when any count in it is not zero.
\`mm/\` includes the KUnit suite of the series.

$tab

## The GFP_NOFS left in the converted filesystems

Every \`GFP_NOFS\` still in the code of fs/btrfs, fs/ext4 and fs/jbd2 in
the patched tree, by the function it is in, with the reason it stays
(from \`scripts/census-remaining.txt\`, by function or by file; a site with
no reason stops \`make census\`).  The sites of one reason are reached
without the scope that would make the flag redundant, or before it starts;
each needs a scope at those callers before its flag can go.

$left
EOF
	echo "==> wrote $DOC in $((SECONDS - start))s"
}

case "${1:-report}" in
report)
	# shellcheck disable=SC2119 # no file to check for
	need_tree
	report
	;;
print)
	shift
	[ $# -gt 0 ] || set -- "$TREE"
	table "$@"
	;;
*) echo "usage: $0 [report] | print TREE..." >&2; exit 2 ;;
esac
