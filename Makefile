# SPDX-License-Identifier: GPL-2.0
#
# nofs-scope: counted and lock-tied allocation scopes for Linux 6.12, and
# XFS converted to them.  See README.md.
#
#   make            apply the series, build, boot, run the XFS scenarios
#   make test       checkpatch, kernel-doc, KUnit and the QEMU scenarios
#   make deps       install the Debian packages (as root)
#   make help       every target and variable

CACHE_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/nofs-scope
TREE      ?= $(CACHE_DIR)/linux
BUILD_DIR ?= $(CACHE_DIR)/build
LOG_DIR   ?= $(CACHE_DIR)/logs
SERIES    ?= mm-scope xfs-conversion jbd2-conversion btrfs-conversion
JOBS      ?= $(shell nproc)
ACCEL     ?= auto
SCENARIOS ?= basic metadata-pressure quota-pressure reflink-recovery scrub \
	     ext4-metadata-pressure ext4-shutdown-recovery ext4-restart-abort \
	     ext4-fast-commit-replay xfs-split-worker-scope \
	     $(BTRFS_SCENARIOS) btrfs-raid56
# The btrfs scenarios, which make test also boots on the unpatched kernel.
# btrfs-raid56 runs on the patched kernel only: unpatched 6.12 has the
# raid56 use-after-free that btrfs-conversion's first patch fixes (make
# raid56-race-test); it corrupted memory once in 45 runs of this
# scenario before the fix (on the patched kernel, which then lacked it).
BTRFS_SCENARIOS := btrfs-metadata-pressure btrfs-crash-replay btrfs-balance-scrub \
		   btrfs-mount-paths
# make stress: crash-recovery cycles, soak seconds and fault-injection rounds
# of the full campaign
CYCLES    ?= 100
SOAK      ?= 600
FI_ROUNDS ?= 6

# The unpatched kernel (scripts/baseline.sh), for make baseline, fstests
# and the stress campaign's baseline mode
BASE_BUILD_DIR := $(CACHE_DIR)/build-base
# KASAN=1 builds and boots KASAN kernels (with KFENCE and slub_debug),
# patched and unpatched, in build directories of their own
ifeq ($(KASAN),1)
BUILD_DIR := $(CACHE_DIR)/build-kasan
BASE_BUILD_DIR := $(CACHE_DIR)/build-base-kasan
export KUNITCONFIGS := $(CURDIR)/kunit/memalloc_scope.kunitconfig \
	$(CURDIR)/kunit/guest.config $(CURDIR)/kunit/fstests.config \
	$(CURDIR)/kunit/kasan.config
endif

# The second KUnit run: no CONFIG_DEBUG_MEMALLOC_SCOPE, no lockdep, its own
# build directory
KUNIT_NODEBUG := KUNIT_NAME=kunit-nodebug KUNIT_KERNEL_ARGS= \
	BUILD_DIR=$(CACHE_DIR)/build-nodebug \
	KUNITCONFIGS="$(CURDIR)/kunit/nodebug.kunitconfig"

SRC_PKG     := linux-source-6.12
SRC_TARBALL := /usr/src/$(SRC_PKG).tar.xz

export TOP := $(CURDIR)
export CACHE_DIR TREE BUILD_DIR BASE_BUILD_DIR LOG_DIR SERIES JOBS SRC_PKG SRC_TARBALL CYCLES SOAK FI_ROUNDS KASAN
export NOFS_ACCEL := $(ACCEL)
# make fstests: FSTYP (xfs, ext4 or both), FSTESTS (tests or groups; the
# default lists are fstests/default-*.list), STRICT=1 (strict mode),
# FSTESTS_BASE=keep (compare with the last unpatched run, boot no other)
export FSTYP FSTESTS STRICT FSTESTS_BASE
# make fstests-campaign: FSTYP (one file system), GROUP (default quick),
# CHUNK (tests per chunk when a campaign starts, default 25), CHUNKS
# (chunks on this call, default 1)
export GROUP CHUNK CHUNKS
# make test: FSTESTS_SMOKE=skip skips the fstests smoke test by name (the
# summary then says SKIPPED); without the fstests source it fails
export FSTESTS_SMOKE

.DEFAULT_GOAL := all
.PHONY: all test deps prepare export status kernel kunit scenarios \
	checkpatch kerneldoc sparse xfs-check each-patch baseline bench bench-insns \
	bench-shrink bench-btrfs bench-report stress stress-report reports \
	split-fix-test dquot-race-test raid56-race-test fstests fstests-report \
	fstests-smoke fstests-campaign fstests-campaign-report \
	cocci census verify-conversions mutants help

