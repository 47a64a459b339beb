# SPDX-License-Identifier: GPL-2.0
"""Every base's series folders are kernel patch series a maintainer can
apply (core.series.problems: the series file lists every patch, the
cover letter is written, each patch is format-patch output numbered in
order with a kernel subject and Signed-off-by), checked without a tree;
and the check itself catches each kind of defect."""
import os
import shutil
import tempfile
import unittest

from core import series, tables

PATCH = """From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001
From: A Developer <dev@example.org>
Date: Sun, 6 Dec 2026 00:00:00 +0000
Subject: [RFC PATCH {i}/{n}] module: do thing {i}

Why.

Signed-off-by: A Developer <dev@example.org>
---
"""


class TestEveryBase(unittest.TestCase):
    def test_series_folders(self):
        seen = 0
        for b in tables.bases():
            for arm in ("keep", "remove"):
                d = tables.series_dir(arm, b)
                if not d or not os.path.isfile(os.path.join(d, "series")):
                    continue
                seen += 1
                with self.subTest(base=b["base"], arm=arm):
                    self.assertEqual(series.problems(d), [])
        self.assertGreater(seen, 0, "no base has a series folder")


class TestProblems(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.d)
        names = [f"000{i}-module-do-thing-{i}.patch" for i in (1, 2)]
        for i, name in enumerate(names, 1):
            self.write(name, PATCH.format(i=i, n=2))
        self.write("series", "# a comment\n" + "\n".join(names) + "\n")
        self.write(series.COVER, PATCH.format(i=0, n=2))
        self.names = names

    def write(self, name, text):
        with open(os.path.join(self.d, name), "w") as f:
            f.write(text)

    def test_good_series_has_none(self):
        self.assertEqual(series.problems(self.d), [])

    def test_each_defect_is_named(self):
        cases = [
            ("series", self.names[0] + "\n", "does not list exactly"),
            (series.COVER, "Subject: x\n\n*** BLURB HERE ***\n", "BLURB"),
            (self.names[1], PATCH.format(i=3, n=2), "numbered 3/2"),
            (self.names[0], PATCH.format(i=1, n=2).replace("Signed-off-by", "Acked-by"),
             "no Signed-off-by"),
            (self.names[0], PATCH.format(i=1, n=2).replace("module: do", "do"),
             "subject is not"),
            (self.names[0], PATCH.format(i=1, n=2).replace("do thing", "do " + "x" * 70),
             "longer than 75"),
            (self.names[0], PATCH.format(i=1, n=2)[5:], "not git format-patch"),
        ]
        for name, text, want in cases:
            with self.subTest(want=want):
                self.setUp()
                self.write(name, text)
                got = series.problems(self.d)
                self.assertTrue(any(want in p for p in got), got)


if __name__ == "__main__":
    unittest.main()
