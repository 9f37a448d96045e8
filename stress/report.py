#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The stress campaign's raw data and its report (stress/run.sh, make stress).

  report.py collect ROWS DATA    the serial logs named in ROWS -> DATA/runs.tsv
                                 and DATA/trials.tsv (DATA/meta is the
                                 campaign's, written by stress/run.sh)
  report.py table DATA           the mode table and the per-run table, for
                                 the terminal
  report.py markdown DATA        Documentation/stress-results.md, on stdout
  report.py counted ROWS HITS    the counted known-bug rules: HITS (mode,
                                 scenario, bug per boot that hit one) against
                                 the boots of ROWS; status 1 if a patched
                                 mode hits a bug clearly more often than the
                                 baseline (one-sided Fisher p < 0.05), or
                                 hits it with no baseline boot to compare
  report.py selftest             the report's own tests

ROWS is stress/run.sh's TSV, one line per boot: mode, scenario, verdict,
seconds, splats, hangs, serial log, known-bug lines, strict ("reported",
"not reported" or "-"); further columns are ignored.  From each log, collect takes the kernel release,
the guest's last "# stress: k=v ..." summary line and its "trial: k=v ..."
lines (one per crash-recovery cycle and per fault-injection round); from
the harness output next to it (.out), the first diagnostic of a failed run.
Every number of the report is computed from DATA alone.
"""
import csv
import io
import os
import re
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "scripts"))
# pylint: disable=wrong-import-position
from nofs_stats import Tap, fisher_greater  # noqa: E402

RUN_FIELDS = ["mode", "scenario", "kernel", "verdict", "secs", "splats",
              "known", "hangs", "strict", "reason", "summary"]
TRIAL_FIELDS = ["mode", "scenario", "trial"]
MODES = ["patched", "strict", "baseline"]
SCENARIOS = ["crash-recovery", "failinject", "failinject-ext4", "failinject-btrfs", "soak"]

FAILINJECT = ["failinject", "failinject-ext4", "failinject-btrfs"]

# the mode table: sums of summary keys over the scenarios
SURFACED = {"failinject": ["enomem", "eio", "mount_failures"],
            "failinject-ext4": ["enomem", "eio", "erofs"],
            "failinject-btrfs": ["enomem", "eio", "erofs"]}
CORRUPTIONS = {"crash-recovery": ["lost", "corrupt", "repair_errors", "kernel_corruption"],
               "failinject": ["lost", "corrupt", "repair_errors", "kernel_corruption"],
               "soak": ["lost", "corrupt", "repair_errors", "kernel_corruption"],
               "failinject-ext4": ["lost", "fsck_errors"],
               "failinject-btrfs": ["lost", "check_errors"]}


def kv(text):
    """'a=1 b=x' -> {'a': '1', 'b': 'x'}"""
    return dict(w.split("=", 1) for w in text.split() if "=" in w)


def num(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        try:
            return float(v)
        except (TypeError, ValueError):
            return None


# --- collect ---------------------------------------------------------------

SUMMARY_RE = re.compile(r"^# stress: scenario=\S+ ?(.*)$")
TRIAL_RE = re.compile(r"^#\s+trial: (.*)$")
KERNEL_RE = re.compile(r"Linux version (\S+)")


def read_log(path):
    """(kernel, summary, [trial k=v strings]) of one serial log"""
    kernel, summary, trials = "?", "", []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                line = line.rstrip("\r\n")
                m = KERNEL_RE.search(line)
                if m and kernel == "?":
                    kernel = m.group(1)
                m = SUMMARY_RE.match(line)
                if m:
                    summary = m.group(1)
                m = TRIAL_RE.match(line)
                if m:
                    trials.append(m.group(1))
    except OSError:
        pass
    return kernel, summary, trials


def first_diag(out):
    try:
        with open(out, errors="replace") as f:
            for line in f:
                if line.startswith("# "):
                    return line[2:].strip()
    except OSError:
        pass
    return "-"


def collect(rows_path, data):
    runs, trials = [], []
    with open(rows_path) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 9:
                continue
            mode, name, verdict, secs, splats, hangs, log, known, strict = p[:9]
            scen = name[len("stress-"):] if name.startswith("stress-") else name
            kernel, summary, tl = read_log(log)
            reason = first_diag(log[:-4] + ".out") if verdict != "PASS" else "-"
            runs.append({"mode": mode, "scenario": scen, "kernel": kernel,
                         "verdict": verdict, "secs": secs, "splats": splats,
                         "known": known, "hangs": hangs, "strict": strict,
                         "reason": reason, "summary": summary})
            for i, t in enumerate(tl, 1):
                trials.append({"mode": mode, "scenario": scen, "trial": i, "fields": t})
    os.makedirs(data, exist_ok=True)
    write_tsv(os.path.join(data, "runs.tsv"), RUN_FIELDS, runs)
    write_tsv(os.path.join(data, "trials.tsv"), TRIAL_FIELDS + ["fields"], trials)


def write_tsv(path, fields, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fields, delimiter="\t", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(r)


# --- load ------------------------------------------------------------------

def load(data):
    meta = {}
    try:
        with open(os.path.join(data, "meta")) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    meta[k] = v
    except OSError:
        pass
    with open(os.path.join(data, "runs.tsv"), newline="") as f:
        runs = list(csv.DictReader(f, delimiter="\t"))
    trials = []
    try:
        with open(os.path.join(data, "trials.tsv"), newline="") as f:
            trials = list(csv.DictReader(f, delimiter="\t"))
    except OSError:
        pass
    for r in runs:
        r["kv"] = kv(r["summary"])
    for t in trials:
        t["kv"] = kv(t["fields"])
    return meta, runs, trials


def planned(meta):
    """{mode: [scenario...]} of the boots the campaign plans (meta's
    planned=, "MODE:stress-NAME" words); empty before it was recorded"""
    out = {}
    for w in meta.get("planned", "").split():
        m, _, n = w.partition(":")
        out.setdefault(m, []).append(n[len("stress-"):] if n.startswith("stress-") else n)
    return out


def modes_of(runs, meta=None):
    seen = [r["mode"] for r in runs] + list(planned(meta or {}))
    return [m for m in MODES if m in seen] + sorted(set(seen) - set(MODES))


def total(runs, mode, keys_by_scenario):
    """sum of the keys over the mode's runs; '-' when none of them is there"""
    t, any_ = 0, False
    for r in runs:
        if r["mode"] != mode:
            continue
        for k in keys_by_scenario.get(r["scenario"], []):
            v = num(r["kv"].get(k))
            if v is not None:
                t += v
                any_ = True
    return str(t) if any_ else "-"


def mode_verdict(runs, mode, meta=None):
    """FAIL if a boot failed; else INCOMPLETE while a planned boot is
    missing (a campaign cut short is not a pass); else PASS"""
    v = [r["verdict"] for r in runs if r["mode"] == mode]
    if any(x != "PASS" for x in v):
        return "FAIL"
    want = planned(meta or {}).get(mode, [])
    have = {r["scenario"] for r in runs if r["mode"] == mode}
    if want and not set(want) <= have:
        return "INCOMPLETE (%d of %d boots)" % (len(set(want) & have), len(want))
    return "PASS" if v else "-"


def mode_table(runs, meta=None):
    out = ["| mode | cycles | recoveries | cycles with intents pending | injected failures "
           "| errors surfaced | corruptions | splats | hangs | verdict |",
           "|------|--------|------------|-----------------------------|-------------------"
           "|-----------------|-------------|--------|-------|---------|"]
    for m in modes_of(runs, meta):
        c = next((r["kv"] for r in runs if r["mode"] == m and r["scenario"] == "crash-recovery"), {})
        strict = {r["strict"] for r in runs if r["mode"] == m}
        label = m + (" (not on)" if "not reported" in strict else "")
        splats = sum(num(r["splats"]) or 0 for r in runs if r["mode"] == m)
        hangs = sum(num(r["hangs"]) or 0 for r in runs if r["mode"] == m)
        out.append("| %s | %s/%s | %s | %s | %s | %s | %s | %d | %d | %s |" % (
            label, c.get("cycles", "-"), c.get("planned", "-"), c.get("recoveries", "-"),
            c.get("pending_cycles", "-"),
            total(runs, m, {s: ["injected"] for s in FAILINJECT}),
            total(runs, m, SURFACED), total(runs, m, CORRUPTIONS), splats, hangs,
            mode_verdict(runs, m, meta)))
    return out


def run_table(runs):
    out = ["| mode | scenario | kernel | verdict | s | splats | known | hangs | summary line of the guest |",
           "|------|----------|--------|---------|---|--------|-------|-------|---------------------------|"]
    for r in runs:
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | `%s` |" % (
            r["mode"], r["scenario"], r["kernel"], r["verdict"], r["secs"], r["splats"],
            r["known"], r["hangs"], r["summary"]))
    return out


