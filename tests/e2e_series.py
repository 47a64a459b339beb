# SPDX-License-Identifier: GPL-2.0
"""The patch series are real kernel patches: each passes the tree's
checkpatch.pl with 0 errors and 0 warnings, the cover letter's numbers
are the lab's, and the arm built from it is the series applied with git
am on the pristine tree. (Their form, for every base, is checked by
tests/test_series_files.py without a tree.)"""
import os
import re
import subprocess
import sys
import unittest

from core import series, tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()
CHECKPATCH = os.path.join(B, "linux", "scripts", "checkpatch.pl")
SERIES = [a for a in ("keep", "remove")
          if tables.series_dir(a) and os.path.isfile(os.path.join(tables.series_dir(a), "series"))]


def listed(arm):
    return series.listed(tables.series_dir(arm))


class TestSeries(unittest.TestCase):
    def test_some_series_exists(self):
        self.assertTrue(SERIES, "no series-*/series file: nothing to check")

    def test_checkpatch(self):
        self.assertTrue(os.path.isfile(CHECKPATCH), "no tree: run make tree")
        for arm in SERIES:
            runs = series.checkpatch(os.path.join(B, "linux"), listed(arm), ["--no-color"])
            for p in listed(arm):
                with self.subTest(arm=arm, patch=os.path.basename(p)):
                    r = runs[p]
                    m = re.search(r"total: (\d+) errors, (\d+) warnings", r.stdout)
                    self.assertTrue(m, r.stdout[-2000:] + r.stderr[-500:])
                    self.assertEqual((m.group(1), m.group(2)), ("0", "0"), r.stdout[-3000:])

    def test_cover_numbers_are_the_labs(self):
        for arm in SERIES:
            with self.subTest(arm=arm):
                r = subprocess.run([sys.executable, "-m", "lab.cover_results", arm, "--check"],
                                   cwd=TOP, capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_arm_is_the_series(self):
        for arm in SERIES:
            with self.subTest(arm=arm):
                src = os.path.join(B, "arms", arm, "src")
                r = subprocess.run(["git", "-C", src, "log", "--format=%s", "pristine..arm/" + arm],
                                   capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr)
                subjects = list(reversed(r.stdout.splitlines()))
                want = []
                for p in listed(arm):
                    with open(p) as f:
                        m = series.subject(f.read())
                    want.append(m.group(3) + ": " + m.group(4))
                self.assertEqual(subjects, want)


if __name__ == "__main__":
    unittest.main()
