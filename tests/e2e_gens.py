# SPDX-License-Identifier: GPL-2.0
"""End-to-end assertions on the kernel generations of the run `make test`
just did: the verdicts that the scenario declarations imply are the ones the
kernels produced (tests/expect/gens.tsv), every rebuilt module behaves, and
at least G1 and G2 ran on every arm."""
import json
import os
import unittest

from core import tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()


def label(c):
    return c["arm"] + (f"/{c['policy']}" if c.get("policy") else "")


class TestGenerations(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(B, "report", "report.json")) as f:
            cls.report = json.load(f)
        cls.cases = {(label(c), c["case"]): c for c in cls.report["cases"]}

    def test_g1_g2_on_every_arm(self):
        for arm in self.report["arms"]:
            # one column per distributor policy the arm ran, else the arm
            labels = [v for v in self.report["verdicts"] if v.startswith(arm + "/")] or [arm]
            for lab in labels:
                for gen in ("g1", "g2"):
                    with self.subTest(label=lab, gen=gen):
                        self.assertIn((lab, f"{gen}-probe-c"), self.cases)

    def test_expected_verdicts(self):
        ran = {l for l, _ in self.cases}
        gens = {c["gen"] for c in self.report["cases"]}
        n = 0
        with open(os.path.join(TOP, "tests", "expect", "gens.tsv")) as f:
            for line in f:
                if not line.strip() or line.startswith("#"):
                    continue
                lab, case, outcome, verdict = line.rstrip("\n").split("\t")
                # the expectation's generation: its case name's prefix (g2-...)
                if lab not in ran or case.split("-")[0].upper() not in gens:
                    continue
                n += 1
                with self.subTest(label=lab, case=case):
                    c = self.cases.get((lab, case))
                    self.assertIsNotNone(c, f"{lab} {case} did not run")
                    self.assertEqual((c["outcome"], c["verdict"]), (outcome, verdict), c.get("reason"))
        self.assertGreaterEqual(n, 10, "too few expectations matched the run")

    def test_rebuilt_modules_are_sane(self):
        # a module rebuilt for the generation it is loaded into must behave,
        # unless it imports what that generation removed
        for (lab, case), c in self.cases.items():
            if c.get("kind") == "rebuilt" and c["outcome"] not in ("not-run", "does-not-build") \
                    and not c.get("declared_broken"):
                with self.subTest(label=lab, case=case):
                    self.assertIn(c["verdict"], ("correct-load", "correct-refusal"), c.get("reason"))


if __name__ == "__main__":
    unittest.main()