all: prepare kernel
	@qemu/run-scenario.sh $(SCENARIOS)

test: prepare
	@echo "==> [1/10] checkpatch --strict on every patch"
	@scripts/check-patches.sh
	@echo "==> [2/10] kernel-doc on every file the series touch"
	@scripts/check-kerneldoc.sh
	@echo "==> [3/10] static check of fs/xfs, fs/jbd2, fs/ext4 and fs/btrfs"
	@scripts/check-xfs-nofs.sh
	@python3 scripts/census_sites.py selftest
	@python3 scripts/instrument_conversions.py selftest
	@python3 kunit/check-results.py selftest
	@scripts/tree-export-test.sh
	@scripts/raid56-race-selftest.sh
	@echo "==> [4/10] Coccinelle rules on their test cases"
	@scripts/deps.sh check spatch
	@scripts/cocci.sh selftest
	@echo "==> [5/10] kernel build (serves KUnit and the QEMU scenarios)"
	@scripts/deps.sh check gcc make flex bison bc
	@kunit/run.sh build
	@echo "==> [5/10] the KUnit suite built as a module, with the debug option and lockdep"
	@BUILD_DIR=$(CACHE_DIR)/build-kunit-module kunit/run.sh module
	@echo "==> [6/10] KUnit"
	@NOFS_ACCEL=$$(qemu/accel.sh) && export NOFS_ACCEL && \
		kunit/run.sh run && \
		echo "==> [6/10] KUnit without the debug option (the inline fast paths)" && \
		$(KUNIT_NODEBUG) kunit/run.sh run && \
		echo "==> [7/10] QEMU scenarios: $(SCENARIOS)" && \
		qemu/known-splat-test.sh && \
		qemu/run-scenario.sh $(SCENARIOS) && \
		echo "==> [8/10] the btrfs scenarios on the unpatched kernel" && \
		SCENARIOS="$(BTRFS_SCENARIOS)" scripts/baseline.sh && \
		echo "==> [8/10] sparse on the files the series touch, against the unpatched kernel" && \
		scripts/deps.sh check sparse && \
		scripts/sparse-check.sh && \
		echo "==> [9/10] reliability campaign, short form" && \
		python3 stress/report.py selftest && \
		stress/run.sh short && \
		echo "==> [10/10] fstests smoke test: one XFS and one ext4 test, patched kernel" && \
		scripts/deps.sh check debootstrap mkfs.ext4 tar && \
		python3 fstests/report.py selftest && \
		python3 fstests/campaign.py selftest && \
		fstests/run.sh smoke
	@echo "==> measured pages against the series checked out (report only)"
	@scripts/check-pages.sh
	@echo "==> make test: $(if $(filter skip,$(FSTESTS_SMOKE)),SKIPPED the fstests smoke test (FSTESTS_SMOKE=skip); every other step passed,all passed)"

deps:
	@scripts/deps.sh install

prepare:
	@scripts/deps.sh check git python3 perl xz
	@scripts/tree.sh prepare

export:
	@scripts/tree.sh export

status:
	@scripts/tree.sh status

kernel: prepare
	@scripts/deps.sh check gcc make flex bison bc
	@kunit/run.sh build

kunit: prepare
	@kunit/run.sh run
	@$(KUNIT_NODEBUG) kunit/run.sh run

scenarios: kernel
	@qemu/run-scenario.sh $(SCENARIOS)

checkpatch: prepare
	@scripts/check-patches.sh

kerneldoc: prepare
	@scripts/check-kerneldoc.sh

sparse: kernel
	@scripts/deps.sh check sparse
	@scripts/baseline.sh build
	@scripts/sparse-check.sh

xfs-check: prepare
	@scripts/check-xfs-nofs.sh

each-patch: prepare
	@scripts/build-each-patch.sh

baseline: prepare
	@SCENARIOS="$(SCENARIOS)" scripts/baseline.sh

bench: prepare
	@scripts/deps.sh check gcc make flex bison bc gnuplot fs_mark
	@bench/run.sh

bench-insns: prepare
	@scripts/deps.sh check gcc make flex bison bc gnuplot
	@bench/run.sh insns

bench-shrink: prepare
	@scripts/deps.sh check gcc make flex bison bc fs_mark
	@bench/workloads.sh shrink

bench-btrfs: prepare
	@scripts/deps.sh check gcc make flex bison bc fs_mark
	@bench/workloads.sh btrfs

# the report from the committed data alone: no tree, no cache, no boot;
# without gnuplot the committed plots are kept (report.py says so)
bench-report:
	@scripts/deps.sh check python3
	@python3 bench/report.py Documentation/bench/data \
		Documentation/benchmarks.md Documentation/bench
	@echo "==> Documentation/benchmarks.md rewritten from Documentation/bench/data"

