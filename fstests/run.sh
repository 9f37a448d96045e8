#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fstests/run.sh: run fstests in QEMU on the patched and the unpatched
# kernel, side by side, and judge the difference.
#
#   fstests/run.sh compare   the list on the patched kernel (strict mode if
#                            STRICT=1) and on the unpatched one, then the
#                            side-by-side table and the verdict
#   fstests/run.sh judge     the reruns and the verdict of compare again, on
#                            the runs already in LOG_DIR/fstests
#   fstests/run.sh publish   copy the last runs of the default lists from
#                            LOG_DIR/fstests into Documentation/fstests/data
#                            and rewrite the report (compare does this
#                            itself when it ran a default list)
#   fstests/run.sh campaign  GROUP of fstests for one FSTYP in chunks, both
#                            kernels side by side, CHUNKS chunks on this
#                            call; each finished chunk is stored under
#                            Documentation/fstests/campaign/ and the next
#                            call goes on with the first one not stored
#                            (fstests/campaign.py, which writes
#                            Documentation/fstests-campaign.md)
#   fstests/run.sh campaign-report  that page and the expected-failure
#                            lists again from the stored chunks alone
#   fstests/run.sh smoketest compare with fstests' smoketest group (the
#                            list of kvm-xfstests' smoke: generic/475,
#                            476, 521, 522, 642, 750, 751) instead of the
#                            default lists, SOAK_DURATION SMOKETEST_SOAK
#                            (180 s), FSTYP xfs, ext4 and btrfs unless
#                            set; its rows go to Documentation/fstests/
#                            smoketest and fstests-smoketest.md
#   fstests/run.sh smoke     SMOKE_XFS and SMOKE_EXT4 once on the patched
#                            kernel; fails unless both pass and both guests
#                            finished (make test).  With no fstests source
#                            it fails, unless FSTESTS_SMOKE=skip asks it to
#                            skip, and then it says SKIPPED.
#
# Environment:
#   FSTYP      xfs, ext4, btrfs, or several ("xfs ext4", the default)
#   FSTESTS    tests or groups for ./check (e.g. "generic/388 -g quota");
#              default: fstests/default-$FSTYP.list
#   FSTESTS_LIST  default (fstests/default-FSTYP.list) or smoketest:
#              the lists compare runs when FSTESTS is empty, and publishes
#              (Documentation/fstests/LIST, fstests-LIST.md for smoketest)
#   STRICT=1   boot the patched kernel in strict mode for the file systems
#              tested (memalloc_scope.strict=xfs; ext4 is ext4,jbd2)
#   FSTESTS_BASE=keep  do not boot the unpatched kernel: compare with its
#              rows from the last run of the same list (e.g. a STRICT=1
#              run after a plain one); all FSTYPs then boot at once
#   FSTESTS_SOAK     SOAK_DURATION for fstests' loops, seconds (default 60)
#   FSTESTS_TIMEOUT  seconds for one guest boot (default 3600); a rerun
#              boot gets at least 300 s plus, per run, twice each test's
#              seconds in the first runs and 60 s more.  If the reruns of
#              both kernels run out of time together, their last,
#              unfinished runs are not counted (report.py cut)
#   FSTESTS_MEM      guest memory in MiB (default 1024)
#   FSTESTS_MEMCG    check and its tests run in a memory cgroup with
#              memory.high at this many MiB (default 256; 0: no cgroup),
#              so that they reclaim (the memcg-aware shrinkers, inodes
#              and dentries, included); the report shows how much
#   FSTESTS_RERUN    a test that fails, is lost or splats only on the
#              patched kernel runs this many more times on both (default:
#              RERUNS of fstests/verdict.conf; 0: never).  Every rerun set
#              of the same kernel builds is kept and pooled; the pooled
#              failure rates decide by the rules of verdict.conf
#   FSTESTS_PARALLEL=1  boot the two kernels at the same time (the default
#              with 2 or more CPUs under TCG, which runs one guest on one
#              host CPU); 0 boots them one after the other
#   GROUP      campaign: the fstests group (default quick)
#   CHUNK      campaign: tests per chunk, fixed when a campaign starts
#              (default 25)
#   CHUNKS     campaign: chunks to run on this call (default 1)
#   CACHE_DIR, BUILD_DIR (patched kernel), LOG_DIR, NOFS_ACCEL as for the
#   scenarios; the unpatched kernel is built by scripts/baseline.sh build
#   in BASE_BUILD_DIR (CACHE_DIR/build-base; make KASAN=1 gives both
#   kernels KASAN, KFENCE and slub_debug, in build directories of their own).
#
# A run of the default list (FSTESTS unset) also stores its per-test rows
# in Documentation/fstests/data/ and rewrites Documentation/fstests-results.md
# from them (fstests/report.py).
set -eu -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
: "${TOP:=$(cd "$HERE/.." && pwd)}"
: "${CACHE_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/nofs-scope}"
: "${BUILD_DIR:=$CACHE_DIR/build}"
: "${LOG_DIR:=$CACHE_DIR/logs}"
FSTYP_ASKED=${FSTYP:-}
: "${FSTYP:=xfs ext4}"
: "${FSTESTS_TIMEOUT:=3600}"
: "${FSTESTS_MEM:=1024}"
: "${FSTESTS_SOAK:=60}"
: "${FSTESTS_MEMCG:=256}"
: "${FSTESTS_PARALLEL:=}"
: "${FSTESTS_RERUN:=$(sed -n 's/^RERUNS=//p' "$HERE/verdict.conf")}"
: "${STRICT:=0}"
: "${SMOKE_XFS:=generic/052}"
: "${SMOKE_EXT4:=generic/034}"
BASE_BUILD=${BASE_BUILD_DIR:-$CACHE_DIR/build-base}
OUT=$LOG_DIR/fstests
# the lists compare runs when FSTESTS is empty, and where they are published
: "${FSTESTS_LIST:=default}"
PAGE=$TOP/Documentation/fstests-results.md
DATA=$TOP/Documentation/fstests/data
CAMPAIGN=$TOP/Documentation/fstests/campaign
: "${DISK_DIR:=$CACHE_DIR/fstests/disks}"
DISK_GB=6	# TEST, SCRATCH, LOGWRITES and pool disks, sparse
# btrfs: SCRATCH and this many more disks of the same size form
# SCRATCH_DEV_POOL, so that the tests of device add, remove and replace,
# balance across devices, RAID profiles and seeding run
: "${FSTESTS_POOL:=4}"

