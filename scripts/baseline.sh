#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the QEMU scenarios on the unpatched distro kernel, so that a scenario
# failing on the patched kernel can be told apart from a scenario that is
# wrong.  The pristine source is a git worktree of TREE at tag "pristine";
# it is built with the guest options only, in its own build directory.
#
#   baseline.sh          build it and boot SCENARIOS on it
#   baseline.sh build    only build it (make fstests compares against it)
set -eu

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
: "${CACHE_DIR:=$(dirname "$TREE")}"
: "${LOG_DIR:=$CACHE_DIR/logs}"
: "${SCENARIOS:=basic}"
BASE_TREE=$CACHE_DIR/linux-base
BASE_BUILD=${BASE_BUILD_DIR:-$CACHE_DIR/build-base}
CONFIGS="$TOP/kunit/guest.config $TOP/kunit/fstests.config"
[ "${KASAN:-}" != 1 ] || CONFIGS+=" $TOP/kunit/kasan.config"

need_tree
if [ ! -e "$BASE_TREE/.git" ]; then
	echo "==> creating the unpatched worktree $BASE_TREE"
	git -C "$TREE" worktree add -q --detach "$BASE_TREE" pristine
fi
git -C "$BASE_TREE" checkout -q --detach pristine

TREE=$BASE_TREE BUILD_DIR=$BASE_BUILD LOG_DIR=$LOG_DIR/baseline \
	KUNITCONFIGS="$CONFIGS" \
	"$TOP/kunit/run.sh" build
[ "${1:-}" != build ] || exit 0
# shellcheck disable=SC2086 # a list of scenario names
BUILD_DIR=$BASE_BUILD LOG_DIR=$LOG_DIR/baseline \
	"$TOP/qemu/run-scenario.sh" $SCENARIOS