# every measured page again from its committed raw data (no build, no boot)
reports: bench-report stress-report fstests-report fstests-campaign-report

stress: kernel
	@stress/run.sh full

# the report from the committed data alone: no tree, no cache, no boot
stress-report:
	@scripts/deps.sh check python3
	@python3 stress/report.py markdown Documentation/stress/data \
		> Documentation/stress-results.md
	@echo "==> Documentation/stress-results.md rewritten from Documentation/stress/data"

# fstests on the patched and the unpatched kernel, side by side; FSTYP,
# FSTESTS and STRICT=1 choose (fstests/run.sh)
fstests: kernel
	@scripts/deps.sh check debootstrap mkfs.ext4 tar
	@scripts/baseline.sh build
	@fstests/run.sh compare

# kvm-xfstests' smoke: the smoketest group, SOAK_DURATION 180 s, on xfs,
# ext4 and btrfs (FSTYP chooses), both kernels side by side
fstests-smoke: kernel
	@scripts/deps.sh check debootstrap mkfs.ext4 tar
	@scripts/baseline.sh build
	@fstests/run.sh smoketest

# a whole fstests group in chunks, resumable (fstests/run.sh campaign):
# FSTYP (one), GROUP, CHUNK (tests per chunk, fixed at the start), CHUNKS
# (chunks on this call)
fstests-campaign: kernel
	@scripts/deps.sh check debootstrap mkfs.ext4 tar
	@scripts/baseline.sh build
	@fstests/run.sh campaign

fstests-campaign-report:
	@scripts/deps.sh check python3
	@fstests/run.sh campaign-report

fstests-report:
	@scripts/deps.sh check python3
	@python3 fstests/report.py markdown Documentation/fstests/data \
		> Documentation/fstests-results.md
	@echo "==> Documentation/fstests-results.md rewritten from Documentation/fstests/data"

split-fix-test: prepare
	@scripts/deps.sh check gcc make flex bison bc
	@scripts/split-fix-test.sh

dquot-race-test: prepare
	@scripts/deps.sh check gcc make flex bison bc
	@scripts/dquot-race-test.sh

raid56-race-test: prepare
	@scripts/deps.sh check gcc make flex bison bc
	@scripts/raid56-race-test.sh

cocci: prepare
	@scripts/deps.sh check spatch
	@scripts/cocci.sh

census: prepare
	@scripts/census.sh

# deliberately broken kernels and inputs, each against the check meant to
# catch it (long: kernel builds); Documentation/mutants-results.md
mutants: prepare
	@scripts/deps.sh check gcc make flex bison bc
	@scripts/mutants.sh

# every GFP_NOFS -> GFP_KERNEL site of the series checked at run time
verify-conversions: prepare
	@scripts/deps.sh check gcc make flex bison bc
	@scripts/verify-conversions.sh

