#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kunit/check-results.py: judge a kunit.py run by its results, not only
by kunit.py's exit status.

  check-results.py JSON RAWLOG SKIPS   JSON: kunit.py --json; RAWLOG: the
                                       kernel's KTAP (BUILD_DIR/test.log);
                                       SKIPS: the committed list of cases
                                       this run may skip ("-": none)
  check-results.py selftest            the rules on made-up results (TAP)

Fails when no case ran, when a case failed or crashed, when a case was
skipped that SKIPS does not list, when a case SKIPS lists did not skip
(the list is exact), and when a skip's reason says the test thread was
already in a scope: that is the leak the suites exist to catch.
"""

import json
import os
import re
import sys

LEAK = 'already in a scope'


def cases(group, path=()):
    """[(suite/case[/param], status)] of a kunit.py JSON group"""
    out = []
    for sub in group.get('sub_groups', []):
        out += cases(sub, path + (sub['name'],))
    for case in group.get('test_cases', []):
        out.append(('/'.join(path + (case['name'],)), case['status']))
    return out


def skip_reasons(rawlog):
    """{name: reason} of the KTAP lines "ok N name # SKIP reason"; a
    suite's own line names the suite"""
    reasons = {}
    if rawlog and os.path.exists(rawlog):
        with open(rawlog, errors='replace') as f:
            for line in f:
                m = re.search(r'\bok \d+ (\S+) # SKIP ?(.*)$', line)
                if m:
                    reasons[m.group(1)] = m.group(2).strip()
    return reasons


def read_list(path):
    if path == '-':
        return set()
    with open(path) as f:
        return {line.split('#', 1)[0].strip() for line in f} - {''}


def judge(results, reasons, expected):
    """(problems, summary) of a run"""
    problems = []
    if not results:
        problems.append('no test case ran')
    skipped = {p for p, s in results if s == 'SKIP'}
    for p, s in results:
        if s not in ('PASS', 'SKIP'):
            problems.append('%s: %s' % (p, s))
    for name, why in sorted(reasons.items()):
        if LEAK in why:
            problems.append('%s skipped because its thread was %s (%s): '
                            'a scope leaked into the test thread' % (
                                name, LEAK, why))
    for p in sorted(skipped - expected):
        why = reasons.get(p.split('/')[-1]) or reasons.get(p.split('/')[0], '?')
        problems.append('%s skipped, and the committed list does not say it '
                        'may (%s)' % (p, why))
    for p in sorted(expected - skipped):
        problems.append('%s is on the committed skip list but did not skip%s'
                        % (p, '' if any(r[0] == p for r in results)
                           else ' (it is not in the results at all)'))
    summary = '%d cases: %d passed, %d skipped (%d expected)' % (
        len(results), sum(s == 'PASS' for _, s in results), len(skipped),
        len(expected))
    return problems, summary


def selftest():
    run = {'sub_groups': [{'name': 's', 'sub_groups': [], 'test_cases': [
        {'name': 'a', 'status': 'PASS'}, {'name': 'b', 'status': 'SKIP'}]}],
        'test_cases': []}
    res = cases(run)
    crashed = {'sub_groups': [{'name': 's', 'sub_groups': [], 'test_cases': [
        {'name': 'a', 'status': 'ERROR'}]}], 'test_cases': []}
    suite_skip = {'sub_groups': [], 'test_cases': [{'name': 's', 'status': 'SKIP'}]}
    tests = [
        ('the expected skip and a pass', judge(res, {}, {'s/b'}), True),
        ('an unexpected skip', judge(res, {}, set()), False),
        ('an expected skip that ran', judge(res, {}, {'s/b', 's/a'}), False),
        ('a crashed case', judge(cases(crashed), {}, set()), False),
        ('no case at all', judge([], {}, set()), False),
        ('a suite skipped as its thread was already in a scope',
         judge(cases(suite_skip), {'s': 'test thread already in a scope'},
               {'s'}), False),
    ]
    print('TAP version 13')
    print('1..%d' % len(tests))
    bad = 0
    for n, (name, (problems, _), want_ok) in enumerate(tests, 1):
        ok = (not problems) == want_ok
        bad += not ok
        print('%s %d %s%s' % ('ok' if ok else 'not ok', n, name,
                              '' if ok else ' # %s' % problems))
    return 1 if bad else 0


def main(argv):
    if argv[1:] == ['selftest']:
        return selftest()
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    if not os.path.exists(argv[1]):
        print('kunit results: no JSON results in %s: the run did not finish'
              % argv[1])
        return 1
    with open(argv[1]) as f:
        results = cases(json.load(f))
    problems, summary = judge(results, skip_reasons(argv[2]),
                              read_list(argv[3]))
    for p in problems:
        print('kunit results: %s' % p)
    print('kunit results: %s%s' % (summary, '' if not problems else
                                   '; %d problem(s)' % len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