def spread(values, fmt="%g"):
    """'min / median / max' of numbers, '-' if none"""
    v = [x for x in values if x is not None]
    if not v:
        return "-"
    return " / ".join(fmt % x for x in (min(v), statistics.median(v), max(v)))


def trial_tables(runs, trials):
    """per mode: the crash-recovery cycles and the fault-injection rounds"""
    out = []
    cyc = [t for t in trials if t["scenario"] == "crash-recovery"]
    if cyc:
        out += ["### Crash-recovery cycles", "",
                "One row per mode over its cycles (`trial:` lines of "
                "`stress-crash-recovery.sh`); min / median / max where three numbers.", "",
                "| mode | cycles | shutdown -f | attempts | cycles with intents pending "
                "| pending intents | intents replayed | s per cycle | s of recovery |",
                "|------|--------|-------------|----------|-----------------------------"
                "|-----------------|------------------|-------------|---------------|"]
        for m in modes_of(runs):
            t = [x["kv"] for x in cyc if x["mode"] == m]
            if not t:
                continue
            pend = [num(x.get("pending")) for x in t]
            secs = [sum(num(x.get(k)) or 0 for k in ("durable", "work", "recovery",
                                                      "verify", "repair", "retry"))
                    for x in t]
            out.append("| %s | %d | %d | %s | %d | %s | %s | %s | %s |" % (
                m, len(t), sum(1 for x in t if x.get("how") == "shutdown-f"),
                spread([num(x.get("attempts")) for x in t]),
                sum(1 for p in pend if p and p > 0), spread(pend),
                spread([num(x.get("intents")) for x in t]), spread(secs, "%.1f"),
                spread([num(x.get("recovery")) for x in t], "%.1f")))
        out.append("")
    fi = [t for t in trials if t["scenario"] in FAILINJECT]
    if fi:
        out += ["### Fault-injection rounds", "",
                "One row per mode, scenario and kind of round (`trial:` lines of "
                "`stress-failinject*.sh`); min / median / max where three numbers.", "",
                "| mode | scenario | kind | rounds | failures injected per round "
                "| rounds with a failure | recovery ran under injection | mount failed |",
                "|------|----------|------|--------|-----------------------------"
                "|-----------------------|------------------------------|--------------|"]
        for m in modes_of(runs):
            for s in FAILINJECT:
                for kind in ("workload", "recovery"):
                    t = [x["kv"] for x in fi if x["mode"] == m and x["scenario"] == s
                         and x["kv"].get("kind", "workload") == kind]
                    if not t:
                        continue
                    inj = [num(x.get("injected")) for x in t]
                    rec = "-" if kind != "recovery" else str(
                        sum(1 for x in t if x.get("recovery") == "1"))
                    mnt = "-" if kind != "recovery" else str(
                        sum(1 for x in t if x.get("mount") == "failed"))
                    out.append("| %s | %s | %s | %d | %s | %d | %s | %s |" % (
                        m, s, kind, len(t), spread(inj),
                        sum(1 for i in inj if i), rec, mnt))
        out.append("")
    return out