help:
	@echo "Targets:"
	@echo "  all (default)  prepare, kernel, then the QEMU scenarios and their summary"
	@echo "  test           checkpatch, kerneldoc, cocci selftest, kunit, scenarios and"
	@echo "                 the short stress campaign; what CI runs"
	@echo "  deps           apt-get install everything (root); idempotent"
	@echo "  prepare        extract $(SRC_PKG) into TREE once, apply the series"
	@echo "  export         write the tree's commits back as the series' patch files"
	@echo "  status         the tree's commits on top of the pristine source"
	@echo "  kernel         build the guest kernel (also the KUnit kernel)"
	@echo "  kunit          run the KUnit suites with kunit.py"
	@echo "  scenarios      boot the kernel in QEMU and run SCENARIOS"
	@echo "  checkpatch     checkpatch.pl --strict on every patch"
	@echo "  kerneldoc      kernel-doc -Wall on every file the series touch"
	@echo "  xfs-check      no GFP_NOFS, saved scopes or cookies left in fs/xfs, none"
	@echo "                 of the latter in fs/jbd2 and fs/ext4"
	@echo "  each-patch     build every commit of the series (long), and fs/xfs W=1;"
	@echo "                 EACH_CONFIG=small EACH_TO=mm-scope: a small kernel (no fs)"
	@echo "  sparse         sparse on the files the series touch, no new warning"
	@echo "  baseline       the QEMU scenarios on the unpatched distro kernel"
	@echo "  bench          benchmarks, patched against unpatched (long)"
	@echo "  bench-insns    executed-instruction counts of the benchmark loops (QEMU"
	@echo "                 TCG plugin, two boots of each kernel) into the bench report"
	@echo "  bench-shrink   XFS and ext4 workloads that reach the shrinkers, patched"
	@echo "                 against unpatched, with instruction counts (long)"
	@echo "  bench-btrfs    btrfs creates and cold tree walks, with and without memory"
	@echo "                 pressure, patched against unpatched, with instruction counts"
	@echo "                 of a third kernel with the debug option (long)"
	@echo "  bench-report   rewrite Documentation/benchmarks.md and its plots from the"
	@echo "                 committed Documentation/bench/data (no build, no boot)"
	@echo "  stress         crash, fault-injection and soak campaign (long, resumable:"
	@echo "                 run it again to go on; STRESS_FRESH=1 starts again); its raw"
	@echo "                 data goes to Documentation/stress/data after every boot"
	@echo "  stress-report  rewrite Documentation/stress-results.md from the committed"
	@echo "                 Documentation/stress/data (no build, no boot)"
	@echo "  reports        bench-report, stress-report and fstests-report at once"
	@echo "  split-fix-test xfs-conversion patch 1 alone on the unpatched tree: a probe"
	@echo "                 must see the bug without it and nothing with it"
	@echo "  dquot-race-test the known dquot shrinker report, reproduced on the"
	@echo "                 unpatched tree (a probe widens the race window)"
	@echo "  raid56-race-test the btrfs raid56 and encoded read use-after-frees, reproduced"
	@echo "                 on the unpatched tree with probes and silent with the fixes"
	@echo "                 (RACE_MODES=\"unfixed encoded fixed\", RACE_RUNS, KASAN=1)"
	@echo "  fstests        fstests on the patched and the unpatched kernel, and the"
	@echo "                 side-by-side table (FSTYP, FSTESTS, STRICT=1; long)"
	@echo "  fstests-smoke  the smoketest group (kvm-xfstests' smoke, 3-minute soaks) on"
	@echo "                 xfs, ext4 and btrfs, patched against unpatched"
	@echo "  fstests-campaign  FSTYP's GROUP (quick) in chunks of a fixed list, both"
	@echo "                 kernels side by side, CHUNKS chunks per call; resumes with"
	@echo "                 the first chunk not stored in Documentation/fstests/campaign"
	@echo "  fstests-campaign-report  rewrite Documentation/fstests-campaign.md from it"
	@echo "  fstests-report rewrite Documentation/fstests-results.md from the committed"
	@echo "                 Documentation/fstests/data (no build, no boot)"
	@echo "  cocci          the Coccinelle rules of scripts/coccinelle over TREE"
	@echo "  census         GFP_NOFS and scope use per filesystem directory"
	@echo "  mutants        deliberately broken kernels and inputs, each against the check"
	@echo "                 meant to catch it; every one must turn red (long: builds)"
	@echo "  verify-conversions  instrument every GFP_NOFS -> GFP_KERNEL site of the"
	@echo "                 series, boot the btrfs and ext4 scenarios, and report the"
	@echo "                 sites reached inside a NOFS scope and any outside (long)"
	@echo "Variables (current value):"
	@echo "  CACHE_DIR=$(CACHE_DIR)"
	@echo "  TREE=$(TREE)"
	@echo "  BUILD_DIR=$(BUILD_DIR)"
	@echo "  LOG_DIR=$(LOG_DIR)"
	@echo "  SERIES=$(SERIES)"
	@echo "  SCENARIOS=$(SCENARIOS)"
	@echo "  CYCLES=$(CYCLES)   (crash-recovery cycles of make stress)"
	@echo "  SOAK=$(SOAK)   (seconds of the memory-pressure soak of make stress)"
	@echo "  FI_ROUNDS=$(FI_ROUNDS)   (fault-injection workload and recovery rounds of make stress)"
	@echo "  ACCEL=$(ACCEL)   (auto: KVM if a probe boot works, else TCG)"
	@echo "  JOBS=$(JOBS)"
	@echo "  KASAN=$(KASAN)   (1: KASAN, KFENCE and slub_debug kernels, patched in CACHE_DIR/build-kasan,"
	@echo "                 unpatched in CACHE_DIR/build-base-kasan; make scenarios, stress, fstests)"
	@echo "  FSTYP=$(FSTYP)   (make fstests: xfs, ext4; empty: both)"
	@echo "  FSTESTS=$(FSTESTS)   (make fstests: tests or groups; empty: the default lists)"
	@echo "  STRICT=$(STRICT)   (make fstests: 1 boots the patched kernel in strict mode)"
	@echo "  FSTESTS_SMOKE=$(FSTESTS_SMOKE)   (make test: skip skips the fstests smoke test by name)"