# qemu(), probe_accel(), splat_lines() and known_splat() of the scenarios
# shellcheck source=qemu/run-scenario.sh
. "$TOP/qemu/run-scenario.sh"

say() { printf '==> fstests: %s\n' "$*"; }
die() { printf 'fstests/run.sh: error: %s\n' "$*" >&2; exit 1; }

# mkfs options as in the scenarios: XFS with rmapbt and reflink (and the
# v5 defaults), ext4 with quota so that the quota tests run, btrfs as
# mkfs.btrfs makes it
mkfs_options() {
	case $1 in
	xfs) echo "-m rmapbt=1,reflink=1" ;;
	ext4) echo "-O quota" ;;
	btrfs) echo "" ;;
	*) die "FSTYP must be xfs, ext4 or btrfs, not '$1'" ;;
	esac
}

# default_list FSTYP: the tests of fstests/default-FSTYP.list, or of the
# smoketest group with FSTESTS_LIST=smoketest
default_list() {
	case $FSTESTS_LIST in
	default) sed 's/#.*//' "$HERE/default-$1.list" | xargs ;;
	smoketest)
		[ -n "${SMOKETEST_SRC:-}" ] || SMOKETEST_SRC=$("$HERE/image.sh" source) ||
			die "no fstests source to list the smoketest group from"
		python3 "$HERE/campaign.py" list "$SMOKETEST_SRC" "$1" smoketest | xargs ;;
	*) die "FSTESTS_LIST must be default or smoketest, not '$FSTESTS_LIST'" ;;
	esac
}

