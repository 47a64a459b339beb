# SPDX-License-Identifier: GPL-2.0
"""End-to-end assertions on the ABI detectors of the run `make test` just
did (build/detect/detectors.json, the report's detectors section and the
string policies they drive on nomodv and remove)."""
import json
import os
import unittest

from core import tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()


class TestDetectors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(B, "detect", "detectors.json")) as f:
            cls.det = json.load(f)["detectors"]
        with open(os.path.join(B, "report", "report.json")) as f:
            cls.report = json.load(f)

    def test_cheap_detectors_ran_on_the_generations(self):
        for d in ("crc", "every-upload", "never", "declared"):
            with self.subTest(detector=d):
                self.assertIn("G2", self.det.get(d, {}))

    def test_crc_reads_the_real_build(self):
        # G2 changes modvlab_probe_c's prototype: genksyms sees it
        self.assertEqual(self.det["crc"]["G2"]["flagged"], ["modvlab_probe_c"])
        self.assertTrue(self.det["every-upload"]["G1"]["bump"])
        self.assertEqual(self.det["every-upload"]["G1"]["bump_vs_declared"], "needless")
        if "G4" in self.det["crc"]:     # the opaque struct: the CRCs miss it
            self.assertEqual(self.det["crc"]["G4"]["false_negative"], ["modvlab_probe_opq"])

    def test_report_has_the_section_and_the_policies(self):
        self.assertIn("detectors", self.report)
        labels = set(self.report["verdicts"])
        for arm in ("nomodv", "remove"):
            if any(lab.startswith(arm + "/") for lab in labels):
                for pol in ("never", "every-upload", "crc", "declared"):
                    with self.subTest(arm=arm, policy=pol):
                        self.assertIn(f"{arm}/{pol}", labels)

    def test_shared_boots_are_marked(self):
        reused = [c for c in self.report["cases"] if c.get("reused_from")]
        self.assertTrue(reused, "no policy reused another's boot")
        by_boot = {(c["arm"], c["boot"], c["case"]): c for c in self.report["cases"]
                   if not c.get("reused_from")}
        for c in reused:
            src = by_boot.get((c["arm"], c["boot"], c["case"]))
            self.assertIsNotNone(src, c["case"])
            self.assertEqual(c["outcome"], src["outcome"])


if __name__ == "__main__":
    unittest.main()
