// SPDX-License-Identifier: GPL-2.0
/*
 * nofs_bench: what allocation scopes cost, measured in the running kernel.
 *
 * Loading the module runs every case once untimed, then TRIALS trials of
 * ITERS iterations each, the cases in a new random order each trial, and
 * prints per trial and per case (ns and get_cycles() per iteration):
 *
 *   nofs_bench: start kernel=R counted=0|1 iters=N trials=T
 *   nofs_bench: trial case=C t=I ns=TOTAL cycles=TOTAL
 *   nofs_bench: result case=C ref=R|- ns_min= ns_p25= ns_med= ns_p75=
 *               ns_max= cyc_med= [ratio_min= ratio_p25= ratio_med=
 *               ratio_p75= ratio_max=]	(one line; ratios if ref)
 *   nofs_bench: done
 *
 * A ratio is the case's time over its reference's in the same trial, so
 * slow phases of the machine cancel out.  The counted scopes and marked
 * locks are measured only when <linux/sched/mm.h> defines
 * MEMALLOC_SCOPE_NOFS (the patched kernel; counted=1).
 *
 * With insns=1 nothing is timed: after the warm-up, each case runs REPS
 * times with ITERS/2 and with ITERS iterations between two instruction-count
 * markers (insn_mark() below), for bench/plugin/insn_window.c under QEMU
 * TCG (bench/run.sh insns), and each window is announced after it ran:
 *
 *   nofs_bench: insns iters=N reps=R
 *   nofs_bench: window seq=S case=C iters=N/2|N rep=I	(2 * R per case)
 *   nofs_bench: windows=W
 *   nofs_bench: done
 *
 * Cases that only touch the task's flags run with interrupts off; those
 * that lock or allocate run preemptible, and an interruption shows as an
 * outlier that the median ignores.  The module stays loaded and idle.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irqflags.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/gfp.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timex.h>
#include <linux/utsname.h>

#ifdef MEMALLOC_SCOPE_NOFS
#define HAVE_COUNTED_SCOPES 1
#include <linux/memalloc_lock.h>
#else
#define HAVE_COUNTED_SCOPES 0
#endif

static unsigned int iters = 10000;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "iterations per trial (100..10000000)");

static unsigned int trials = 31;
module_param(trials, uint, 0444);
MODULE_PARM_DESC(trials, "trials per case (3..1001)");

static bool insns;
module_param(insns, bool, 0444);
MODULE_PARM_DESC(insns, "count instructions (QEMU TCG plugin) instead of timing");

static unsigned int reps = 5;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "insns=1: windows per case and iteration count (1..100)");

static DEFINE_MUTEX(bench_mutex);
static DECLARE_RWSEM(bench_rwsem);
#if HAVE_COUNTED_SCOPES
static DEFINE_NOFS_MUTEX(bench_mmutex);
static DEFINE_NOFS_RWSEM(bench_mrwsem);
#endif

/*
 * The loops.  barrier() makes the compiler store and reload the task flags
 * on every iteration, and OPTIMIZER_HIDE_VAR() keeps the allocations.
 */
static noinline void run_empty(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		barrier();
}

static noinline void run_save_restore(unsigned int n)
{
	unsigned int i, flags;

	for (i = 0; i < n; i++) {
		flags = memalloc_nofs_save();
		barrier();
		memalloc_nofs_restore(flags);
	}
}

static noinline void run_mutex(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		mutex_lock(&bench_mutex);
		barrier();
		mutex_unlock(&bench_mutex);
	}
}

static noinline void run_mutex_save(unsigned int n)
{
	unsigned int i, flags;

	for (i = 0; i < n; i++) {
		mutex_lock(&bench_mutex);
		flags = memalloc_nofs_save();
		barrier();
		memalloc_nofs_restore(flags);
		mutex_unlock(&bench_mutex);
	}
}

static noinline void run_rwsem_read(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		down_read(&bench_rwsem);
		barrier();
		up_read(&bench_rwsem);
	}
}

static noinline void run_rwsem_read_save(unsigned int n)
{
	unsigned int i, flags;

	for (i = 0; i < n; i++) {
		down_read(&bench_rwsem);
		flags = memalloc_nofs_save();
		barrier();
		memalloc_nofs_restore(flags);
		up_read(&bench_rwsem);
	}
}

