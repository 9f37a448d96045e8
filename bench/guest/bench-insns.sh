# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# bench-insns: one boot of bench/run.sh insns, under TCG with one vCPU and
# the insn_window plugin (bench/plugin/insn_window.c).  bench/run.sh puts
# this file in /scenarios of an extra initramfs archive, with
# /bench/nofs_bench.ko and /bench/params.sh (INSNS_ITERS, INSNS_REPS).
#
# nofs_bench.ko insns=1 runs each case between instruction-count markers
# and prints one "nofs_bench: window ..." line per window; the plugin
# prints the counts on the host, in the same order.
#
# shellcheck source=../../qemu/guest/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=/dev/null
. /bench/params.sh

one_cpu() {
	nproc
	[ "$(nproc)" -eq 1 ]
}

counted() {
	insmod /bench/nofs_bench.ko insns=1 iters="$INSNS_ITERS" reps="$INSNS_REPS" &&
		dmesg | grep -q 'nofs_bench: done'
}

say "kernel $(uname -r); $(grep MemTotal /proc/meminfo)"
require "one CPU: the plugin has one instruction counter" one_cpu
require "counted windows (nofs_bench.ko insns=1 iters=$INSNS_ITERS reps=$INSNS_REPS)" counted
finish
