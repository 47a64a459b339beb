#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The test runner: unit tests (tests/test_*.py, seconds, no kernel build) and,
with --e2e, the end-to-end assertions on the run that `make test` just did
(tests/e2e_*.py). Ends with the plain line "N passed, N failed".
"""
import argparse
import os
import signal
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


# a test that takes longer is named at the end with its seconds (CI's time
# limit is the whole make test: this says where the runner's share went)
SLOW_S = 20


class CountingResult(unittest.TextTestResult):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.passed = 0
        self.slow = []

    def startTestRun(self):
        super().startTestRun()
        self._last = time.monotonic()

    def stopTest(self, test):
        # since the last test ended: a class's or module's fixtures count
        # toward the test they ran before
        super().stopTest(test)
        now = time.monotonic()
        if now - self._last >= SLOW_S:
            self.slow.append((now - self._last, test.id()))
        self._last = now

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--e2e", action="store_true",
                    help="also run the end-to-end assertions (after make compare)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    # started in the background of a non-interactive shell (CI, make test
    # &), SIGINT arrives ignored and every child inherits that: the tests
    # of Ctrl-C would test nothing. Act as a terminal would.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.path.insert(0, TOP)
    loader = unittest.TestLoader()
    suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    if args.e2e:
        suite.addTests(loader.discover(HERE, pattern="e2e_*.py", top_level_dir=HERE))
    runner = unittest.TextTestRunner(resultclass=CountingResult,
                                     verbosity=2 if args.verbose else 1,
                                     stream=sys.stdout)
    res = runner.run(suite)
    failed = len(res.failures) + len(res.errors) + len(res.unexpectedSuccesses)
    skipped = len(res.skipped)
    for dt, name in sorted(res.slow, reverse=True):
        print(f"slow: {dt:.0f} s {name}")
    if res.testsRun == 0:
        print("no tests ran")
        failed = 1
    print(f"{res.passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 0 if failed == 0 and res.testsRun else 1


if __name__ == "__main__":
    sys.exit(main())