static noinline void run_kmalloc(unsigned int n)
{
	unsigned int i;
	void *p;

	for (i = 0; i < n; i++) {
		p = kmalloc(64, GFP_KERNEL);
		OPTIMIZER_HIDE_VAR(p);
		kfree(p);
	}
}

/* The allocations of run_kmalloc() inside one scope around the loop */
static noinline void run_kmalloc_in_save(unsigned int n)
{
	unsigned int flags = memalloc_nofs_save();

	run_kmalloc(n);
	memalloc_nofs_restore(flags);
}

/*
 * Order-0 pages from the per-cpu lists.  Unlike SLUB's fast path, which
 * reads the scopes only under lockdep (might_alloc()), the page allocator
 * calls current_gfp_context() on every allocation: the path the series
 * changes.
 */
static noinline void run_alloc_page(unsigned int n)
{
	struct page *p;
	unsigned int i;

	for (i = 0; i < n; i++) {
		p = alloc_page(GFP_KERNEL);
		OPTIMIZER_HIDE_VAR(p);
		if (p)
			__free_page(p);
	}
}

static noinline void run_alloc_page_in_save(unsigned int n)
{
	unsigned int flags = memalloc_nofs_save();

	run_alloc_page(n);
	memalloc_nofs_restore(flags);
}

#if HAVE_COUNTED_SCOPES
static noinline void run_enter_exit(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		memalloc_nofs_enter();
		barrier();
		memalloc_nofs_exit();
	}
}

static noinline void run_guard(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		guard(memalloc_nofs)();
		barrier();
	}
}

static noinline void run_memalloc_mutex(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		nofs_mutex_lock(&bench_mmutex);
		barrier();
		nofs_mutex_unlock(&bench_mmutex);
	}
}

static noinline void run_memalloc_rwsem_read(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		nofs_down_read(&bench_mrwsem);
		barrier();
		nofs_up_read(&bench_mrwsem);
	}
}

static noinline void run_kmalloc_in_enter(unsigned int n)
{
	memalloc_nofs_enter();
	run_kmalloc(n);
	memalloc_nofs_exit();
}

static noinline void run_alloc_page_in_enter(unsigned int n)
{
	memalloc_nofs_enter();
	run_alloc_page(n);
	memalloc_nofs_exit();
}
#endif

struct bench_case {
	const char *name;
	void (*run)(unsigned int n);
	int ref;		/* index of the reference case, or -1 */
	bool irqs_off;		/* only touches current->flags */
};

/* Indexes of the reference cases in cases[] */
enum { C_EMPTY, C_SAVE, C_MUTEX, C_MUTEX_SAVE, C_RWSEM, C_RWSEM_SAVE,
	C_KMALLOC, C_PAGE };

static const struct bench_case cases[] = {
	[C_EMPTY] = { "empty_loop", run_empty, -1, true },
	[C_SAVE] = { "nofs_save_restore", run_save_restore, -1, true },
	[C_MUTEX] = { "mutex", run_mutex, -1, false },
	[C_MUTEX_SAVE] = { "mutex_save", run_mutex_save, C_MUTEX, false },
	[C_RWSEM] = { "rwsem_read", run_rwsem_read, -1, false },
	[C_RWSEM_SAVE] = { "rwsem_read_save", run_rwsem_read_save, C_RWSEM,
			   false },
	[C_KMALLOC] = { "kmalloc", run_kmalloc, -1, false },
	[C_PAGE] = { "alloc_page", run_alloc_page, -1, false },
	{ "kmalloc_in_save", run_kmalloc_in_save, C_KMALLOC, false },
	{ "alloc_page_in_save", run_alloc_page_in_save, C_PAGE, false },
#if HAVE_COUNTED_SCOPES
	{ "nofs_enter_exit", run_enter_exit, C_SAVE, true },
	{ "nofs_guard", run_guard, C_SAVE, true },
	{ "memalloc_mutex", run_memalloc_mutex, C_MUTEX_SAVE, false },
	{ "memalloc_rwsem_read", run_memalloc_rwsem_read, C_RWSEM_SAVE,
	  false },
	{ "kmalloc_in_enter", run_kmalloc_in_enter, C_KMALLOC, false },
	{ "alloc_page_in_enter", run_alloc_page_in_enter, C_PAGE, false },
#endif
};

#define NR_CASES ARRAY_SIZE(cases)

