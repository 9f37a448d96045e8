#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/report.py: write Documentation/benchmarks.md and its plots.

    bench/report.py DATA_DIR OUT_MD PLOT_DIR

Reads only DATA_DIR (Documentation/bench/data, written by bench/run.sh's
export_data; its README.md describes the files): meta, boots.csv,
micro.csv.gz, xfs.csv, facts.json, notes.md, and loop-insns.csv,
insns.csv and insns.meta when present; shrink-meta, shrink.csv,
shrink-boots.csv and shrink-insns.csv, btrfs-meta, btrfs.csv,
btrfs-boots.csv, btrfs-insns.csv and btrfs-insns.meta
(bench/workloads.sh) when present.  Computes the statistics, draws the
plots with gnuplot (pngcairo; without gnuplot the plots are left as they
are, with a message) and writes the report.  Every number comes from
DATA_DIR; hand-written text (turnaround figures from elsewhere, the
explanations of the code) is in DATA_DIR/notes.md.  Only the standard
library.

Quantiles are nearest-rank on the sorted samples: index floor((n-1)*q).
"""
import csv
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "scripts"))
# pylint: disable=wrong-import-position
import nofs_stats  # noqa: E402
from nofs_stats import interval_verdict, read_conf  # noqa: E402

KERNELS = ("base", "patched")
# counted case -> its legacy reference, what it is
PAIRS = [
    ("nofs_enter_exit", "nofs_save_restore", "enter/exit vs save/restore"),
    ("nofs_guard", "nofs_save_restore", "guard(memalloc_nofs) vs save/restore"),
    ("memalloc_mutex", "mutex_save", "marked mutex vs mutex_lock + save/restore"),
    ("memalloc_rwsem_read", "rwsem_read_save",
     "marked rwsem (read) vs down_read + save/restore"),
]


def read_thresholds():
    """bench/thresholds.conf as {KEY: float} and its commit"""
    conf, commit = read_conf(os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "thresholds.conf"))
    return {k: float(v) for k, v in conf.items()}, commit


LIMITS, LIMITS_COMMIT = read_thresholds()
# the largest median ratio each pair may have
TARGET = {k[len("TARGET_"):]: v for k, v in LIMITS.items()
          if k.startswith("TARGET_")}
# context: what the legacy scope adds to a bare lock, in both kernels
CONTEXT = [
    ("mutex_save", "mutex", "mutex + save/restore vs bare mutex"),
    ("rwsem_read_save", "rwsem_read", "rwsem + save/restore vs bare rwsem"),
    ("kmalloc_in_save", "kmalloc", "kmalloc in a save/restore scope vs none"),
    ("kmalloc_in_enter", "kmalloc", "kmalloc in a counted scope vs none"),
    ("alloc_page_in_save", "alloc_page", "alloc_page in a save/restore scope vs none"),
    ("alloc_page_in_enter", "alloc_page", "alloc_page in a counted scope vs none"),
]
# patched case, base case, what: the allocation paths across kernels
ALLOC_CROSS = [
    ("kmalloc", "kmalloc", "kmalloc/kfree, no scope"),
    ("kmalloc_in_save", "kmalloc_in_save", "kmalloc/kfree in a save/restore scope"),
    ("kmalloc_in_enter", "kmalloc_in_save",
     "kmalloc/kfree in a counted scope (base: save/restore)"),
    ("alloc_page", "alloc_page", "order-0 alloc_page/__free_page, no scope"),
    ("alloc_page_in_save", "alloc_page_in_save",
     "order-0 alloc_page/__free_page in a save/restore scope"),
    ("alloc_page_in_enter", "alloc_page_in_save",
     "order-0 alloc_page/__free_page in a counted scope (base: save/restore)"),
]
ALLOC_RANGE = (LIMITS["ALLOC_LO"], LIMITS["ALLOC_HI"])
CASE_ORDER = ["empty_loop", "nofs_save_restore", "nofs_enter_exit",
              "nofs_guard", "mutex", "mutex_save", "memalloc_mutex",
              "rwsem_read", "rwsem_read_save", "memalloc_rwsem_read",
              "kmalloc", "kmalloc_in_save", "kmalloc_in_enter",
              "alloc_page", "alloc_page_in_save", "alloc_page_in_enter"]
XFS_KEYS = ["allocstall", "pgscan", "pgsteal", "pgscan_direct",
            "slabs_scanned", "inodesteal", "memcg_max", "memcg_pgscan",
            "memcg_pgsteal", "memcg_pgscan_direct", "memcg_oom_kill"]


def q(vals, p):
    """Nearest-rank quantile p (0..1) of vals."""
    s = sorted(vals)
    return s[int((len(s) - 1) * p)]


def five(vals):
    return [q(vals, p) for p in (0, 0.25, 0.5, 0.75, 1)]


def box(vals):
    """p5, p25, median, p75, p95: what the plots draw."""
    return [q(vals, p) for p in (0.05, 0.25, 0.5, 0.75, 0.95)]


def fmt(v, nd=3):
    return f"{v:.{nd}f}"


def need(data, name):
    """The path of DATA_DIR/name; stop, naming it, when it is missing."""
    path = os.path.join(data, name)
    if not os.path.exists(path):
        sys.exit(f"report: {path} is missing (see {data}/README.md; "
                 "bench/run.sh report exports it from a measuring run)")
    return path


def read_kv(path):
    """A key=value file (meta, insns.meta) as a dict."""
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            out[k] = v
    return out


def read_csv(path):
    """The rows of a CSV file with a header (gzip'd if it ends in .gz)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        return list(csv.DictReader(f))


def read_micro(data):
    """{(kernel, case): {round: [ns/op per trial]}} and the same for cycles."""
    ns = defaultdict(lambda: defaultdict(list))
    cyc = defaultdict(lambda: defaultdict(list))
    trial = {}	# (round, kernel, case, t) -> ns/op, for paired ratios
    for x in read_csv(need(data, "micro.csv.gz")):
        r, k, case, t = int(x["round"]), x["kernel"], x["case"], int(x["trial"])
        ns[k, case][r].append(float(x["ns_per_op"]))
        cyc[k, case][r].append(float(x["cycles_per_op"]))
        trial[r, k, case, t] = float(x["ns_per_op"])
    return ns, cyc, trial


def read_xfs(data):
    """[(round, kernel, workload, {key: value})]"""
    rows = []
    for x in read_csv(need(data, "xfs.csv")):
        kv = {k: v for k, v in x.items()
              if k not in ("round", "kernel", "workload") and v != ""}
        rows.append((int(x["round"]), x["kernel"], x["workload"], kv))
    return rows


def read_notes(path):
    """notes.md: {key: text} of its "## key" sections.  Paragraphs are
    joined into one line each (they go into bullets), table rows kept."""
    secs, key = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith("## "):
                key = line[3:].strip()
                secs[key] = []
            elif key is not None:
                secs[key].append(line.rstrip("\n"))
    out = {}
    for key, lines in secs.items():
        paras = "\n".join(lines).strip("\n").split("\n\n")
        out[key] = "\n\n".join(
            p if p.startswith("|") else " ".join(p.split()) for p in paras)
    return out


def read_loop_insns(data):
    """{function: instructions} of the patched module (objdump -d)."""
    path = os.path.join(data, "loop-insns.csv")
    if not os.path.exists(path):
        return {}
    return {x["function"]: int(x["instructions"]) for x in read_csv(path)
            if x["kernel"] == "patched"}


def pooled(d):
    return [v for r in sorted(d) for v in d[r]]


def paired_ratios(trial, kernel, case, ref):
    out = []
    for (r, k, c, t), v in trial.items():
        if k == kernel and c == case and (r, k, ref, t) in trial:
            out.append(v / trial[r, k, ref, t])
    return out


def net_ratios(trial, kernel, case, ref, empty="empty_loop"):
    """Per trial: (case - empty loop) / (ref - empty loop), the loop's own
    cost taken out of both; trials where ref is not above the empty loop
    are left out."""
    out = []
    for (r, k, c, t), v in trial.items():
        if k != kernel or c != case:
            continue
        e, f = trial.get((r, k, empty, t)), trial.get((r, k, ref, t))
        if e is not None and f is not None and f > e:
            out.append((v - e) / (f - e))
    return out


def ratio_table(w, trial, ratios):
    """One row per pair and kernel: five-number summary of ratios()."""
    w("| Ratio | Kernel | min | p25 | median | p75 | max | n |")
    w("|---|---|---|---|---|---|---|---|")
    for c, ref, what in PAIRS + CONTEXT:
        for k in KERNELS:
            v = ratios(trial, k, c, ref)
            if v:
                w(f"| {what} | {k} | " + " | ".join(fmt(x) for x in five(v)) +
                  f" | {len(v)} |")
    w("")


def cross_ratios(ns, case_p, case_b):
    """Per round: median ns/op patched (case_p) / median base (case_b)."""
    p, b = ns.get(("patched", case_p)), ns.get(("base", case_b))
    if not p or not b:
        return []
    return [statistics.median(p[r]) / statistics.median(b[r])
            for r in sorted(p) if r in b]


def gnuplot(script, cwd):
    if not HAVE_GNUPLOT:
        return
    res = subprocess.run(["gnuplot"], input=script, text=True, cwd=cwd,
                         capture_output=True, check=False)
    if res.returncode != 0:
        sys.exit(f"report: gnuplot failed: {res.stderr.strip()}")


def plot_micro(ns, trial, plots):
    """Box plots of ns/op per trial (both kernels) and of the ratios."""
    cases = [c for c in CASE_ORDER if ("base", c) in ns or ("patched", c) in ns]
    lines = []
    for i, c in enumerate(cases):
        for dx, k in ((-0.18, "base"), (0.18, "patched")):
            if (k, c) in ns:
                v = box(pooled(ns[k, c]))
                lines.append(f"{k} {i + dx:.2f} {' '.join(map(str, v))}")
    with open(os.path.join(plots, "micro.dat"), "w") as f:
        for k in KERNELS:
            f.write("\n".join(x[len(k) + 1:] for x in lines
                              if x.startswith(k + " ")) + "\n\n\n")
    xt = ", ".join(f'"{c}" {i}' for i, c in enumerate(cases))
    gnuplot(f"""
set terminal pngcairo size 1000,520 font ",9"
set output "micro-ns.png"
set termoption noenhanced
set title "ns per iteration, every trial of every boot (box: p25-p75, line: median, whiskers: p5-p95)"
set logscale y
set ylabel "ns/op (log)"
set xtics ({xt}) rotate by 35 right
set xrange [-0.7:{len(cases) - 0.3}]
set boxwidth 0.3
set grid ytics
set key top left
plot "micro.dat" index 0 using 1:3:2:6:5 with candlesticks lc rgb "#1f77b4" title "base" whiskerbars, \\
     "" index 0 using 1:4:4:4:4 with candlesticks lc rgb "#1f77b4" notitle, \\
     "" index 1 using 1:3:2:6:5 with candlesticks lc rgb "#d62728" title "patched" whiskerbars, \\
     "" index 1 using 1:4:4:4:4 with candlesticks lc rgb "#d62728" notitle
""", plots)
    rows = []
    for i, (c, ref, _) in enumerate(PAIRS + CONTEXT):
        v = paired_ratios(trial, "patched", c, ref)
        if v:
            rows.append((i, f"{c} / {ref}", box(v)))
    with open(os.path.join(plots, "ratio.dat"), "w") as f:
        for i, _, v in rows:
            f.write(f"{i} {' '.join(map(str, v))}\n")
    xt = ", ".join(f'"{n}" {i}' for i, n, _ in rows)
    arrows = "\n".join(
        f'set arrow from {i - 0.4},{TARGET[c]} to {i + 0.4},{TARGET[c]} '
        'nohead dt 2 lc rgb "#2ca02c"'
        for i, (c, _, _) in enumerate(PAIRS))
    gnuplot(f"""
set terminal pngcairo size 1000,560 font ",9"
set output "micro-ratio.png"
set termoption noenhanced
set title "patched kernel: time ratio of two loops in the same trial (box: p25-p75, line: median, whiskers: p5-p95)"
set lmargin 24
set bmargin 9
set ylabel "ratio"
set xtics ({xt}) rotate by 25 right
set xrange [-0.7:{len(PAIRS + CONTEXT) - 0.3}]
set boxwidth 0.4
set grid ytics
{arrows}
set arrow from -0.7,1 to {len(PAIRS + CONTEXT) - 0.3},1 nohead lc rgb "gray"
plot "ratio.dat" using 1:3:2:6:5 with candlesticks lc rgb "#d62728" notitle whiskerbars, \\
     "" using 1:4:4:4:4 with candlesticks lc rgb "black" notitle
""", plots)


def plot_xfs(xfs, plots):
    for w, unit in (("fsmark", "files/s"), ("write", "MiB/s")):
        with open(os.path.join(plots, f"{w}.dat"), "w") as f:
            for k in KERNELS:
                for r, kk, ww, kv in sorted(xfs):
                    if kk == k and ww == w:
                        f.write(f"{r} {kv['rate']}\n")
                f.write("\n\n")
    gnuplot("""
set terminal pngcairo size 1000,400 font ",9"
set output "xfs-rounds.png"
set termoption noenhanced
set multiplot layout 1,2
set grid
set xlabel "round (base boots first in odd rounds, patched in even)"
set key top left
set title "fs_mark in a memory cgroup"
set ylabel "files/s"
plot "fsmark.dat" index 0 using 1:2 with linespoints lc rgb "#1f77b4" pt 7 title "base", \\
     "" index 1 using 1:2 with linespoints lc rgb "#d62728" pt 5 title "patched"
set title "buffered writes in a memory cgroup"
set ylabel "MiB/s"
plot "write.dat" index 0 using 1:2 with linespoints lc rgb "#1f77b4" pt 7 title "base", \\
     "" index 1 using 1:2 with linespoints lc rgb "#d62728" pt 5 title "patched"
unset multiplot
""", plots)


def read_insn_counts(data):
    """insns.meta as a dict, and {(kernel, case): [row per boot]} of
    insns.csv (bench/run.sh insns), or ({}, {})."""
    rows = defaultdict(list)
    if not os.path.exists(os.path.join(data, "insns.csv")):
        return {}, rows
    meta = read_kv(need(data, "insns.meta"))
    for r in read_csv(need(data, "insns.csv")):
        rows[r["kernel"], r["case"]].append(r)
    return meta, rows


def insn_differs(rows):
    """Cases whose counts differ between the boots of a kernel."""
    keys = ("insns_a", "insns_b", "mem_per_iter", "blocks_per_iter")
    return sorted(f"{k} {c}" for (k, c), rs in rows.items()
                  if len({tuple(r[x] for x in keys) for r in rs}) > 1)


def per_iter(rows, k, c, key="insns_per_iter"):
    rs = rows.get((k, c))
    return float(rs[0][key]) if rs else None


def num(v):
    """A per-iteration count: an integer when it is one."""
    return "-" if v is None else (f"{v:.0f}" if v == int(v) else f"{v:.3f}")


def insns_section(w, imeta, irows, ns, trial, facts):
    """The table of executed instructions beside the time ratios."""
    w("## Executed instructions per iteration (TCG plugin)\n")
    w(f"Measured {imeta['date']} by `bench/run.sh insns` (`make bench-insns`, "
      f"also part of `make bench`): each kernel booted {imeta['boots']} "
      "time(s) under TCG with one vCPU (`-smp 1 -accel tcg,thread=single`) "
      "and the QEMU plugin `bench/plugin/insn_window.c` (plugin API "
      f"{imeta['plugin_api']}, {imeta['qemu']}). `nofs_bench.ko insns=1` "
      "runs each case between two marker instructions (`nopl "
      "0x4e46X001(%rax)`, a NOP that the plugin recognises when it "
      "translates it), which the timed runs do not execute; the plugin "
      "counts the guest instructions, memory accesses and translation "
      "blocks executed between them. Each case runs in "
      f"{imeta['reps']} windows of {int(imeta['iters']) // 2} and "
      f"{imeta['reps']} of {imeta['iters']} iterations; the count of a "
      "window size is its minimum over the windows (the cases that lock "
      "or allocate run with interrupts on, and an interrupt only adds), and "
      "**per iteration** is the difference of the two over the "
      f"{int(imeta['iters']) - int(imeta['iters']) // 2} iterations "
      "between them: the loop's own instructions are included "
      "(`empty_loop`), the call, the markers and the loop's entry and exit "
      "are not (the last column: a window's instructions outside its "
      "iterations). A rep-prefixed string instruction would count once per "
      "repetition.\n")
    differ = insn_differs(irows)
    boots = int(imeta["boots"])
    if differ:
        w(f"**The counts differ between boots of the same kernel** for: "
          f"{', '.join(differ)} (see `insns.csv`).\n")
    elif boots > 1:
        w(f"Every count (instructions, memory accesses, blocks, both window "
          f"sizes, every case) was **identical in the {boots} boots** of "
          "each kernel.\n")
    # the bzImages at export time (facts) against those that were counted
    built = facts.get("bzimage", {})
    stale = [k for k in KERNELS
             if imeta.get(f"bzimage_{k}") != built.get(k, "?")]
    if stale:
        w(f"Note: the {' and '.join(stale)} kernel has been rebuilt since "
          "these counts were taken; `make bench-insns` refreshes them.\n")
    w(f"Kernels: base `{imeta.get('uname_base', '?')}`, patched "
      f"`{imeta.get('uname_patched', '?')}`. Time ratio: the median ns/op "
      "of the patched boot over the base boot of the same round, median "
      "over rounds (the timed runs above).\n")
    w("| Case | base insns/iter | patched insns/iter | patched/base | "
      "time patched/base | memory accesses/iter (base, patched) | "
      "blocks/iter (base, patched) | fixed insns (patched) |")
    w("|---|---|---|---|---|---|---|---|")
    for c in CASE_ORDER:
        b, p = per_iter(irows, "base", c), per_iter(irows, "patched", c)
        if b is None and p is None:
            continue
        ratio = fmt(p / b) if b and p is not None else "-"
        t = cross_ratios(ns, c, c)
        tr = fmt(statistics.median(t)) if t else "-"
        mem = ", ".join(num(per_iter(irows, k, c, "mem_per_iter"))
                        for k in KERNELS)
        blk = ", ".join(num(per_iter(irows, k, c, "blocks_per_iter"))
                        for k in KERNELS)
        fixed = num(per_iter(irows, "patched", c, "insns_fixed"))
        w(f"| `{c}` | {num(b)} | {num(p)} | {ratio} | {tr} | {mem} | "
          f"{blk} | {fixed} |")
    w("")
    w("Counted forms against the legacy ones, both in the patched kernel "
      "(the time ratio is the median of the per-trial ratios above):\n")
    w("| Comparison | insns/iter | insns ratio | memory accesses/iter | "
      "blocks/iter | time ratio |")
    w("|---|---|---|---|---|---|")
    for c, ref, what in PAIRS + CONTEXT:
        a, r = per_iter(irows, "patched", c), per_iter(irows, "patched", ref)
        if a is None or r is None:
            continue
        t = paired_ratios(trial, "patched", c, ref)
        w(f"| {what} | {num(a)} vs {num(r)} | {fmt(a / r) if r else '-'} | "
          f"{num(per_iter(irows, 'patched', c, 'mem_per_iter'))} vs "
          f"{num(per_iter(irows, 'patched', ref, 'mem_per_iter'))} | "
          f"{num(per_iter(irows, 'patched', c, 'blocks_per_iter'))} vs "
          f"{num(per_iter(irows, 'patched', ref, 'blocks_per_iter'))} | "
          f"{fmt(q(t, 0.5)) if t else '-'} |")
    w("")
    w("Instruction counts are what a CPU with the features of QEMU's "
      "default CPU model executes, whatever the accelerator (the kernel's "
      "alternatives pick code by CPU feature); the times are TCG's, which charges every guest memory "
      "access a software-TLB lookup and starts a new translation block "
      "after every branch, so a loop with as many instructions but more "
      "memory accesses and blocks runs slower under TCG than it would on "
      "hardware.\n")


def page_insns(irows):
    """The executed instructions of the page cases, as a sentence."""
    i = {(k, c): per_iter(irows, k, c) for k in KERNELS
         for c in ("alloc_page", "alloc_page_in_save", "alloc_page_in_enter")}
    if None in (i["base", "alloc_page"], i["patched", "alloc_page"]):
        return ""
    txt = (f" Per iteration (TCG plugin) they execute {num(i['base', 'alloc_page'])}"
           f" (base) and {num(i['patched', 'alloc_page'])} (patched) "
           "instructions with no scope")
    if None not in (i["base", "alloc_page_in_save"], i["patched", "alloc_page_in_save"]):
        txt += (f", {num(i['base', 'alloc_page_in_save'])} and "
                f"{num(i['patched', 'alloc_page_in_save'])} in a save/restore scope")
    if i["patched", "alloc_page_in_enter"] is not None:
        txt += f", {num(i['patched', 'alloc_page_in_enter'])} in a counted scope"
    txt += "."
    if i["base", "alloc_page"] == i["patched", "alloc_page"]:
        txt += (" With no scope both kernels execute the same instructions, so "
                "the time ratio there is the noise floor of comparisons across "
                "kernels, as for the untouched loops below, not the series.")
    return txt


def pct(r):
    d = (r - 1) * 100
    return f"{abs(d):.1f}% {'slower' if d > 0 else 'faster'}"


def notes(w, trial, ns, xfs, insns, firsts, irows, text, facts, acc):
    """The interpretation: numbers from the data, the explanations of the
    code and of the setup from notes.md (text)."""
    fn = {"nofs_save_restore": "run_save_restore",
          "nofs_enter_exit": "run_enter_exit", "nofs_guard": "run_guard",
          "mutex_save": "run_mutex_save", "memalloc_mutex": "run_memalloc_mutex",
          "rwsem_read_save": "run_rwsem_read_save",
          "memalloc_rwsem_read": "run_memalloc_rwsem_read"}
    for c, ref, what in PAIRS:
        v = paired_ratios(trial, "patched", c, ref)
        if not v:
            continue
        m = q(v, 0.5)
        spread = q(v, 0.75) - q(v, 0.25)
        txt = (f"- **{what}**: median ratio {fmt(m)}, {pct(m)} than the "
               f"legacy form, with half of the trials within a band "
               f"{fmt(spread)} wide.")
        if fn.get(c) in insns and fn.get(ref) in insns:
            txt += (f" The loop functions compile to {insns[fn[c]]} and "
                    f"{insns[fn[ref]]} instructions (`objdump -d` of the "
                    "patched module).")
        a, r = per_iter(irows, "patched", c), per_iter(irows, "patched", ref)
        if a is not None and r is not None:
            txt += (f" Per iteration they execute {num(a)} and {num(r)} "
                    f"instructions ({fmt(a / r)}x), with "
                    f"{num(per_iter(irows, 'patched', c, 'mem_per_iter'))} "
                    "and "
                    f"{num(per_iter(irows, 'patched', ref, 'mem_per_iter'))} "
                    "memory accesses and "
                    f"{num(per_iter(irows, 'patched', c, 'blocks_per_iter'))} "
                    "and "
                    f"{num(per_iter(irows, 'patched', ref, 'blocks_per_iter'))} "
                    "TCG blocks (QEMU plugin).")
        if m > TARGET[c]:
            d = (statistics.median(pooled(ns["patched", c])) -
                 statistics.median(pooled(ns["patched", ref])))
            txt += (f" This misses the {TARGET[c]} target, by "
                    f"{d:.2f} ns per iteration under {acc.upper()}.")
            if text.get(f"why {c}"):
                txt += " " + text[f"why {c}"]
        elif m > 1.0:
            txt += " Within the target."
        w(txt)
    v = cross_ratios(ns, "kmalloc", "kmalloc")
    if v:
        m = statistics.median(v)
        w(f"- **Allocation fast path**: kmalloc/kfree with no scope runs at "
          f"{fmt(m)} of the base kernel's time (median over rounds; range "
          f"{fmt(min(v))}-{fmt(max(v))})."
          + (" " + text["alloc fast path"] if "alloc fast path" in text
             else ""))
    v = cross_ratios(ns, "alloc_page", "alloc_page")
    if v:
        m = statistics.median(v)
        cells = []
        for c, ref in (("alloc_page_in_save", "alloc_page_in_save"),
                       ("alloc_page_in_enter", "alloc_page_in_save")):
            x = cross_ratios(ns, c, ref)
            if x:
                cells.append(f"`{c}` {fmt(statistics.median(x))} (range "
                             f"{fmt(min(x))}-{fmt(max(x))})")
        w(f"- **Page allocator, order 0**: alloc_page/__free_page with no "
          f"scope runs at {fmt(m)} of the base kernel's time (median over "
          f"rounds; range {fmt(min(v))}-{fmt(max(v))})"
          + ("; in a scope, patched over the base kernel's save/restore: "
             + ", ".join(cells) if cells else "") + "."
          + (" " + text["alloc page path"] if "alloc page path" in text
             else "") + page_insns(irows))
    same = [c for c in ("empty_loop", "nofs_save_restore", "mutex",
                        "rwsem_read") if cross_ratios(ns, c, c)]
    if same:
        cells = ", ".join(
            f"`{c}` {fmt(statistics.median(cross_ratios(ns, c, c)))}"
            for c in same)
        w(f"- **Across kernels, untouched code**: these loops are the same "
          f"machine code in both modules, and their patched/base medians "
          f"are {cells}."
          + (" " + text["untouched code"] if "untouched code" in text
             else ""))
    cores = facts["host"]["cores"]
    vcpus = {g.get("cpus") for g in facts.get("guest", {}).values()}
    vcpus = vcpus.pop() if len(vcpus) == 1 else "the"
    for wl, name in (("fsmark", "fs_mark"), ("write", "buffered writes")):
        per = defaultdict(dict)
        for r, k, ww, kv in xfs:
            if ww == wl:
                per[r][k] = kv
        rat = [float(per[r]["patched"]["rate"]) / float(per[r]["base"]["rate"])
               for r in per if len(per[r]) == 2]
        if rat:
            m = statistics.median(rat)
            spread = []
            for k in KERNELS:
                v = [float(per[r][k]["rate"]) for r in per if k in per[r]]
                spread.append(f"{k} {(max(v) - min(v)) / statistics.median(v) * 100:.0f}%")
            stall = [(int(per[r]["patched"]["allocstall"]) +
                      int(per[r]["patched"]["memcg_max"])) /
                     max(1, int(per[r]["base"]["allocstall"]) +
                         int(per[r]["base"]["memcg_max"]))
                     for r in per if len(per[r]) == 2]
            w(f"- **XFS {name}**: patched/base {fmt(m)} (median of "
              f"{len(rat)} paired rounds, range {fmt(min(rat))}-"
              f"{fmt(max(rat))}); the rounds of one kernel spread over "
              f"{' and '.join(spread)} of their median (max - min). "
              + ("At or above 1.00." if m >= 1 else
                 "Below 1.00: read it against that spread before calling it "
                 "a regression. Reclaim under a cgroup limit, writeback "
                 f"timing and the host's scheduling of the {vcpus} "
                 f"{acc.upper()} vCPU threads on {cores} shared cores vary "
                 "from boot to boot."))
            for first in KERNELS:
                v = [float(per[r]["patched"]["rate"]) /
                     float(per[r]["base"]["rate"]) for r in per
                     if len(per[r]) == 2 and firsts.get(r) == first]
                if v:
                    w(f"  In the rounds where the {first} kernel booted "
                      f"first: median {fmt(statistics.median(v))} over "
                      f"{len(v)} rounds (range {fmt(min(v))}-{fmt(max(v))}).")
            w(f"- **XFS {name} stalls**: direct-reclaim entries patched/base "
              f"per round: median {fmt(statistics.median(stall))}, range "
              f"{fmt(min(stall))}-{fmt(max(stall))}.")
    if text.get(f"accel {acc}"):
        w("- " + text[f"accel {acc}"])


# bench/workloads.sh shrink: the workloads, what each makes reclaim do
SHRINK_WORKLOADS = [
    ("xfs-memcg", "XFS, empty files in a memory cgroup"),
    ("xfs-global", "XFS, empty files under global memory pressure"),
    ("ext4-memcg", "ext4, empty files in the memory cgroup"),
    ("ext4-global", "ext4, empty files under global memory pressure"),
]
BOOTSTRAP = int(LIMITS["BOOTSTRAP"])	# resamples of the rounds
# busy host: a 1-min load average above this per core before a boot, that
# is more runnable tasks than CPUs (one TCG guest with its I/O threads
# loads an idle host by 1.1-2.0 on its own)
BUSY_LOAD_PER_CORE = LIMITS["BUSY_LOAD_PER_CORE"]


def bootstrap(pairs, stat):
    """the CONFIDENCE interval of stat over the rounds (nofs_stats)"""
    return nofs_stats.bootstrap(pairs, stat, LIMITS["CONFIDENCE"], BOOTSTRAP)


def rounds_median(groups):
    """the median of the values of resampled rounds, pooled"""
    return statistics.median(v for g in groups for v in g)


def median_ratio(pairs):
    return statistics.median(p / b for b, p in pairs)


def sum_ratio(pairs):
    b = sum(x for x, _ in pairs)
    return sum(y for _, y in pairs) / b if b else float("inf")


def rate_verdict(lo, hi):
    """a workload's patched/base files/s interval against RATE_FLOOR"""
    return ("**missed**" if hi < 1.0 else
            "met" if lo > LIMITS["RATE_FLOOR"] else "inconclusive")


def busy_host(boots, cores):
    """the host load averages before the boots, and whether any was above
    BUSY_LOAD_PER_CORE per core (no load recorded counts as busy)"""
    loads = [float(b["load"]) for b in boots if b["load"]]
    limit = BUSY_LOAD_PER_CORE * cores
    return loads, limit, (max(loads) > limit if loads else True)


def read_suite(data, suite):
    """the data of bench/workloads.sh SUITE: its meta, its rows as
    (workload, round) -> kernel -> row, its boots and its instruction
    rows ([] if not counted)"""
    meta = read_kv(need(data, f"{suite}-meta"))
    boots = read_csv(need(data, f"{suite}-boots.csv"))
    ipath = os.path.join(data, f"{suite}-insns.csv")
    irows = read_csv(ipath) if os.path.exists(ipath) else []
    per = defaultdict(dict)
    for x in read_csv(need(data, f"{suite}.csv")):
        per[x["workload"], int(x["round"])][x["kernel"]] = x
    return meta, per, boots, irows


def workload_pairs(per, wl, keys):
    """for workload wl of read_suite()'s rows: the (base, patched) files/s
    of the rounds with both kernels, the slabs_scanned of every boot, and
    per counter in keys its (base, patched) values of those rounds"""
    pairs, slabs, counters = [], [], defaultdict(list)
    for (ww, _), kk in sorted(per.items()):
        if ww != wl:
            continue
        slabs += [int(x["slabs_scanned"]) for x in kk.values()]
        if len(kk) == 2:
            pairs.append((float(kk["base"]["rate"]),
                          float(kk["patched"]["rate"])))
            for key in keys:
                counters[key].append((int(kk["base"][key]),
                                      int(kk["patched"][key])))
    return pairs, slabs, counters


def shrink_section(w, data, cores):
    """## Workloads that reach the shrinkers, from data/shrink-*"""
    if not os.path.exists(os.path.join(data, "shrink.csv")):
        return
    meta, per, boots, irows = read_suite(data, "shrink")
    loads, limit, busy = busy_host(boots, cores)
    failed = [b for b in boots if b["result"] != "PASS"]
    w("## Workloads that reach the shrinkers\n")
    w(f"Measured {meta['date']} by `make bench-shrink` "
      "(`bench/workloads.sh shrink`): "
      f"{meta['SHRINK_ROUNDS']} rounds of the unpatched and the patched "
      "kernel (bench.config + shrink.config: ext4 and quota added), "
      f"{len(boots)} boots, {len(failed)} failed, {meta['SHRINK_MEM']} MiB "
      "guests. Each boot runs `bench/guest/bench-shrink.sh` on a fresh "
      f"XFS (user and group quota) and a fresh ext4 (quota feature): "
      f"`-memcg`, {meta['SHRINK_FILES']} empty files created by fs_mark in "
      f"a memory cgroup with memory.high {meta['SHRINK_MAX']}, where only "
      "inodes and "
      "dentries can be freed (the memcg-aware super block shrinker); "
      f"`-global`, 2 x {meta['GLOBAL_FILES']} empty files created in the "
      "root cgroup, so that global "
      "reclaim runs, and with it the shrinkers that are not memcg-aware "
      "(XFS buffers and dquots, jbd2's checkpointed buffers). Every boot "
      "checks that `slabs_scanned` moved in each workload.\n")
    w("Verdicts: throughput is the per-round patched/base ratio of files/s, "
      f"its median over rounds with a bootstrap 95% interval ({BOOTSTRAP} "
      "resamples of the rounds); **missed** if the whole interval is below "
      "1.00, met if it is above 0.97, else inconclusive. Reclaim stalls "
      "are counted apart: global direct reclaim (`allocstall`) and the "
      "cgroup's reclaim at its limit (`memory.events high`), each as the "
      "patched sum over the base "
      "sum with its interval; **missed** if the whole interval is above "
      "1.00 (more stalls, beyond the noise). No verdict at all if the "
      f"host was busy: the load average before some boot was above "
      f"{limit:.1f} (more runnable tasks than cores; one guest at a time "
      "loads the host by 1.1-2.0 with its I/O threads).\n")
    if busy:
        w(f"**Not judged: the host was busy** (load average before the "
          f"boots {min(loads):.2f}-{max(loads):.2f}). The numbers are "
          "shown, the verdicts withheld.\n")
    else:
        w(f"Host load average before the boots: {min(loads):.2f}-"
          f"{max(loads):.2f}, not above {limit:.1f}.\n")

    def judge(text):
        return "not judged (busy host)" if busy else text

    w("| Workload | base files/s | patched files/s | patched/base | "
      "slabs_scanned, min | verdict |")
    w("|---|---|---|---|---|---|")
    stall_rows = []
    for wl, what in SHRINK_WORKLOADS:
        pairs, slabs, stall = workload_pairs(
            per, wl, ("allocstall", "memcg_high", "dqreclaims"))
        if not pairs:
            # a workload no round measured on both kernels is no pass
            w(f"| `{wl}`: {what} | - | - | - | - | UNJUDGED: no round "
              "measured both kernels |")
            continue
        m = median_ratio(pairs)
        lo, hi = bootstrap(pairs, median_ratio)
        v = rate_verdict(lo, hi)
        reached = min(slabs) > 0
        if not reached:
            v = "**missed**: a boot never reached the shrinkers"
        w(f"| `{wl}`: {what} | "
          f"{statistics.median(b for b, _ in pairs):.0f} | "
          f"{statistics.median(p for _, p in pairs):.0f} | {fmt(m)} "
          f"[{fmt(lo)}, {fmt(hi)}] | {min(slabs)} | {judge(v)} |")
        stall_rows.append((wl, stall))
    w("")
    w("| Workload | counter | base sum | patched sum | patched/base "
      "[95%] | verdict |")
    w("|---|---|---|---|---|---|")
    for wl, stall in stall_rows:
        keys = ["memcg_high", "allocstall"] if wl.endswith("-memcg") else \
            ["allocstall"]
        if wl.startswith("xfs"):
            keys.append("dqreclaims")
        for key in keys:
            pairs = stall[key]
            b, p = sum(x for x, _ in pairs), sum(y for _, y in pairs)
            if key == "dqreclaims":
                v, rel = ("reported" if b or p else "none reclaimed"), "-"
            elif b == 0:
                v = "met" if p == 0 else "**missed**"
                rel = "-"
            else:
                lo, hi = bootstrap(pairs, sum_ratio)
                v = interval_verdict(lo, hi, 0.0, 1.0)
                rel = f"{fmt(p / b)} [{fmt(lo)}, {fmt(hi)}]"
            name = {"memcg_high": "cgroup `memory.events high`",
                    "allocstall": "global `allocstall`",
                    "dqreclaims": "dquots reclaimed (xqmstat)"}[key]
            w(f"| `{wl}` | {name} | {b} | {p} | {rel} | "
              f"{v if key == 'dqreclaims' else judge(v)} |")
    w("")
    if irows:
        w("Executed guest instructions per file (TCG plugin, one boot of "
          "each kernel with one vCPU; the window is the whole workload: "
          "fs_mark, the kernel's threads and interrupts "
          "meanwhile):\n")
        w("| Workload | base insns/file | patched insns/file | patched/base |")
        w("|---|---|---|---|")
        ins = {(x["kernel"], x["workload"]): int(x["insns"]) / int(x["files"])
               for x in irows}
        for wl, _ in SHRINK_WORKLOADS:
            b, p = ins.get(("base", wl)), ins.get(("patched", wl))
            if b and p:
                w(f"| `{wl}` | {b:.0f} | {p:.0f} | {fmt(p / b)} |")
            else:
                w(f"| `{wl}` | {b or 0:.0f} | {p or 0:.0f} | UNJUDGED: "
                  "no count of one kernel |")
        w("")


# bench/workloads.sh btrfs: the workloads
BTRFS_WORKLOADS = [
    ("btrfs-create", "empty files created, then sync"),
    ("btrfs-walk", "`ls -lR` of them, cold caches"),
    ("btrfs-create-memcg", "empty files created in a memory cgroup"),
    ("btrfs-walk-memcg", "`ls -lR` of them in the cgroup, cold caches"),
]


def insns_verdict(pairs):
    """per-file instruction ratios over every (base, patched) pairing of
    boots against BTRFS_INSNS_TARGET: met, missed or inconclusive"""
    target = LIMITS["BTRFS_INSNS_TARGET"]
    lo, hi = min(pairs), max(pairs)
    if hi <= target:
        return "met"
    return "**missed**" if lo > target else "inconclusive"


def med_ratio(per, num, den, wl):
    """the ratio of two kernels' median insns/file for a workload, or -"""
    a, b = per.get((num, wl)), per.get((den, wl))
    return fmt(statistics.median(a) / statistics.median(b)) if a and b else "-"


def spread(v):
    """median (min-max) of a kernel's insns/file over its boots, or -"""
    if not v:
        return "-"
    return f"{statistics.median(v):.0f} ({min(v):.0f}-{max(v):.0f})"


def btrfs_insns_table(w, irows, boots_wanted, prelocks):
    """the instruction table of the btrfs section: per workload and kernel
    the median over boots of insns/file, the patched/base range over all
    pairings of boots, the patched kernel over the one without the tree
    lock patches, and the debug kernel over the patched one"""
    per = defaultdict(list)		# (kernel, workload) -> [insns/file]
    mem = defaultdict(list)
    for x in irows:
        per[x["kernel"], x["workload"]].append(int(x["insns"]) / int(x["files"]))
        mem[x["kernel"], x["workload"]].append(int(x["mem"]) / int(x["files"]))
    target = LIMITS["BTRFS_INSNS_TARGET"]
    w(f"Executed guest instructions per file (TCG plugin, {boots_wanted} "
      "boots of each kernel with one vCPU, kernels in turn; the window is "
      "the whole workload: the user-space tools, the kernel's threads and "
      "interrupts meanwhile). Verdict: the patched/base ratio of every "
      "pairing of a base boot with a patched boot (shown as min-max) must "
      f"be at or below {target}: met if all are, **missed** if none is, "
      "inconclusive otherwise; a kernel with fewer boots than asked is "
      "UNJUDGED. Two more kernels are compared, not judged: prelocks, "
      f"the series up to `{prelocks}`, so that patched/prelocks is the "
      "cost of marking the extent buffer locks (and the four patches "
      "after it) on top of the rest of the series; and debug, the "
      "patched source with `CONFIG_DEBUG_MEMALLOC_SCOPE`, nothing else "
      "changed.\n")
    w("| Workload | base insns/file | patched insns/file | patched/base "
      "[min, max] | verdict | mem accesses/file patched/base | "
      "patched/prelocks | debug/patched |")
    w("|---|---|---|---|---|---|---|---|")
    for wl, _ in BTRFS_WORKLOADS:
        b, p = per.get(("base", wl), []), per.get(("patched", wl), [])
        if len(b) < boots_wanted or len(p) < boots_wanted:
            v, rng = (f"UNJUDGED: {len(b)} base and {len(p)} patched boots "
                      f"of {boots_wanted}"), "-"
        else:
            pairs = [y / x for x in b for y in p]
            v = insns_verdict(pairs)
            rng = (f"{med_ratio(per, 'patched', 'base', wl)} "
                   f"[{fmt(min(pairs))}, {fmt(max(pairs))}]")
        w(f"| `{wl}` | {spread(b)} | {spread(p)} | {rng} | {v} | "
          f"{med_ratio(mem, 'patched', 'base', wl)} | "
          f"{med_ratio(per, 'patched', 'prelocks', wl)} | "
          f"{med_ratio(per, 'debug', 'patched', wl)} |")
    w("")


def btrfs_section(w, data, cores):
    """## btrfs metadata workloads, from data/btrfs-*"""
    if not os.path.exists(os.path.join(data, "btrfs.csv")):
        return
    meta, per, boots, irows = read_suite(data, "btrfs")
    imeta = (read_kv(os.path.join(data, "btrfs-insns.meta"))
             if irows else {})
    loads, limit, busy = busy_host(boots, cores)
    failed = [b for b in boots if b["result"] != "PASS"]
    w("## btrfs metadata workloads: the cost of marked tree locks\n")
    w(f"Measured {meta['date']} by `make bench-btrfs` (`bench/workloads.sh "
      f"btrfs`), series `{meta.get('series', 'not recorded')}`: "
      f"{meta['BTRFS_ROUNDS']} rounds of the unpatched and the patched "
      "kernel (bench.config + btrfs.config), "
      f"{len(boots)} boots, {len(failed)} failed, {meta['BTRFS_MEM']} MiB "
      "guests. Each boot runs `bench/guest/bench-btrfs.sh` on a fresh "
      f"btrfs: {meta['BTRFS_FILES']} empty files created by fs_mark in 64 "
      "directories and synced, then listed by `ls -lR` with cold caches "
      "(a lookup and an inode read from the trees per file); then the "
      f"same in a memory cgroup with memory.high {meta['BTRFS_HIGH']}, "
      "where reclaim frees inodes, dentries and extent buffers. Every "
      "window starts after a sync and a drop of the caches. Patch 21 of "
      "btrfs-conversion makes every extent buffer lock a NOFS-marked "
      "rw_semaphore, so each tree lock enters and leaves a counted scope: "
      "these workloads take tree locks at every step.\n")
    w("Throughput verdicts as for the shrinker workloads below: the median "
      "over rounds of the per-round patched/base ratio of files/s, with a "
      f"bootstrap {LIMITS['CONFIDENCE']:.0%} interval; **missed** if the "
      f"whole interval is below 1.00, met if it is above "
      f"{LIMITS['RATE_FLOOR']}, else inconclusive; none on a busy host.\n")
    if busy:
        w("**Not judged: the host was busy** (load average before the "
          f"boots {min(loads, default=0):.2f}-{max(loads, default=0):.2f}, "
          f"limit {limit:.1f}).\n")
    else:
        w(f"Host load average before the boots: {min(loads):.2f}-"
          f"{max(loads):.2f}, not above {limit:.1f}.\n")
    w("| Workload | base files/s | patched files/s | patched/base [95%] | "
      "slabs_scanned, min | cgroup `memory.events high`, base/patched sum "
      "| verdict |")
    w("|---|---|---|---|---|---|---|")
    for wl, what in BTRFS_WORKLOADS:
        pairs, slabs, counters = workload_pairs(per, wl, ("memcg_high",))
        high = [sum(v[i] for v in counters["memcg_high"]) for i in (0, 1)]
        if not pairs:
            w(f"| `{wl}`: {what} | - | - | - | - | - | UNJUDGED: no paired round |")
            continue
        m = median_ratio(pairs)
        lo, hi = bootstrap(pairs, median_ratio)
        v = "not judged (busy host)" if busy else rate_verdict(lo, hi)
        w(f"| `{wl}`: {what} | "
          f"{statistics.median(b for b, _ in pairs):.0f} | "
          f"{statistics.median(p for _, p in pairs):.0f} | {fmt(m)} "
          f"[{fmt(lo)}, {fmt(hi)}] | {min(slabs)} | {high[0]} / {high[1]} "
          f"| {v} |")
    w("")
    if irows:
        btrfs_insns_table(w, irows, int(imeta.get("BTRFS_INSNS_BOOTS",
                                                  LIMITS["BTRFS_INSNS_BOOTS"])),
                          imeta.get("prelocks", "?").split(" ", 1)[-1])
        w(f"Counted {imeta.get('date', '?')}, series "
          f"`{imeta.get('series', 'not recorded')}`, in "
          f"{int(imeta.get('insns_secs', 0)) // 60} min of boots.\n")
    else:
        w("No instruction counts (`bench/workloads.sh btrfs insns`): the "
          "instruction verdict is UNJUDGED.\n")


HAVE_GNUPLOT = shutil.which("gnuplot") is not None


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.split("\n\n")[1])
    data, out_md, plots = sys.argv[1:]
    if not os.path.isdir(data):
        sys.exit(f"report: no data directory {data}")
    meta = read_kv(need(data, "meta"))
    ns, cyc, trial = read_micro(data)
    xfs = read_xfs(data)
    with open(need(data, "facts.json")) as f:
        facts = json.load(f)
    text = read_notes(need(data, "notes.md"))
    insns = read_loop_insns(data)
    imeta, irows = read_insn_counts(data)
    host, guest = facts["host"], facts.get("guest", {})
    cold = facts.get("builds", {})
    os.makedirs(plots, exist_ok=True)
    if HAVE_GNUPLOT:
        plot_micro(ns, trial, plots)
        plot_xfs(xfs, plots)
        for f in ("micro.dat", "ratio.dat", "fsmark.dat", "write.dat"):
            os.remove(os.path.join(plots, f))
    else:
        print(f"report: gnuplot not found: the plots in {plots} were not "
              "redrawn (install gnuplot to redraw them)", file=sys.stderr)

    rounds = int(meta["ROUNDS"])
    boots = read_csv(need(data, "boots.csv"))
    boot_secs = [int(b["secs"]) for b in boots if b["result"] == "PASS"]
    loads = [float(b["load"]) for b in boots if b["load"]]
    firsts = {int(b["round"]): b["first"] for b in boots if b["first"]}
    failed = [b for b in boots if b["result"] != "PASS"]
    cores = host["cores"]
    plotrel = os.path.relpath(plots, os.path.dirname(out_md))
    datarel = os.path.relpath(data, os.path.dirname(out_md))

    o = []
    w = o.append
    w("# Benchmarks: counted scopes and marked locks against the legacy forms\n")
    w(f"<!-- Written by bench/report.py from {datarel}/ (`make bench` "
      "measures and exports, `make bench-report` rewrites); do not edit "
      "by hand. -->\n")
    w(f"Measured {meta['date']} by `make bench` (`bench/run.sh`): "
      f"{rounds} round(s), each booting the unpatched and the patched "
      "kernel, the base first in odd rounds and the patched first in even "
      f"ones ({len(boots)} boots, {len(failed)} failed), "
      f"{int(meta.get('secs', 0)) // 60} min of boots. These are "
      "measurements, not assertions: nothing fails on a number. Every "
      f"number, table and plot here comes from the raw data in "
      f"[{datarel}/]({datarel}/).\n")
    acc = meta["accel"]
    w("## Setup\n")
    w("| | |\n|---|---|")
    w(f"| host | {host['cpu']}, {cores} cores, {host['mem_gib']} GiB, "
      f"{host['os']}, kernel {host['kernel']} |")
    w(f"| tools | {host['gcc']}; {host['qemu']} |")
    for k in KERNELS:
        g = guest.get(k)
        if g:
            w(f"| guest, {k} | `uname -r` {g['uname']}, {g.get('cpus', '?')} "
              f"CPUs, MemTotal {g['mem_mib']} MiB (`-m {meta['BENCH_MEM']}`) |")
    why = re.sub(r" *\(log: [^)]*\)", "", meta["accel_why"])
    w(f"| accelerator | **{acc.upper()}** ({why}) |")
    if loads:
        w(f"| host load | 1-min load average at the start of each boot: "
          f"median {statistics.median(loads):.1f}, range {min(loads):.1f}-"
          f"{max(loads):.1f} (other guests and builds share the {cores} "
          "cores) |")
    config = ", ".join(f"{k}={v}" for k, v in facts.get("config", {}).items())
    w(f"| config (both) | `bench/bench.config` over kunit.py's x86_64 base: "
      f"{config} |")
    w(f"| microbenchmarks | `nofs_bench.ko iters={meta['ITERS']} "
      f"trials={meta['TRIALS']}`, loaded once per boot |")
    wl = facts.get("workload", {})
    w(f"| fs_mark | {meta['FSMARK_LOOPS']} loops x "
      f"{wl.get('fsmark_threads', '?')} threads x {meta['FSMARK_FILES']} "
      f"files of {meta['FSMARK_SIZE']} B, {wl.get('fsmark_dirs', '?')} "
      "dirs, no fsync, in "
      f"a cgroup with memory.max {meta['META_MAX']}; fresh XFS |")
    w(f"| buffered write | {meta['WRITE_FILES']} files x {meta['WRITE_MB']} "
      f"MiB, `xfs_io pwrite -b {wl.get('write_block', '?')}` + fsync "
      "each, in a cgroup with "
      f"memory.max {meta['WRITE_MAX']}; fresh XFS |")
    w("")
    if acc == "tcg":
        w("Everything ran under **TCG**, QEMU's instruction translator, not "
          "KVM: every guest instruction is emulated, so absolute times are "
          "several times those of real hardware, and the costs shift "
          "(atomics, `rdtsc`, memory barriers and page-table walks are "
          "dearer under TCG than plain arithmetic). Cycles are host TSC "
          "ticks (TCG reads the host TSC). Read the **ratios** measured in "
          "the same boot, not the absolute numbers; and across kernels, "
          "the ratio of boots paired by round.\n")

    w("## Method\n")
    tree = (f" (TREE at `{meta['tree']}`, {meta['tree_commits']} commits "
            "on top of `pristine`)" if "tree" in meta else "")
    w(f"- Both kernels come from the same {facts.get('source', '?')} "
      "source, the base "
      "at tag `pristine`, the patched one with the project's series "
      f"applied{tree}, and the same `bench/bench.config`.")
    order = ("in a new random order every trial (Fisher-Yates)"
             if meta.get("case_order") == "random" else
             "the order of the cases rotated every trial (this data predates "
             "the random order)")
    w("- `bench/module/nofs_bench.c` runs each case as a loop of "
      f"{meta['ITERS']} iterations per trial, {meta['TRIALS']} trials, "
      f"{order}, after one untimed warm-up "
      "trial. Cases that only touch `current->flags` run with interrupts "
      "off; those that lock or allocate run preemptible (an interruption "
      "is an outlier that medians ignore). `barrier()` and "
      "`OPTIMIZER_HIDE_VAR()` keep every store and allocation in the loop. "
      "The counted-scope cases are compiled only when `<linux/sched/mm.h>` "
      "defines `MEMALLOC_SCOPE_NOFS` (the patched headers), and "
      "`bench/run.sh` checks that the patched module has them and the "
      "base one does not.")
    w("- A **ratio** (counted form over legacy form) is taken per trial, "
      "between two loops run in the same trial of the same boot, then "
      "pooled over all trials of all boots: min / p25 / median / p75 / "
      "max. ns/op includes the loop itself (see `empty_loop`); the ratio "
      "**net of the empty loop** takes the empty loop of the same trial "
      "out of both, (case - empty) / (reference - empty).")
    w("- **Across kernels**, the median ns/op of a case in the patched boot "
      "of a round over the median in the base boot of the same round; "
      "median and range over rounds.")
    w("- XFS: each workload on a freshly made filesystem on a virtio disk "
      "(`cache=unsafe` raw image on the host), in a new memory cgroup; "
      "/proc/vmstat deltas around the workload, the cgroup's own counters "
      "(it is new, so they start at zero). An allocation stall is an "
      "entry into direct reclaim: `allocstall` counts only *global* direct "
      "reclaim, and the cgroup's `memory.events max` counts the charges "
      "that hit memory.max and reclaimed; each has a target of its own. With "
      "tight guest memory, global reclaim and the cgroup limit compete for "
      "the same pages (the write workload), so one count can move into "
      "the other from boot to boot. vmstat has no slab-reclaimed counter: "
      "`slabs_scanned` (objects the shrinkers scanned) and `inodesteal` "
      "(inodes freed for their page cache) stand for it.\n")

    w("## Results against the issue's targets\n")
    limit = BUSY_LOAD_PER_CORE * cores
    host_busy = not loads or max(loads) > limit

    def judged_text(v):
        return "not judged (busy host)" if host_busy else v

    def series_of(name):
        path = os.path.join(data, name)
        sid = read_kv(path).get("series") if os.path.exists(path) else None
        return f"series `{sid}`" if sid else "series not recorded"

    w(f"Measured on: microbenchmarks and XFS workloads {series_of('meta')}; "
      f"instruction counts {series_of('insns.meta')}; shrinker workloads "
      f"{series_of('shrink-meta')}; btrfs workloads "
      f"{series_of('btrfs-meta')}, their instruction counts "
      f"{series_of('btrfs-insns.meta')} (scripts/series-id.sh; "
      "scripts/check-pages.sh says whether that is the series checked "
      "out).\n")
    w(f"Targets, limits and interval rules: `bench/thresholds.conf` at "
      f"{LIMITS_COMMIT}; intervals are {LIMITS['CONFIDENCE']:.0%} "
      f"bootstrap intervals of the median over the rounds ({BOOTSTRAP} "
      "resamples, fixed seed): met only if the whole interval is within "
      "the target, missed if wholly outside, else inconclusive.\n")

    if host_busy:
        w(f"**Not judged: the host was busy.** The 1-min load average at "
          f"the start of a boot was up to {max(loads or [0]):.1f}, above "
          f"{limit:.1f} (more runnable tasks than cores; one guest at a time "
          "loads the host by 1.1-2.0): other guests or builds shared the cores, so a "
          "ratio here may be theirs. The measurements stay; the verdicts "
          "wait for a run on an idle host.\n")
    w("| Target | Measured | |")
    w("|---|---|---|")
    tgt = []
    for c, ref, what in PAIRS:
        v = paired_ratios(trial, "patched", c, ref)
        if v:
            m = q(v, 0.5)
            tgt.append((c, m))
            by_round = defaultdict(list)
            for (r, k, cc, t), x in trial.items():
                if k == "patched" and cc == c and (r, k, ref, t) in trial:
                    by_round[r].append(x / trial[r, k, ref, t])
            lo, hi = bootstrap(list(by_round.values()), rounds_median)
            w(f"| {what}: ratio <= {TARGET[c]} | median {fmt(m)} "
              f"[{fmt(lo)}, {fmt(hi)}] (p25 {fmt(q(v, .25))}, p75 "
              f"{fmt(q(v, .75))}) | "
              f"{judged_text(interval_verdict(lo, hi, 0.0, TARGET[c]))} |")
    for cp, cb, what in ALLOC_CROSS:
        v = cross_ratios(ns, cp, cb)
        if v:
            m = statistics.median(v)
            lo, hi = bootstrap(v, statistics.median)
            w(f"| {what}: patched/base within {ALLOC_RANGE[0]}-"
              f"{ALLOC_RANGE[1]} | median {fmt(m)} [{fmt(lo)}, {fmt(hi)}] "
              f"over {len(v)} rounds (range {fmt(min(v))}-{fmt(max(v))}) | "
              f"{judged_text(interval_verdict(lo, hi, *ALLOC_RANGE))} |")
    for wl, name in (("fsmark", "fs_mark files/s"), ("write", "buffered write MiB/s")):
        rat = []
        st = ([], [])	# per round (base, patched): allocstall, memcg max
        per = defaultdict(dict)
        for r, k, ww, kv in xfs:
            if ww == wl:
                per[r][k] = kv
        for r in sorted(per):
            if len(per[r]) != 2:
                continue
            rat.append(float(per[r]["patched"]["rate"]) /
                       float(per[r]["base"]["rate"]))
            for i, key in enumerate(("allocstall", "memcg_max")):
                st[i].append((int(per[r]["base"][key]),
                              int(per[r]["patched"][key])))
        if rat:
            m = statistics.median(rat)
            lo, hi = bootstrap(rat, statistics.median)
            v = ("**missed**" if hi < 1.0 else
                 "met" if lo > LIMITS["RATE_FLOOR"] else "inconclusive")
            w(f"| XFS {name}: patched/base above {LIMITS['RATE_FLOOR']} | "
              f"median {fmt(m)} [{fmt(lo)}, {fmt(hi)}] over {len(rat)} "
              f"rounds (p25 {fmt(q(rat, 0.25))}, p75 {fmt(q(rat, 0.75))}, "
              f"range {fmt(min(rat))}-{fmt(max(rat))}) | {judged_text(v)} |")
            # global direct reclaim and the cgroup's limit, each on its own
            for i, what in ((0, "global direct reclaim (`allocstall`)"),
                            (1, "cgroup reclaim at memory.max "
                                "(`memory.events max`)")):
                b = sum(x for x, _ in st[i])
                p = sum(y for _, y in st[i])
                if b == 0:
                    v, rel = ("met" if p == 0 else "**missed**"), ""
                else:
                    lo, hi = bootstrap(st[i], sum_ratio)
                    v = interval_verdict(lo, hi, 0.0, 1.0)
                    rel = f", {p / b:.3f}x [{fmt(lo)}, {fmt(hi)}]"
                w(f"| XFS {name}: no more {what} than base | over those "
                  f"rounds, base {b}, patched {p}{rel} | {judged_text(v)} |")
    w("")

    w("## Microbenchmarks\n")
    w(f"![ns per iteration]({plotrel}/micro-ns.png)\n")
    w("ns and cycles per iteration, every trial of every boot pooled "
      f"({meta['TRIALS']} trials x rounds):\n")
    w("| Case | Kernel | ns min | p25 | median | p75 | max | cycles median |")
    w("|---|---|---|---|---|---|---|---|")
    for c in CASE_ORDER:
        for k in KERNELS:
            if (k, c) in ns:
                v = five(pooled(ns[k, c]))
                cm = q(pooled(cyc[k, c]), 0.5)
                w(f"| `{c}` | {k} | " + " | ".join(fmt(x, 2) for x in v) +
                  f" | {fmt(cm, 1)} |")
    w("")
    w(f"![ratios]({plotrel}/micro-ratio.png)\n")
    w("Ratios in the same trial of the same boot (the dashed lines are "
      "the targets):\n")
    ratio_table(w, trial, paired_ratios)
    w("The same ratios net of the empty loop of each trial:\n")
    ratio_table(w, trial, net_ratios)
    w("Across kernels (patched boot over base boot of the same round, "
      "median ns/op):\n")
    w("| Case | median | min | max | rounds |")
    w("|---|---|---|---|---|")
    for c in CASE_ORDER:
        v = cross_ratios(ns, c, c)
        if v:
            w(f"| `{c}` | {fmt(statistics.median(v))} | {fmt(min(v))} | "
              f"{fmt(max(v))} | {len(v)} |")
    w("")

    if irows:
        insns_section(w, imeta, irows, ns, trial, facts)
    w("## XFS under memory pressure\n")
    w(f"![per-round throughput]({plotrel}/xfs-rounds.png)\n")
    for wl, unit in (("fsmark", "files/s"), ("write", "MiB/s")):
        w(f"### {'fs_mark (metadata)' if wl == 'fsmark' else 'buffered writes'}\n")
        w(f"| Kernel | {unit} median | min | max | secs median | " +
          " | ".join(XFS_KEYS) + " |")
        w("|---|---|---|---|---|" + "---|" * len(XFS_KEYS))
        for k in KERNELS:
            rows = [kv for r, kk, ww, kv in xfs if kk == k and ww == wl]
            if not rows:
                continue
            rates = [float(kv["rate"]) for kv in rows]
            secs = [float(kv["secs"]) for kv in rows]
            cols = [str(int(statistics.median(int(kv[x]) for kv in rows)))
                    for x in XFS_KEYS]
            w(f"| {k} | {statistics.median(rates):.1f} | {min(rates):.1f} | "
              f"{max(rates):.1f} | {statistics.median(secs):.1f} | " +
              " | ".join(cols) + " |")
        w("")
        w("The vmstat and cgroup columns are medians over rounds. Per "
          "round (rate, allocstall, memory.events max):\n")
        w("| Round | first | base | patched | patched/base |")
        w("|---|---|---|---|---|")
        per = defaultdict(dict)
        for r, k, ww, kv in xfs:
            if ww == wl:
                per[r][k] = kv
        for r in sorted(per):
            cells = []
            for k in KERNELS:
                kv = per[r].get(k)
                cells.append(f"{kv['rate']} ({kv['allocstall']}, "
                             f"{kv['memcg_max']})" if kv else "-")
            ratio = (fmt(float(per[r]["patched"]["rate"]) /
                         float(per[r]["base"]["rate"]))
                     if len(per[r]) == 2 else "-")
            w(f"| {r} | {firsts.get(r, '-')} | {cells[0]} | {cells[1]} | "
              f"{ratio} |")
        w("")

    btrfs_section(w, data, cores)
    shrink_section(w, data, cores)
    w(f"## Turnaround on this {cores}-core machine\n")
    if text.get("turnaround"):
        w(text["turnaround"] + "\n")
    w("| What | Time |")
    w("|---|---|")
    if text.get("turnaround rows"):
        w(text["turnaround rows"])
    busy_builds, cpus = False, []
    for k in KERNELS:
        if k in cold:
            b = cold[k]
            s, d, others, cpu = b["secs"], b["date"], b["others"], b["cpu_secs"]
            busy_builds |= others > 0
            if cpu:
                cpus.append(cpu)
            busy = (f", while {others} other kernel build(s) ran"
                    if others else ", no other kernel build running")
            cput = (f", {cpu // 60} min {cpu % 60:02d} s CPU (user + system)"
                    if cpu else "")
            jobs = f"`JOBS={b['jobs']}`, " if "jobs" in b else ""
            busy = busy[2:]
            w(f"| cold build of the {k} bench kernel ({jobs}{busy}; "
              f"{d[:10]}) | {s // 60} min {s % 60:02d} s wall{cput} |")
    if boot_secs:
        w(f"| one bench boot (boot, microbenchmarks, both workloads) | "
          f"median {int(statistics.median(boot_secs))} s |")
    w(f"| the {len(boots)} boots of this run | {int(meta.get('secs', 0)) // 60} "
      "min |")
    w("")
    if busy_builds:
        w(f"The cold bench-kernel builds above shared the {cores} cores "
          "with other kernel builds and guests, so their wall times say "
          "little.")
    if cpus:
        c = max(cpus)
        w(f"A bench kernel build needs about {c // 60} min of CPU, so about "
          f"{c / 60 / cores:.1f} min of wall time on {cores} idle cores.")
    if text.get("turnaround after"):
        w(text["turnaround after"] + "\n")
    w("## Reading the numbers\n")
    notes(w, trial, ns, xfs, insns, firsts, irows, text, facts, acc)
    with open(out_md, "w") as f:
        f.write("\n".join(o).rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