# boot_fstests LABEL KERNEL FSTYP TESTS APPEND: one guest boot; leaves
# $OUT/FSTYP-LABEL/{serial.log,check.log,results/,rows.tsv,secs} and prints
# a summary.  Two can run at once (their disks are apart).
boot_fstests() {
	local label=$1 kernel=$2 fstyp=$3 tests=$4 append=$5
	local dir=$OUT/$fstyp-$label img=$DISK_DIR/$fstyp-$label
	local rc=0 start
	local ctl=$dir/control.img root=$CACHE_DIR/fstests/rootfs.img
	local pool=0 d pooldrives=()
	[ "$fstyp" != btrfs ] || pool=$FSTESTS_POOL
	rm -rf "$dir"
	mkdir -p "$dir/ctl" "$img"
	# the tests named one by one must all come back (groups cannot be
	# expanded here)
	# shellcheck disable=SC2086 # a list of tests and options
	printf '%s\n' $tests | grep -E '^[a-z0-9]+/[0-9]+$' > "$dir/expected.txt" || true
	cp "$HERE/guest-run.sh" "$dir/ctl/"
	# the kernel's .config, for fstests' _require_kernel_config
	cp "${kernel%/arch/x86/boot/bzImage}/.config" "$dir/ctl/kconfig" ||
		die "no .config beside $kernel"
	{ printf 'FSTYP=%q\n' "$fstyp"
	  printf 'MKFS_OPTIONS=%q\n' "$(mkfs_options "$fstyp")"
	  printf 'MOUNT_OPTIONS=%q\n' ""
	  printf 'TESTS=%q\n' "$tests"
	  printf 'SOAK=%q\n' "$FSTESTS_SOAK"
	  printf 'MEMCG=%q\n' "$FSTESTS_MEMCG"
	  printf 'POOL=%q\n' "$pool"
	  printf 'LABEL=%q\n' "$label"
	  printf 'ACCEL=%q\n' "$ACCEL"
	  # the series this run measures, fixed now: publish may run later
	  printf 'SERIES_ID=%q\n' "$("$TOP/scripts/series-id.sh")"; } > "$dir/ctl/params"
	# the archive, then room for the results the guest writes over it
	tar -cf "$ctl" --no-recursion -C "$dir/ctl" --owner=0 --group=0 \
		guest-run.sh params kconfig ||
		die "writing the control disk $ctl failed"
	truncate -s 512M "$ctl"
	for d in test scratch logwrites $(seq -f 'pool%g' 1 "$pool"); do
		rm -f "$img/$d.img"
		truncate -s "${DISK_GB}G" "$img/$d.img"
	done
	# after the control and LOGWRITES disks: vdf, vdg, ...
	for d in $(seq -f 'pool%g' 1 "$pool"); do
		pooldrives+=(-drive "file=$img/$d.img,if=virtio,format=raw,cache=unsafe")
	done
	KERNEL=$kernel
	# shellcheck disable=SC2086 # the words of the list; options not counted
	say "$fstyp on the $label kernel: $(printf '%s\n' $tests | grep -vc '^--') tests/groups, timeout $FSTESTS_TIMEOUT s; serial log: $dir/serial.log"
	start=$SECONDS
	# check's own lines come on the second serial port (ttyS1), apart
	# from kernel messages; show them as they come
	: > "$dir/check.log"
	tail -n +1 -F "$dir/check.log" 2>/dev/null | sed -u "s|^|    $fstyp-$label: |" &
	TAIL_PID=$!
	# single-threaded TCG: no int3 Oops while the kernel patches its
	# text, and faster on these 2 cores
	qemu "$ACCEL$( [ "$ACCEL" = tcg ] && echo ,thread=single)" \
		"$FSTESTS_TIMEOUT" "$dir/serial.log" \
		"console=ttyS0 root=/dev/vda rw init=/sbin/fstests-init panic=-1 no_timer_check kunit.enable=0 loglevel=4 log_buf_len=8M $append" \
		-drive "file=$root,if=virtio,format=raw,snapshot=on" \
		-drive "file=$img/test.img,if=virtio,format=raw,cache=unsafe" \
		-drive "file=$img/scratch.img,if=virtio,format=raw,cache=unsafe" \
		-drive "file=$ctl,if=virtio,format=raw,cache=unsafe" \
		-drive "file=$img/logwrites.img,if=virtio,format=raw,cache=unsafe" \
		"${pooldrives[@]}" \
		-serial "file:$dir/check.log" || rc=$?
	echo $((SECONDS - start)) > "$dir/secs"
	kill "$TAIL_PID" 2>/dev/null || true
	wait "$TAIL_PID" 2>/dev/null || true
	rm -rf "$img"
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "$fstyp-$label: the guest ran out of its $FSTESTS_TIMEOUT s (a test hung?); serial log: $dir/serial.log" | diag
		: > "$dir/timedout"
	fi
	tar -xf "$ctl" -C "$dir" 2>/dev/null || true
	rm -f "$ctl"
	if [ ! -f "$dir/results/result.xml" ]; then
		echo "$fstyp-$label: no xunit report came back from the guest (qemu status $rc); rows from check's lines in $dir/check.log; last lines of $dir/serial.log:" | diag
		tail -n 25 "$dir/serial.log" | diag
	fi
	collect "$dir" "$fstyp" "$tests"
	say "$fstyp on $label: $(summary "$dir/rows.tsv") in $(cat "$dir/secs") s"
}

# boot_all SPEC...: boot_fstests for each "LABEL|KERNEL|FSTYP|TESTS|APPEND",
# all at once if FSTESTS_PARALLEL=1 (under TCG each guest takes one host
# CPU), else one after the other
boot_all() {
	local spec f
	for spec; do
		IFS='|' read -r -a f <<< "$spec"
		if [ "$FSTESTS_PARALLEL" = 1 ]; then
			( trap '[ -z "$QEMU_PID" ] || kill "$QEMU_PID"' TERM
			  boot_fstests "${f[0]}" "${f[1]}" "${f[2]}" "${f[3]}" "${f[4]:-}" ) &
			BOOTS="$BOOTS $!"
		else
			boot_fstests "${f[0]}" "${f[1]}" "${f[2]}" "${f[3]}" "${f[4]:-}"
		fi
	done
	# shellcheck disable=SC2086 # a list of PIDs
	[ -z "$BOOTS" ] || wait $BOOTS || true
	BOOTS=
}