/* One trial: total ns and cycles of each case's loop */
struct trial {
	u64 ns[NR_CASES];
	u64 cyc[NR_CASES];
};

/*
 * Instruction-count markers (insns=1).  insn_mark() runs a 7-byte NOP,
 * "nopl DISP(%rax)" (0f 1f 80 + disp32), whose displacement 0x4e46XYYY
 * ("NF") carries an operation X and a window id YYY; it does nothing on
 * any CPU.  Under QEMU TCG, bench/plugin/insn_window.c recognises it when
 * it translates the code and prints "insn-window ID COUNT MEM BLOCKS": the
 * guest instructions executed after the start marker (X=1) and before the
 * end marker (X=2) of window ID, their memory accesses and the translation
 * blocks run.  The "memory" clobber keeps the compiler from moving memory
 * accesses across a marker.
 */
#define INSN_MARK_MAGIC		0x4e460000
#define INSN_MARK_START		1
#define INSN_MARK_END		2
#define INSN_WINDOW		1	/* the id of every window here */

/* @op and @id must be compile-time constants */
static __always_inline void insn_mark(const unsigned int op,
				      const unsigned int id)
{
#ifdef CONFIG_X86
	asm volatile("nopl %c0(%%rax)"
		     : : "i" (INSN_MARK_MAGIC | op << 12 | id) : "memory");
#else
	barrier();
#endif
}

/*
 * One counted window: @n iterations of case @c.  The flag-only cases run
 * with interrupts off, so their count is exact; the others may take an
 * interrupt (or, at might_sleep(), a voluntary preemption), which only adds
 * instructions: the host takes the minimum over the reps.
 */
static noinline void count_window(const struct bench_case *c, unsigned int n)
{
	unsigned long flags = 0;

	if (c->irqs_off)
		local_irq_save(flags);
	insn_mark(INSN_MARK_START, INSN_WINDOW);
	c->run(n);
	insn_mark(INSN_MARK_END, INSN_WINDOW);
	if (c->irqs_off)
		local_irq_restore(flags);
}

/*
 * insns=1: per case, reps pairs of windows of iters/2 and of iters
 * iterations.  The host pairs the seq'th window line with the plugin's
 * seq'th count, and takes (min count with iters - min count with iters/2)
 * over the iterations between them: the instructions of one iteration,
 * loop included (see empty_loop), without the call, the markers and the
 * loop's entry and exit, which both windows run.
 */
static void count_cases(void)
{
	unsigned int c, r, seq = 0;

	pr_info("insns iters=%u reps=%u\n", iters, reps);
	for (c = 0; c < NR_CASES; c++) {
		for (r = 0; r < reps; r++) {
			count_window(&cases[c], iters / 2);
			pr_info("window seq=%u case=%s iters=%u rep=%u\n",
				seq++, cases[c].name, iters / 2, r);
			count_window(&cases[c], iters);
			pr_info("window seq=%u case=%s iters=%u rep=%u\n",
				seq++, cases[c].name, iters, r);
		}
		cond_resched();
	}
	pr_info("windows=%u\n", seq);
}

/*
 * A new random order of the cases for each trial (Fisher-Yates), so that
 * no case always follows the same one: a rotation keeps the neighbours.
 */
static void shuffle(unsigned int *order)
{
	unsigned int i, j;

	for (i = 0; i < NR_CASES; i++)
		order[i] = i;
	for (i = NR_CASES - 1; i > 0; i--) {
		j = get_random_u32_below(i + 1);	/* swap() evaluates it twice */
		swap(order[i], order[j]);
	}
}

