#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fstests/report.py: the per-test rows of an fstests run, the side-by-side
verdict of two runs, and Documentation/fstests-results.md.

  report.py rows DIR           DIR/results/result.xml (or, if the guest
                               never wrote it, check's lines in
                               DIR/check.log), DIR/splats.tsv and
                               DIR/serial-splats.txt -> rows
  report.py heads LOG          the normalised headline of each splat line
                               ("N:line" on stdin, from splat_lines) of LOG
  report.py compare PAT BASE [PAT-RERUN... -- BASE-RERUN...]
                               table of two runs' rows.tsv, apparent
                               regressions judged on the pooled reruns'
                               failure rates if given; status 1 unless
                               every row is judged and none regressed
  report.py regressions PAT BASE  the tests to run again
  report.py cut DIR...         drop the last row of each DIR/rows.tsv if it
                               never finished (reruns of both kernels that
                               ran out of time together)
  report.py markdown DATA [smoketest]
                               the report from DATA/<fstyp>-<kernel>.tsv
                               (of the default lists, or of the smoketest
                               group)
  report.py selftest           the verdict rules and check's-line parser on
                               made-up runs, as TAP (make test runs it)

A row is tab-separated: test, result (pass, fail, notrun, lost), seconds,
splats ("none", or the normalised headlines of the splats, each a "known:
<bug>" or a "TITLE @ first function", joined by " ;; "), detail.  The row
named "(boot)" is the guest itself: pass if check finished and the guest
wrote its completion marker, lost if not; its splats are those of the
serial console that no test's own .dmesg holds.

Every verdict is one of ok, REGRESSION or UNJUDGED (a missing, lost or
not-run unpatched result, a guest that never finished, a run in which no
test ran); anything but ok fails.  The rules and their thresholds are in
fstests/verdict.conf.
"""

import os
import re
import shlex
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'scripts'))
# pylint: disable=wrong-import-position
from nofs_stats import (OK, REGRESSION, UNJUDGED, diff_upper,  # noqa: E402
                        fisher_greater, read_conf)

# check's progress lines: "generic/001 3s ...  4s", "generic/002 [not run]
# why", "generic/003 - output mismatch ...", "generic/004 _check_dmesg: ..."
LINE_RE = re.compile(r'^((?:generic|xfs|ext4|btrfs|shared)/\d+)(?:\s+(.*))?$')
KERNELS = ('patched', 'strict', 'base')
HERE = os.path.dirname(os.path.abspath(__file__))
BOOT = '(boot)'
SEP = ' ;; '


def clean(text):
    return ' '.join((text or '').split()).replace('\t', ' ')[:160]


# the frames of a report that say how it was reported, not where: the
# "first function" of a splat is the first frame that is none of these
HELPER_RE = re.compile(
    r'^(dump_stack\w*|show_stack|__warn\w*|warn_\w+|report_bug|handle_bug|'
    r'exc_\w+|asm_exc_\w+|asm_sysvec_\w+|__might_\w+|___might_sleep|'
    r'__schedule_bug|print_\w+|check_\w+|validate_chain|__lock_acquire|'
    r'lock_acquire|lock_release|lock_acquired|lock_contended|mark_lock\w*|'
    r'lockdep_\w+|debug_\w+|do_raw_\w+|spin_\w+|_raw_\w+|kasan_\w+|'
    r'__kasan_\w+|kfence_\w+|__kfence_\w+|slab_\w+|object_err|'
    r'panic|nmi_\w+|__bug|bug\w*|ubsan_\w+|__ubsan_\w+|'
    r'__schedule|schedule|schedule_\w+|io_schedule\w*)$')
FRAME_RE = re.compile(r'^\s*(?:RIP: [0-9a-f]+:)?([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+')
WARN_RE = re.compile(r'^(WARNING: )CPU: \d+ PID: \d+ at (\S+?)(?::\d+)? '
                     r'([A-Za-z_][\w.]*)\+0x')
TIME_RE = re.compile(r'^.*?\[ *\d+\.\d+\]\s?')


def norm_title(line):
    """a splat line without what differs between boots: timestamps,
    CPUs, PIDs, tasks, addresses, line numbers, counts"""
    text = TIME_RE.sub('', line, count=1).strip()
    m = WARN_RE.match(text)
    if m:
        return '%sat %s' % (m.group(1), m.group(2)), m.group(3)
    text = re.sub(r'^(INFO: task )\S+:\d+ (blocked)', r'\1\2', text)
    text = re.sub(r'^(BUG: scheduling while atomic: ).*', r'\1', text).strip()
    text = re.sub(r'\b0x[0-9a-f]+\b|\b[0-9a-f]{8,16}\b', '', text)
    text = re.sub(r'(\.[ch]):\d+', r'\1', text)
    text = re.sub(r'\b\d+\b', 'N', text)
    text = re.sub(r'\s+', ' ', text).strip(' :,.')
    return text, None


def headline(lines, i):
    """the normalised headline of the splat at lines[i]: its title and
    the first function of its stack that is not a reporting helper"""
    title, func = norm_title(lines[i])
    for line in lines[i + 1:i + 80] if func is None else ():
        line = TIME_RE.sub('', line, count=1)
        m = FRAME_RE.match(line)
        if m and not line.lstrip().startswith('?') and \
           not HELPER_RE.match(m.group(1)):
            func = m.group(1).split('.')[0]
            break
    return title + (' @ ' + func if func else '')


def heads_of(log, numbers):
    """the distinct normalised headlines of LOG's lines NUMBERS (1-based)"""
    with open(log, errors='replace') as f:
        lines = f.read().split('\n')
    out = []
    for n in numbers:
        if 0 < n <= len(lines):
            h = clean(headline(lines, n - 1))
            if h not in out:
                out.append(h)
    return out


def cmd_heads(log):
    numbers = [int(line.split(':', 1)[0]) for line in sys.stdin
               if line.split(':', 1)[0].isdigit()]
    for h in heads_of(log, numbers):
        print(h)
    return 0


def splat_set(field):
    """the splats of a row's splat field, known bugs' included"""
    if field in ('none', ''):
        return set()
    return set(field.split(SEP))


def unexplained(field):
    """the splats of a row's splat field that are not a known bug's"""
    return {h for h in splat_set(field) if not h.startswith('known:')}


def splats(run_dir):
    """{test: [headline, ...]} of DIR/splats.tsv"""
    found = {}
    path = os.path.join(run_dir, 'splats.tsv')
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                test, _, what = line.rstrip('\n').partition('\t')
                if what and what not in found.setdefault(test, []):
                    found[test].append(what)
    return found


def rows_from_xml(path):
    rows = []
    for case in ET.parse(path).getroot().iter('testcase'):
        name, secs = case.get('name'), case.get('time', '0')
        skipped, failure = case.find('skipped'), case.find('failure')
        if failure is not None:
            rows.append([name, 'fail', secs, clean(failure.get('message'))])
        elif skipped is not None:
            rows.append([name, 'notrun', secs, clean(skipped.get('message'))])
        else:
            rows.append([name, 'pass', secs, ''])
    return rows


def rows_from_console(path):
    """check's own lines, one row per line, so a test that check -i ran
    several times has a row per run; a test that printed its name and
    never finished is 'lost' (the guest hung or ran out of time in it)."""
    rows = []
    if not os.path.exists(path):
        return []
    with open(path, errors='replace') as f:
        for line in f:
            m = LINE_RE.match(line.rstrip())
            if not m:
                continue
            test, rest = m.group(1), m.group(2) or ''
            # "79s ..." is the time of the test's last run, which check
            # prints before this run's result
            last = re.match(r'^(\d+)s\s+\.\.\.\s*(.*)$', rest)
            if last:
                rest = last.group(2)
            if '[not run]' in rest:
                rows.append([test, 'notrun', '0', clean(rest.split(']', 1)[1])])
            elif re.match(r'^\d+s$', rest):
                rows.append([test, 'pass', rest[:-1], ''])
            elif rest.startswith(('-', '[failed', '_check')):
                rows.append([test, 'fail', '0', clean(rest)])
            else:
                rows.append([test, 'lost', '0', 'started, never finished'])
    return rows


def iterated(run_dir):
    """whether the run was check -i N (its xunit report keeps only the
    last iteration, so its rows come from check's lines)"""
    path = os.path.join(run_dir, 'ctl', 'params')
    if not os.path.exists(path):
        return False
    with open(path) as f:
        for line in f:
            if line.startswith('TESTS='):
                words = ' '.join(shlex.split(line[len('TESTS='):])).split()
                return '-i' in words or '-I' in words
    return False


def boot_row(run_dir):
    """the (boot) row: did check finish and the guest say so?"""
    secs = '0'
    path = os.path.join(run_dir, 'secs')
    if os.path.exists(path):
        with open(path) as f:
            secs = f.read().strip() or '0'
    done = os.path.join(run_dir, 'results', 'check-done')
    if os.path.exists(done):
        return [BOOT, 'pass', secs, 'check finished, completion marker written']
    if os.path.exists(os.path.join(run_dir, 'timedout')):
        why = 'no completion marker: the guest ran out of its time'
    elif os.path.exists(os.path.join(run_dir, 'results')):
        why = 'no completion marker: check did not finish'
    else:
        why = 'no completion marker: no results came back (panic, hang, killed?)'
    return [BOOT, 'lost', secs, why]


def cmd_rows(run_dir):
    xml = os.path.join(run_dir, 'results', 'result.xml')
    console = rows_from_console(os.path.join(run_dir, 'check.log'))
    if os.path.exists(xml) and not iterated(run_dir):
        rows = rows_from_xml(xml)
        # check's xunit writer can keep the message of an earlier failed
        # test (generic/388 "see generic/230.out.bad"): check's own line
        # says why this test failed
        why = {r[0]: r[3] for r in console if r[1] == 'fail'}
        for r in rows:
            if r[1] == 'fail' and why.get(r[0]):
                r[3] = why[r[0]]
    else:
        rows = console
    found = splats(run_dir)
    # a test named in the list that never reported is lost
    expected = os.path.join(run_dir, 'expected.txt')
    if os.path.exists(expected):
        seen = {r[0] for r in rows}
        with open(expected) as f:
            rows += [[t, 'lost', '0', 'never reached: the guest stopped first']
                     for t in f.read().split() if t not in seen]
    rows.append(boot_row(run_dir))
    # the serial console's splats that no test's .dmesg holds (a panic
    # that ended the guest): the test check had started and not finished,
    # or else the boot itself
    serial = os.path.join(run_dir, 'serial-splats.txt')
    if os.path.exists(serial):
        have = {h for hs in found.values() for h in hs}
        lost = [r[0] for r in rows if r[3] == 'started, never finished']
        owner = lost[-1] if lost else BOOT
        with open(serial) as f:
            for h in f.read().split('\n'):
                if h and h not in have and h not in found.setdefault(owner, []):
                    found[owner].append(h)
    for test, result, secs, detail in rows:
        heads = found.get(test, [])
        print('\t'.join([test, result, secs,
                         SEP.join(heads) if heads else 'none', detail]))


def read_rows(path):
    """the rows of a rows.tsv by test, the last row of a repeated test"""
    return {t: rows[-1] for t, rows in read_all(path).items()}


def read_all(path):
    """every row of a rows.tsv, repeats kept (a rerun with check -i N)"""
    rows = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                cols = line.rstrip('\n').split('\t')
                if len(cols) >= 5:
                    rows.setdefault(cols[0], []).append(cols)
    return rows


def pooled(paths):
    """every row of several rows.tsv (the rerun sets of one test, kernel
    and kernel build), pooled"""
    rows = {}
    for path in paths:
        for t, rs in read_all(path).items():
            rows.setdefault(t, []).extend(rs)
    return rows


def thresholds():
    """fstests/verdict.conf as {KEY: value} and its commit"""
    conf, commit = read_conf(os.path.join(HERE, 'verdict.conf'))
    for key in ('RERUNS', 'ALPHA', 'CONFIDENCE', 'MARGIN'):
        if key not in conf:
            raise SystemExit('report.py: fstests/verdict.conf has no %s' % key)
    return conf, commit


def thresholds_line():
    conf, commit = thresholds()
    return ('rules of fstests/verdict.conf at %s: reruns %d per kernel, '
            'regression if one-sided Fisher p < %g, cleared if the %g upper '
            'bound on the failure-rate difference is at most %g' % (
                commit, conf['RERUNS'], conf['ALPHA'], conf['CONFIDENCE'],
                conf['MARGIN']))


def failed(r):
    return r[1] in ('fail', 'lost') or bool(unexplained(r[3]))


def known_flaky(fstyp, data=None, path=None):
    """{test: label} of fstests/known-flaky.tsv for FSTYP.  Each line
    names an unpatched run of ours (a file of Documentation/fstests/
    evidence, where publish never replaces it) and an excerpt of a failure
    of the test in it; a line whose run does not hold that failure is an
    error.  The label only describes a row: it never clears one."""
    known = {}
    data = data or os.path.join(HERE, '..', 'Documentation', 'fstests',
                                'evidence')
    path = path or os.path.join(HERE, "known-flaky.tsv")
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith('#') or not line.strip():
                continue
            cols = line.rstrip('\n').split('\t')
            if len(cols) != 5:
                raise SystemExit('%s:%d: want FSTYP, test, run, excerpt, why'
                                 % (path, n))
            fs, test, run, excerpt, why = cols
            if fs != fstyp:
                continue
            rows = read_all(os.path.join(data, run)).get(test, [])
            if '-base' not in run or not any(
                    failed(r) and r[1] != 'lost' and excerpt in r[4]
                    for r in rows):
                raise SystemExit('%s:%d: %s has no unpatched failure of %s '
                                 'with "%s"' % (path, n, run, test, excerpt))
            known[test] = 'failed unpatched in %s: %s' % (run, why)
    return known


def rerun_verdict(test, p, b, prr, brr):
    """A test that looked like a regression in one run, judged on that
    run and every rerun of both kernels, pooled; an unpatched run that
    was lost counts on neither side.  (text, kind) by verdict.conf."""
    conf, _ = thresholds()
    pr = [p] + prr.get(test, [])
    br = [r for r in [b] + brr.get(test, []) if r[1] != 'lost']
    if not br:
        return 'UNJUDGED: no unpatched run of the test finished', UNJUDGED
    pf, bf = sum(map(failed, pr)), sum(map(failed, br))
    pval = fisher_greater(pf, len(pr), bf, len(br))
    bound = diff_upper(pf, len(pr), bf, len(br), conf['CONFIDENCE'])
    rate = ('failed %d/%d patched, %d/%d unpatched, p=%.2f, '
            'difference <= %.3f' % (pf, len(pr), bf, len(br), pval, bound))
    if pval < conf['ALPHA']:
        return 'REGRESSION: ' + rate, REGRESSION
    if len(br) < conf['RERUNS']:
        return ('UNJUDGED: %s; only %d unpatched runs finished, '
                'verdict.conf asks %d' % (rate, len(br), conf['RERUNS']),
                UNJUDGED)
    if bound <= conf['MARGIN']:
        return 'no significant difference: ' + rate, OK
    return 'UNDECIDED: %s > %g; more runs needed' % (rate, conf['MARGIN']), \
        UNJUDGED


def ran(r):
    return r is not None and r[1] in ('pass', 'fail')


def verdict(p, b):
    """one test: (verdict, kind), kind OK, REGRESSION or UNJUDGED"""
    if p is None:
        return 'UNJUDGED: no result from the patched kernel', UNJUDGED
    if b is None:
        return 'UNJUDGED: no result from the unpatched kernel', UNJUDGED
    if b[1] == 'lost':
        return 'UNJUDGED: the unpatched guest did not finish it (%s)' % (
            b[4][:60]), UNJUDGED
    new = unexplained(p[3]) - unexplained(b[3])
    if p[1] in ('fail', 'lost') and b[1] == 'pass':
        return 'REGRESSION: passes only on the unpatched kernel', REGRESSION
    if new:
        return 'REGRESSION: splat only on the patched kernel: %s' % (
            sorted(new)[0][:60]), REGRESSION
    if p[1] == 'notrun' and b[1] == 'notrun':
        return 'not run on either: ' + p[4][:60], OK
    if p[1] == 'notrun':
        return 'REGRESSION: not run only on the patched kernel', REGRESSION
    if b[1] == 'notrun':
        return 'UNJUDGED: not run on the unpatched kernel', UNJUDGED
    if p[1] in ('fail', 'lost'):
        return 'fails on both kernels', OK
    if b[1] == 'fail':
        return 'fails only on the unpatched kernel', OK
    if unexplained(p[3]):
        return 'the same splats on both kernels', OK
    if splat_set(p[3]) or splat_set(b[3]):
        return 'same; a known base-kernel bug reported', OK
    return 'same', OK


def cell(r):
    if r is None:
        return '-', '-', '-'
    return r[1], r[2], r[3][:70]


def judge(pat, base, prr=None, brr=None, known=None):
    """[(test, patched row, base row, verdict, kind)] of two runs"""
    out = []
    # every run has a (boot) row since the guest writes its completion
    # marker; a run without one is not known to have finished
    for t in sorted(set(pat) | set(base) | {BOOT}):
        p, b = pat.get(t), base.get(t)
        v, kind = verdict(p, b)
        if t == BOOT and (p is None or b is None):
            v = 'UNJUDGED: no completion marker recorded for the %s guest' % (
                'patched' if p is None else 'unpatched')
        if kind != OK and prr is not None and brr is not None and \
           t in prr and t in brr and p is not None and b is not None:
            v, kind = rerun_verdict(t, p, b, prr, brr)
        if known and t in known:
            v += ' [known flaky: %s]' % known[t]
        out.append((t, p, b, v, kind))
    return out


def tally(judged):
    """{kind: n} and the number of tests that ran on both kernels"""
    n = {OK: 0, REGRESSION: 0, UNJUDGED: 0}
    both = 0
    for t, p, b, v, kind in judged:
        n[kind] += 1
        both += t != BOOT and ran(p) and ran(b)
    return n, both


def verdict_line(judged):
    """the run's verdict: ok only if every row is judged and none
    regressed and at least one test ran on both kernels"""
    n, both = tally(judged)
    tests = sum(t != BOOT for t, *_ in judged)
    bad = n[REGRESSION] + n[UNJUDGED]
    if bad:
        word = '%d regression(s), %d unjudged' % (n[REGRESSION], n[UNJUDGED])
    elif both == 0:
        word = 'UNJUDGED: none of the %d tests ran on both kernels' % tests
    else:
        word = 'no regression'
    return ('%s (%d of %d tests ran on both kernels)' % (word, both, tests),
            bool(bad) or both == 0)


def table(judged, markdown):
    out = [(t,) + cell(p) + cell(b) + (v,) for t, p, b, v, kind in judged]
    if markdown:
        lines = ['| test | patched | s | splat | unpatched | s | splat | verdict |',
                 '|---|---|--:|---|---|--:|---|---|']
        lines += ['| ' + ' | '.join(c.replace('|', '/') for c in r) + ' |'
                  for r in out]
    else:
        fmt = '%-12s %-7s %5s %-24s %-7s %5s %-24s %s'
        lines = [fmt % ('test', 'patched', 's', 'splat', 'base', 's', 'splat',
                        'verdict')]
        lines += [fmt % (r[0], r[1], r[2], r[3][:24], r[4], r[5], r[6][:24],
                         r[7]) for r in out]
    return lines


def counts(rows):
    n = {}
    tests = [r for t, r in rows.items() if t != BOOT]
    for r in tests:
        n[r[1]] = n.get(r[1], 0) + 1
    secs = sum(int(r[2]) for r in tests if r[2].isdigit())
    boot = rows.get(BOOT)
    return '%d pass, %d fail, %d not run, %d lost; %d s of tests; guest: %s' % (
        n.get('pass', 0), n.get('fail', 0), n.get('notrun', 0),
        n.get('lost', 0), secs, boot[4] if boot else 'not recorded')


def cut_last(path):
    """drop the last row of PATH (a rows.tsv) if it is a run that started
    and never finished; the row dropped, or None"""
    with open(path) as f:
        lines = f.readlines()
    if not lines:
        return None
    cols = lines[-1].rstrip('\n').split('\t')
    if len(cols) < 5 or cols[1] != 'lost' or cols[4] != 'started, never finished':
        return None
    with open(path, 'w') as f:
        f.writelines(lines[:-1])
    return cols


def cmd_cut(dirs):
    """reruns of both kernels that ran out of time together: their last,
    unfinished runs were cut by the harness, not failed by the kernels"""
    for d in dirs:
        cols = cut_last(os.path.join(d, 'rows.tsv'))
        print('%s: %s' % (os.path.basename(d), 'the last run of %s was cut by '
                          'the time limit: not counted' % cols[0] if cols else
                          'no unfinished last run'))
    return 0


def cmd_regressions(pat_dir, base_dir):
    """the tests to run again: a regression or unjudged, and run on the
    patched kernel (reruns of both may judge them)"""
    pat = read_rows(os.path.join(pat_dir, 'rows.tsv'))
    base = read_rows(os.path.join(base_dir, 'rows.tsv'))
    for t in sorted(pat):
        if t != BOOT and t in base and pat[t][1] != 'notrun' and \
           verdict(pat[t], base[t])[1] != OK:
            print(t)
    return 0


def cmd_compare(pat_dir, base_dir, reruns=()):
    pat = read_rows(os.path.join(pat_dir, 'rows.tsv'))
    base = read_rows(os.path.join(base_dir, 'rows.tsv'))
    prr = brr = None
    if reruns:
        if '--' not in reruns:
            sys.stderr.write(__doc__)
            return 2
        i = reruns.index('--')
        prr = pooled(os.path.join(d, 'rows.tsv') for d in reruns[:i])
        brr = pooled(os.path.join(d, 'rows.tsv') for d in reruns[i + 1:])
    fstyp = os.path.basename(os.path.normpath(pat_dir)).split('-')[0]
    judged = judge(pat, base, prr, brr, known_flaky(fstyp))
    print('\n'.join(table(judged, False)))
    print('patched (%s): %s' % (os.path.basename(pat_dir), counts(pat)))
    print('unpatched: %s' % counts(base))
    print(thresholds_line())
    line, bad = verdict_line(judged)
    print('verdict: %s' % line)
    return 1 if bad else 0


def reclaim(data, name):
    """global and cgroup reclaim counters from DATA/NAME.vmstat, each
    reported on its own: '/proc/vmstat: slabs_scanned N, ...; cgroup: ...'"""
    path = os.path.join(data, name + '.vmstat')
    if not os.path.exists(path):
        return 'not recorded'
    n = {}
    with open(path) as f:
        for line in f:
            key, _, val = line.partition(' ')
            key = 'allocstall' if key.startswith('allocstall_') else key
            if val.strip().isdigit():
                n[key] = n.get(key, 0) + int(val)
    glob = ', '.join('%s %d' % (k, n.get(k, 0)) for k in
                     ('slabs_scanned', 'allocstall', 'pgscan_direct',
                      'pgscan_kswapd', 'oom_kill'))
    if 'memcg_high' not in n:
        return '/proc/vmstat: %s; no memory cgroup' % glob
    cg = ', '.join('%s %d' % (k[6:], n.get(k, 0)) for k in
                   ('memcg_high', 'memcg_max', 'memcg_oom_kill',
                    'memcg_pgscan', 'memcg_pgsteal'))
    return '/proc/vmstat: %s; the tests\' memory cgroup: %s' % (glob, cg)


def run_info(data, name):
    """'kernel ..., accel ..., ...' from DATA/NAME.run (describe_run)"""
    path = os.path.join(data, name + '.run')
    if not os.path.exists(path):
        return 'not recorded'
    info = {}
    with open(path) as f:
        for line in f:
            key, _, val = line.rstrip('\n').partition(' ')
            info[key] = val
    extra = info.get('cmdline', '').split('log_buf_len=8M')[-1].strip()
    series = info.get('series')
    pool = info.get('scratch_dev_pool', '').split(' ')[0]
    return ('series %s, kernel %s, %s, guest memory %s, memory.high %s MiB, '
            'SOAK_DURATION %s s, %s s wall, %s, extra kernel arguments: %s' % (
                '`%s`' % series if series else 'not recorded',
                info.get('kernel', '?'), info.get('accel', '?'),
                info.get('guest_memory', '?'), info.get('memcg_high_mib', '?'),
                info.get('soak_duration_s', '?'), info.get('wall_s', '?'),
                'SCRATCH_DEV_POOL of %d disks' % (int(pool) + 1)
                if pool.isdigit() and pool != '0' else 'no SCRATCH_DEV_POOL',
                '`%s`' % extra if extra else 'none'))


def cmd_markdown(data, kind='default'):
    if not os.path.isdir(data):
        sys.stderr.write('report.py: no data directory %s: run make fstests\n' % data)
        return 1
    files = sorted(f for f in os.listdir(data) if f.endswith('.tsv'))
    runs, reruns = {}, {}
    for f in files:
        fstyp, _, kernel = f[:-4].partition('-')
        if '-rerun' in kernel:	# patched-rerun, base-rerun-patched
            reruns[(fstyp, kernel)] = read_all(os.path.join(data, f))
        else:
            runs.setdefault(fstyp, {})[kernel] = read_rows(os.path.join(data, f))
    if kind == 'smoketest':
        print('# fstests smoketest on the patched and the unpatched kernel')
        print()
        print('Written by `make fstests-smoke` (`fstests/run.sh smoketest`) from')
        print('the per-test rows in `Documentation/fstests/smoketest/`.  The')
        print("`smoketest` group of fstests with SOAK_DURATION 180 s, as")
        print("kvm-xfstests' `smoke` configuration runs it (generic/475, 476,")
        print('521, 522, 642, 750 and 751); the default lists are in')
        print('[fstests-results.md](fstests-results.md).  fstests')
    else:
        print('# fstests on the patched and the unpatched kernel')
        print()
        print('Written by `make fstests` (fstests/run.sh, fstests/report.py) from')
        print('the per-test rows in `Documentation/fstests/data/`; `make')
        print('fstests-report` rewrites it from those files alone.  Whole')
        print('groups, in chunks: [fstests-campaign.md](fstests-campaign.md).')
        if os.path.isdir(os.path.join(data, '..', 'smoketest')):
            print('The smoketest group: [fstests-smoketest.md]'
                  '(fstests-smoketest.md).')
        print('fstests')
    print('v2026.01.27 in a Debian 12 guest under QEMU, TEST and SCRATCH on')
    print('virtio disks; XFS made with `-m rmapbt=1,reflink=1`, ext4 with')
    print('`-O quota`, btrfs with the defaults of mkfs.btrfs.  "patched" is')
    print('the series with CONFIG_DEBUG_MEMALLOC_SCOPE and lockdep, "strict"')
    print('the same kernel booted in strict mode for the file system tested')
    print('(`memalloc_scope.strict=xfs`), "unpatched"')
    print('the same 6.12 tree and config without the series.')
    print()
    print('Every row is ok, a REGRESSION or UNJUDGED, and only ok passes. A')
    print('regression is a test that fails only on the patched kernel, is')
    print('not run only there, or shows a splat there that the unpatched')
    print('kernel did not show (splats are compared by their normalised')
    print('headline: title and first function). UNJUDGED is a missing, lost')
    print('or not-run unpatched result, or a guest that never wrote its')
    print('completion marker (the "(boot)" row). An apparent regression is')
    print('run again on both kernels; every rerun is pooled, and the test is')
    print('a regression if it failed significantly more often patched,')
    print('cleared if the upper bound on the difference of failure rates is')
    print('within the margin, and UNDECIDED (unjudged) otherwise.')
    print('`fstests/known-flaky.tsv` only labels a row, with the committed')
    print('unpatched failure it cites.')
    print()
    print('- ' + thresholds_line())
    print()
    print('| file system | kernel | pass | fail | not run | lost | tests on both | regressions | unjudged |')
    print('|---|---|--:|--:|--:|--:|--:|--:|--:|')
    judged = {}
    for fstyp in sorted(runs):
        base = runs[fstyp].get('base', {})
        for k in KERNELS:
            if k not in runs[fstyp]:
                continue
            rows = runs[fstyp][k]
            n = {}
            for t, r in rows.items():
                if t != BOOT:
                    n[r[1]] = n.get(r[1], 0) + 1
            cols = ['-', '-', '-']
            if k != 'base':
                judged[(fstyp, k)] = judge(
                    rows, base, reruns.get((fstyp, k + '-rerun')),
                    reruns.get((fstyp, 'base-rerun-' + k)), known_flaky(fstyp))
                v, both = tally(judged[(fstyp, k)])
                cols = [str(both), str(v[REGRESSION]), str(v[UNJUDGED])]
            print('| %s | %s | %d | %d | %d | %d | %s |' % (
                fstyp, 'unpatched' if k == 'base' else k, n.get('pass', 0),
                n.get('fail', 0), n.get('notrun', 0), n.get('lost', 0),
                ' | '.join(cols)))
    print()
    for (fstyp, k), rows in sorted(judged.items()):
        kernels = runs[fstyp]
        base = kernels.get('base', {})
        print('## %s: %s against unpatched' % (fstyp, k))
        print()
        print('- %s: %s' % (k, counts(kernels[k])))
        print('- unpatched: %s' % counts(base))
        print('- %s run: %s' % (k, run_info(data, '%s-%s' % (fstyp, k))))
        print('- unpatched run: %s' % run_info(data, fstyp + '-base'))
        print('- reclaim in the %s guest, whole boot: %s'
              % (k, reclaim(data, '%s-%s' % (fstyp, k))))
        print('- reclaim in the unpatched guest, whole boot: %s'
              % reclaim(data, fstyp + '-base'))
        line, bad = verdict_line(rows)
        print('- verdict: %s' % ('**%s**' % line if bad else line))
        print()
        print('\n'.join(table(rows, True)))
        print()
    return 0


def row(result, secs='5', splat='none', detail='', test='t'):
    """a made-up row of test t, for cmd_selftest"""
    return [test, result, secs, splat, detail]


# (name, patched row, unpatched row, kind) for cmd_selftest
VERDICT_CASES = [
    ('pass same on both', row('pass'), row('pass', '6'), OK),
    ('fails only when patched', row('fail', detail='output mismatch'),
     row('pass', '6'), REGRESSION),
    ('lost only when patched', row('lost', '0'), row('pass', '6'), REGRESSION),
    ('splat only when patched', row('pass', splat='WARNING: at mm/x.c @ f'),
     row('pass', '6'), REGRESSION),
    ('known bug only when patched', row('pass', splat='known: dquot'),
     row('pass', '6'), OK),
    ('the same splat on both', row('pass', splat='WARNING: a @ f'),
     row('pass', '6', 'WARNING: a @ f'), OK),
    ('a different splat when patched, though unpatched has its own',
     row('pass', splat='WARNING: a @ f' + SEP + 'BUG: b @ g'),
     row('pass', '6', 'WARNING: a @ f'), REGRESSION),
    ('fails on both', row('fail', detail='x'), row('fail', '6', detail='x'), OK),
    ('fails only unpatched', row('pass'), row('fail', '6', detail='x'), OK),
    ('not run only when patched', row('notrun', '0', detail='why'),
     row('pass', '6'), REGRESSION),
    ('not run on both', row('notrun', '0', detail='why'),
     row('notrun', '0', detail='why'), OK),
    ('missing when patched', None, row('pass', '6'), UNJUDGED),
    ('missing when unpatched', row('pass'), None, UNJUDGED),
    ('unpatched guest never reached it', row('pass'),
     row('lost', '0', detail='never reached: the guest stopped first'), UNJUDGED),
    ('lost on both', row('lost', '0'), row('lost', '0'), UNJUDGED),
    ('not run only unpatched', row('pass'), row('notrun', '0', detail='why'),
     UNJUDGED),
    ('the unpatched guest wrote no completion marker',
     row('pass', test=BOOT), row('lost', test=BOOT, detail='no marker'), UNJUDGED),
    ('the patched guest wrote no completion marker',
     row('lost', test=BOOT, detail='no marker'), row('pass', test=BOOT),
     REGRESSION),
]

# (name, patched runs, unpatched runs, kind) for a test that failed once
# patched and passed once unpatched; judged by fstests/verdict.conf
RERUN_CASES = [
    ('20 clean reruns on each bound the difference', ['pass'] * 20,
     ['pass'] * 20, OK),
    ('5 clean reruns on each do not', ['pass'] * 5, ['pass'] * 5, UNJUDGED),
    ('flaky on both, as ext4 generic/388 (3/30 against 2/29)',
     ['pass'] * 27 + ['fail'] * 2, ['pass'] * 26 + ['fail'] * 2, OK),
    ('the unpatched kernel failing once alone clears nothing',
     ['pass', 'fail', 'pass', 'pass', 'pass'],
     ['pass', 'fail', 'pass', 'pass', 'pass'], UNJUDGED),
    ('fails every time patched', ['fail'] * 5, ['pass'] * 5, REGRESSION),
    ('fails far more often patched', ['fail'] * 10 + ['pass'] * 10,
     ['pass'] * 19 + ['fail'], REGRESSION),
    ('a lost unpatched rerun is no unpatched run', ['pass'] * 20,
     ['lost'] * 20, UNJUDGED),
    ('a lost unpatched rerun is no unpatched failure either',
     ['pass'] * 17 + ['fail'] * 3, ['pass'] * 20 + ['lost'] * 3, UNJUDGED),
]

CONSOLE = '\n'.join([
    'generic/019        [not run] fio engine libaio not available',
    'generic/027 12s ...  14s',
    'generic/052        33s',
    'generic/388        - output mismatch (see /results/generic/388.out.bad)',
    'generic/475        _check_dmesg: something found (see /results/generic/475.dmesg)',
    'generic/646       ',
    # check -i: the last run's time, then this run's result
    'generic/388  79s ... _check_generic_filesystem: filesystem on /dev/vdc is inconsistent',
    'generic/388  79s ...  71s',
    'generic/388  71s ... [failed, exit status 1]- output mismatch'])
CONSOLE_ROWS = [('generic/019', 'notrun'), ('generic/027', 'pass'),
                ('generic/052', 'pass'), ('generic/388', 'fail'),
                ('generic/475', 'fail'), ('generic/646', 'lost'),
                ('generic/388', 'fail'), ('generic/388', 'pass'),
                ('generic/388', 'fail')]

# (name, log lines, line number of the splat, headline)
HEAD_CASES = [
    ('a WARNING without CPU, PID and line',
     ['[   12.5] WARNING: CPU: 1 PID: 77 at fs/xfs/xfs_message.c:89 asswarn+0x23/0x30'],
     1, 'WARNING: at fs/xfs/xfs_message.c @ asswarn'),
    ('a BUG named by its first function past the reporting helpers',
     ['[    3.1] BUG: sleeping function called from invalid context at kernel/locking/semaphore.c:59',
      '[    3.1] Call Trace:', '[    3.1]  <TASK>',
      '[    3.1]  dump_stack_lvl+0x5d/0x80', '[    3.1]  __might_resched+0x1a5/0x2a0',
      '[    3.1]  ? xfs_buf_lock+0x5/0x10', '[    3.1]  down+0x1d/0x80',
      '[    3.1]  xfs_buf_lock+0x35/0x110'],
     1, 'BUG: sleeping function called from invalid context at '
        'kernel/locking/semaphore.c @ down'),
    ('a SLUB report', ['BUG kmalloc-512 (Not tainted): Poison overwritten',
                       'Call Trace:', ' dump_stack_lvl+0x5d/0x80',
                       ' check_bytes_and_report+0x1/0x2', ' alloc_rbio+0x1/0x2'],
     1, 'BUG kmalloc-N (Not tainted): Poison overwritten @ alloc_rbio'),
    ('a hung task without its name and time',
     ['[  300.0] INFO: task kworker/1:2:83 blocked for more than 122 seconds.'],
     1, 'INFO: task blocked for more than N seconds'),
]


def case_rows(tmp, marker, serial):
    """the rows cmd_rows makes of a run in TMP: two tests listed, the
    second started and never finished; check-done if MARKER; SERIAL the
    serial console's splat headlines"""
    import contextlib
    import io
    os.makedirs(os.path.join(tmp, 'results'), exist_ok=True)
    with open(os.path.join(tmp, 'check.log'), 'w') as f:
        f.write('generic/001        3s\ngeneric/002       \n')
    with open(os.path.join(tmp, 'expected.txt'), 'w') as f:
        f.write('generic/001\ngeneric/002\n')
    with open(os.path.join(tmp, 'serial-splats.txt'), 'w') as f:
        f.write(''.join(h + '\n' for h in serial))
    done = os.path.join(tmp, 'results', 'check-done')
    if marker:
        with open(done, 'w') as f:
            f.write('0\n')
    elif os.path.exists(done):
        os.remove(done)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cmd_rows(tmp)
    return {c[0]: c for c in (line.split('\t')
                              for line in out.getvalue().splitlines())}


def selftest_cases():
    """(name, ok, detail) of every selftest case"""
    import tempfile
    for name, p, b, want in VERDICT_CASES:
        got, kind = verdict(p, b)
        yield name, kind == want, '%s; want %s' % (got, want)
    for name, prr, brr, want in RERUN_CASES:
        got, kind = rerun_verdict(
            't', row('fail'), row('pass'),
            {'t': [row(r) for r in prr]}, {'t': [row(r) for r in brr]})
        yield 'rerun: ' + name, kind == want, '%s; want %s' % (got, want)
    judged = judge({'a': row('notrun', test='a')}, {'a': row('notrun', test='a')})
    line, bad = verdict_line(judged)
    yield 'a run in which no test ran on either kernel is unjudged', bad, line
    both = {'a': row('pass', test='a'), BOOT: row('pass', test=BOOT)}
    line, bad = verdict_line(judge(both, both))
    yield 'a run with a test on both and both guests finished is ok', \
        not bad, line
    line, bad = verdict_line(judge({'a': row('pass', test='a')},
                                   {'a': row('pass', test='a')}))
    yield 'a run that recorded no completion marker is unjudged', bad, line
    for name, lines, n, want in HEAD_CASES:
        got = headline(lines, n - 1)
        yield 'headline: ' + name, got == want, 'got %r' % got
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'check.log')
        with open(path, 'w') as f:
            f.write(CONSOLE)
        got = [(r[0], r[1]) for r in rows_from_console(path)]
    yield "check's lines parsed", got == CONSOLE_ROWS, 'got %s' % got
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'rows.tsv')
        with open(path, 'w') as f:
            f.write('t\tpass\t70\tnone\t\nt\tlost\t0\tnone\tstarted, never finished\n')
        first = cut_last(path)
        second = cut_last(path)
        left = read_all(path)['t']
    yield ('an unfinished last run is cut, a finished one is not',
           first is not None and second is None and len(left) == 1, '')
    got = stale_message_row()
    yield ("a failure's reason from check's line, not a stale xunit message",
           got.startswith('_check_generic_filesystem'), got)
    with tempfile.TemporaryDirectory() as tmp:
        rows = case_rows(tmp, False, ['Kernel panic - not syncing: x'])
        yield ('no completion marker: the boot is lost and the serial '
               'console\'s panic lands on the unfinished test',
               rows[BOOT][1] == 'lost' and
               rows['generic/002'][3] == 'Kernel panic - not syncing: x',
               str(rows.get(BOOT)))
        rows = case_rows(tmp, True, [])
        yield 'with the completion marker the boot passes', \
            rows[BOOT][1] == 'pass', str(rows.get(BOOT))
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, 'ext4-base.tsv'), 'w') as f:
            f.write('generic/388\tfail\t0\tnone\tfilesystem is inconsistent\n')
        with open(os.path.join(tmp, 'ext4-patched.tsv'), 'w') as f:
            f.write('generic/475\tfail\t0\tnone\tfilesystem is inconsistent\n')
        with open(os.path.join(tmp, 'good.tsv'), 'w') as f:
            f.write('ext4\tgeneric/388\text4-base.tsv\tis inconsistent\twhy\n')
        with open(os.path.join(tmp, 'bad.tsv'), 'w') as f:
            f.write('ext4\tgeneric/475\text4-patched.tsv\tis inconsistent\twhy\n')
        good = known_flaky('ext4', tmp, os.path.join(tmp, 'good.tsv'))
        try:
            known_flaky('ext4', tmp, os.path.join(tmp, 'bad.tsv'))
            refused = False
        except SystemExit:
            refused = True
        yield ('known-flaky.tsv: a line with a committed unpatched failure '
               'labels, one citing a patched run is refused',
               'generic/388' in good and refused, str(good))
    try:
        labels = [known_flaky(fs) for fs in ('xfs', 'ext4', 'btrfs')]
        why = '%d labels' % sum(map(len, labels))
    except SystemExit as e:
        why = 'refused: %s' % e
    yield ('the committed known-flaky.tsv cites committed unpatched failures',
           not why.startswith('refused'), why)