# collect DIR FSTYP TESTS: DIR/rows.tsv, one line per test: test, result
# (pass, fail, notrun, lost), seconds, splats (none, or the normalised
# headlines: "known: BUG" or "TITLE @ first function"), detail (the
# failure or not-run message); and the "(boot)" row, lost if the guest
# wrote no completion marker (fstests/report.py rows)
collect() {
	local dir=$1 res=$1/results f t known allow
	: > "$dir/splats.tsv"
	for f in "$res"/*/*.dmesg; do
		[ -f "$f" ] || continue
		t=${f#"$res"/}; t=${t%.dmesg}
		allow=
		if known=$(known_splat "$f"); then
			allow=${known%%$'\n'*}
			echo "$known" | sed 1d | sed "s|^|$t\tknown: |" >> "$dir/splats.tsv"
		fi
		splat_lines "$f" "$allow" | python3 "$HERE/report.py" heads "$f" |
			sed "s|^|$t\t|" >> "$dir/splats.tsv"
	done
	# the whole serial console too: a panic or an oops that ended the
	# guest never reaches a test's .dmesg
	allow=
	if known=$(known_splat "$dir/serial.log"); then
		allow=${known%%$'\n'*}
	fi
	splat_lines "$dir/serial.log" "$allow" |
		python3 "$HERE/report.py" heads "$dir/serial.log" > "$dir/serial-splats.txt"
	python3 "$HERE/report.py" rows "$dir" > "$dir/rows.tsv"
	# reclaim over the whole boot: did the tests reach the shrinkers?
	{ grep -E '^(slabs_scanned|allocstall_[a-z]+|pgscan_direct|pgscan_kswapd|oom_kill) ' \
		"$res/vmstat.txt"
	  sed 's/^/memcg_/' "$res/memcg-events.txt"
	  grep -E '^(pgscan|pgsteal|slab_reclaimable) ' "$res/memcg-stat.txt" |
		sed 's/^/memcg_/'; } > "$dir/reclaim.txt" 2>/dev/null || true
}

# summary ROWS: "N pass, N fail, ..." of a rows.tsv
summary() {
	awk -F'\t' '$1 == "(boot)" { boot = $2 == "pass" ? "finished" : "DID NOT FINISH: " $5; next }
		{ n[$2]++ } $4 != "none" { s++ }
		END { printf "%d pass, %d fail, %d not run, %d lost, %d with splats; guest %s",
			n["pass"], n["fail"], n["notrun"], n["lost"], s, boot }' "$1"
}

need_kernels() {
	[ -f "$BUILD_DIR/arch/x86/boot/bzImage" ] ||
		die "no patched kernel in $BUILD_DIR: run 'make kernel'"
	[ "${1:-}" = patched ] && return
	[ -f "$BASE_BUILD/arch/x86/boot/bzImage" ] ||
		die "no unpatched kernel in $BASE_BUILD: run 'scripts/baseline.sh build'"
}

setup() {
	need qemu-system-x86_64 qemu-system-x86
	need tar tar
	need python3 python3
	mkdir -p "$OUT"
	MEM=$FSTESTS_MEM
	"$HERE/image.sh" > /dev/null || die "the fstests image could not be built (see above)"
	QEMU_PID='' BOOTS=''
	# shellcheck disable=SC2086 # a list of PIDs
	trap '[ -z "$QEMU_PID" ] || kill "$QEMU_PID"; [ -z "$BOOTS" ] || kill $BOOTS
		echo "interrupted" >&2; exit 130' INT TERM
	probe_accel
	say "accelerator: $ACCEL ($ACCEL_WHY)"
	if [ -z "$FSTESTS_PARALLEL" ]; then
		FSTESTS_PARALLEL=0
		[ "$ACCEL" != tcg ] || [ "$(nproc)" -lt 2 ] || FSTESTS_PARALLEL=1
	fi
}

smoke() {
	local fstyp tests bad=0 why
	if [ "${FSTESTS_SMOKE:-run}" = skip ]; then
		echo "ok 1 fstests smoke # SKIP FSTESTS_SMOKE=skip"
		say "SKIPPED, as FSTESTS_SMOKE=skip asked: no fstests smoke test"
		return 0
	fi
	if ! why=$("$HERE/image.sh" source 2>&1 >/dev/null); then
		echo "not ok 1 fstests smoke # ${why#*error: }"
		die "no fstests source, so no fstests smoke test (${why#*error: }); FSTESTS_SMOKE=skip skips it by name"
	fi
	need_kernels patched
	setup
	boot_all "smoke|$BUILD_DIR/arch/x86/boot/bzImage|xfs|$SMOKE_XFS|${NOFS_APPEND:-}" \
		"smoke|$BUILD_DIR/arch/x86/boot/bzImage|ext4|$SMOKE_EXT4|${NOFS_APPEND:-}"
	for fstyp in xfs ext4; do
		case $fstyp in xfs) tests=$SMOKE_XFS ;; ext4) tests=$SMOKE_EXT4 ;; esac
		# every row passes without a splat, the (boot) row included:
		# the guest wrote its completion marker
		if [ -f "$OUT/$fstyp-smoke/results/result.xml" ] &&
		   awk -F'\t' '$2 != "pass" || $4 != "none" { bad = 1 }
			$1 == "(boot)" { boot = 1 }
			END { exit !(NR > 1 && boot && !bad) }' "$OUT/$fstyp-smoke/rows.tsv"; then
			echo "ok $fstyp $tests"
		else
			echo "not ok $fstyp $tests"
			sed 's/^/# /' "$OUT/$fstyp-smoke/rows.tsv"
			echo "# serial log: $OUT/$fstyp-smoke/serial.log"
			bad=1
		fi
	done
	[ $bad -eq 0 ] || die "the fstests smoke test failed"
	say "smoke test passed on xfs and ext4"
}

# describe_run DIR: how the run in DIR was made, one "key value" per line,
# from what the run left there (its params, the guest's own records)
describe_run() {
	local dir=$1
	# shellcheck source=/dev/null
	(. "$dir/ctl/params"
	 echo "kernel $(cat "$dir/results/uname.txt" 2>/dev/null || echo unknown)"
	 echo "cmdline $(cat "$dir/results/cmdline.txt" 2>/dev/null || echo unknown)"
	 echo "accel ${ACCEL:-unknown}"
	 echo "guest_memory $(sed -n 's/.*Memory: [0-9]*K\/\([0-9]*\)K available.*/\1 KiB/p' \
		"$dir/results/dmesg-boot.txt" 2>/dev/null | head -n 1)"
	 echo "memcg_high_mib ${MEMCG:-0}"
	 echo "soak_duration_s ${SOAK:-unknown}"
	 echo "scratch_dev_pool ${POOL:-0} disks beside SCRATCH_DEV"
	 echo "wall_s $(cat "$dir/secs" 2>/dev/null || echo unknown)"
	 echo "series ${SERIES_ID:-not recorded}")
}

