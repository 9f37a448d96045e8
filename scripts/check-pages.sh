#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-pages.sh: which measured pages no longer describe the series in
# this checkout.  Each page records the series it measured (scripts/
# series-id.sh) as "series `ID`"; a page with another ID, or with none,
# predates the series and says so here.  It only reports (make test runs
# it): measuring again is make stress, make fstests and make bench.
set -eu

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
PAGES="Documentation/benchmarks.md Documentation/stress-results.md
	Documentation/fstests-results.md"
now=$("$TOP/scripts/series-id.sh")
stale=0
for p in $PAGES; do
	ids=$(grep -oE 'series `[0-9a-f]{12}`' "$TOP/$p" | grep -oE '[0-9a-f]{12}' | sort -u | xargs)
	old=$(grep -c 'series not recorded' "$TOP/$p" || true)
	if [ -z "$ids" ]; then
		echo "# $p: STALE: records no series (measured before series ids were recorded)"
		stale=$((stale + 1))
	elif [ "$ids" != "$now" ]; then
		echo "# $p: STALE: measured series $ids, the checkout has $now"
		stale=$((stale + 1))
	elif grep -q '^\*\*Partial campaign' "$TOP/$p"; then
		echo "# $p: PARTIAL: on this series ($now), but $(grep -o 'Partial campaign: [0-9]* of [0-9]* boots done' "$TOP/$p" | sed 's/Partial campaign: //')"
		stale=$((stale + 1))
	elif [ "$old" -gt 0 ]; then
		echo "# $p: STALE in part: some runs on this series ($now), $old that record no series"
		stale=$((stale + 1))
	else
		echo "# $p: measured on this series ($now)"
	fi
done
echo "# measured pages: $stale of $(echo "$PAGES" | wc -w) predate series $now"