/* Run one trial of case @c: its time in ns and in cycles */
static u64 time_case(const struct bench_case *c, u64 *cycles)
{
	unsigned long flags = 0;
	cycles_t c0, c1;
	u64 t0, t1;

	if (c->irqs_off)
		local_irq_save(flags);
	t0 = ktime_get_ns();
	c0 = get_cycles();
	c->run(iters);
	c1 = get_cycles();
	t1 = ktime_get_ns();
	if (c->irqs_off)
		local_irq_restore(flags);
	*cycles = c1 - c0;
	return t1 - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

#define LINE_LEN 320

/* Append " KEY=V" to @buf of length @len, V in thousandths as "12.345" */
static int put_milli(char *buf, int len, const char *key, u64 v)
{
	u32 rem;
	u64 whole = div_u64_rem(v, 1000, &rem);

	return len + scnprintf(buf + len, LINE_LEN - len, " %s=%llu.%03u",
			       key, whole, rem);
}

/* Quantile @q (percent) of the sorted array @v of @n values */
static u64 quantile(const u64 *v, unsigned int n, unsigned int q)
{
	return v[(u64)(n - 1) * q / 100];
}

/*
 * Per-case summary: ns and cycles per iteration in thousandths from the
 * trial totals, and the per-trial ratios against the reference case.
 */
static void report_case(unsigned int c, const struct trial *tr, u64 *tmp)
{
	static const char * const ns_keys[5] = {
		"ns_min", "ns_p25", "ns_med", "ns_p75", "ns_max" };
	static const char * const ratio_keys[5] = {
		"ratio_min", "ratio_p25", "ratio_med", "ratio_p75", "ratio_max" };
	static const unsigned int qs[5] = { 0, 25, 50, 75, 100 };
	const struct bench_case *bc = &cases[c];
	const char *ref = "-";
	char buf[LINE_LEN];
	unsigned int t, i;
	int len = 0;

	for (t = 0; t < trials; t++)
		tmp[t] = div_u64(tr[t].ns[c] * 1000, iters);
	sort(tmp, trials, sizeof(*tmp), cmp_u64, NULL);
	for (i = 0; i < 5; i++)
		len = put_milli(buf, len, ns_keys[i], quantile(tmp, trials, qs[i]));
	for (t = 0; t < trials; t++)
		tmp[t] = div_u64(tr[t].cyc[c] * 1000, iters);
	sort(tmp, trials, sizeof(*tmp), cmp_u64, NULL);
	len = put_milli(buf, len, "cyc_med", quantile(tmp, trials, 50));
	if (bc->ref >= 0) {
		ref = cases[bc->ref].name;
		for (t = 0; t < trials; t++)
			tmp[t] = div64_u64(tr[t].ns[c] * 1000,
					   max_t(u64, tr[t].ns[bc->ref], 1));
		sort(tmp, trials, sizeof(*tmp), cmp_u64, NULL);
		for (i = 0; i < 5; i++)
			len = put_milli(buf, len, ratio_keys[i],
					quantile(tmp, trials, qs[i]));
	}
	pr_info("result case=%s ref=%s%s\n", bc->name, ref, buf);
}

static int __init nofs_bench_init(void)
{
	unsigned int t, i, c, order[NR_CASES];
	struct trial *tr;
	u64 *tmp, dummy;
	int ret = -ENOMEM;

	if (iters < 100 || iters > 10000000 || trials < 3 || trials > 1001 ||
	    reps < 1 || reps > 100) {
		pr_err("iters must be 100..10000000, trials 3..1001 and reps 1..100\n");
		return -EINVAL;
	}
	tr = kcalloc(trials, sizeof(*tr), GFP_KERNEL);
	tmp = kcalloc(trials, sizeof(*tmp), GFP_KERNEL);
	if (!tr || !tmp)
		goto out;

	pr_info("start kernel=%s counted=%d iters=%u trials=%u\n",
		init_utsname()->release, HAVE_COUNTED_SCOPES, iters, trials);
	for (c = 0; c < NR_CASES; c++)
		time_case(&cases[c], &dummy);	/* warm up caches and slabs */
	if (insns) {
		count_cases();
		goto done;
	}
	for (t = 0; t < trials; t++) {
		shuffle(order);
		for (i = 0; i < NR_CASES; i++) {
			c = order[i];
			tr[t].ns[c] = time_case(&cases[c], &tr[t].cyc[c]);
		}
		for (c = 0; c < NR_CASES; c++)
			pr_info("trial case=%s t=%u ns=%llu cycles=%llu\n",
				cases[c].name, t, tr[t].ns[c], tr[t].cyc[c]);
		cond_resched();
	}
	for (c = 0; c < NR_CASES; c++)
		report_case(c, tr, tmp);
done:
	pr_info("done\n");
	ret = 0;
out:
	kfree(tmp);
	kfree(tr);
	return ret;
}

static void __exit nofs_bench_exit(void)
{
}

module_init(nofs_bench_init);
module_exit(nofs_bench_exit);
MODULE_DESCRIPTION("Microbenchmarks of NOFS allocation scopes and marked locks");
MODULE_LICENSE("GPL");
