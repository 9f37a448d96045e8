#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series-id.sh: the identity of the series a measurement was made on, a
# hash of every patch file of SERIES in series order (12 hex digits).
# Each measured page records it beside its numbers; check-pages.sh says
# which pages no longer match the series in the checkout.
set -eu -o pipefail

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${SERIES:=mm-scope xfs-conversion jbd2-conversion btrfs-conversion}"
for s in $SERIES; do
	[ -f "$TOP/$s/series" ] ||
		{ echo "series-id.sh: no series file $TOP/$s/series" >&2; exit 1; }
	sed 's/#.*//' "$TOP/$s/series" | while read -r f; do
		[ -n "$f" ] || continue
		printf '%s\n' "$s/$f"
		cat "$TOP/$s/$f"
	done
done | sha256sum | cut -c1-12
