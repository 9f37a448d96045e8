#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that every GFP_NOFS the series turned into GFP_KERNEL really runs
# inside a NOFS scope.  A worktree of TREE at the tip of the series gets
# each converted site wrapped in a check (scripts/instrument_conversions.py;
# the sites of scripts/conversions-unscoped.txt may also run outside a
# scope, holding only the locks their line names);
# that kernel is built in its own directory and boots SCENARIOS; the serial
# logs say which sites were reached in a scope and which, if any, outside.
# The instrumentation is never committed.
#
#   verify-conversions.sh            build, boot SCENARIOS, report
#   verify-conversions.sh report     report on the logs of the last run
#
# Environment: TREE, CACHE_DIR, LOG_DIR, SCENARIOS, STRESS (the campaign's
# scenarios to boot too, in its short form), VERIFY_BASE (the commit before
# the conversions, default the mm-scope branch).
set -eu -o pipefail

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
: "${CACHE_DIR:=$(dirname "$TREE")}"
: "${LOG_DIR:=$CACHE_DIR/logs}"
: "${VERIFY_BASE:=mm-scope}"
: "${SCENARIOS:=btrfs-metadata-pressure btrfs-crash-replay btrfs-balance-scrub btrfs-raid56
	btrfs-mount-paths btrfs-zoned-mount
	ext4-metadata-pressure ext4-fast-commit-replay ext4-restart-abort}"
# and the fault-injection boots, through the campaign's short form (it
# gives them the text range of their filesystem)
: "${STRESS:=stress-failinject-btrfs stress-failinject-ext4}"
VTREE=$CACHE_DIR/linux-verify
VBUILD=$CACHE_DIR/build-verify
VLOG=$LOG_DIR/verify
SITES=$VLOG/sites.txt

# shellcheck disable=SC2119 # no file to check for
need_tree
failed=
if [ "${1:-}" != report ]; then
	tip=$(git -C "$TREE" rev-parse nofs-work)
	worktree_at "$VTREE" "$tip"
	git -C "$VTREE" clean -q -f -- include/linux/nofs_verify.h mm/nofs_verify.c
	mkdir -p "$VLOG"
	rm -rf "$VLOG"/*.log "$VLOG/stress"
	echo "==> instrumenting the GFP_NOFS -> GFP_KERNEL sites of $VERIFY_BASE..nofs-work"
	python3 "$TOP/scripts/instrument_conversions.py" sites "$VTREE" \
		"$VERIFY_BASE" "$tip" > "$SITES"
	python3 "$TOP/scripts/instrument_conversions.py" apply "$VTREE" \
		"$VERIFY_BASE" "$tip" "$TOP/scripts/conversions-unscoped.txt" \
		> "$VLOG/instrumented.txt"
	echo "    $(wc -l < "$SITES") sites, $(grep -vc '^skipped' "$VLOG/instrumented.txt") instrumented," \
		"$(grep -c ' unscoped$' "$VLOG/instrumented.txt") of them allowed outside a scope" \
		"(list: $VLOG/instrumented.txt)"
	# the btrfs self-tests too, which reach converted sites at boot, and
	# the zoned null_blk of btrfs-zoned-mount
	TREE=$VTREE BUILD_DIR=$VBUILD LOG_DIR=$VLOG KUNITCONFIGS="$TOP/kunit/memalloc_scope.kunitconfig
		$TOP/kunit/guest.config $TOP/kunit/fstests.config
		$TOP/kunit/btrfs-selftests.config $TOP/kunit/btrfs-zoned.config" "$TOP/kunit/run.sh" build
	# a failed scenario fails the run, after the report: its log may
	# show a site reached outside a scope, or something else broke
	# shellcheck disable=SC2086 # a list of scenario names
	BUILD_DIR=$VBUILD LOG_DIR=$VLOG \
		"$TOP/qemu/run-scenario.sh" $SCENARIOS || failed+=" scenarios"
	[ -z "$STRESS" ] || BUILD_DIR=$VBUILD LOG_DIR=$VLOG STRESS=$STRESS \
		"$TOP/stress/run.sh" short patched || failed+=" stress"
fi
[ -f "$SITES" ] || { echo "error: no earlier run: $SITES is missing" >&2; exit 1; }
logs=$(find "$VLOG" -name '*.log' ! -name build.log ! -name kvm-probe.log)
[ -n "$logs" ] || { echo "error: no serial logs in $VLOG" >&2; exit 1; }
echo "==> sites reached in the logs of $VLOG"
# shellcheck disable=SC2086 # a list of files
python3 "$TOP/scripts/instrument_conversions.py" report "$SITES" $logs
if [ -n "$failed" ]; then
	echo "error: the instrumented kernel failed its runs:$failed (logs in $VLOG)" >&2
	exit 1
fi
