#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fstests/report.py: the per-test rows of an fstests run, the side-by-side
verdict of two runs, and Documentation/fstests-results.md.

  report.py rows DIR           DIR/results/result.xml (or, if the guest
                               never wrote it, check's lines in
                               DIR/check.log) and DIR/splats.tsv -> rows
  report.py compare PAT BASE [PAT-RERUN BASE-RERUN]
                               table of two runs' rows.tsv, apparent
                               regressions judged on the reruns' failure
                               rates if given; status 1 if the patched run
                               regressed
  report.py regressions PAT BASE  the tests to run again
  report.py cut DIR...         drop the last row of each DIR/rows.tsv if it
                               never finished (reruns of both kernels that
                               ran out of time together)
  report.py markdown DATA      the report from DATA/<fstyp>-<kernel>.tsv
  report.py selftest           the verdict rules and check's-line parser on
                               made-up runs, as TAP (make test runs it)

A row is tab-separated: test, result (pass, fail, notrun, lost), seconds,
splat ("none", "known: <bug>" or the first splat line), detail.
"""

import os
import math
import re
import shlex
import sys
import xml.etree.ElementTree as ET

# check's progress lines: "generic/001 3s ...  4s", "generic/002 [not run]
# why", "generic/003 - output mismatch ...", "generic/004 _check_dmesg: ..."
LINE_RE = re.compile(r'^((?:generic|xfs|ext4|btrfs|shared)/\d+)(?:\s+(.*))?$')
KERNELS = ('patched', 'strict', 'base')


def clean(text):
    return ' '.join((text or '').split()).replace('\t', ' ')[:160]


def splats(run_dir):
    found = {}
    path = os.path.join(run_dir, 'splats.tsv')
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                test, _, what = line.rstrip('\n').partition('\t')
                # an unexplained splat outranks a known bug's report
                if test not in found or found[test].startswith('known:'):
                    found[test] = what
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
    for test, result, secs, detail in rows:
        print('\t'.join([test, result, secs, found.get(test, 'none'), detail]))


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


def failed(r):
    return r[1] in ('fail', 'lost') or unexplained(r[3])


def fisher_greater(a, n1, b, n2):
    """one-sided Fisher exact test: the chance of a or more failures in
    the n1 patched runs if both kernels failed alike (a + b failures in
    all)"""
    k, total = a + b, n1 + n2
    tail = sum(math.comb(n1, x) * math.comb(n2, k - x)
               for x in range(a, min(k, n1) + 1))
    return tail / math.comb(total, k)


def known_flaky(fstyp):
    """{test: why} of fstests/known-flaky.tsv for FSTYP: tests that fail
    now and then on the unpatched 6.12 kernel, by their maintainers'
    account, though maybe not in our runs of it"""
    known = {}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        'known-flaky.tsv')
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            fs, test, why = line.rstrip('\n').split('\t', 2)
            if fs == fstyp:
                known[test] = why
    return known


def rerun_verdict(test, p, b, prr, brr, known=None):
    """A test that looked like a regression in one run, judged on the
    failure counts of that run plus the reruns of both kernels: a
    regression if the patched kernel failed significantly more often
    (one-sided Fisher test, p < 0.05); flaky on both if the unpatched
    kernel failed too; known flaky if it is in fstests/known-flaky.tsv
    (KNOWN); undecided if none of these and the counts are too small to
    tell.  Undecided fails the verdict like a regression."""
    pr, br = [p] + prr.get(test, []), [b] + brr.get(test, [])
    pf, bf = sum(map(failed, pr)), sum(map(failed, br))
    pval = fisher_greater(pf, len(pr), bf, len(br))
    rate = 'failed %d/%d patched, %d/%d unpatched, p=%.2f' % (
        pf, len(pr), bf, len(br), pval)
    if pval < 0.05:
        return 'REGRESSION: ' + rate, True
    if bf > 0:
        return 'flaky on both kernels: ' + rate, False
    if known and test in known:
        return ('known flaky (fstests/known-flaky.tsv), no significant '
                'difference: ' + rate), False
    return 'UNDECIDED: %s; never failed unpatched, more runs needed' % rate, True


def unexplained(splat):
    return splat not in ('none', '') and not splat.startswith('known:')


def verdict(p, b):
    """one test: (verdict, is-regression)"""
    if p is None:
        return 'not run on the patched kernel', True
    if b is None:
        return 'not run on the unpatched kernel', False
    if unexplained(p[3]) and not unexplained(b[3]):
        return 'REGRESSION: splat only on the patched kernel', True
    if p[1] in ('fail', 'lost') and b[1] == 'pass':
        return 'REGRESSION: passes only on the unpatched kernel', True
    if p[1] in ('fail', 'lost') and b[1] in ('fail', 'lost'):
        return 'fails on both kernels', False
    if p[1] == 'pass' and b[1] in ('fail', 'lost'):
        return 'fails only on the unpatched kernel', False
    if p[1] == 'notrun' and b[1] == 'notrun':
        return 'not run on either: ' + p[4][:60], False
    if p[1] == 'notrun':
        return 'REGRESSION: not run only on the patched kernel', True
    if b[1] == 'notrun':
        return 'not run only on the unpatched kernel', False
    if unexplained(p[3]):
        return 'splat on both kernels', False
    if p[3].startswith('known:') or b[3].startswith('known:'):
        return 'same; a known base-kernel bug reported', False
    return 'same', False


def cell(r):
    if r is None:
        return '-', '-', '-'
    splat = 'none' if r[3] == 'none' else r[3][:70]
    return r[1], r[2], splat


def table(pat, base, markdown, prr=None, brr=None, known=None):
    tests = sorted(set(pat) | set(base))
    out, regressions = [], 0
    for t in tests:
        v, bad = verdict(pat.get(t), base.get(t))
        if bad and prr and brr and t in prr and t in brr:
            v, bad = rerun_verdict(t, pat[t], base[t], prr, brr, known)
        regressions += bad
        out.append((t,) + cell(pat.get(t)) + cell(base.get(t)) + (v,))
    if markdown:
        lines = ['| test | patched | s | splat | unpatched | s | splat | verdict |',
                 '|---|---|--:|---|---|--:|---|---|']
        lines += ['| ' + ' | '.join(c.replace('|', '/') for c in row) + ' |'
                  for row in out]
    else:
        fmt = '%-12s %-7s %5s %-24s %-7s %5s %-24s %s'
        lines = [fmt % ('test', 'patched', 's', 'splat', 'base', 's', 'splat', 'verdict')]
        lines += [fmt % (r[0], r[1], r[2], r[3][:24], r[4], r[5], r[6][:24], r[7])
                  for r in out]
    return lines, regressions


def counts(rows):
    n = {}
    for r in rows.values():
        n[r[1]] = n.get(r[1], 0) + 1
    secs = sum(int(r[2]) for r in rows.values() if r[2].isdigit())
    return '%d pass, %d fail, %d not run, %d lost; %d s of tests' % (
        n.get('pass', 0), n.get('fail', 0), n.get('notrun', 0),
        n.get('lost', 0), secs)


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
    """the tests to run again: failed, lost or a splat only when patched"""
    pat = read_rows(os.path.join(pat_dir, 'rows.tsv'))
    base = read_rows(os.path.join(base_dir, 'rows.tsv'))
    for t in sorted(pat):
        if t in base and verdict(pat[t], base[t])[1] and failed(pat[t]):
            print(t)
    return 0


def cmd_compare(pat_dir, base_dir, prr_dir=None, brr_dir=None):
    pat = read_rows(os.path.join(pat_dir, 'rows.tsv'))
    base = read_rows(os.path.join(base_dir, 'rows.tsv'))
    prr = read_all(os.path.join(prr_dir, 'rows.tsv')) if prr_dir else None
    brr = read_all(os.path.join(brr_dir, 'rows.tsv')) if brr_dir else None
    fstyp = os.path.basename(os.path.normpath(pat_dir)).split('-')[0]
    lines, regressions = table(pat, base, False, prr, brr, known_flaky(fstyp))
    print('\n'.join(lines))
    print('patched (%s): %s' % (os.path.basename(pat_dir), counts(pat)))
    print('unpatched: %s' % counts(base))
    if not pat:
        print('no results from the patched kernel')
        return 1
    undecided = sum('UNDECIDED' in line for line in lines)
    print('verdict: %s' % ('%d regression(s), %d of them undecided' % (
        regressions, undecided) if regressions else 'no regression'))
    return 1 if regressions else 0


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
    return ('kernel %s, %s, guest memory %s, memory.high %s MiB, '
            'SOAK_DURATION %s s, %s s wall, extra kernel arguments: %s' % (
                info.get('kernel', '?'), info.get('accel', '?'),
                info.get('guest_memory', '?'), info.get('memcg_high_mib', '?'),
                info.get('soak_duration_s', '?'), info.get('wall_s', '?'),
                '`%s`' % extra if extra else 'none'))


def cmd_markdown(data):
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
    print('# fstests on the patched and the unpatched kernel')
    print()
    print('Written by `make fstests` (fstests/run.sh, fstests/report.py) from')
    print('the per-test rows in `Documentation/fstests/data/`; `make')
    print('fstests-report` rewrites it from those files alone.  fstests')
    print('v2026.01.27 in a Debian 12 guest under QEMU, TEST and SCRATCH on')
    print('virtio disks; XFS made with `-m rmapbt=1,reflink=1`, ext4 with')
    print('`-O quota`, btrfs with the defaults of mkfs.btrfs.  "patched" is the series with CONFIG_DEBUG_MEMALLOC_SCOPE')
    print('and lockdep, "strict" the same kernel booted with')
    print('`memalloc_scope.strict=1`, "unpatched" the same 6.12 tree and')
    print('config without the series.  A regression is a test that passes on')
    print('the unpatched kernel and fails on the patched one, or a splat only')
    print('on the patched one.  Such a test is run FSTESTS_RERUN more times on')
    print('both kernels and stays a regression only if it failed significantly')
    print('more often patched (one-sided Fisher test, p < 0.05); if it never')
    print('failed unpatched it is UNDECIDED, which counts as a regression,')
    print('unless `fstests/known-flaky.tsv` names it as flaky on the unpatched')
    print('6.12 kernel by its maintainers\' account.')
    print()
    print('| file system | kernel | pass | fail | not run | lost | regressions or undecided |')
    print('|---|---|--:|--:|--:|--:|--:|')
    for fstyp in sorted(runs):
        base = runs[fstyp].get('base', {})
        for k in ('patched', 'strict', 'base'):
            if k not in runs[fstyp]:
                continue
            rows = runs[fstyp][k]
            n = {}
            for r in rows.values():
                n[r[1]] = n.get(r[1], 0) + 1
            reg = '-' if k == 'base' else str(table(
                rows, base, True, reruns.get((fstyp, k + '-rerun')),
                reruns.get((fstyp, 'base-rerun-' + k)), known_flaky(fstyp))[1])
            print('| %s | %s | %d | %d | %d | %d | %s |' % (
                fstyp, 'unpatched' if k == 'base' else k, n.get('pass', 0),
                n.get('fail', 0), n.get('notrun', 0), n.get('lost', 0), reg))
    print()
    total = 0
    for fstyp in sorted(runs):
        kernels = runs[fstyp]
        base = kernels.get('base', {})
        for k in ('patched', 'strict'):
            if k not in kernels:
                continue
            prr = reruns.get((fstyp, k + '-rerun'))
            brr = reruns.get((fstyp, 'base-rerun-' + k))
            lines, regressions = table(kernels[k], base, True, prr, brr,
                                       known_flaky(fstyp))
            total += regressions
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
            undecided = sum('UNDECIDED' in line for line in lines)
            print('- verdict: %s' % (
                '**%d regression(s), %d of them undecided** (see the table)'
                % (regressions, undecided) if regressions else 'no regression'))
            print()
            print('\n'.join(lines))
            print()
    return 0


def row(result, secs='5', splat='none', detail=''):
    """a made-up row of test t, for cmd_selftest"""
    return ['t', result, secs, splat, detail]


# (patched row, unpatched row, is-regression) for cmd_selftest
VERDICT_CASES = [
    ('pass same on both', row('pass'), row('pass', '6'), False),
    ('fails only when patched', row('fail', detail='output mismatch'),
     row('pass', '6'), True),
    ('lost only when patched', row('lost', '0'), row('pass', '6'), True),
    ('splat only when patched', row('pass', splat='WARNING: at mm/x.c'),
     row('pass', '6'), True),
    ('known bug only when patched', row('pass', splat='known: dquot'),
     row('pass', '6'), False),
    ('splat on both', row('pass', splat='WARNING: a'),
     row('pass', '6', 'WARNING: a'), False),
    ('fails on both', row('fail', detail='x'), row('fail', '6', detail='x'), False),
    ('fails only unpatched', row('pass'), row('fail', '6', detail='x'), False),
    ('not run only when patched', row('notrun', '0', detail='why'),
     row('pass', '6'), True),
    ('not run on both', row('notrun', '0', detail='why'),
     row('notrun', '0', detail='why'), False),
    ('missing when patched', None, row('pass', '6'), True),
]

# (name, patched reruns, unpatched reruns, is-regression) for a test that
# failed once patched and passed once unpatched
RERUN_CASES = [
    ('never fails unpatched', ['pass'] * 5, ['pass'] * 5, True),
    ('flaky on both', ['pass', 'fail', 'pass', 'pass', 'pass'],
     ['pass', 'fail', 'pass', 'pass', 'pass'], False),
    ('fails far more often patched', ['fail'] * 5,
     ['pass', 'fail', 'pass', 'pass', 'pass'], True),
    ('fails every time patched', ['fail'] * 5, ['pass'] * 5, True),
    ('known flaky, no significant difference', ['pass'] * 29 + ['fail'],
     ['pass'] * 30, False),
    ('known flaky, but failing far more often patched', ['fail'] * 10 +
     ['pass'] * 20, ['pass'] * 30, True),
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


def cmd_selftest():
    import tempfile
    n, bad = 0, 0
    print('TAP version 13')
    print('1..%d' % (len(VERDICT_CASES) + len(RERUN_CASES) + 3))
    for name, p, b, want in VERDICT_CASES:
        n += 1
        got, regression = verdict(p, b)
        ok = regression == want
        bad += not ok
        print('%s %d %s # %s' % ('ok' if ok else 'not ok', n, name, got))
    for name, prr, brr, want in RERUN_CASES:
        n += 1
        known = {'t': 'flaky upstream'} if name.startswith('known') else None
        got, regression = rerun_verdict(
            't', row('fail'), row('pass'),
            {'t': [row(r) for r in prr]}, {'t': [row(r) for r in brr]},
            known)
        ok = regression == want
        bad += not ok
        print('%s %d rerun: %s # %s' % ('ok' if ok else 'not ok', n, name, got))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'check.log')
        with open(path, 'w') as f:
            f.write(CONSOLE)
        got = [(r[0], r[1]) for r in rows_from_console(path)]
    n += 1
    ok = got == CONSOLE_ROWS
    bad += not ok
    print('%s %d check\'s lines parsed%s' % ('ok' if ok else 'not ok', n,
                                           '' if ok else ' # got %s' % got))
    n += 1
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'rows.tsv')
        with open(path, 'w') as f:
            f.write('t\tpass\t70\tnone\t\nt\tlost\t0\tnone\tstarted, never finished\n')
        first = cut_last(path)
        second = cut_last(path)
        left = read_all(path)['t']
    ok = first is not None and second is None and len(left) == 1
    bad += not ok
    print('%s %d an unfinished last run is cut, a finished one is not'
          % ('ok' if ok else 'not ok', n))
    n += 1
    got = stale_message_row()
    ok = got.startswith('_check_generic_filesystem')
    bad += not ok
    print('%s %d a failure\'s reason from check\'s line, not a stale xunit '
          'message # %s' % ('ok' if ok else 'not ok', n, got))
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
    return out.getvalue().rstrip('\n').split('\t')[4]


def main(argv):
    if len(argv) == 2 and argv[1] == 'selftest':
        return cmd_selftest()
    if len(argv) == 3 and argv[1] == 'rows':
        cmd_rows(argv[2])
        return 0
    if len(argv) in (4, 6) and argv[1] == 'compare':
        return cmd_compare(*argv[2:])
    if len(argv) >= 3 and argv[1] == 'cut':
        return cmd_cut(argv[2:])
    if len(argv) == 4 and argv[1] == 'regressions':
        return cmd_regressions(argv[2], argv[3])
    if len(argv) == 3 and argv[1] == 'markdown':
        return cmd_markdown(argv[2])
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
