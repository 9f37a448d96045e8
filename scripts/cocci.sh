#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the Coccinelle rules of scripts/coccinelle over a kernel tree.
#
#   cocci.sh [report]  every rule in report mode; the reports, sorted, and a
#                      count per rule and directory go to LOG_DIR/cocci-report.txt
#   cocci.sh patch     every rule in patch mode; one unified diff per rule,
#                      LOG_DIR/cocci-RULE.diff (apply with patch -p1 in the
#                      tree), and the counts in LOG_DIR/cocci-patch.txt.
#                      The tree itself is never modified.
#   cocci.sh selftest  run each rule on scripts/coccinelle/tests/RULE.c and
#                      compare the report with RULE.report and the patched
#                      file with RULE.res; fails on any difference
#
# Environment:
#   COCCI_TREE   the tree to check (default TREE, the patched tree)
#   COCCI_DIRS   directories in it (default "." - the whole tree, see below)
#   COCCI_RULES  rule names (default every scripts/coccinelle/*.cocci)
#   LOG_DIR, JOBS (spatch -j)
#
# spatch only reads the files that match every "// Files:" regular
# expression of a rule (git grep): parsing is what costs, and so the whole
# tree takes a minute or two on two cores, where fs/ alone, unfiltered,
# took six.
set -eu
export LC_ALL=C

TOP=$(cd "$(dirname "$0")/.." && pwd)
: "${CACHE_DIR:=$HOME/.cache/nofs-scope}"
: "${TREE:=$CACHE_DIR/linux}"
: "${LOG_DIR:=$CACHE_DIR/logs}"
: "${JOBS:=$(nproc)}"
: "${COCCI_TREE:=$TREE}"
: "${COCCI_DIRS:=.}"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

COCCI_DIR=$TOP/scripts/coccinelle
MACROS=$COCCI_DIR/memalloc_macros.h
MODE=${1:-report}

say() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

case "$MODE" in
report|patch|selftest) ;;
*) echo "usage: $0 [report|patch|selftest]" >&2; exit 2 ;;
esac

command -v spatch >/dev/null ||
	die "spatch not found: apt-get install coccinelle (or make deps)"

rules=()
if [ -n "${COCCI_RULES:-}" ]; then
	for r in $COCCI_RULES; do
		[ -f "$COCCI_DIR/$r.cocci" ] || die "no rule $COCCI_DIR/$r.cocci"
		rules+=("$r")
	done
