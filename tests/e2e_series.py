# SPDX-License-Identifier: GPL-2.0
"""The patch series are real kernel patches: each listed patch exists, is in
git format-patch form with a kernel-style subject and Signed-off-by, and
passes the tree's checkpatch.pl with 0 errors and 0 warnings; and the arm
built from it is the series applied with git am on the pristine tree."""
import email
import glob
import os
import re
import subprocess
import sys
import unittest

from core import tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()
CHECKPATCH = os.path.join(B, "linux", "scripts", "checkpatch.pl")
SERIES = [a for a in ("keep", "remove")
          if tables.series_dir(a) and os.path.isfile(os.path.join(tables.series_dir(a), "series"))]
# the subsystem prefix as kernel logs spell it: kbuild:, MIPS:, Documentation/kbuild:
SUBJECT = re.compile(r"^\[RFC PATCH (\d+)/(\d+)\] ([A-Za-z0-9_/.-]+(?:, [A-Za-z0-9_/.-]+)*): (.+)$")


def subject(text):
    """The Subject: header, unfolded (format-patch folds long ones)."""
    subj = email.message_from_string(text)["Subject"] or ""
    return SUBJECT.match(" ".join(subj.split()))


def listed(arm):
    d = tables.series_dir(arm)
    with open(os.path.join(d, "series")) as f:
        return [os.path.join(d, l.strip()) for l in f
                if l.strip() and not l.startswith("#")]


class TestSeries(unittest.TestCase):
    def test_some_series_exists(self):
        self.assertTrue(SERIES, "no series-*/series file: nothing to check")

    def test_lint(self):
        for arm in SERIES:
            patches = listed(arm)
            on_disk = sorted(glob.glob(os.path.join(tables.series_dir(arm), "[0-9][0-9][0-9][0-9]-*.patch")))
            cover = os.path.join(tables.series_dir(arm), "0000-cover-letter.patch")
            with self.subTest(arm=arm, what="series lists every patch"):
                self.assertEqual(sorted(patches), [p for p in on_disk if p != cover])
            with self.subTest(arm=arm, what="cover letter"):
                with open(cover) as f:
                    text = f.read()
                self.assertNotIn("*** SUBJECT HERE ***", text)
                self.assertNotIn("*** BLURB HERE ***", text)
            for i, p in enumerate(patches, 1):
                with self.subTest(arm=arm, patch=os.path.basename(p)):
                    with open(p) as f:
                        text = f.read()
                    self.assertTrue(text.startswith("From "), "not git format-patch output")
                    m = subject(text)
                    self.assertTrue(m, "subject is not '[RFC PATCH n/m] subsystem: summary'")
                    self.assertEqual((int(m.group(1)), int(m.group(2))), (i, len(patches)))
                    self.assertLessEqual(len(m.group(3)) + 2 + len(m.group(4)), 75)
                    self.assertRegex(text, r"(?m)^Signed-off-by: .+ <.+@.+>$")

    def test_checkpatch(self):
        self.assertTrue(os.path.isfile(CHECKPATCH), "no tree: run make tree")
        for arm in SERIES:
            for p in listed(arm):
                with self.subTest(arm=arm, patch=os.path.basename(p)):
                    r = subprocess.run(["perl", CHECKPATCH, "--no-color", p],
                                       cwd=os.path.join(B, "linux"),
                                       capture_output=True, text=True)
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
                        m = subject(f.read())
                    want.append(m.group(3) + ": " + m.group(4))
                self.assertEqual(subjects, want)


if __name__ == "__main__":
    unittest.main()
