#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# accel.sh: print "kvm" or "tcg" for the kernel in $BUILD_DIR, deciding
# as run-scenario.sh does (NOFS_ACCEL if set to kvm or tcg, otherwise a
# short probe boot under KVM).  The reason goes to stderr.
set -eu
# shellcheck source=run-scenario.sh
. "$(dirname "$0")/run-scenario.sh"
mkdir -p "$LOG_DIR"
[ -f "$KERNEL" ] || die "no kernel at $KERNEL: run 'make kernel'"
probe_accel >&2
printf 'accelerator: %s (%s)\n' "$ACCEL" "$ACCEL_WHY" >&2
echo "$ACCEL"
