// SPDX-License-Identifier: GPL-2.0
/*
 * insn_window: a QEMU TCG plugin that counts the guest instructions
 * executed between markers that the guest runs (bench/module/nofs_bench.c
 * with insns=1; bench/run.sh insns).
 *
 * A marker is the 7-byte NOP "nopl DISP(%rax)" (0f 1f 80 + disp32) with
 * DISP = 0x4e46XYYY: X is the operation, YYY a window id (0..4095).
 *   X=0  mark:   prints "insn-mark ID POS"
 *   X=1  start:  notes POS for window ID
 *   X=2  end:    prints "insn-window ID COUNT MEM BLOCKS"
 * POS is the number of guest instructions executed before the marker
 * since QEMU started; COUNT is the number executed after the start marker
 * and before the end marker, MEM the guest memory accesses they made (a
 * read-modify-write is two), BLOCKS the translation blocks that started
 * after the start marker's, up to the end marker's (TCG ends a block at
 * every branch).  The lines go out through qemu_plugin_outs(): run QEMU
 * with -d plugin, and -D FILE to have them in a file.
 *
 * Every translation block adds its instruction count and 1 to two
 * counters at its start (inline ops, cheap), every instruction that
 * accesses memory adds 1 per access to a third, and a marker's callback
 * takes off the instructions of its block that have not run yet.  A
 * rep-prefixed string instruction counts once per iteration (TCG runs it
 * as a loop).  The counters are shared by all vCPUs: boot the guest with
 * -smp 1 and -accel tcg,thread=single for exact counts.
 *
 *   qemu-system-x86_64 -accel tcg,thread=single -smp 1 \
 *       -plugin libinsn_window.so -d plugin -D insns.log ...
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARK_MAGIC	0x4e460000u	/* "NF" */
#define MARK_MAGIC_MASK	0xffff0000u
#define MARK_ID_MASK	0x0fffu
#define MARK_OP_SHIFT	12

enum { OP_MARK, OP_START, OP_END, NR_OPS };

#define NR_IDS		(MARK_ID_MASK + 1)
#define MARK_LEN	7

static uint64_t insns;			/* executed, all vCPUs */
static uint64_t mems;			/* memory accesses */
static uint64_t blocks;			/* translation blocks started */
static struct {
	uint64_t insns, mems, blocks;
	bool started;
} win[NR_IDS];
static uint64_t windows;

/*
 * A marker's callback data, packed in the pointer: the low 16 bits of its
 * displacement, and above them the instructions of its block from the
 * marker on (the marker included), which the counter already holds.
 */
#define UDATA(disp, left)	((void *)(uintptr_t)(((uint64_t)(left) << 16) | \
						     ((disp) & 0xffffu)))

static void on_marker(unsigned int vcpu, void *udata)
{
	uint64_t u = (uintptr_t)udata;
	unsigned int id = u & MARK_ID_MASK;
	unsigned int op = (u & 0xffffu) >> MARK_OP_SHIFT;
	uint64_t pos = insns - (u >> 16);
	char buf[96];

	switch (op) {
	case OP_START:
		win[id].insns = pos;
		win[id].mems = mems;
		win[id].blocks = blocks;
		win[id].started = true;
		return;
	case OP_END:
		if (!win[id].started) {
			snprintf(buf, sizeof(buf),
				 "insn-window %u no-start (vcpu %u)\n", id, vcpu);
			break;
		}
		win[id].started = false;
		windows++;
		snprintf(buf, sizeof(buf),
			 "insn-window %u %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			 id, pos - win[id].insns - 1, mems - win[id].mems,
			 blocks - win[id].blocks);
		break;
	default:
		snprintf(buf, sizeof(buf), "insn-mark %u %" PRIu64 "\n",
			 id, pos);
		break;
	}
	qemu_plugin_outs(buf);
}

/* The marker's displacement, or 0 if @insn is not a marker */
static uint32_t marker_disp(struct qemu_plugin_insn *insn)
{
	const uint8_t *p = qemu_plugin_insn_data(insn);
	uint32_t disp;

	if (qemu_plugin_insn_size(insn) != MARK_LEN ||
	    p[0] != 0x0f || p[1] != 0x1f || p[2] != 0x80)
		return 0;
	disp = p[3] | p[4] << 8 | p[5] << 16 | (uint32_t)p[6] << 24;
	if ((disp & MARK_MAGIC_MASK) != MARK_MAGIC ||
	    (disp & 0xffffu) >> MARK_OP_SHIFT >= NR_OPS)
		return 0;
	return disp;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	size_t i;

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &insns, n);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &blocks, 1);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint32_t disp = marker_disp(insn);

		qemu_plugin_register_vcpu_mem_inline(insn, QEMU_PLUGIN_MEM_RW,
						     QEMU_PLUGIN_INLINE_ADD_U64,
						     &mems, 1);
		if (disp)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       UDATA(disp, n - i));
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	char buf[96];

	snprintf(buf, sizeof(buf),
		 "insn-total %" PRIu64 " mem %" PRIu64 " blocks %" PRIu64
		 " windows %" PRIu64 "\n", insns, mems, blocks, windows);
	qemu_plugin_outs(buf);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	char buf[128];

	if (argc) {
		fprintf(stderr, "insn_window: takes no arguments (got %s)\n",
			argv[0]);
		return -1;
	}
	if (info->system_emulation && info->system.max_vcpus > 1) {
		snprintf(buf, sizeof(buf),
			 "insn-warning %d vCPUs share one counter: counts are not exact\n",
			 info->system.max_vcpus);
		qemu_plugin_outs(buf);
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