def failures(runs):
    return ["- %s %s: %s" % (r["mode"], r["scenario"], r["reason"])
            for r in runs if r["verdict"] != "PASS"]


def markdown(data):
    meta, runs, trials = load(data)
    o = ["# Stress campaign results", "",
         "Written by %s on %s; %s host CPUs, accelerator %s, host load (1 min) %s."
         % ("`make stress` (`stress/run.sh full`)" if meta.get("kind", "full") == "full"
            else "`stress/run.sh %s`" % meta["kind"], meta.get("date", "?"),
            meta.get("cpus", "?"), meta.get("accel", "?"), meta.get("host_load", "?")),
         "Every number below comes from the raw data in "
         "[stress/data](stress/data/README.md); `make stress-report` rewrites "
         "this page from it without booting anything.", ""]
    if meta.get("planned") and int(meta.get("done", "0")) < len(meta["planned"].split()):
        o += ["**Partial campaign: %s of %d boots done.** `make stress` with the same "
              "series and parameters goes on with the rest (stress/run.sh, Resuming); "
              "a mode with a boot missing is INCOMPLETE, not PASS."
              % (meta["done"], len(meta["planned"].split())), ""]
    for m in modes_of(runs):
        ks = sorted({r["kernel"] for r in runs if r["mode"] == m})
        st = {r["strict"] for r in runs if r["mode"] == m}
        note = ""
        if m == "strict":
            note = (" (strict mode reported by the kernel)" if st == {"reported"}
                    else " (the kernel did not report strict mode: ran as patched)")
        o.append("- %s: kernel %s%s" % (m, ", ".join("`%s`" % k for k in ks), note))
    o += ["- measured on %s" % ("series `%s` (scripts/series-id.sh)" % meta["series"]
                               if "series" in meta
                               else "series not recorded (before series ids)"),
          "- source: %s" % meta.get("tree", "?"),
          "- parameters: %s" % meta.get("params", "?"),
          "- guests booted again (died before /init, or a TCG int3 Oops; see "
          "run-scenario.sh): %s" % meta.get("boot_retries", "?"), "",
          "Errors surfaced: ENOMEM and EIO returned to the workload's programs and",
          "failed mounts while failures were injected (expected; what must hold is",
          "the rest). Corruptions: fsynced files lost or changed, xfs_repair -n",
          "findings, XFS corruption reports, e2fsck -fn and btrfs check findings,",
          "over all five scenarios. Hangs: hung-task reports and guest timeouts.",
          "Cycles with intents pending: crash-recovery cycles whose log held",
          "intent items without their done items at the shutdown, which log",
          "recovery then finished (each cycle must have one). Known: report lines",
          "of the known 6.12.118 bugs that run-scenario.sh recognises, each rule",
          "pinned to its report (see results.md): reported, not counted; the",
          "counted rules' hits are compared per mode with the baseline's.", ""]
    o += mode_table(runs, meta) + [""] + run_table(runs) + [""]
    tt = trial_tables(runs, trials)
    if tt:
        o += ["## Per cycle and per round", ""] + tt
    f = failures(runs)
    if f:
        o += ["## Failed runs", ""] + f + [""]
    o += ["Serial logs: `LOG_DIR/stress/full/MODE/`. Scenarios: "
          "`stress/guest/stress-*.sh`; campaign: `stress/run.sh`."]
    return "\n".join(o) + "\n"


