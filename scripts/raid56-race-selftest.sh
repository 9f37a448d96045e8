#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that raid56-race-test.sh's verdicts fail closed, without building
# or booting: a fake TOP whose kunit/run.sh does nothing and whose
# qemu/run-scenario.sh leaves a chosen serial log.  Needs TREE (the
# worktree is prepared and the probes applied for real).  A few seconds.
set -u
: "${TREE:?TREE: the kernel tree}"
REAL=$(cd "$(dirname "$0")/.." && pwd)
F=$(mktemp -d) L=$(mktemp -d)
trap 'rm -rf "$F" "$L"' EXIT
mkdir -p "$F/qemu" "$F/kunit"
ln -s "$REAL/btrfs-conversion" "$F/btrfs-conversion"
ln -s "$REAL/qemu/probes" "$F/qemu/probes"
printf '#!/bin/sh\nexit 0\n' > "$F/kunit/run.sh"
cat > "$F/qemu/run-scenario.sh" <<'STUB'
#!/bin/bash
mkdir -p "$LOG_DIR"; log=$LOG_DIR/btrfs-raid56.log
all='nofs-scope probe: raid56 end_io delays its wake-up
nofs-scope probe: raid56 submitter dropped the last count
nofs-scope probe: encoded read end_io delays its wake-up'
case $CASE in
missing) rm -f "$log"; exit 1 ;;
noboot) echo "guest died before /init" > "$log"; exit 1 ;;
timeout) echo "$all" > "$log"; exit 1 ;;
noprobe) echo "NOFS-RESULT: btrfs-raid56 PASS" > "$log"; exit 0 ;;
pass) echo "$all" > "$log"; exit 0 ;;
report) printf '%s\nBUG: unable to handle page fault for address: ffff0000000000ff\nRIP: 0010:__kmalloc_noprof+0x127/0x460\n' "$all" > "$log"; exit 1 ;;
nearmiss) printf '%s\nBUG: unable to handle page fault for address: 0000000000000010\nRIP: 0010:ext4_foo+0x1/0x2\n' "$all" > "$log"; exit 1 ;;
esac
STUB
chmod +x "$F/kunit/run.sh" "$F/qemu/run-scenario.sh"
n=0 bad=0
# MODE CASE WANT (0: the verdict must pass, 1: it must fail)
while read -r mode case want; do
	n=$((n + 1))
	CASE=$case TOP=$F LOG_DIR=$L RACE_MODES=$mode RACE_RUNS=1 \
		"$REAL/scripts/raid56-race-test.sh" > "$L/out" 2>&1
	rc=$?
	if { [ "$want" = 0 ] && [ $rc -eq 0 ]; } || { [ "$want" = 1 ] && [ $rc -ne 0 ]; }; then
		echo "ok $n $mode/$case (exit $rc)"
	else
		echo "not ok $n $mode/$case: exit $rc, wanted $([ "$want" = 0 ] && echo pass || echo fail)"
		sed 's/^/# /' "$L/out" | tail -3
		bad=$((bad + 1))
	fi
done <<'CASES'
unfixed missing 1
unfixed noboot 1
unfixed timeout 1
unfixed nearmiss 1
unfixed report 0
fixed missing 1
fixed noboot 1
fixed timeout 1
fixed noprobe 1
fixed report 1
fixed pass 0
CASES
echo "# raid56-race-selftest: $((n - bad)) of $n cases as expected"
[ $bad -eq 0 ]
