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


class TestFuzzAcross(unittest.TestCase):
    def test_a_signature_is_replayed_by_input_on_other_bases(self):
        sig = lambda t, f, inputs, mod=None: {"title": t, "function": f, "in_module": mod,  # noqa: E731
                                              "input": f"fuzz/findings/{f}.ko",
                                              "count": len(inputs), "inputs": inputs}
        old = {"fuzzing": {"seed": 1, "arms": {"base": {"inputs": 100, "signatures": [
            sig("BUG: page fault", "memcmp", [3, 40, 150]),
            sig("Oops", "asm_user_init", [7], mod="mod_asm_user")]}}}}
        new = {"fuzzing": {"seed": 1, "arms": {"base": {"inputs": 50, "signatures": [
            sig("BUG: page fault", "strcmp", [3]),
            sig("Oops", "init_module", [40], mod="mod_x")]}}}}
        other_seed = {"fuzzing": {"seed": 2, "arms": {"base": {"inputs": 500, "signatures": [
            sig("BUG", "memcmp", [3])]}}}}
        with tempfile.TemporaryDirectory() as top:
            for b, r in (("old", old), ("new", new), ("seed2", other_seed)):
                d = os.path.join(top, "build", b, "report")
                os.makedirs(d)
                with open(os.path.join(d, "report.json"), "w") as f:
                    json.dump(r, f)
            _, _, paths = bases.render(top, ["old", "new", "seed2"])
            with open(paths[1], encoding="utf-8") as f:
                md = f.read()
        # old's memcmp: inputs 3 and 40 ran on new (50 inputs), 150 did not;
        # 3 crashed new's loader in strcmp, 40 its module content
        self.assertIn("| **old** | **base** | `BUG: page fault in memcmp` | 3 | **new** | 2 | 2 | "
                      "module content: init_module (1); strcmp (1) |", md)
        # new's strcmp on old: input 3 crashed old in memcmp
        self.assertIn("| **new** | **base** | `BUG: page fault in strcmp` | 1 | **old** | 1 | 1 | "
                      "memcmp (1) |", md)
        # module content is not a loader signature, and another seed is not the same input
        self.assertNotIn("`Oops in asm_user_init` | 1 | **new**", md)
        self.assertNotIn("| **seed2** |", md.split("other bases")[1])
        self.assertIn("`make fuzz: memcmp.ko` | 3 |", md)
        self.assertIn("old base's 1 loader signatures on new: 1 with an input run there, "
                      "1 of them crashing new's loader too", md)


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
