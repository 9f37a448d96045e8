# SPDX-License-Identifier: GPL-2.0
"""The statistics and verdict words the three report writers share
(fstests/report.py, stress/report.py, bench/report.py), so that a rule is
written once.  The tests and intervals are scipy's (Debian's
python3-scipy, installed by make deps).

    read_conf(path)          a committed key=value rules file, and its commit
    fisher_greater(...)      one-sided Fisher exact test
    diff_upper(...)          upper bound on a difference of two rates
    bootstrap(items, stat)   percentile bootstrap interval, fixed seed
    interval_verdict(...)    met, missed or inconclusive
    Tap()                    a selftest's TAP lines and its count of failures
"""
import math
import os
import subprocess
import sys

try:
    import numpy
    import scipy.stats
except ImportError:
    # Debian's python3-scipy, from a python3 that is not Debian's (a
    # pyenv interpreter of the same minor version)
    sys.path.append('/usr/lib/python3/dist-packages')
    try:
        import numpy
        import scipy.stats
    except ImportError:
        sys.exit('nofs_stats: scipy is missing: apt-get install python3-scipy '
                 '(or make deps)')

# the verdict words: fstests rows, stress counted rules
OK, REGRESSION, UNJUDGED = 'ok', 'REGRESSION', 'UNJUDGED'
# the verdict words: benchmark targets
MET, MISSED, INCONCLUSIVE = 'met', '**missed**', 'inconclusive'


def read_conf(path):
    """A committed rules file of KEY=VALUE lines ('#' comments) as
    {KEY: int or float}, and the commit that last changed it ("(changed
    since)" if the checkout differs from it)"""
    conf = {}
    with open(path) as f:
        for line in f:
            key, eq, val = line.split('#', 1)[0].strip().partition('=')
            if eq:
                conf[key] = float(val) if '.' in val else int(val)
    where, name = os.path.split(os.path.abspath(path))
    try:
        commit = subprocess.run(
            ['git', '-C', where, 'log', '-1', '--format=%h', '--', name],
            capture_output=True, text=True, check=True).stdout.strip()
        changed = subprocess.run(
            ['git', '-C', where, 'diff', '--quiet', 'HEAD', '--', name],
            check=False).returncode
        commit = (commit or 'uncommitted') + (' (changed since)' if changed else '')
    except (OSError, subprocess.CalledProcessError):
        commit = 'unknown (no git)'
    return conf, commit


def fisher_greater(a, n1, b, n2):
    """One-sided Fisher exact test: the chance of a or more failures in n1
    runs of one side if both sides failed alike (a + b failures in all)"""
    return float(scipy.stats.fisher_exact([[a, n1 - a], [b, n2 - b]],
                                          alternative='greater').pvalue)


def wilson(x, n, z):
    """Wilson's score interval of the rate x/n"""
    mid = (x + z * z / 2) / (n + z * z)
    half = z * math.sqrt(x * (n - x) / n + z * z / 4) / (n + z * z)
    return max(0.0, mid - half), min(1.0, mid + half)


def diff_upper(a, n1, b, n2, confidence):
    """The one-sided CONFIDENCE upper bound on a/n1 - b/n2: Newcombe's
    hybrid score interval (method 10), sound at 0 failures and small n"""
    z = float(scipy.stats.norm.ppf(confidence))
    p1, p2 = a / n1, b / n2
    u1 = wilson(a, n1, z)[1]
    l2 = wilson(b, n2, z)[0]
    return p1 - p2 + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def bootstrap(items, stat, confidence=0.95, resamples=2000, seed=1):
    """The CONFIDENCE percentile bootstrap interval of stat(items), the
    items (rounds, pairs of a round) resampled with replacement; a fixed
    seed, so that the same data gives the same interval"""
    if len(items) < 2:
        v = stat(list(items))
        return v, v
    res = scipy.stats.bootstrap(
        (numpy.arange(len(items)),),
        lambda idx: stat([items[int(i)] for i in idx]),
        vectorized=False, method='percentile', n_resamples=resamples,
        confidence_level=confidence, random_state=seed)
    return (float(res.confidence_interval.low),
            float(res.confidence_interval.high))


def interval_verdict(lo, hi, good_lo, good_hi):
    """MET if [lo, hi] lies within [good_lo, good_hi], MISSED if wholly
    outside it, INCONCLUSIVE if it straddles an edge"""
    if good_lo <= lo and hi <= good_hi:
        return MET
    if hi < good_lo or lo > good_hi:
        return MISSED
    return INCONCLUSIVE


class Tap:
    """the TAP lines of a report writer's selftest: case(name, cond) prints
    "ok - name" or "not ok - name"; done() prints the count of failed
    cases and returns the exit status"""

    def __init__(self):
        self.fails = 0

    def case(self, name, cond):
        """one claim of the selftest"""
        print('%s - %s' % ('ok' if cond else 'not ok', name))
        self.fails += not cond

    def done(self):
        """the summary line; 1 if any case failed"""
        print('%d failed' % self.fails)
        return 1 if self.fails else 0
