// SPDX-License-Identifier: GPL-2.0
/*
 * insn-mark: run one instruction-count marker of bench/plugin/insn_window.c
 * from user space, so that the plugin counts the guest instructions of a
 * whole workload (bench/workloads.sh), as nofs_bench.ko's markers do for a
 * kernel loop.
 *
 *   insn-mark start|end ID
 *
 * The marker is the 7-byte NOP "nopl DISP(%rax)" with DISP = 0x4e46XYYY,
 * X the operation (1 start, 2 end) and YYY the window ID.  The ID is part
 * of the instruction, so it must be a constant: 1 to MAX_ID.  Without the
 * plugin the NOP does nothing.  Exit status 2 on bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARK_MAGIC	0x4e460000
#define MARK_START	1
#define MARK_END	2
#define MAX_ID		8

/* OP and ID must be constants: they are the instruction's displacement */
static __always_inline void mark(int op, int id)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80\n\t.long %c0"
		     : : "i" (MARK_MAGIC | op << 12 | id) : "memory");
}

static __always_inline void mark_id(int op, int id)
{
	if (op == MARK_START)
		mark(MARK_START, id);
	else
		mark(MARK_END, id);
}

#define CASE_ID(id)	case id: mark_id(op, id); break

int main(int argc, char **argv)
{
	char *end;
	long id;
	int op;

	if (argc != 3)
		goto usage;
	if (!strcmp(argv[1], "start"))
		op = MARK_START;
	else if (!strcmp(argv[1], "end"))
		op = MARK_END;
	else
		goto usage;
	id = strtol(argv[2], &end, 10);
	switch (*end ? 0 : id) {
	CASE_ID(1);
	CASE_ID(2);
	CASE_ID(3);
	CASE_ID(4);
	CASE_ID(5);
	CASE_ID(6);
	CASE_ID(7);
	CASE_ID(8);
	default:
		goto usage;
	}
	return 0;
usage:
	fprintf(stderr, "usage: insn-mark start|end ID (ID 1 to %d)\n", MAX_ID);
	return 2;
}
