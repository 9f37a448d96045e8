#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mutants.sh: the harness proves it can say no.  Each mutant of
# scripts/mutants/mutants.tsv is one deliberate break (a kernel patch, an
# edited report, a broken-input parameter) and the one check meant to
# catch it; every mutant must turn its check red, for the reason its
# signal names, and every control (the same check, nothing broken) must
# stay green.  Writes Documentation/mutants-results.md; fails unless
# every row came out as it must.
#
#   mutants.sh [NAME...]     all rows, or the rows named
#
# Kernel mutants build in a worktree of TREE at the series' tip with the
# conversions instrumented (scripts/instrument_conversions.py), in
# CACHE_DIR/build-mutants; the KUnit one in its own worktree and build
# directory, so that its header change does not rebuild the other.
# Builds after the first are incremental.  Environment: TREE, CACHE_DIR,
# LOG_DIR, NOFS_ACCEL.
set -eu -o pipefail

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
: "${CACHE_DIR:=$(dirname "$TREE")}"
: "${LOG_DIR:=$CACHE_DIR/logs}"
HERE=$TOP/scripts/mutants
MTREE=$CACHE_DIR/linux-mutants
MBUILD=$CACHE_DIR/build-mutants
KTREE=$CACHE_DIR/linux-mutants-kunit
KBUILD=$CACHE_DIR/build-mutants-kunit
MLOG=$LOG_DIR/mutants
# initramfs and disk images of its own: make test may boot the same
# scenarios at the same time
export QEMU_CACHE=$CACHE_DIR/qemu-mutants
PAGE=$TOP/Documentation/mutants-results.md
INSTR_MSG="instrumentation (scripts/instrument_conversions.py), not for merging"

say() { printf '==> mutants: %s\n' "$*"; }
die() { printf 'mutants.sh: error: %s\n' "$*" >&2; exit 1; }

# setup: MTREE at the tip with the instrumentation committed on top (made
# once, kept while the tip does not move), KTREE at the tip
setup() {
	local tip
	need_tree
	tip=$(git -C "$TREE" rev-parse nofs-work)
	if [ "$(git -C "$MTREE" rev-parse HEAD~1 2>/dev/null)" != "$tip" ] ||
	   [ "$(git -C "$MTREE" log -1 --format=%s 2>/dev/null)" != "$INSTR_MSG" ]; then
		worktree_at "$MTREE" "$tip"
		say "instrumenting the conversions of mm-scope..nofs-work in $MTREE"
		python3 "$TOP/scripts/instrument_conversions.py" apply "$MTREE" \
			mm-scope "$tip" > "$MLOG/instrumented.txt"
		git -C "$MTREE" add -A
		git -C "$MTREE" -c user.name=mutants -c user.email=mutants@localhost \
			commit -q -m "$INSTR_MSG"
	fi
	git -C "$MTREE" checkout -q -f HEAD
	worktree_at "$KTREE" "$tip"
}

# apply_patch TREE NAME: the mutant's patch on TREE (reverted by
# revert_patch: checkout -f gives the files a new mtime, so the next
# build recompiles them)
apply_patch() {
	git -C "$1" apply "$HERE/$2.patch" ||
		die "$2.patch does not apply to $1: regenerate it against the tip"
}
revert_patch() { git -C "$1" checkout -q -f HEAD; }

# run_check KIND ARG LOG: the check; status 0 if green
run_check() {
	local kind=$1 arg=$2 log=$3
	case $kind in
	scenario)
		BUILD_DIR=$MBUILD LOG_DIR=$MLOG/boots \
			"$TOP/qemu/run-scenario.sh" "$arg" > "$log" 2>&1 ;;
	kunit)
		# the configuration of make test's KUnit run (lockdep and the
		# debug option), so that no case may skip
		TREE=$KTREE BUILD_DIR=$KBUILD LOG_DIR=$MLOG KUNIT_NAME=mutant-kunit \
			"$TOP/kunit/run.sh" run > "$log" 2>&1 ;;
	known-rule)
		( known_rule "$arg" ) > "$log" 2>&1 ;;
	durable)
		BUILD_DIR=$MBUILD LOG_DIR=$MLOG/boots \
			NOFS_APPEND="nofs.cycles=2 nofs.repair_every=1 $([ "$arg" = - ] || echo "$arg")" \
			"$TOP/qemu/run-scenario.sh" --timeout 400 stress-crash-recovery \
			> "$log" 2>&1 ;;
	*) die "unknown check kind $kind" ;;
	esac
}

