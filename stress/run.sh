#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The reliability campaign (make stress, and its short form in make test):
#
#   stress/run.sh full|short [MODE...]
#
# MODE is one of
#   patched    the patched guest kernel in BUILD_DIR
#   strict     the same kernel booted in strict mode for the converted
#              filesystems (STRICT_ARG: there an explicit GFP_NOFS no
#              longer keeps reclaim out of filesystems, only the scopes do)
#   baseline   the unpatched distro kernel in BASE_BUILD_DIR
# (default: full runs patched strict baseline, short patched strict).
#
# Each mode boots five guests (qemu/run-scenario.sh), with the
# parameters on the kernel command line:
#   stress-crash-recovery  shutdown/log-recovery cycles in one boot
#   stress-failinject      failslab/fail_page_alloc limited to fs/xfs
#   stress-failinject-ext4 the same limited to fs/ext4 and fs/jbd2
#   stress-failinject-btrfs the same limited to fs/btrfs
#   stress-soak            a mixed workload in a tight memory cgroup
#
#              full                              short
#   cycles     CYCLES (100)                      10
#   failinject FI_ROUNDS (6) rounds x 30 s       2 rounds x 10 s + 1 recovery
#              + as many recovery rounds
#   ext4, btrfs FI_ROUNDS (6, at least 3) x 30 s 3 rounds x 10 s
#   soak       SOAK (600) s                      45 s
#
# Environment: CYCLES, FI_ROUNDS, SOAK (full only), BUILD_DIR, CACHE_DIR,
# LOG_DIR, BASE_BUILD_DIR (CACHE_DIR/build-base), NOFS_ACCEL (kvm|tcg;
# else one probe), TOP; STRESS (the scenarios, default all five) and
# STRICT_ARG (memalloc_scope.strict=xfs,ext4,jbd2,btrfs) to try a part, or
# to see a strict run that is not strict fail (STRICT_ARG=memalloc_scope.strict=0);
# STRESS_ARGS, more kernel command line for every boot (nofs.long=0 or
# nofs.fi_mount_at=1000 show checks of the scenarios failing;
# nofs.fi_mount_at=beyond shows a recovery round that injected nothing
# run again).
# STRESS_FRESH=1 starts a full campaign again (see Resuming below).
# Output: progress lines, the serial logs in LOG_DIR/stress/KIND/MODE/,
# the raw data in LOG_DIR/stress/KIND/data/ (stress/report.py collect: per boot, per
# crash-recovery cycle and per fault-injection round) and the tables of
# stress/report.py: mode x {cycles, recoveries, cycles with intents
# pending, injected failures, errors surfaced, corruptions, splats, hangs,
# verdict}, each boot's summary line, the cycles and rounds.  full also
# copies the data to Documentation/stress/data/ and writes
# Documentation/stress-results.md from it (make stress-report does that
# alone).  The exit status is 1 if a patched or
# strict run failed; a baseline failure is reported (it means the bug is
# in the unpatched kernel) but does not fail the campaign.
#
# Resuming: the full campaign takes hours (about 2.5 under TCG on 2
# cores), so each finished boot is a piece of it.  full keeps its rows in
# LOG_DIR/stress/full/ with a key (series id, parameters, STRESS_ARGS,
# STRICT_ARG, accelerator and the bzImages' hashes); a later full call
# with the same key skips the boots already done and runs the rest, and
# one with another key starts again.  MODEs and STRESS only choose which
# boots this call runs: e.g. STRESS=stress-soak adds the soak boots of
# the modes given to the campaign, the other boots done are kept.  A boot
# that was interrupted left no row and runs again whole.  After every boot full rewrites
# Documentation/stress/data/ and stress-results.md, which say how many of
# the planned boots are done, so each piece can be committed; a mode with
# a boot missing is INCOMPLETE, not PASS.  short always starts afresh.
set -eu -o pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
# SPLAT_RE, PRINTK_TIME_RE, header(), splat_lines() and known_splat() of
# the harness, to judge the logs as it does (sourcing it only defines; it
# sets its defaults from BUILD_DIR, which the runs below pass again).
# shellcheck source=../qemu/run-scenario.sh
. "$TOP/qemu/run-scenario.sh"
: "${CACHE_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/nofs-scope}"
: "${BUILD_DIR:=$CACHE_DIR/build}"
: "${BASE_BUILD_DIR:=$CACHE_DIR/build-base}"
: "${LOG_DIR:=$CACHE_DIR/logs}"
: "${CYCLES:=100}"
RESULTS=$TOP/Documentation/stress-results.md
DATA=$TOP/Documentation/stress/data
REPORT=$TOP/stress/report.py
# strict mode for the converted file systems only: every scenario mounts one
: "${STRICT_ARG:=$(strict_arg xfs ext4 btrfs)}"
STRICT_LOG='memalloc_scope_strict: '	# the kernel's boot message in strict mode
# a full campaign: every scenario in every mode
FULL_MODES=(patched strict baseline)
ALL_STRESS="stress-crash-recovery stress-failinject stress-failinject-ext4 stress-failinject-btrfs stress-soak"
: "${STRESS:=$ALL_STRESS}"