else
	for f in "$COCCI_DIR"/*.cocci; do
		rules+=("$(basename "$f" .cocci)")
	done
fi

# The spatch options of a rule: its "// Options:" line, as coccicheck does
rule_options() {
	sed -n 's|^// Options:||p' "$COCCI_DIR/$1.cocci"
}

# spatch MODE RULE ARGS...: run one rule; output on stdout
run_spatch() {
	local mode=$1 rule=$2
	shift 2
	# shellcheck disable=SC2046 # the options are words
	spatch --very-quiet --timeout 120 -D "$mode" $(rule_options "$rule") \
		--macro-file "$MACROS" --sp-file "$COCCI_DIR/$rule.cocci" "$@"
}

# Coccinelle prints an iterator like "for (": give scoped_guard the
# kernel's spacing in the lines it adds.
fix_spacing() {
	sed -E 's/^(\+.*\<scoped_(cond_)?guard) \(/\1(/'
}

# Sort report lines by file, line and column
sort_report() {
	sort -t: -k1,1 -k2,2n -k3,3V
}

# The files under COCCI_DIRS that match every "// Files:" ERE of a rule
candidates() {
	local rule=$1 re first=1 list
	list=$(mktemp)
	while IFS= read -r re; do
		if [ $first = 1 ]; then
			# shellcheck disable=SC2086 # COCCI_DIRS is a list
			git -C "$COCCI_TREE" grep -l -E -e "$re" -- $COCCI_DIRS |
				grep -E '\.[ch]$' > "$list" || true
			first=0
		elif [ -s "$list" ]; then
			(cd "$COCCI_TREE" && xargs -r grep -l -E -e "$re" < "$list") \
				> "$list.next" || true
			mv "$list.next" "$list"
		fi
	done < <(sed -n 's|^// Files: *||p' "$COCCI_DIR/$rule.cocci")
	if [ $first = 1 ]; then
		# shellcheck disable=SC2086
		git -C "$COCCI_TREE" ls-files -- $COCCI_DIRS | grep -E '\.[ch]$' > "$list"
	fi
	LC_ALL=C sort "$list"
	rm -f "$list"
}

# fs/xfs/xfs_buf.c -> fs/xfs; fs/namei.c -> fs/*.c; include/linux/x.h -> include/linux
dir_of() {
	awk -F/ '{ if (NF > 2) print $1 "/" $2; else if (NF == 2) {
		n = split($2, e, "."); print $1 "/*." e[n] } else print "./" }'
}

# count per directory of the file names on stdin, as "  N dir" lines
per_dir() {
	dir_of | LC_ALL=C sort | uniq -c | sort -k1,1nr -k2,2 |
		awk '{ printf "    %5d  %s\n", $1, $2 }'
}

selftest() {
	local t=$COCCI_DIR/tests tmp n=0 failed=0 rule out m
	tmp=$(mktemp -d)
	echo "TAP version 13"
	for rule in "${rules[@]}"; do
		[ -f "$t/$rule.c" ] || { echo "# $rule: no tests/$rule.c"; continue; }
		cp "$t/$rule.c" "$tmp/"
		# report: every expected line, nothing else
		n=$((n + 1))
		(cd "$tmp" && run_spatch report "$rule" "$rule.c") \
			2> "$tmp/$rule.err" | sort_report > "$tmp/$rule.report" || true
		if diff -u "$t/$rule.report" "$tmp/$rule.report" > "$tmp/d"; then
			echo "ok $n $rule report # $(wc -l < "$tmp/$rule.report") lines"
		else
			echo "not ok $n $rule report"
			sed 's/^/#   /' "$tmp/d" "$tmp/$rule.err"
			failed=$((failed + 1))
		fi
		# patch: the file as the rule rewrites it
		n=$((n + 1))
		(cd "$tmp" && run_spatch patch "$rule" "$rule.c" --patch . \
			> "$tmp/$rule.diff" 2> "$tmp/$rule.err") || true
		cp "$t/$rule.c" "$tmp/$rule.out"
		fix_spacing < "$tmp/$rule.diff" > "$tmp/$rule.diff2"
		if [ -s "$tmp/$rule.diff2" ] &&
			! patch -s -p1 "$tmp/$rule.out" < "$tmp/$rule.diff2" \
				> "$tmp/$rule.perr" 2>&1; then
			cat "$tmp/$rule.perr" >> "$tmp/$rule.err"
		fi
		if diff -u "$t/$rule.res" "$tmp/$rule.out" > "$tmp/d"; then
			echo "ok $n $rule patch # $(grep -c '^[-+][^-+]' \
				"$tmp/$rule.diff2" || true) lines changed"
		else
			echo "not ok $n $rule patch"
			sed 's/^/#   /' "$tmp/d" "$tmp/$rule.err"
			failed=$((failed + 1))
		fi
		# context and org run and say something
		for m in context org; do
			n=$((n + 1))
			if out=$(cd "$tmp" && run_spatch "$m" "$rule" "$rule.c" 2>&1) &&
				[ -n "$out" ]; then
				echo "ok $n $rule $m"
			else
				echo "not ok $n $rule $m"
				printf '%s\n' "$out" | sed 's/^/#   /'
				failed=$((failed + 1))
			fi
		done
	done
	echo "1..$n"
	rm -rf "$tmp"
	echo "# cocci selftest: $failed of $n checks failed"
	[ "$failed" = 0 ]
}

if [ "$MODE" = selftest ]; then
	selftest
	exit
fi

TREE=$COCCI_TREE need_tree Makefile
git -C "$COCCI_TREE" rev-parse --git-dir >/dev/null 2>&1 ||
	die "$COCCI_TREE is not a git tree (cocci.sh finds the files with git grep)"
mkdir -p "$LOG_DIR"
out=$LOG_DIR/cocci-$MODE.txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

{
	echo "# cocci.sh $MODE, $(date -u '+%Y-%m-%d %H:%M UTC'), spatch $(spatch --version | sed -n '1s/spatch version \([^ ]*\).*/\1/p')"
	echo "# tree: $COCCI_TREE ($(git -C "$COCCI_TREE" describe --always --tags 2>/dev/null))"
	echo "# dirs: $COCCI_DIRS"
} > "$out"