def table(data):
    meta, runs, trials = load(data)
    return "\n".join(mode_table(runs, meta) + [""] + run_table(runs) + [""] +
                     trial_tables(runs, trials)) + "\n"


# --- selftest --------------------------------------------------------------

def counted(rows, hits):
    """[(line, bad)] of the counted rules: for each bug and scenario it
    was seen in, hits per mode, and whether a patched mode hit it clearly
    more often than the baseline, or with no baseline to compare"""
    boots, seen = {}, {}
    for mode, scen in rows:
        boots[mode, scen] = boots.get((mode, scen), 0) + 1
    for mode, scen, bug in hits:
        seen.setdefault((bug, scen), {}).setdefault(mode, 0)
        seen[bug, scen][mode] += 1
    out = []
    for (bug, scen), by_mode in sorted(seen.items()):
        nb = boots.get(("baseline", scen), 0)
        b = by_mode.get("baseline", 0)
        for mode in ("patched", "strict"):
            n, a = boots.get((mode, scen), 0), by_mode.get(mode, 0)
            if not a:
                continue
            rate = "%s %s: %d of %d boots, baseline %d of %d" % (
                mode, scen, a, n, b, nb)
            if not nb:
                out.append(("UNJUDGED: counted known bug '%s' hit %s; no "
                            "baseline boot to compare with" % (bug, rate), True))
                continue
            p = fisher_greater(a, n, b, nb)
            bad = p < 0.05
            out.append(("%s: counted known bug '%s': %s, p=%.2f" % (
                "REGRESSION" if bad else "not clearly more often", bug, rate,
                p), bad))
    return out