say() { printf '==> %s\n' "$*"; }
die() { printf 'stress: error: %s\n' "$*" >&2; exit 1; }

usage() {
	sed -n '/^#   stress\/run.sh/,/^# (default/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

# profile full|short: PARAMS (kernel command line), TIMEOUT and MEM of
# each scenario.
declare -A PARAMS TIMEOUT MEM XFS_TEXT EXT4_TEXT BTRFS_TEXT
profile() {
	local cycles rounds secs recover times soak c=stress-crash-recovery
	local f=stress-failinject e=stress-failinject-ext4 b=stress-failinject-btrfs
	local s=stress-soak erounds
	case $1 in
	full)  cycles=$CYCLES rounds=${FI_ROUNDS:-6} secs=30 recover=${FI_ROUNDS:-6}
	       times=300 soak=${SOAK:-600} ;;
	short) cycles=10 rounds=2 secs=10 recover=1 times=100 soak=45 ;;
	esac
	erounds=$((rounds > 3 ? rounds : 3))
	for n in "$cycles" "$rounds" "$soak"; do
		case $n in ''|*[!0-9]*|0) die "CYCLES, FI_ROUNDS and SOAK must be positive numbers" ;; esac
	done
	PARAMS[$c]="nofs.cycles=$cycles nofs.repair_every=1"
	TIMEOUT[$c]=$((120 + cycles * 45))
	MEM[$c]=1024
	# log_buf_len: every injection logs its stack, and the guest reads
	# them back from the ring buffer
	PARAMS[$f]="nofs.fi_rounds=$rounds nofs.fi_secs=$secs nofs.fi_recover=$recover"
	PARAMS[$f]+=" nofs.fi_times=$times log_buf_len=16M"
	TIMEOUT[$f]=$((180 + rounds * (secs + 120) + recover * 120))
	MEM[$f]=1024
	PARAMS[$e]="nofs.fi_rounds=$erounds nofs.fi_secs=$secs nofs.fi_times=$times"
	PARAMS[$e]+=" log_buf_len=16M"
	# a round may run up to 6 * secs until each attribute injected
	TIMEOUT[$e]=$((180 + erounds * (6 * secs + 90)))
	MEM[$e]=1024
	PARAMS[$b]=${PARAMS[$e]}
	TIMEOUT[$b]=${TIMEOUT[$e]}
	MEM[$b]=1024
	PARAMS[$s]="nofs.soak=$soak"
	TIMEOUT[$s]=$((soak + 360))
	MEM[$s]=384
	SUMMARY_PARAMS="crash-recovery: $cycles cycles, xfs_repair -n every cycle;"
	SUMMARY_PARAMS+=" failinject: $rounds workload rounds of $secs s, $recover recovery rounds,"
	SUMMARY_PARAMS+=" at most $times failures per attribute and round;"
	SUMMARY_PARAMS+=" failinject-ext4 and failinject-btrfs: $erounds rounds of $secs s;"
	SUMMARY_PARAMS+=" soak: $soak s in a ${MEM[$s]} MiB guest"
}

