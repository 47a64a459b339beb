# SPDX-License-Identifier: GPL-2.0
"""The other bases' series are real kernel patches too: make test extracts
the tree of every base with a series of its own (make tree BASE=...), and
each series applies in order on that base's pristine tree and passes that
tree's own checkpatch.pl --strict with 0 errors, warnings and checks.

The trees are Debian's tarballs imported as one commit, so checkpatch cannot
find an upstream commit a Fixes: tag names (UNKNOWN_COMMIT_ID): that one
check is left to a tree with upstream history; every other one runs."""
import os
import re
import subprocess
import tempfile
import unittest

from core import series, tables

CHECKPATCH_ARGS = ["--strict", "--no-color", "--ignore", "UNKNOWN_COMMIT_ID"]


def tree_of(b):
    return os.path.join(tables.TOP, "build", b, "linux")


def series_of(b):
    """{arm: [patch paths]} of base b's series arms."""
    row = next(x for x in tables.bases() if x["base"] == b)
    out = {}
    for a in tables.arms():
        d = tables.series_dir(a["arm"], row)
        if d and os.path.isfile(os.path.join(d, "series")):
            out[a["arm"]] = series.listed(d)
    return out


class OtherBases(unittest.TestCase):
    def setUp(self):
        self.bases = tables.series_bases()

    def test_their_trees_are_here(self):
        for b in self.bases:
            with self.subTest(base=b):
                self.assertTrue(os.path.isfile(os.path.join(tree_of(b), "scripts", "checkpatch.pl")),
                                f"no tree for base {b}: make tree BASE={b} did not finish")

    def test_each_series_applies_in_order_on_its_pristine_tree(self):
        for b in self.bases:
            tree = tree_of(b)
            for arm, patches in series_of(b).items():
                with self.subTest(base=b, arm=arm), tempfile.TemporaryDirectory() as t:
                    # an index of its own: the patches apply to pristine's
                    # blobs, no work tree is checked out
                    env = dict(os.environ, GIT_INDEX_FILE=os.path.join(t, "index"))
                    r = subprocess.run(["git", "-C", tree, "read-tree", "pristine"], env=env,
                                       capture_output=True, text=True)
                    self.assertEqual(r.returncode, 0, r.stderr)
                    for p in patches:
                        r = subprocess.run(["git", "-C", tree, "apply", "--cached", p], env=env,
                                           capture_output=True, text=True)
                        self.assertEqual(r.returncode, 0, f"{os.path.basename(p)}: {r.stderr}")

    def test_checkpatch_strict(self):
        for b in self.bases:
            tree = tree_of(b)
            for arm, patches in series_of(b).items():
                for p in patches:
                    with self.subTest(base=b, arm=arm, patch=os.path.basename(p)):
                        r = subprocess.run(["perl", "scripts/checkpatch.pl", *CHECKPATCH_ARGS, p],
                                           cwd=tree, capture_output=True, text=True)
                        m = re.search(r"total: (\d+) errors, (\d+) warnings, (\d+) checks",
                                      r.stdout)
                        self.assertTrue(m, r.stdout[-2000:] + r.stderr[-500:])
                        self.assertEqual(m.groups(), ("0", "0", "0"), r.stdout[-3000:])


if __name__ == "__main__":
    unittest.main()
