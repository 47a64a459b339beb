# SPDX-License-Identifier: GPL-2.0
"""End-to-end assertions on the robustness cases of the run `make test` just
did (PLANS=robust with the reduced corpus ROBUST_INPUTS): in every arm each
input did what workload/robust.tsv declares, no kernel bug report but the
declared ones (pristine 6.1 loader bugs; none in a series arm), every health
check passed. Skipped when the run planned no robustness cases."""
import json
import os
import unittest

from core import tables

from compare import report, robust

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()


def planned():
    arms = os.path.join(B, "arms")
    for arm in sorted(os.listdir(arms)) if os.path.isdir(arms) else []:
        try:
            with open(os.path.join(arms, arm, "plan.json")) as f:
                if any(c.get("kind") == "robust" for c in json.load(f).get("cases", [])):
                    return True
        except (OSError, ValueError):
            continue
    return False


@unittest.skipUnless(planned(), "no robustness cases planned (PLANS=robust)")
class TestRobust(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rob = robust.robustness(report.collect(B)["cases"])

    def test_every_arm_ran_the_corpus(self):
        self.assertTrue(self.rob)
        for arm, r in self.rob.items():
            with self.subTest(arm=arm):
                self.assertGreater(r["inputs"], 0)
                self.assertFalse([x["input"] for x in r["results"]
                                  if x["observed"] in ("not-run", "not-reached")])

    def test_as_declared(self):
        for arm, r in self.rob.items():
            with self.subTest(arm=arm):
                self.assertEqual(r["unexpected"], [], robust.failures({arm: r}))

    def test_no_undeclared_bug_reports_and_healthy(self):
        for arm, r in self.rob.items():
            with self.subTest(arm=arm):
                self.assertEqual((r["oops"] - r["known_oops"], r["unhealthy"]), (0, 0),
                                 robust.failures({arm: r}))

    def test_the_series_loaders_never_crash(self):
        # pristine 6.1 has declared crashes (findings); each series ends
        # with the patch that fixes them, so none may crash at all
        series = {a: r for a, r in self.rob.items() if a.split("-")[0] in ("keep", "remove")}
        for arm, r in series.items():
            with self.subTest(arm=arm):
                self.assertEqual(r["oops"], 0, r["findings"] + r["bug_cases"])


if __name__ == "__main__":
    unittest.main()