def cmd_counted(rows_path, hits_path):
    with open(rows_path) as f:
        rows = [l.rstrip("\n").split("\t")[:2] for l in f if l.strip()]
    rows = [(m, s.replace("stress-", "")) for m, s in rows]
    with open(hits_path) as f:
        hits = [l.rstrip("\n").split("\t", 2) for l in f if l.strip()]
    hits = [(m, s.replace("stress-", ""), b) for m, s, b in hits]
    bad = False
    for line, b in counted(rows, hits):
        print("counted rules: " + line)
        bad |= b
    return 1 if bad else 0


def selftest():
    tap = Tap()
    case = tap.case

    def log(d, name, summary, trials=(), kernel="6.12.118-gabc"):
        p = os.path.join(d, name + ".log")
        with open(p, "w") as f:
            f.write("[    0.000000] Linux version %s (gcc) #1\n" % kernel)
            for t in trials:
                f.write("#   trial: %s\n" % t)
            f.write("[   9.1] XFS (vda): Ending recovery\n")
            f.write("# stress: scenario=%s %s\n" % (name[len("stress-"):], summary))
        with open(p[:-4] + ".out", "w") as f:
            f.write("not ok 1 %s\n# cycle 3 failed: 1 fsynced file lost\n" % name)
        return p

    with tempfile.TemporaryDirectory() as d:
        data = os.path.join(d, "data")
        rows = []
        for m in ("patched", "strict"):
            os.makedirs(os.path.join(d, m))
            c = log(d + "/" + m, "stress-crash-recovery",
                    "cycles=2 planned=2 recoveries=2 pending_cycles=2 lost=0 corrupt=0 "
                    "repair_errors=0 kernel_corruption=0",
                    ["cycle=1 how=shutdown attempts=1 intents=9 dones=3 pending=6 work=2.0",
                     "cycle=2 how=shutdown-f attempts=2 intents=4 dones=4 pending=0 work=1.0"])
            f = log(d + "/" + m, "stress-failinject",
                    "injected=100 enomem=3 eio=4 mount_failures=1 lost=0 corrupt=0 "
                    "repair_errors=0 kernel_corruption=0",
                    ["round=1 kind=workload injected=90", "round=1 kind=recovery injected=10 "
                     "recovery=1 mount=failed"])
            e = log(d + "/" + m, "stress-failinject-ext4",
                    "injected=50 enomem=5 eio=0 lost=%d fsck_errors=0" % (m == "strict"))
            rows.append("%s\tstress-crash-recovery\tPASS\t60\t0\t0\t%s\t0\treported" % (m, c))
            rows.append("%s\tstress-failinject\tPASS\t30\t1\t0\t%s\t2\treported" % (m, f))
            rows.append("%s\tstress-failinject-ext4\t%s\t30\t0\t1\t%s\t0\t%s" % (
                m, "FAIL" if m == "strict" else "PASS", e,
                "not reported" if m == "strict" else "-"))
        rp = os.path.join(d, "rows.tsv")
        with open(rp, "w") as fh:
            fh.write("\n".join(rows) + "\n")
        collect(rp, data)
        meta, runs, trials = load(data)
        case("collect keeps one run per row and every trial line", len(runs) == 6 and len(trials) == 8)
        case("collect takes the kernel release from the log", runs[0]["kernel"] == "6.12.118-gabc")
        case("collect keeps the summary without scenario=",
             runs[0]["summary"].startswith("cycles=2 ") and "scenario" not in runs[0]["summary"])
        case("the reason of a failed run comes from its .out, none for a passed run",
             runs[2]["reason"] == "-" and runs[5]["reason"] == "cycle 3 failed: 1 fsynced file lost")
        mt = mode_table(runs)
        p = [x for x in mt if x.startswith("| patched ")][0].split(" | ")
        case("mode row sums injected over both fault-injection scenarios", p[4] == "150")
        case("mode row sums ENOMEM, EIO and mount failures", p[5] == "13")
        case("mode row sums splats and hangs over scenarios", p[7] == "1" and p[8] == "1")
        s = [x for x in mt if x.startswith("| strict ")][0].split(" | ")
        case("one lost file counts as a corruption", s[6] == "1")
        case("a failed run fails its mode", s[9].strip(" |") == "FAIL")
        case("a strict run that was not strict is labelled", s[0] == "| strict (not on)")
        tt = "\n".join(trial_tables(runs, trials))
        case("cycles with intents pending counted from the trials",
             "| patched | 2 | 1 | 1 / 1.5 / 2 | 1 | 0 / 3 / 6 |" in tt)
        case("recovery rounds: injection during recovery and failed mounts counted",
             "| patched | failinject | recovery | 1 | 10 / 10 / 10 | 1 | 1 | 1 |" in tt)
        md = markdown(data)
        case("the markdown names the failed run and its reason",
             "- strict failinject-ext4: cycle 3 failed: 1 fsynced file lost" in md)
        case("the markdown says a strict run was not strict",
             "ran as patched" in md and "(strict mode reported" not in md)
        meta = {"planned": " ".join("%s:stress-%s" % (m, n) for m in
                                    ("patched", "baseline") for n in
                                    ("crash-recovery", "failinject", "failinject-ext4", "soak")),
                "done": "6"}
        mt = mode_table(runs, meta)
        row = {x.split(" | ")[0]: x.split(" | ")[-1].strip(" |") for x in mt[2:]}
        case("a mode with a planned boot missing is INCOMPLETE, not PASS",
             row["| patched"] == "INCOMPLETE (3 of 4 boots)")
        case("a failed boot fails its mode even when incomplete",
             mode_verdict(runs, "strict", meta) == "FAIL")
        case("a planned mode with no boot yet has a row, INCOMPLETE",
             row.get("| baseline") == "INCOMPLETE (0 of 4 boots)")
        case("with every planned boot done the mode passes",
             mode_verdict(runs, "patched", {"planned": "patched:stress-crash-recovery"})
             == "PASS")
        with open(os.path.join(data, "meta"), "w") as fh:
            fh.write("planned=%s\ndone=6\n" % meta["planned"])
        case("the page of a partial campaign says so",
             "**Partial campaign: 6 of 8 boots done.**" in markdown(data))
    bug = "may-use underflow"
    boots4 = [(m, "failinject-btrfs") for m in ("patched", "strict", "baseline")
              for _ in range(4)]
    c = counted(boots4, [("baseline", "failinject-btrfs", bug),
                         ("strict", "failinject-btrfs", bug),
                         ("strict", "failinject-btrfs", bug)])
    case("counted rule: strict 2/4 against baseline 1/4 is not clearly more",
         c and not any(b for _, b in c))
    c = counted(boots4, [("patched", "failinject-btrfs", bug)] * 4)
    case("counted rule: patched 4/4 against baseline 0/4 fails",
         any(b for _, b in c))
    c = counted([("patched", "failinject-btrfs")] * 2,
                [("patched", "failinject-btrfs", bug)])
    case("counted rule: a hit with no baseline boot is unjudged",
         any(b and "UNJUDGED" in l for l, b in c))
    case("counted rule: no hit, nothing to judge",
         counted(boots4, []) == [])
    return tap.done()


def main(argv):
    if len(argv) >= 2 and argv[1] == "selftest":
        return selftest()
    if len(argv) == 4 and argv[1] == "counted":
        return cmd_counted(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "collect":
        collect(argv[2], argv[3])
        return 0
    if len(argv) == 3 and argv[1] in ("table", "markdown"):
        if not os.path.exists(os.path.join(argv[2], "runs.tsv")):
            print("report.py: no %s/runs.tsv: run 'make stress' first" % argv[2],
                  file=sys.stderr)
            return 1
        sys.stdout.write(markdown(argv[2]) if argv[1] == "markdown" else table(argv[2]))
        return 0
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