total_start=$SECONDS
i=0
for rule in "${rules[@]}"; do
	i=$((i + 1))
	candidates "$rule" > "$work/$rule.files"
	nf=$(wc -l < "$work/$rule.files")
	say "[$i/${#rules[@]}] $rule: $MODE on $nf candidate files in $COCCI_DIRS of $COCCI_TREE"
	log=$LOG_DIR/cocci-$MODE-$rule.log
	start=$SECONDS
	: > "$work/$rule.out"
	if [ "$nf" -gt 0 ]; then
		# one file per group: spatch -j shares the groups out
		awk '{ print; print "" }' "$work/$rule.files" > "$work/$rule.groups"
		extra=()
		[ "$MODE" = patch ] && extra=(--patch .)
		(cd "$COCCI_TREE" && run_spatch "$MODE" "$rule" -j "$JOBS" \
			"${extra[@]}" --file-groups "$work/$rule.groups") \
			> "$work/$rule.out" 2> "$log" ||
			die "spatch failed on $rule; see $log"
	else
		: > "$log"
	fi
	secs=$((SECONDS - start))
	if [ "$MODE" = report ]; then
		sort_report < "$work/$rule.out" > "$work/$rule.sorted"
		n=$(wc -l < "$work/$rule.sorted")
		say "$rule: $n reports in ${secs}s (spatch log: $log)"
		{
			echo
			echo "## $rule: $n reports, $nf files read, ${secs}s"
			echo
			cat "$work/$rule.sorted"
		} >> "$out"
		cut -d: -f1 "$work/$rule.sorted" > "$work/$rule.hits"
	else
		diff=$LOG_DIR/cocci-$rule.diff
		fix_spacing < "$work/$rule.out" > "$diff"
		n=$(grep -c '^@@' "$diff" || true)
		files=$(grep -c '^+++ ' "$diff" || true)
		say "$rule: $n hunks in $files files in ${secs}s: $diff"
		{
			echo
			echo "## $rule: $n hunks in $files files, $nf files read, ${secs}s"
			echo "# diff: $diff"
		} >> "$out"
		# one line per hunk, named by its file
		awk '/^\+\+\+ /{ f = substr($2, 3) } /^@@/{ print f }' "$diff" \
			> "$work/$rule.hits"
	fi
	echo "$rule $secs $n" >> "$work/times"
done

{
	echo
	if [ "$MODE" = report ]; then
		echo "## reports per rule and directory"
	else
		echo "## hunks per rule and directory"
	fi
	for rule in "${rules[@]}"; do
		echo
		echo "  $rule: $(wc -l < "$work/$rule.hits")"
		per_dir < "$work/$rule.hits"
	done
	echo
	echo "# total ${SECONDS}s (spatch: $(awk '{ s += $2 } END { print s }' "$work/times")s)"
} > "$work/summary"
sed -n '/^## \(reports\|hunks\) per/,$p' "$work/summary"
cat "$work/summary" >> "$out"
say "cocci $MODE done in $((SECONDS - total_start))s: $out"
