#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fstests/campaign.py: a group of fstests (quick, auto) run in chunks on
the patched and the unpatched kernel, a chunk at a time, so that a
campaign of many hours survives being stopped (fstests/run.sh campaign).

  campaign.py list SRC FSTYP GROUP  the group's tests for FSTYP (generic/
                                    and FSTYP/, as check picks them), from
                                    the _begin_fstest lines of the fstests
                                    source SRC (a directory or a tarball),
                                    sorted
  campaign.py chunks DIR            how many chunks the campaign in DIR has
  campaign.py next DIR              the number of the first chunk of the
                                    campaign in DIR with no stored result;
                                    status 1 when every chunk is stored
  campaign.py tests DIR N           the tests of chunk N
  campaign.py markdown ROOT         the campaign page from the stored
                                    chunks of every campaign under ROOT
  campaign.py expected ROOT FSTYP   the tests that failed on the unpatched
                                    kernel in FSTYP's stored chunks, with
                                    the chunk and check's reason (kdevops
                                    keeps such lists as expunges; here they
                                    only label rows)
  campaign.py selftest              the chunking and the page on made-up
                                    chunks, as TAP

A campaign is a directory FSTYP-GROUP holding tests.txt (the group's tests,
fixed when the campaign starts, so that a chunk means the same tests on
every call), meta (chunk=N, the fstests source's hash) and one directory
chunk-NNN per finished chunk: patched.tsv and base.tsv (fstests/report.py
rows), the pooled reruns patched-rerun.tsv and base-rerun.tsv when a test
failed on the patched kernel only, and run (key=value: series, kernels,
wall seconds).  fstests/run.sh writes a chunk's directory whole, by a
rename, once both guests finished; a chunk that was cut short leaves
nothing and runs again whole.  Every row is judged by fstests/report.py's
rules; the page only reads these files.
"""

import io
import os
import re
import statistics
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# pylint: disable=wrong-import-position
from report import (BOOT, OK, REGRESSION, UNJUDGED, judge,  # noqa: E402
                    read_all, read_rows, thresholds_line)
from nofs_stats import Tap  # noqa: E402  (on the path report.py set)

TEST_RE = re.compile(r'(?:^|/)tests/([a-z0-9]+)/(\d+)$')
BEGIN_RE = re.compile(r'^_begin_fstest\s+(.*)$', re.M)


def group_tests(src, fstyp, group):
    """[test] of GROUP for FSTYP in the fstests source SRC, sorted"""
    out = []

    def take(name, text):
        m = TEST_RE.search(name)
        if not m or m.group(1) not in ('generic', fstyp):
            return
        b = BEGIN_RE.search(text)
        if b and group in b.group(1).split():
            out.append('%s/%s' % (m.group(1), m.group(2)))

    if os.path.isdir(src):
        for d in ('generic', fstyp):
            top = os.path.join(src, 'tests', d)
            for f in os.listdir(top):
                p = os.path.join(top, f)
                if f.isdigit() and os.path.isfile(p):
                    with open(p, errors='replace') as fh:
                        take(p, fh.read())
    else:
        with tarfile.open(src) as tar:
            for m in tar:
                if m.isfile() and TEST_RE.search(m.name):
                    take(m.name, io.TextIOWrapper(
                        tar.extractfile(m), errors='replace').read())
    return sorted(out)


def read_kv(path):
    kv = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if '=' in line:
                    k, v = line.rstrip('\n').split('=', 1)
                    kv[k] = v
    return kv


def tests_of(cdir):
    with open(os.path.join(cdir, 'tests.txt')) as f:
        return [t.strip() for t in f if t.strip()]


def chunk_size(cdir):
    return int(read_kv(os.path.join(cdir, 'meta'))['chunk'])


def nchunks(cdir):
    n, size = len(tests_of(cdir)), chunk_size(cdir)
    return (n + size - 1) // size


def chunk_tests(cdir, k):
    size = chunk_size(cdir)
    return tests_of(cdir)[k * size:(k + 1) * size]


def chunk_dir(cdir, k):
    return os.path.join(cdir, 'chunk-%03d' % k)


def stored(cdir, k):
    """a chunk is stored once its run file is there (run.sh renames the
    whole directory into place)"""
    return os.path.exists(os.path.join(chunk_dir(cdir, k), 'run'))


def next_chunk(cdir):
    for k in range(nchunks(cdir)):
        if not stored(cdir, k):
            return k
    return None


def load_chunk(cdir, k):
    """(run info, judged rows) of a stored chunk"""
    d = chunk_dir(cdir, k)
    pat = read_rows(os.path.join(d, 'patched.tsv'))
    base = read_rows(os.path.join(d, 'base.tsv'))
    prr = brr = None
    if os.path.exists(os.path.join(d, 'patched-rerun.tsv')):
        prr = read_all(os.path.join(d, 'patched-rerun.tsv'))
        brr = read_all(os.path.join(d, 'base-rerun.tsv'))
    judged = judge(pat, base, prr, brr)
    # every test of the chunk must have a row of both kernels: a test
    # neither guest reported is missing data, not a pass
    for t in chunk_tests(cdir, k):
        if t not in pat and t not in base:
            judged.append((t, None, None, 'UNJUDGED: no row of either '
                           'kernel', UNJUDGED))
    return read_kv(os.path.join(d, 'run')), judged


def base_failures(root, fstyp):
    """{test: 'CAMPAIGN chunk N: reason'}: every test that failed on the
    unpatched kernel (not lost: a guest that stopped says nothing of the
    test) in a stored chunk of FSTYP's campaigns under ROOT, first seen"""
    out = {}
    for d in sorted(os.listdir(root)):
        cdir = os.path.join(root, d)
        if not d.startswith(fstyp + '-') or \
           not os.path.exists(os.path.join(cdir, 'tests.txt')):
            continue
        for k in range(nchunks(cdir)):
            if not stored(cdir, k):
                continue
            for f in ('base.tsv', 'base-rerun.tsv'):
                for t, rs in sorted(read_all(os.path.join(
                        chunk_dir(cdir, k), f)).items()):
                    if t != BOOT and t not in out and \
                       any(r[1] == 'fail' for r in rs):
                        r = next(r for r in rs if r[1] == 'fail')
                        out[t] = '%s chunk %03d: %s' % (d, k, r[4][:100])
    return out


def expected(root, fstyp):
    o = ['# Tests that failed on the unpatched 6.12.118 kernel in our %s '
         'campaigns' % fstyp,
         '# (fstests/campaign.py expected; written from the stored chunks).',
         '# They label rows of the campaign page; they never clear one.']
    o += ['%s\t%s' % tr for tr in sorted(base_failures(root, fstyp).items())]
    return '\n'.join(o) + '\n'


def fmt_hours(secs):
    return '%.1f h' % (secs / 3600.0)


def excerpt(r):
    return (r[4] if r else '-')[:90].replace('|', '/')


def campaign_md(cdir):
    """the section of one campaign: lines"""
    name = os.path.basename(os.path.normpath(cdir))
    fstyp, _, group = name.partition('-')
    known = base_failures(os.path.dirname(os.path.normpath(cdir)), fstyp)
    tests, total = tests_of(cdir), nchunks(cdir)
    done = [k for k in range(total) if stored(cdir, k)]
    o = ['## %s, group `%s`' % (fstyp, group), '']
    if not done:
        return o + ['No chunk stored yet (%d tests in %d chunks).' % (
            len(tests), total), '']
    n = {'patched': {}, 'base': {}}
    kinds = {OK: 0, REGRESSION: 0, UNJUDGED: 0}
    bad, both_fail, base_only, walls, series, kernels = [], [], [], [], set(), set()
    ntests = both = 0
    for k in done:
        run, judged = load_chunk(cdir, k)
        series.add(run.get('series', '?'))
        kernels.add((run.get('patched_kernel', '?'), run.get('base_kernel', '?')))
        if run.get('wall_s', '').isdigit():
            walls.append(int(run['wall_s']))
        for t, p, b, v, kind in judged:
            if t == BOOT:
                if kind != OK:
                    kinds[kind] += 1
                    bad.append((k, t, p, b, v))
                continue
            ntests += 1
            both += bool(p and b and p[1] in ('pass', 'fail') and
                         b[1] in ('pass', 'fail'))
            kinds[kind] += 1
            for label, r in (('patched', p), ('base', b)):
                res = r[1] if r else 'missing'
                n[label][res] = n[label].get(res, 0) + 1
            if kind != OK:
                bad.append((k, t, p, b, v))
            elif p and b and p[1] in ('fail', 'lost') and b[1] in ('fail', 'lost'):
                both_fail.append((k, t, p, b, v))
            elif b and b[1] == 'fail':
                base_only.append((k, t, p, b, v))
    med = statistics.median(walls) if walls else None
    left = total - len(done)
    o += ['- tests done: %d of %d (%d of %d chunks of %d tests); %d ran on '
          'both kernels, the rest were not run (or lost) on one or both' % (
              ntests, len(tests), len(done), total, chunk_size(cdir), both),
          '- series: %s' % ', '.join('`%s`' % s for s in sorted(series)),
          '- kernels (patched / unpatched): %s' % ', '.join(
              '`%s` / `%s`' % kp for kp in sorted(kernels)),
          '- wall time per chunk, both kernels at once: %s' % (
              'median %d s (%d-%d s)' % (med, min(walls), max(walls))
              if walls else 'not recorded'),
          '- projection: %s' % ('%d chunks left, about %s at the median '
                                '(reruns of apparent regressions come on top)'
                                % (left, fmt_hours(left * med))
                                if med and left else 'complete' if not left
                                else 'no wall time recorded'),
          '- verdicts: %d ok, %d regressions, %d unjudged%s' % (
              kinds[OK], kinds[REGRESSION], kinds[UNJUDGED],
              '' if kinds[REGRESSION] + kinds[UNJUDGED] else
              ' (no regression in the chunks done)'), '']
    o += ['| kernel | pass | fail | not run | lost | missing |',
          '|---|--:|--:|--:|--:|--:|']
    for label in ('patched', 'base'):
        c = n[label]
        o.append('| %s | %d | %d | %d | %d | %d |' % (
            'unpatched' if label == 'base' else label, c.get('pass', 0),
            c.get('fail', 0), c.get('notrun', 0), c.get('lost', 0),
            c.get('missing', 0)))
    o.append('')

    def tab(title, rows, why):
        if not rows:
            return ['%s: none.' % title, '']
        out = ['%s (%s):' % (title, why), '',
               '| test | chunk | patched | unpatched | verdict | patched detail '
               '| unpatched detail |', '|---|--:|---|---|---|---|---|']
        for k, t, p, b, v in rows:
            if t in known and (not b or b[1] != 'fail'):
                v += ' [fails unpatched in %s]' % known[t]
            out.append('| %s | %d | %s | %s | %s | %s | %s |' % (
                t, k, p[1] if p else '-', b[1] if b else '-',
                v.replace('|', '/'), excerpt(p), excerpt(b)))
        return out + ['']
    o += tab('Regressions and unjudged rows', bad,
             'each fails the campaign until reruns clear it')
    o += tab('Failed on both kernels', both_fail,
             'not caused by the series; listed so that nobody mistakes them '
             'for it')
    o += tab('Failed on the unpatched kernel only', base_only,
             'the expected failures of 6.12.118 in our runs: they label '
             'rows, never clear one')
    return o


def markdown(root):
    o = ['# fstests campaigns: whole groups, patched against unpatched', '',
         '<!-- Written by fstests/campaign.py from Documentation/fstests/'
         'campaign/ (`make fstests-campaign-report`); do not edit by hand. -->',
         '',
         '`make fstests-campaign FSTYP=... GROUP=...` runs a group of fstests '
         'in chunks of a fixed test list, one chunk at a time, on the patched '
         'and the unpatched kernel side by side (one host CPU each under '
         'TCG), and stores each finished chunk under '
         '`Documentation/fstests/campaign/`; the next call goes on with the '
         'first chunk not stored. A chunk that was cut short is run again '
         'whole. Each row is judged as in [fstests-results.md]'
         '(fstests-results.md): an apparent regression is run again on both '
         'kernels and judged on the pooled runs. Guests as there: fstests '
         'v2026.01.27 in a Debian 12 guest, 1 GiB, `check` in a memory '
         'cgroup with memory.high 256 MiB, SOAK_DURATION 60 s; both kernels '
         'with lockdep (PROVE_LOCKING, LOCKDEP_CHAINS_BITS 16; not the '
         'LOCK_STAT that kvm-xfstests\' --lockdep adds) and the patched one with '
         'CONFIG_DEBUG_MEMALLOC_SCOPE.', '',
         '- ' + thresholds_line(), '']
    # a fresh checkout has no campaign directory until one starts
    camps = sorted(d for d in (os.listdir(root) if os.path.isdir(root) else [])
                   if os.path.exists(os.path.join(root, d, 'tests.txt')))
    if not camps:
        o += ['No campaign has started.', '']
    for d in camps:
        o += campaign_md(os.path.join(root, d))
    return '\n'.join(o) + '\n'


# --- selftest ---------------------------------------------------------------

def selftest():
    tap = Tap()
    case = tap.case

    def rows(path, lines):
        with open(path, 'w') as f:
            for line in lines:
                f.write('\t'.join(line) + '\n')

    def boot():
        return [BOOT, 'pass', '0', 'none', 'check finished']

    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'src')
        for d, n, groups in (('generic', '001', 'auto quick rw'),
                             ('generic', '002', 'auto'),
                             ('xfs', '003', 'quick'),
                             ('ext4', '004', 'quick')):
            os.makedirs(os.path.join(src, 'tests', d), exist_ok=True)
            with open(os.path.join(src, 'tests', d, n), 'w') as f:
                f.write('#!/bin/bash\n. ./common/preamble\n_begin_fstest %s\n'
                        % groups)
            with open(os.path.join(src, 'tests', d, n + '.out'), 'w') as f:
                f.write('QA output\n')
        case('the page of a root with no campaign says none has started',
             'No campaign has started.' in markdown(os.path.join(tmp, 'none')))
        case('list: the group of generic/ and the FSTYP directory, sorted',
             group_tests(src, 'xfs', 'quick') == ['generic/001', 'xfs/003'])
        tgz = os.path.join(tmp, 'src.tar.gz')
        with tarfile.open(tgz, 'w:gz') as t:
            t.add(src, arcname='fstests-x')
        case('list: the same from a tarball',
             group_tests(tgz, 'xfs', 'quick') == ['generic/001', 'xfs/003'])

        cdir = os.path.join(tmp, 'camp', 'xfs-quick')
        os.makedirs(cdir)
        with open(os.path.join(cdir, 'tests.txt'), 'w') as f:
            f.write('\n'.join('generic/%03d' % i for i in range(1, 6)) + '\n')
        with open(os.path.join(cdir, 'meta'), 'w') as f:
            f.write('chunk=2\n')
        case('five tests in chunks of two make three chunks', nchunks(cdir) == 3)
        case('the last chunk holds the rest',
             chunk_tests(cdir, 2) == ['generic/005'])
        case('next: chunk 0 first', next_chunk(cdir) == 0)

        def store(k, pat, base, prr=None, brr=None, wall='600'):
            d = chunk_dir(cdir, k)
            os.makedirs(d)
            rows(os.path.join(d, 'patched.tsv'), pat + [boot()])
            rows(os.path.join(d, 'base.tsv'), base + [boot()])
            if prr is not None:
                rows(os.path.join(d, 'patched-rerun.tsv'), prr)
                rows(os.path.join(d, 'base-rerun.tsv'), brr)
            with open(os.path.join(d, 'run'), 'w') as f:
                f.write('series=abc\npatched_kernel=p\nbase_kernel=b\n'
                        'wall_s=%s\n' % wall)
        store(0, [['generic/001', 'pass', '3', 'none', ''],
                  ['generic/002', 'fail', '3', 'none', 'output mismatch']],
              [['generic/001', 'pass', '3', 'none', ''],
               ['generic/002', 'fail', '3', 'none', 'output mismatch']])
        os.makedirs(chunk_dir(cdir, 1))	# cut short: no run file
        case('next: a chunk without its run file is not stored',
             next_chunk(cdir) == 1)
        md = markdown(os.path.dirname(cdir))
        case('the page counts the tests of the stored chunks only',
             '- tests done: 2 of 5 (1 of 3 chunks of 2 tests); 2 ran on' in md)
        case('the page projects the rest from the median chunk',
             '2 chunks left, about 0.3 h' in md)
        case('a test failing on both kernels is listed apart, not a regression',
             '| generic/002 | 0 | fail | fail | fails on both kernels' in md
             and '0 regressions, 0 unjudged' in md)
        os.rmdir(chunk_dir(cdir, 1))
        store(1, [['generic/003', 'fail', '3', 'none', 'output mismatch'],
                  ['generic/004', 'pass', '3', 'none', '']],
              [['generic/003', 'pass', '3', 'none', ''],
               ['generic/004', 'pass', '3', 'none', '']],
              [['generic/003', 'fail', '3', 'none', 'x']] * 20,
              [['generic/003', 'pass', '3', 'none', '']] * 20)
        md = markdown(os.path.dirname(cdir))
        case('a patched-only failure that fails its reruns is a regression',
             '| generic/003 | 1 | fail | pass | REGRESSION' in md)
        other = os.path.join(tmp, 'camp', 'xfs-auto')
        os.makedirs(chunk_dir(other, 0))
        with open(os.path.join(other, 'tests.txt'), 'w') as f:
            f.write('generic/003\n')
        with open(os.path.join(other, 'meta'), 'w') as f:
            f.write('chunk=1\n')
        rows(os.path.join(chunk_dir(other, 0), 'patched.tsv'),
             [['generic/003', 'pass', '3', 'none', ''], boot()])
        rows(os.path.join(chunk_dir(other, 0), 'base.tsv'),
             [['generic/003', 'fail', '3', 'none', 'output mismatch (see x)'],
              boot()])
        with open(os.path.join(chunk_dir(other, 0), 'run'), 'w') as f:
            f.write('series=abc\n')
        md = markdown(os.path.dirname(cdir))
        case('a base failure elsewhere labels a patched-only failure, '
             'which stays a regression',
             '| generic/003 | 1 | fail | pass | REGRESSION' in md and
             '[fails unpatched in xfs-auto chunk 000: output mismatch' in md)
        case('expected: the unpatched failures with their chunk and reason',
             'generic/003\txfs-auto chunk 000: output mismatch (see x)'
             in expected(os.path.dirname(cdir), 'xfs'))
        store(2, [], [])
        md = markdown(os.path.dirname(cdir))
        case('a test with no row of either kernel is unjudged, not passed',
             '| generic/005 | 2 | - | - | UNJUDGED: no row of either kernel' in md)
        case('every chunk stored: next says none', next_chunk(cdir) is None)
        case('a complete campaign says so', '- projection: complete' in md)
    return tap.done()


def main(argv):
    if len(argv) == 2 and argv[1] == 'selftest':
        return selftest()
    if len(argv) == 5 and argv[1] == 'list':
        print('\n'.join(group_tests(argv[2], argv[3], argv[4])))
        return 0
    if len(argv) == 3 and argv[1] == 'chunks':
        print(nchunks(argv[2]))
        return 0
    if len(argv) == 3 and argv[1] == 'next':
        k = next_chunk(argv[2])
        if k is None:
            return 1
        print(k)
        return 0
    if len(argv) == 4 and argv[1] == 'tests':
        print(' '.join(chunk_tests(argv[2], int(argv[3]))))
        return 0
    if len(argv) == 4 and argv[1] == 'expected':
        sys.stdout.write(expected(argv[2], argv[3]))
        return 0
    if len(argv) == 3 and argv[1] == 'markdown':
        sys.stdout.write(markdown(argv[2]))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
