# SPDX-License-Identifier: GPL-2.0
"""Tests of compare.bases: the bases side by side from their reports, every
cell from a base's report.json, a base without one named with its command."""
import json
import os
import tempfile
import unittest

from compare import bases


def case(arm, gen, probe, outcome, verdict, expected, policy=None, kind="update"):
    return {"arm": arm, "policy": policy, "case": f"{gen.lower()}-{probe}", "kind": kind,
            "gen": gen, "probe": probe, "outcome": outcome, "verdict": verdict,
            "expected": expected}


class TestBases(unittest.TestCase):
    def test_side_by_side(self):
        with tempfile.TemporaryDirectory() as top:
            reps = {
                "old": {"provenance": {"package": "linux-source-old", "tree": "1-1"},
                        "arms": {"base": {"build_cpu_s": 10.0, "exports": 3}},
                        "verdicts": {"base": {"correct-load": 3, "unsafe-load": 1}},
                        "generations": {"G4": {"note": "opaque struct"}},
                        "cases": [case("base", "G4", "probe-opq", "loaded", "unsafe-load",
                                       "incompatible")]},
                "new": {"provenance": {"package": "linux-source-new", "tree": "2-1",
                                       "arms_skipped": {"keep": "no series"}},
                        "arms": {"base": {}, "dwarf": {}},
                        "verdicts": {"base": {"correct-load": 4}, "dwarf": {"correct-load": 2}},
                        "cases": [case("dwarf", "G4", "probe-opq", "refused:crc-mismatch",
                                       "correct-refusal", "incompatible"),
                                  case("nomodv", "G4", "probe-opq", "loaded", "unsafe-load",
                                       "incompatible", policy="never"),
                                  case("base", "G0", "asm-user", "loaded", "correct-load",
                                       "compatible", kind="release")]},
            }
            for b, r in reps.items():
                d = os.path.join(top, "build", b, "report")
                os.makedirs(d)
                with open(os.path.join(d, "report.json"), "w") as f:
                    json.dump(r, f)
            got, missing, paths = bases.render(top, ["old", "new", "gone"])
            self.assertEqual(list(got), ["old", "new"])
            self.assertEqual(missing[0][0], "gone")
            md = open(paths[1], encoding="utf-8").read()
            self.assertIn("make compare BASE=gone", md)
            self.assertIn("| **base** | 3 / 0 / 0 / 1 / 0 | 4 / 0 / 0 / 0 / 0 |", md)
            self.assertIn("| **dwarf** | – | 2 / 0 / 0 / 0 / 0 |", md)
            self.assertIn("| **G4** | `probe-opq` | incompatible | loaded ✗ UNSAFE | "
                          "refused:crc-mismatch ✓ |", md)
            self.assertNotIn("new: nomodv/never", md)     # a policy: in the verdicts only
            self.assertIn("keep: no series", md)
            self.assertIn("| `g0-asm-user` | loaded ✓ |", md)
            with self.assertRaises(FileNotFoundError):
                bases.render(top, ["gone"])


class TestSkippedArms(unittest.TestCase):
    def test_the_report_says_which_arms_did_not_run_and_why(self):
        from compare import doc
        from compare.sections import header
        rep = {"provenance": {"base": "x", "arms_skipped": {
            "dwarf": "base x's Kconfig has no CONFIG_GENDWARFKSYMS"}}, "arms": {}, "cases": []}
        md = doc.md(header.blocks(None, rep))
        self.assertIn("Arms not run on this base: **dwarf** (base x's Kconfig has no "
                      "CONFIG_GENDWARFKSYMS).", md)
        rep["provenance"]["arms_skipped"] = {}
        self.assertNotIn("not run", doc.md(header.blocks(None, rep)))


if __name__ == "__main__":
    unittest.main()