# publish: copy the runs of the default lists found in OUT (patched,
# strict, unpatched; rows, reclaim counters, how each was made) into DATA
# and rewrite Documentation/fstests-results.md from DATA
publish() {
	local fstyp label dir n=0 psets bsets d published=' '
	mkdir -p "$DATA"
	for fstyp in xfs ext4 btrfs; do
		for label in patched strict base; do
			dir=$OUT/$fstyp-$label
			if [ ! -f "$dir/rows.tsv" ] ||
			   ! same_list "$dir" "$(default_list "$fstyp")"; then
				continue
			fi
			cp "$dir/rows.tsv" "$DATA/$fstyp-$label.tsv"
			cp "$dir/reclaim.txt" "$DATA/$fstyp-$label.vmstat"
			describe_run "$dir" > "$DATA/$fstyp-$label.run"
			n=$((n + 1)) published+="$fstyp-$label "
			[ "$label" != base ] || continue
			# the pooled reruns that judged this run's apparent
			# regressions: every set of these two kernel builds
			rm -f "$DATA/$fstyp-$label-rerun.tsv" "$DATA/$fstyp-base-rerun-$label.tsv"
			psets=$(rerun_sets "$fstyp-$label-rerun" "$dir")
			bsets=$(rerun_sets "$fstyp-base-rerun-$label" "$OUT/$fstyp-base")
			if [ -n "$psets" ] && [ -n "$bsets" ]; then
				for d in $psets; do cat "$d/rows.tsv"; done \
					> "$DATA/$fstyp-$label-rerun.tsv"
				for d in $bsets; do cat "$d/rows.tsv"; done \
					> "$DATA/$fstyp-base-rerun-$label.tsv"
			fi
		done
		# a committed patched or strict run was judged against the
		# unpatched run just replaced: it leaves the page (git keeps it)
		[[ $published == *" $fstyp-base "* ]] || continue
		for label in patched strict; do
			[[ $published != *" $fstyp-$label "* ]] || continue
			[ -f "$DATA/$fstyp-$label.tsv" ] || continue
			rm -f "$DATA/$fstyp-$label".{tsv,run,vmstat} \
				"$DATA/$fstyp-$label-rerun.tsv" "$DATA/$fstyp-base-rerun-$label.tsv"
			say "$fstyp-$label: its committed run was judged against the unpatched run just replaced: dropped from $DATA (measure it again)"
		done
	done
	python3 "$HERE/report.py" markdown "$DATA" "$FSTESTS_LIST" > "$PAGE.new" ||
		{ rm -f "$PAGE.new"; die "report.py markdown failed: $PAGE left as it was"; }
	mv "$PAGE.new" "$PAGE"
	say "$n runs of the $FSTESTS_LIST lists copied to $DATA; $PAGE rewritten"
}

