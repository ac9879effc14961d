#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a kunit.py JSON result: every test passed, and every suite of ours ran.

usage: kunit-results.py RESULT.json ARCH [OUR_SUITE...]
       kunit-results.py --counts RESULT.json
Environment: SUITES=glob limits which of our suites are expected to run.
"""
import fnmatch
import json
import os
import sys


def walk(group, suite=None):
    """Yield (suite, test, status) for every test case in a result tree.

    The root's sub-groups are suites; deeper groups are parameterised tests,
    whose cases belong to the suite above them.
    """
    for case in group.get("test_cases", []):
        yield suite or group["name"], case["name"], case["status"]
    for sub in group.get("sub_groups", []):
        yield from walk(sub, suite or sub["name"])


def print_counts(path):
    """For tools/summary: "PASSED FAILED" of a result file."""
    with open(path) as f:
        statuses = [st for _, _, st in walk(json.load(f))]
    print(statuses.count("PASS"), statuses.count("FAIL") + statuses.count("ERROR"))
    return 0


def main():
    if sys.argv[1] == "--counts":
        return print_counts(sys.argv[2])
    path, arch, ours = sys.argv[1], sys.argv[2], sys.argv[3:]
    glob = os.environ.get("SUITES")
    if glob:
        ours = [s for s in ours if fnmatch.fnmatch(s, glob)]
    try:
        with open(path) as f:
            result = json.load(f)
    except (OSError, ValueError) as e:
        print(f"kunit {arch}: no usable result ({e}): the kernel crashed or did not boot")
        return 1

    cases = list(walk(result))
    count = {"PASS": 0, "FAIL": 0, "SKIP": 0, "ERROR": 0}
    for _, _, status in cases:
        count[status] = count.get(status, 0) + 1
    bad = [f"{s}.{t}: {st}" for s, t, st in cases if st in ("FAIL", "ERROR")]

    errors = []
    for suite in ours:
        mine = [st for s, _, st in cases if s == suite]
        if not mine:
            errors.append(f"suite {suite} did not run")
        elif any(st != "PASS" for st in mine):
            errors.append(f"suite {suite}: {mine.count('SKIP')} skipped, "
                          f"{len(mine) - mine.count('PASS') - mine.count('SKIP')} failed")
    if not ours:
        errors.append("no suite of ours is defined in kunit/ (or matches SUITES)")
    ran_ours = sum(1 for s, _, _ in cases if s in ours)

    print(f"kunit {arch}: {len(cases)} tests run, {ran_ours} of them in our "
          f"{len(ours)} suite(s): {count['PASS']} passed, "
          f"{count['FAIL'] + count['ERROR']} failed, {count['SKIP']} skipped")
    for line in bad + errors:
        print(f"kunit {arch}: FAIL: {line}")
    return 1 if bad or errors else 0


if __name__ == "__main__":
    sys.exit(main())