# fs_text BUILD DIR...: "FIRST,END" - the first symbol of the text of the
# objects in DIR/built-in.a (fs/xfs, fs/btrfs; or fs/ext4 and fs/jbd2,
# which are linked one after the other) and the first one after it, from
# System.map.
# The objects are linked one after the other, so the functions of their
# .text sections (and the __pfx_ padding symbols before them) form one run
# in address order: the longest run of such names.  Every one of the names
# must occur in it (.init.text, .exit.text and static-call trampolines are
# elsewhere, and are not counted).  The range and its size go to stderr.
fs_text() {
	local b=$1 names run missing d what end
	shift
	what=$(echo "$@" | sed 's/ / + /g')
	[ -f "$b/System.map" ] || die "no $b/System.map: build the kernel first"
	for d in "$@"; do
		[ -f "$b/$d/built-in.a" ] || die "no $b/$d/built-in.a: build the kernel first"
	done
	names=$(mktemp)
	for d in "$@"; do
		(cd "$b" && ar t "$d/built-in.a" | xargs objdump -t)
	done | awk 'NF >= 6 && $(NF - 2) == ".text" && $(NF - 3) == "F" { print $NF }' |
		sort -u > "$names"
	run=$(awk 'NR == FNR { x[$1] = 1; next }
		$2 !~ /^[tT]$/ { next }
		{ n = $3; sub(/^__pfx_/, "", n); in_x = n in x }
		in_x && !on { on = 1; first = $3; a = $1; cnt = 0 }
		in_x { cnt++ }
		!in_x && on { on = 0
			if (cnt > best) { best = cnt; bf = first; be = $3; ba = a; bz = $1 } }
		END { print bf, be, ba, bz, best }' "$names" "$b/System.map")
	# shellcheck disable=SC2086 # five words
	set -- $run
	[ $# -eq 5 ] || die "no $what text run in $b/System.map"
	[ "$(awk -v a="$1" '$3 == a' "$b/System.map" | wc -l)" -eq 1 ] ||
		die "$1 is not unique in $b/System.map"
	# The guest finds the end by name: when the first symbol after the run
	# has copies elsewhere (a static inline such as jhash), take the next
	# unique one, at most 8 symbols on; the range then ends a few functions
	# late, which only lets those few functions be injected too.
	end=$(awk -v e="$2" -v ea="$4" 'NR == FNR { c[$3]++; next }
		$1 == ea && $3 == e { on = 1 }
		on && c[$3] == 1 { print $3, $1; exit }
		on && ++k > 8 { exit }' "$b/System.map" "$b/System.map")
	[ -n "$end" ] || die "no unique symbol within 8 after $2 in $b/System.map"
	set -- "$1" "${end% *}" "$3" "${end#* }" "$5"
	# names without an occurrence in [$3, $4) (same-length lower-case hex
	# addresses compare as strings)
	missing=$(awk -v lo="$3" -v hi="$4" 'NR == FNR { x[$1] = 1; next }
		$1 >= lo && $1 < hi { delete x[$3] }
		END { for (n in x) print n }' "$names" "$b/System.map" | head -n 5 | tr '\n' ' ')
	rm -f "$names"
	[ -z "$missing" ] || die "$what functions outside the text run in $b: $missing"
	printf '%s: %s text %s .. %s (0x%s .. 0x%s, %d KiB, %d symbols)\n' \
		"${b##*/}" "$what" "$1" "$2" "$3" "$4" $(((0x$4 - 0x$3) / 1024)) "$5" >&2
	echo "$1,$2"
}

# splats LOG ALLOW: kernel log lines that fail a scenario.
splats() {
	[ -f "$1" ] || { echo 0; return; }
	splat_lines "$1" "${2:-}" | wc -l
}

hangs() {
	[ -f "$1" ] || { echo 0; return; }
	grep -cE "$PRINTK_TIME_RE.*INFO: task .* blocked for more than" "$1" || true
}

# run MODE SCENARIO: boot it; appends a row to $ROWS, a TSV file (mode,
# scenario, verdict, seconds, splats, hangs, log, known-bug lines,
# strict, the exempt ERE): report.py collect reads the first nine.
run() {
	local mode=$1 name=$2 bd=$BUILD_DIR append="" params timeout mem log out
	local rc=0 start
	params=${PARAMS[$name]} timeout=${TIMEOUT[$name]} mem=${MEM[$name]}
	case $mode in
	strict) append=$STRICT_ARG ;;
	baseline) bd=$BASE_BUILD_DIR ;;
	esac
	[ "$name" != stress-failinject ] || params+=" nofs.xfs_text=${XFS_TEXT[$mode]}"
	[ "$name" != stress-failinject-ext4 ] || params+=" nofs.fs_text=${EXT4_TEXT[$mode]}"
	[ "$name" != stress-failinject-btrfs ] || params+=" nofs.fs_text=${BTRFS_TEXT[$mode]}"
	params+=${STRESS_ARGS:+ $STRESS_ARGS}
	log=$SDIR/$mode/$name.log
	out=$SDIR/$mode/$name.out
	N=$((N + 1))
	say "[$N/$TOTAL] $mode: $name ($params${append:+ $append}; timeout $timeout s, $mem MiB)"
	start=$SECONDS
	BUILD_DIR=$bd NOFS_APPEND="$append $params" "$TOP/qemu/run-scenario.sh" \
		--timeout "$timeout" --mem "$mem" --log-dir "$SDIR/$mode" \
		"$name" > "$out" 2>&1 || rc=$?
	local verdict=PASS allow known s h k=0 strict=- hits=''
	[ $rc -eq 0 ] || verdict=FAIL
	allow=$(header "$TOP/stress/guest/$name.sh" allow)
	# known base-kernel bugs (run-scenario.sh): reported, not counted
	if known=$(known_splat "$log"); then
		# the counted rules' hits, for counted_verdict
		hits=$(echo "$known" | sed -n 's/^counted: //p' | sed "s|^|$mode\t$name\t|")
		known=${known%%$'\n'*}
		allow="${allow:+$allow|}$known"
		k=$(grep -cE "$PRINTK_TIME_RE.*($known)" "$log" || true)
	fi
	s=$(splats "$log" "$allow") h=$(hangs "$log")
	! grep -qE '^not ok .*timed out' "$out" || h=$((h + 1))
	if [ "$mode" = strict ]; then
		if grep -q "$STRICT_LOG" "$log"; then
			strict=reported
		else
			# a strict run that was not strict proves nothing: FAIL
			strict="not reported"
			say "    FAIL: no '$STRICT_LOG' in $log: strict mode was not on"
			verdict=FAIL
		fi
	fi
	printf '    %s in %d s: %s\n' "$verdict" $((SECONDS - start)) \
		"$(sed -n 's/^# stress: //p' "$log" 2>/dev/null | tail -n 1)"
	[ $verdict = PASS ] || grep -E '^(not ok|#)' "$out" | sed 's/^/    /' | head -n 20
	# the counted hits first: resume drops hits whose boot has no row
	[ -z "$hits" ] || printf '%s\n' "$hits" >> "$COUNTED"
	printf '%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$name" "$verdict" \
		$((SECONDS - start)) "$s" "$h" "$log" "$k" "$strict" "${allow:-^$}" >> "$ROWS"
}

# done_boot MODE NAME: whether ROWS has the boot (a resumed campaign)
done_boot() {
	awk -F'\t' -v m="$1" -v n="$2" '$1 == m && $2 == n { f = 1 } END { exit !f }' "$ROWS"
}

# campaign_key KIND: what every boot of one campaign shares
campaign_key() {
	local b h
	echo "kind=$1"
	echo "series=$("$TOP/scripts/series-id.sh")"
	echo "params=$SUMMARY_PARAMS"
	echo "stress_args=${STRESS_ARGS:-}"
	echo "strict_arg=$STRICT_ARG"
	echo "accel=$NOFS_ACCEL"
	for b in "$BUILD_DIR" "$BASE_BUILD_DIR"; do
		h=-
		[ ! -f "$b/arch/x86/boot/bzImage" ] ||
			h=$(sha1sum < "$b/arch/x86/boot/bzImage" | cut -c 1-12)
		echo "bzimage=$b $h"
	done
}

# publish: the data of the boots done so far, and the page (full only)
publish() {
	local data=$SDIR/data
	write_meta "$KIND" "$data.meta"
	python3 "$REPORT" collect "$ROWS" "$data" ||
		die "stress/report.py collect failed"
	mv "$data.meta" "$data/meta"
	[ "$KIND" = full ] || return 0
	mkdir -p "$DATA"
	cp "$data"/meta "$data"/runs.tsv "$data"/trials.tsv "$DATA"/
	python3 "$REPORT" markdown "$DATA" > "$RESULTS"
}

mode_verdict() {
	awk -F'\t' -v m="$1" '$1 == m && $3 != "PASS" { bad = 1 }
		$1 == m { any = 1 } END { print any ? (bad ? "FAIL" : "PASS") : "-" }' "$ROWS"
}

# failures: for each run that failed, why (the harness's first diagnostic)
# and the first kernel log line that counted as a splat, so that the end of
# the output says what went wrong even when the rest scrolled away.
failures() {
	local mode name verdict secs s h log k strict allow first
	while IFS=$'\t' read -r mode name verdict secs s h log k strict allow; do
		[ "$verdict" != PASS ] || continue
		printf 'FAIL %s %s: %s\n' "$mode" "$name" \
			"$(grep -m 1 '^# ' "${log%.log}.out" 2>/dev/null | sed 's/^# //')"
		[ "$s" = 0 ] && continue
		# (sed reads to the end: no SIGPIPE for pipefail to see)
		first=$(splat_lines "$log" "$allow" | sed -n 1p | cut -d: -f2- | cut -c 1-160)
		printf '     first splat line: %s\n' "$first"
	done < "$ROWS"
}

# boot_retries: the boots of ROWS that run-scenario.sh booted again
boot_retries() {
	local n=0 log
	while IFS=$'\t' read -r _ _ _ _ _ _ log _; do
		! grep -qs 'booting once more' "${log%.log}.out" || n=$((n + 1))
	done < "$ROWS"
	echo $n
}

# write_meta KIND FILE: the campaign's key=value lines for the report.
write_meta() {
	{
		echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "kind=$1"
		echo "cpus=$(nproc)"
		echo "accel=$NOFS_ACCEL"
		echo "host_load=$LOAD_START at the start, $(cut -d' ' -f1 /proc/loadavg) at the end"
		echo "tree=$(git -C "$TOP" log -1 --format='%h %s' 2>/dev/null || echo '?')"
		echo "series=$("$TOP/scripts/series-id.sh")"
		echo "modes=${MODES[*]}"
		echo "params=$SUMMARY_PARAMS"
		echo "boot_retries=$(boot_retries)"
		echo "planned=$PLANNED"
		echo "done=$(wc -l < "$ROWS")"
	} > "$2"
}

main() {
	local kind=${1:-} m failed=0 base_failed=0
	case $kind in full|short) shift ;; -h|--help|*) usage ;; esac
	MODES=("$@")
	if [ ${#MODES[@]} -eq 0 ]; then
		MODES=("${FULL_MODES[@]}")
		[ "$kind" != short ] || MODES=(patched strict)
	fi
	profile "$kind"
	for m in "${MODES[@]}"; do
		case $m in
		patched|strict) [ -f "$BUILD_DIR/arch/x86/boot/bzImage" ] ||
			die "no kernel in $BUILD_DIR: run 'make kernel'" ;;
		baseline) [ -f "$BASE_BUILD_DIR/arch/x86/boot/bzImage" ] ||
			die "no unpatched kernel in $BASE_BUILD_DIR: run 'make baseline' once" ;;
		*) die "unknown mode '$m' (patched, strict or baseline)" ;;
		esac
		local bd=$BUILD_DIR
		[ "$m" != baseline ] || bd=$BASE_BUILD_DIR
		XFS_TEXT[$m]=$(fs_text "$bd" fs/xfs)
		EXT4_TEXT[$m]=$(fs_text "$bd" fs/ext4 fs/jbd2)
		BTRFS_TEXT[$m]=$(fs_text "$bd" fs/btrfs)
		if [ "$m" = strict ] && ! grep -qa "$STRICT_LOG" "$BUILD_DIR/vmlinux"; then
			say "note: $BUILD_DIR/vmlinux has no strict mode (no '$STRICT_LOG' message): strict runs as patched"
		fi
	done
	case ${NOFS_ACCEL:-auto} in
	kvm|tcg) ;;
	*) NOFS_ACCEL=$(BUILD_DIR=$BUILD_DIR "$TOP/qemu/accel.sh") ;;
	esac
	export NOFS_ACCEL
	KIND=$kind SDIR=$LOG_DIR/stress/$kind
	ROWS=$SDIR/rows.tsv COUNTED=$SDIR/counted.tsv
	mkdir -p "$SDIR"
	say "stress $kind: modes ${MODES[*]}; accelerator $NOFS_ACCEL; $SUMMARY_PARAMS"
	local key p
	key=$(campaign_key "$kind")
	if [ "$kind" = full ] && [ "${STRESS_FRESH:-0}" != 1 ] && [ -f "$ROWS" ] &&
	   [ "$(cat "$SDIR/key" 2>/dev/null)" = "$key" ]; then
		# the hits of a boot that was interrupted after writing them
		awk -F'\t' 'NR == FNR { r[$1 "\t" $2] = 1; next } ($1 "\t" $2) in r' \
			"$ROWS" "$COUNTED" > "$COUNTED.new" && mv "$COUNTED.new" "$COUNTED"
		say "resuming the campaign in $SDIR: $(wc -l < "$ROWS") boot(s) done before are kept (STRESS_FRESH=1 starts again)"
	else
		[ ! -s "$ROWS" ] || [ "$kind" != full ] ||
			say "starting the campaign again in $SDIR (STRESS_FRESH=1, or the series, parameters or kernels changed)"
		: > "$ROWS"
		: > "$COUNTED"
		echo "$key" > "$SDIR/key"
	fi
	# every boot of the campaign: all of a full one (a call that asks
	# for some modes or scenarios runs those, the page still counts the
	# rest as missing), this call's and those done before
	local all_modes=("${MODES[@]}") all_stress=$STRESS
	[ "$kind" != full ] || all_modes=("${FULL_MODES[@]}" "${MODES[@]}") all_stress="$ALL_STRESS $STRESS"
	PLANNED=$({ for m in "${all_modes[@]}"; do for p in $all_stress; do echo "$m:$p"; done; done
		    awk -F'\t' '{ print $1 ":" $2 }' "$ROWS"; } | awk '!s[$0]++' | tr '\n' ' ')
	PLANNED=${PLANNED% }
	N=0 TOTAL=$((${#MODES[@]} * $(wc -w <<<"$STRESS")))
	LOAD_START=$(cut -d' ' -f1 /proc/loadavg)
	# run-scenario.sh exempts the counted known-bug rules only here
	export NOFS_COUNTED=1
	trap 'echo "interrupted: $(wc -l < "$ROWS") boot(s) of the campaign done; run it again to go on" >&2; exit 130' INT TERM
	for m in "${MODES[@]}"; do
		mkdir -p "$SDIR/$m"
		for s in $STRESS; do
			if done_boot "$m" "$s"; then
				N=$((N + 1))
				say "[$N/$TOTAL] $m: $s done before (resumed), kept"
				continue
			fi
			run "$m" "$s"
			publish
		done
	done
	local data=$SDIR/data
	publish
	echo
	python3 "$REPORT" table "$data"
	for m in "${MODES[@]}"; do
		[ "$(mode_verdict "$m")" != FAIL ] && continue
		if [ "$m" = baseline ]; then base_failed=1; else failed=1; fi
	done
	python3 "$REPORT" counted "$ROWS" "$COUNTED" || failed=1
	p=$(boot_retries)
	[ "$p" -eq 0 ] ||
		say "$p guest(s) booted again: died before /init or took a TCG int3 Oops (run-scenario.sh)"
	[ "$kind" != full ] || say "raw data in $DATA; $RESULTS written from it"
	echo "raw data: $data/"
	echo "serial logs: $SDIR/MODE/; harness output next to them (*.out)"
	failures
	[ $base_failed -eq 0 ] ||
		say "BASELINE FAILED: the unpatched kernel fails a stress scenario (reported, not counted)"
	if [ $failed -ne 0 ]; then
		say "stress $kind: FAILED (a patched or strict run)"
		return 1
	fi
	say "stress $kind: passed (${MODES[*]}$([ $base_failed -eq 0 ] || echo "; baseline failed"))"
}

main "$@"