# rerun FSTYP LABEL APPEND: one run is not enough to call a regression
# (some tests fail now and then on the unpatched kernel too), so the tests
# that look like one (report.py regressions) run FSTESTS_RERUN more times
# on both kernels (check -i), at once, in a new rerun set.  Every set made
# by the same two kernel builds is kept and pooled (rerun_sets).  Sets
# RERUN_DIRS for report.py compare: the patched sets, --, the unpatched.
rerun() {
	local fstyp=$1 label=$2 append=$3 tests n=1
	local pdir bdir
	tests=$(python3 "$HERE/report.py" regressions "$OUT/$fstyp-$label" \
		"$OUT/$fstyp-base" | xargs)
	if [ -n "$tests" ] && [ "$FSTESTS_RERUN" -gt 0 ]; then
		while [ -e "$OUT/$fstyp-$label-rerun.$n" ] ||
		      [ -e "$OUT/$fstyp-base-rerun-$label.$n" ]; do
			n=$((n + 1))
		done
		pdir=$OUT/$fstyp-$label-rerun.$n bdir=$OUT/$fstyp-base-rerun-$label.$n
		# time for every run: twice each test's seconds in the first
		# runs (at least 60) and a minute more, FSTESTS_RERUN times,
		# and the boot
		local secs
		secs=$(cat "$OUT/$fstyp-$label/rows.tsv" "$OUT/$fstyp-base/rows.tsv" |
			awk -v tests=" $tests " -v n="$FSTESTS_RERUN" -v min="${FSTESTS_TIMEOUT}" '
				index(tests, " " $1 " ") { s = $3 < 60 ? 60 : $3; if (s > t[$1]) t[$1] = s }
				END { for (x in t) sum += 2 * t[x] + 60; v = 300 + n * sum
				      print v > min ? v : min }')
		local FSTESTS_TIMEOUT=$secs
		say "$fstyp: $tests not ok on the $label kernel: rerun set $n, $FSTESTS_RERUN more runs on both kernels"
		boot_all "$label-rerun.$n|$BUILD_DIR/arch/x86/boot/bzImage|$fstyp|-i $FSTESTS_RERUN $tests|$append" \
			"base-rerun-$label.$n|$BASE_BUILD/arch/x86/boot/bzImage|$fstyp|-i $FSTESTS_RERUN $tests|"
		# both ran out of time together: their last, unfinished runs
		# were cut by this script, not failed by the kernels (one
		# alone is a hang)
		if [ -f "$pdir/timedout" ] && [ -f "$bdir/timedout" ]; then
			python3 "$HERE/report.py" cut "$pdir" "$bdir" | diag
		fi
	fi
	# shellcheck disable=SC2207 # directory names have no blanks
	RERUN_DIRS=($(rerun_sets "$fstyp-$label-rerun" "$OUT/$fstyp-$label") --
		    $(rerun_sets "$fstyp-base-rerun-$label" "$OUT/$fstyp-base"))
	[ ${#RERUN_DIRS[@]} -gt 1 ] || RERUN_DIRS=()
}

# rerun_sets PREFIX MAIN: the rerun sets OUT/PREFIX.N whose guest ran the
# same kernel build as the run in MAIN (its uname, which names the tree's
# commit); a set of another build is not pooled, and says so
rerun_sets() {
	local d want
	want=$(cat "$2/results/uname.txt" 2>/dev/null) || return 0
	for d in "$OUT/$1".*; do
		[ -f "$d/rows.tsv" ] || continue
		if [ "$(cat "$d/results/uname.txt" 2>/dev/null)" = "$want" ]; then
			echo "$d"
		else
			echo "$(basename "$d"): another kernel build than $(basename "$2"): not pooled" | diag >&2
		fi
	done
}

# same_list DIR TESTS: DIR is a run of exactly TESTS (its control params)
same_list() {
	# shellcheck source=/dev/null
	# shellcheck disable=SC2153 # TESTS comes from the params file
	[ -f "$1/ctl/params" ] && (. "$1/ctl/params" && [ "$TESTS" = "$2" ])
}

# list_places: the log directory, data directory and page of FSTESTS_LIST
list_places() {
	[ "$FSTESTS_LIST" = default ] && return
	OUT=$LOG_DIR/fstests/$FSTESTS_LIST
	DATA=$TOP/Documentation/fstests/$FSTESTS_LIST
	PAGE=$TOP/Documentation/fstests-$FSTESTS_LIST.md
	DISK_DIR=$CACHE_DIR/fstests/disks-$FSTESTS_LIST
}

compare() {
	local fstyp tests patched=patched append='' default=0 bad=0 keep=0
	local specs=() base_specs=() i
	list_places
	[ -n "${FSTESTS:-}" ] || default=1
	if [ "$STRICT" = 1 ]; then
		patched=strict
		append=$(strict_arg $FSTYP)
	fi
	case ${FSTESTS_BASE:-boot} in
	boot) need_kernels ;;
	keep) keep=1; need_kernels patched ;;
	*) die "FSTESTS_BASE must be boot or keep" ;;
	esac
	setup
	for fstyp in $FSTYP; do
		tests=${FSTESTS:-$(default_list "$fstyp")}
		specs+=("$patched|$BUILD_DIR/arch/x86/boot/bzImage|$fstyp|$tests|$append")
		base_specs+=("base|$BASE_BUILD/arch/x86/boot/bzImage|$fstyp|$tests|")
		# FSTESTS_BASE=keep: the unpatched rows of the last run, which
		# must have run the same list
		[ $keep = 0 ] || same_list "$OUT/$fstyp-base" "$tests" ||
			die "FSTESTS_BASE=keep: no unpatched $fstyp run of this list in $OUT/$fstyp-base"
	done
	if [ $keep = 1 ]; then
		say "the $patched kernel only ($FSTYP at once); unpatched rows kept from $OUT"
		boot_all "${specs[@]}"
	else
		for i in "${!specs[@]}"; do
			[ "$FSTESTS_PARALLEL" != 1 ] ||
				say "$(echo "${specs[i]}" | cut -d'|' -f3): both kernels at once, one host CPU each"
			boot_all "${specs[i]}" "${base_specs[i]}"
		done
	fi
	for fstyp in $FSTYP; do
		rerun "$fstyp" "$patched" "$append"
		# a strict run whose kernel did not turn strict mode on proves
		# nothing (the message is stress/run.sh's STRICT_LOG)
		[ "$STRICT" != 1 ] || grep -qs 'memalloc_scope_strict: ' \
			"$OUT/$fstyp-strict/results/dmesg-boot.txt" ||
			{ echo "$fstyp-strict: the kernel did not report strict mode on" | diag; bad=1; }
		python3 "$HERE/report.py" compare "$OUT/$fstyp-$patched" \
			"$OUT/$fstyp-base" "${RERUN_DIRS[@]}" || bad=1
	done
	[ $default = 0 ] || publish
	[ $bad -eq 0 ] || die "regressions or lost coverage: see the tables above; logs in $OUT"
	say "no regression"
}

