# SPDX-License-Identifier: GPL-2.0
"""make compare's exit status for boots that did not finish
(compare.robust.unfinished_problems): a stop on an input robust.tsv
declares `oops` for the arm is that finding; any other stop fails, named."""
import os
import tempfile
import unittest

from compare import robust


def rob(*rows):
    return {"base": {"results": [dict(input=i, boot=b, declared=d, observed=o)
                                 for i, b, d, o in rows]}}


class TestUnfinished(unittest.TestCase):
    def test_declared_crash_is_not_a_failure(self):
        r = rob(("modinfo-nobits", "robust-modinfo-nobits", "oops", "oops"),
                ("shoff-past-eof", "robust", "refused:ENOEXEC", "refused:ENOEXEC"))
        self.assertEqual(robust.unfinished_problems(r, {"base": ["robust-modinfo-nobits"]}), [])

    def test_undeclared_crash_is_named(self):
        r = rob(("versions-empty", "robust", "refused:ENOEXEC", "oops"))
        bad = robust.unfinished_problems(r, {"base": ["robust"]})
        self.assertEqual(len(bad), 1)
        self.assertIn("versions-empty: declared refused:ENOEXEC, got oops", bad[0])

    def test_a_workload_boot_that_stopped_fails(self):
        bad = robust.unfinished_problems(rob(), {"base": ["G0"]})
        self.assertEqual(len(bad), 1)
        self.assertIn("base G0: did not finish", bad[0])

    def test_declared_oops_that_timed_out_fails(self):
        r = rob(("modinfo-nobits", "robust-modinfo-nobits", "oops", "timeout"))
        self.assertTrue(robust.unfinished_problems(r, {"base": ["robust-modinfo-nobits"]}))

    def test_read_unfinished(self):
        with tempfile.TemporaryDirectory() as b:
            os.makedirs(os.path.join(b, "arms", "keep", "boot"))
            with open(os.path.join(b, "arms", "keep", "boot", "unfinished"), "w") as f:
                f.write("robust-x\nrobust-x\nG0\n")
            self.assertEqual(robust.read_unfinished(b, ["keep", "base"]),
                             {"keep": ["G0", "robust-x"]})