# known_rule SED: the dquot report of the unpatched kernel, edited by SED,
# through the known-bug rules and the splat scan; green if every splat
# of it is exempt as the known bug
known_rule() {
	local tmp allow
	tmp=$(mktemp)
	# shellcheck source=qemu/run-scenario.sh
	. "$TOP/qemu/run-scenario.sh"
	sed -e "$([ "$1" = - ] || echo "$1")" "$TOP/qemu/testdata/dquot-isolate-report.log" > "$tmp"
	allow=$(known_splat "$tmp") || allow=
	allow=${allow%%$'\n'*}
	if [ -n "$(splat_lines "$tmp" "$allow")" ]; then
		echo "splat counted: the rules do not take this report for the known bug"
		splat_lines "$tmp" "$allow" | head -n 3
		rm -f "$tmp"
		return 1
	fi
	echo "every splat of the report is exempt as the known dquot bug"
	rm -f "$tmp"
}

# build_for KIND: the kernel the check boots, built (incrementally)
build_for() {
	case $1 in
	scenario|durable)
		TREE=$MTREE BUILD_DIR=$MBUILD LOG_DIR=$MLOG "$TOP/kunit/run.sh" build ;;
	*) ;;	# kunit.py builds its own; known-rule needs none
	esac
}

main() {
	local name patch kind arg signal what want got why n=0 bad=0 start t
	local rows=() tree serial
	mkdir -p "$MLOG/boots"
	setup
	start=$SECONDS
	while IFS=$'\t' read -r name patch kind arg signal what; do
		case $name in ''|'#'*) continue ;; esac
		[ $# -eq 0 ] || [[ " $* " == *" $name "* ]] || continue
		n=$((n + 1))
		want=red
		[ "$patch" != - ] || [ "$signal" != - ] || want=green
		tree=$MTREE
		[ "$kind" != kunit ] || tree=$KTREE
		serial=
		case $kind in
		scenario) serial=$MLOG/boots/$arg.log ;;
		durable) serial=$MLOG/boots/stress-crash-recovery.log ;;
		esac
		[ -z "$serial" ] || rm -f "$serial"
		say "[$n] $name: $what; check: $kind $([ "$arg" = - ] || echo "$arg" | cut -c1-40); must be $want"
		[ "$patch" = - ] || apply_patch "$tree" "$patch"
		t=$SECONDS
		if ! build_for "$kind" > "$MLOG/$name.build.log" 2>&1; then
			[ "$patch" = - ] || revert_patch "$tree"
			die "building $name failed: $MLOG/$name.build.log"
		fi
		got=red
		run_check "$kind" "$arg" "$MLOG/$name.log" && got=green
		[ "$patch" = - ] || revert_patch "$tree"
		why=
		if [ "$got" = red ] && [ "$signal" != - ] &&
		   ! grep -qE -- "$signal" "$MLOG/$name.log" ${serial:+"$serial"} 2>/dev/null; then
			why="red, but not for its reason: no '$signal' in the log"
			got="red (wrong reason)"
		fi
		if [ "$got" = "$want" ]; then
			echo "ok $n $name # $got in $((SECONDS - t)) s"
		else
			echo "not ok $n $name # $got, must be $want${why:+; $why}; log: $MLOG/$name.log"
			tail -n 5 "$MLOG/$name.log" | sed 's/^/#   /'
			bad=$((bad + 1))
		fi
		rows+=("| \`$name\` | $what | $kind $([ "$arg" = - ] || echo "\`$arg\`" | cut -c1-60) | $want | $got | $((SECONDS - t)) |")
		# keep the serial log of a boot under the mutant's name
		[ -z "$serial" ] || [ ! -f "$serial" ] || mv "$serial" "$MLOG/$name.serial.log"
	done < "$HERE/mutants.tsv"
	[ $n -gt 0 ] || die "no such mutant: $*"
	{
		echo "# Mutants: the harness says no"
		echo
		echo "Written by \`make mutants\` (scripts/mutants.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'),"
		echo "series \`$("$TOP/scripts/series-id.sh")\`, $n rows in $((SECONDS - start)) s."
		echo "Each mutant is one deliberate break and the one check meant to catch"
		echo "it (\`scripts/mutants/mutants.tsv\`); a mutant must turn its check red"
		echo "and its log must show the signal that names the break; each control"
		echo "runs the same kind of check with nothing broken and must stay green."
		echo
		echo "| row | what | check | must be | came out | s |"
		echo "|---|---|---|---|---|--:|"
		printf '%s\n' "${rows[@]}"
		echo
		echo "$((n - bad)) of $n rows as they must be."
	} > "$PAGE.new"
	if [ $# -eq 0 ]; then mv "$PAGE.new" "$PAGE"; else rm -f "$PAGE.new"; fi
	say "$((n - bad)) of $n rows as they must be in $((SECONDS - start)) s; logs in $MLOG"
	[ $bad -eq 0 ]
}

main "$@"