# campaign_start DIR FSTYP GROUP: the campaign's fixed test list and meta
campaign_start() {
	local cdir=$1 src n
	src=$("$HERE/image.sh" source) ||
		die "no fstests source to list group '$3' from"
	mkdir -p "$cdir"
	python3 "$HERE/campaign.py" list "$src" "$2" "$3" > "$cdir/tests.txt.new" ||
		die "listing group '$3' from $src failed"
	n=$(wc -l < "$cdir/tests.txt.new")
	[ "$n" -gt 0 ] || { rm -f "$cdir/tests.txt.new"; die "group '$3' has no test for $2 in $src"; }
	{ echo "fstyp=$2"
	  echo "group=$3"
	  echo "chunk=${CHUNK:-25}"
	  echo "source=$(basename "$src") sha256 $(sha256sum < "$src" 2>/dev/null | cut -c 1-16)"
	  echo "started=$(date -u '+%Y-%m-%d %H:%M UTC')"; } > "$cdir/meta"
	mv "$cdir/tests.txt.new" "$cdir/tests.txt"
	say "campaign $2-$3 started: $n tests in chunks of ${CHUNK:-25}; the list is $cdir/tests.txt"
}

# campaign_store WORK CDIR K FSTYP WALL: chunk K's rows (and its pooled
# reruns) from the runs in WORK into CDIR/chunk-K, renamed into place
# whole
campaign_store() {
	local work=$1 d tmp label
	d=$2/chunk-$(printf '%03d' "$3")
	tmp=$d.new
	rm -rf "$tmp"
	mkdir -p "$tmp"
	for label in patched base; do
		cp "$work/$4-$label/rows.tsv" "$tmp/$label.tsv"
	done
	# RERUN_DIRS: the patched sets, --, the unpatched sets (rerun)
	local side=patched d2
	for d2 in "${RERUN_DIRS[@]}"; do
		if [ "$d2" = -- ]; then side=base; continue; fi
		cat "$d2/rows.tsv" >> "$tmp/$side-rerun.tsv"
	done
	{ echo "series=$(sed -n 's/^SERIES_ID=//p' "$work/$4-patched/ctl/params")"
	  echo "patched_kernel=$(cat "$work/$4-patched/results/uname.txt" 2>/dev/null || echo unknown)"
	  echo "base_kernel=$(cat "$work/$4-base/results/uname.txt" 2>/dev/null || echo unknown)"
	  echo "accel=$ACCEL"
	  echo "wall_s=$5"
	  echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"; } > "$tmp/run"
	rm -rf "$d"
	mv "$tmp" "$d"
}

# campaign: FSTYP's GROUP, CHUNKS chunks of it on this call
campaign() {
	local fstyp=$FSTYP group=${GROUP:-quick} left=${CHUNKS:-1} cdir k
	local tests work start label total bad=0 verdict
	case $fstyp in
	xfs|ext4|btrfs) ;;
	*) die "a campaign is for one FSTYP (xfs, ext4 or btrfs), not '$fstyp'" ;;
	esac
	case $left in ''|*[!0-9]*|0) die "CHUNKS must be a positive number" ;; esac
	cdir=$CAMPAIGN/$fstyp-$group
	need_kernels
	if [ ! -f "$cdir/tests.txt" ]; then
		campaign_start "$cdir" "$fstyp" "$group"
	elif [ -n "${CHUNK:-}" ] && [ "$CHUNK" != "$(sed -n 's/^chunk=//p' "$cdir/meta")" ]; then
		die "the campaign in $cdir has chunks of $(sed -n 's/^chunk=//p' "$cdir/meta") tests: CHUNK=$CHUNK would change which tests a chunk holds"
	fi
	setup
	total=$(python3 "$HERE/campaign.py" chunks "$cdir")
	local out0=$OUT
	DISK_DIR=$CACHE_DIR/fstests/disks-campaign
	while [ "$left" -gt 0 ]; do
		if ! k=$(python3 "$HERE/campaign.py" next "$cdir"); then
			say "campaign $fstyp-$group: all $total chunks are stored"
			break
		fi
		tests=$(python3 "$HERE/campaign.py" tests "$cdir" "$k")
		work=$out0/campaign/$fstyp-$group/chunk-$(printf '%03d' "$k")
		# a chunk cut short before runs again whole
		rm -rf "$work"
		mkdir -p "$work"
		OUT=$work
		say "campaign $fstyp-$group: chunk $((k + 1)) of $total ($(wc -w <<< "$tests") tests), both kernels at once; logs in $work"
		start=$SECONDS
		boot_all "patched|$BUILD_DIR/arch/x86/boot/bzImage|$fstyp|$tests|" \
			"base|$BASE_BUILD/arch/x86/boot/bzImage|$fstyp|$tests|"
		for label in patched base; do
			# a guest that never reached its run script measured
			# nothing: no chunk is stored (one that died later did)
			[ -f "$work/$fstyp-$label/results/dmesg-boot.txt" ] ||
				die "chunk $((k + 1)): the $label guest never reached fstests (serial log: $work/$fstyp-$label/serial.log); nothing stored, run again"
		done
		rerun "$fstyp" patched ""
		verdict=0
		python3 "$HERE/report.py" compare "$work/$fstyp-patched" \
			"$work/$fstyp-base" "${RERUN_DIRS[@]}" > "$work/compare.txt" || true
		# a row judged a regression or unjudged fails the call (a chunk
		# whose tests all were not run on either kernel does not: the
		# page counts the tests that ran on both)
		! grep -v '^verdict:' "$work/compare.txt" |
			grep -qE 'REGRESSION|UNJUDGED|UNDECIDED' || verdict=1
		campaign_store "$work" "$cdir" "$k" "$fstyp" $((SECONDS - start))
		[ $verdict = 0 ] || { bad=1; grep -v '^verdict:' "$work/compare.txt" |
			grep -E 'REGRESSION|UNJUDGED|UNDECIDED' | diag; }
		say "chunk $((k + 1)) of $total stored in $cdir in $((SECONDS - start)) s: $(sed -n 's/^verdict: //p' "$work/compare.txt")"
		left=$((left - 1))
	done
	OUT=$out0
	campaign_report
	[ $bad = 0 ] || die "regressions or unjudged rows in the chunks of this call (above; Documentation/fstests-campaign.md)"
}