def cmd_selftest():
    cases = list(selftest_cases())
    print('TAP version 13')
    print('1..%d' % len(cases))
    bad = 0
    for n, (name, ok, detail) in enumerate(cases, 1):
        bad += not ok
        print('%s %d %s%s' % ('ok' if ok else 'not ok', n, name,
                              ' # ' + detail if detail else ''))
    return 1 if bad else 0


def stale_message_row():
    """the detail cmd_rows gives generic/388 when the xunit report carries
    generic/230's message and check's line says the real reason"""
    import contextlib
    import io
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, 'results'))
        with open(os.path.join(tmp, 'results', 'result.xml'), 'w') as f:
            f.write('<testsuite><testcase name="generic/388" time="93">'
                    '<failure message="- output mismatch (see /results/'
                    'generic/230.out.bad)"/></testcase></testsuite>')
        with open(os.path.join(tmp, 'check.log'), 'w') as f:
            f.write('generic/388        _check_generic_filesystem: '
                    'filesystem on /dev/vdc is inconsistent\n')
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            cmd_rows(tmp)
    return out.getvalue().split('\n')[0].split('\t')[4]


def main(argv):
    if len(argv) == 2 and argv[1] == 'selftest':
        return cmd_selftest()
    if len(argv) == 3 and argv[1] == 'rows':
        cmd_rows(argv[2])
        return 0
    if len(argv) >= 4 and argv[1] == 'compare':
        return cmd_compare(argv[2], argv[3], argv[4:])
    if len(argv) == 3 and argv[1] == 'heads':
        return cmd_heads(argv[2])
    if len(argv) >= 3 and argv[1] == 'cut':
        return cmd_cut(argv[2:])
    if len(argv) == 4 and argv[1] == 'regressions':
        return cmd_regressions(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == 'markdown' and argv[3] in ('default', 'smoketest'):
        return cmd_markdown(argv[2], argv[3])
    if len(argv) == 3 and argv[1] == 'markdown':
        return cmd_markdown(argv[2])
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