campaign_report() {
	python3 "$HERE/campaign.py" markdown "$CAMPAIGN" > "$TOP/Documentation/fstests-campaign.md.new" ||
		{ rm -f "$TOP/Documentation/fstests-campaign.md.new"; die "campaign.py markdown failed"; }
	mv "$TOP/Documentation/fstests-campaign.md.new" "$TOP/Documentation/fstests-campaign.md"
	# the unpatched kernel's failures in our runs, per file system
	local fs
	for fs in xfs ext4 btrfs; do
		ls -d "$CAMPAIGN/$fs-"* > /dev/null 2>&1 || continue
		python3 "$HERE/campaign.py" expected "$CAMPAIGN" "$fs" > "$CAMPAIGN/expected-$fs.tsv" ||
			die "campaign.py expected failed"
	done
	say "Documentation/fstests-campaign.md and the expected-failure lists rewritten from $CAMPAIGN"
}

# judge: the last step of compare again on the runs already in OUT (the
# reruns, the tables, publish), e.g. after a compare that was stopped
judge() {
	local fstyp patched=patched append='' bad=0
	list_places
	if [ "$STRICT" = 1 ]; then
		patched=strict
		append=$(strict_arg $FSTYP)
	fi
	need_kernels
	setup
	for fstyp in $FSTYP; do
		if [ ! -f "$OUT/$fstyp-$patched/rows.tsv" ] ||
		   [ ! -f "$OUT/$fstyp-base/rows.tsv" ]; then
			die "no $fstyp runs of the $patched and the unpatched kernel in $OUT: run compare"
		fi
		rerun "$fstyp" "$patched" "$append"
		python3 "$HERE/report.py" compare "$OUT/$fstyp-$patched" \
			"$OUT/$fstyp-base" "${RERUN_DIRS[@]}" || bad=1
	done
	[ -n "${FSTESTS:-}" ] || publish
	[ $bad -eq 0 ] || die "regressions: see the tables above; logs in $OUT"
	say "no regression"
}

case ${1:-} in
smoketest)
	# kvm-xfstests' smoke: the smoketest group with a 3-minute soak, on
	# all three file systems unless FSTYP says otherwise
	FSTESTS_LIST=smoketest
	FSTESTS_SOAK=${SMOKETEST_SOAK:-180}
	FSTYP=${FSTYP_ASKED:-xfs ext4 btrfs}
	compare ;;
smoke) smoke ;;
compare) compare ;;
campaign) campaign ;;
campaign-report) campaign_report ;;
judge) judge ;;
publish) list_places; publish ;;
*) sed -n '/^#   fstests\/run.sh compare/,/^#   CACHE_DIR/s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
