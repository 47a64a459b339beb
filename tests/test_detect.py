# SPDX-License-Identifier: GPL-2.0
"""detect/: each detector's parser on fixtures (two small Module.symvers, a
saved abidiff report), the judging against the declaration, bad input."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

from detect import crc, declared, dwarf, every_upload, never, run, stablelist, symvers
from detect.common import DetectError

TOP = pathlib.Path(__file__).resolve().parent.parent
DATA = TOP / "tests" / "data" / "detect"
G0, G2 = str(DATA / "G0"), str(DATA / "G2")
GEN2 = {"gen": "G2", "changes": ["modvlab_probe_c"], "removes": [], "breaks": []}


class TestSymvers(unittest.TestCase):
    def test_parse(self):
        s = symvers.parse(DATA / "G0" / "Module.symvers")
        self.assertEqual(len(s), 5)
        self.assertEqual(s["modvlab_probe_c"], 0x88632d1c)
        self.assertIn("ns_sym", s)  # a namespaced export

    def test_bad_line_names_its_place(self):
        with tempfile.NamedTemporaryFile("w", suffix=".symvers") as f:
            f.write("0x00000001\tok\tvmlinux\tEXPORT_SYMBOL\t\nnot a line\n")
            f.flush()
            with self.assertRaisesRegex(DetectError, r":2: not a Module.symvers line"):
                symvers.parse(f.name)

    def test_missing_and_empty(self):
        with self.assertRaisesRegex(DetectError, "missing"):
            symvers.parse(DATA / "nothing" / "Module.symvers")
        with tempfile.NamedTemporaryFile("w") as f:
            with self.assertRaisesRegex(DetectError, "no exports"):
                symvers.parse(f.name)


class TestCrc(unittest.TestCase):
    def test_changed_and_removed_not_added(self):
        out = crc.detect(G0, G2)
        self.assertEqual(out["flagged"], ["modvlab_probe_c", "modvlab_probe_gone",
                                          "modvlab_probe_unused"])
        self.assertTrue(out["bump"])

    def test_same_build_flags_nothing(self):
        self.assertEqual(crc.detect(G0, G0), {"bump": False, "flagged": [], "exports": 5})

    def test_refuses_a_build_without_crcs(self):
        with tempfile.TemporaryDirectory() as d:
            pathlib.Path(d, "Module.symvers").write_text(
                "0x00000000\tfoo\tvmlinux\tEXPORT_SYMBOL\t\n")
            with self.assertRaisesRegex(DetectError, "every CRC is 0"):
                crc.detect(d, G2)

    def test_stablelist_counts_only_its_symbols(self):
        with tempfile.NamedTemporaryFile("w") as f:
            f.write("# promised\nmodvlab_probe_c  # the one\ninit_uts_ns\n")
            f.flush()
            out = stablelist.detect(G0, G2, path=f.name)
        self.assertEqual(out["flagged"], ["modvlab_probe_c"])
        self.assertEqual(out["listed"], 2)

    def test_the_repository_stablelist_reads(self):
        names = stablelist.read_list()
        self.assertIn("modvlab_probe_opq", names)
        self.assertNotIn("modvlab_probe_unused", names)


class TestAbidiffReport(unittest.TestCase):
    def test_userland_report(self):
        got = dwarf.parse_report((DATA / "abidiff-userland.txt").read_text())
        self.assertEqual(got, {"gone": "D", "f": "C", "g": "C", "var1": "C"})

    def test_vmlinux_report(self):
        # G4 of the lab's nomodv-dwarf build: the export is listed only with
        # --redundant ("as reported earlier"), after its non-exported helper
        text = (DATA / "abidiff-vmlinux-G4.txt").read_text()
        self.assertEqual(dwarf.parse_report(text), {"__modvlab_probe_opq": "C",
                                                    "modvlab_probe_opq": "C"})

    def test_names(self):
        self.assertEqual(dwarf.entry_name("function int (*pick(int))(void)", ""), "pick")
        self.assertEqual(dwarf.entry_name("function void f(const s*)", " at a.c:1:1"), "f")
        self.assertEqual(dwarf.entry_name("unsigned long int tab[4]", ""), "tab")
        self.assertEqual(dwarf.entry_name("function int g(int)", "    {g_alias, aliases g}"),
                         "g_alias")
        self.assertEqual(dwarf.parse_report("  [D] raw_symbol\n  [A] new_one\n"),
                         {"raw_symbol": "D"})


class TestPolicies(unittest.TestCase):
    def test_trivial_policies(self):
        self.assertTrue(every_upload.detect(G0, G2)["bump"])
        self.assertFalse(never.detect(G0, G2)["bump"])
        self.assertEqual(declared.detect(G0, G2, GEN2)["flagged"], ["modvlab_probe_c"])
        with self.assertRaises(DetectError):
            declared.detect(G0, G2, None)

    def test_judge(self):
        j = run.judge({"bump": True, "flagged": ["a", "b"]}, ["b", "c"])
        self.assertEqual((j["false_positive"], j["false_negative"]), (["a"], ["c"]))
        self.assertEqual(run.judge({"bump": True, "flagged": []}, [])["bump_vs_declared"],
                         "needless")
        j = run.judge({"bump": True, "flagged": []}, ["c"])  # every-upload covers c
        self.assertEqual((j["false_negative"], j["bump_vs_declared"]), ([], "agrees"))
        j = run.judge({"bump": False, "flagged": []}, ["c"])
        self.assertEqual((j["false_negative"], j["bump_vs_declared"]), (["c"], "missed"))
        # breaks layout: every module is hit, so a bump is needed and no
        # flagged export is a false positive
        j = run.judge({"bump": True, "flagged": ["param_get_int"]}, [], layout=True)
        self.assertEqual((j["false_positive"], j["bump_vs_declared"]), ([], "agrees"))
        j = run.judge({"bump": False, "flagged": []}, [], layout=True)
        self.assertEqual(j["bump_vs_declared"], "missed")
        layout = dict(GEN2, changes=[], breaks=["layout"])
        self.assertTrue(declared.detect(G0, G2, layout)["bump"])
        self.assertFalse(declared.detect(G0, G2, dict(layout, breaks=[]))["bump"])


class TestRunner(unittest.TestCase):
    def test_runs_on_fixture_kernels_and_skips_what_is_not_built(self):
        with tempfile.TemporaryDirectory() as d:
            k = pathlib.Path(d, "kernels")
            for g in ("G0", "G2"):
                (k / g).mkdir(parents=True)
                (k / g / "Module.symvers").write_bytes((DATA / g / "Module.symvers").read_bytes())
            out = pathlib.Path(d, "detectors.json")
            p = subprocess.run([sys.executable, "-m", "detect.run", "--build", d, "--crc", str(k),
                                "--out", str(out)], cwd=TOP, capture_output=True, text=True,
                               env=dict(os.environ, GENS="G2"))
            self.assertEqual(p.returncode, 0, p.stderr)
            res = json.loads(out.read_text())
        self.assertEqual(res["detectors"]["crc"]["G2"]["false_positive"],
                         ["modvlab_probe_gone", "modvlab_probe_unused"])
        self.assertEqual(res["detectors"]["declared"]["G2"]["false_negative"], [])
        self.assertIn("dwarf", res["skipped"])
        self.assertIsInstance(res["detectors"]["crc"]["G2"]["cpu_s"], float)

    def test_bad_input_is_one_line_and_nonzero(self):
        with tempfile.TemporaryDirectory() as d:
            k = pathlib.Path(d, "G0")
            k.mkdir()
            (k / "Module.symvers").write_text("garbage\n")
            pathlib.Path(d, "G2").mkdir()
            p = subprocess.run([sys.executable, "-m", "detect.run", "--build", d, "--crc", d,
                                "--only", "crc", "--out", str(pathlib.Path(d, "o.json"))],
                               cwd=TOP, capture_output=True, text=True, env=dict(os.environ, GENS="G2"))
        self.assertNotEqual(p.returncode, 0)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("not a Module.symvers line", p.stderr)


if __name__ == "__main__":
    unittest.main()


class TestPolicyReport(unittest.TestCase):
    """The verdicts section's oracle mark, reused boots and release gate."""

    def case(self, arm, policy, verdict, gen="G4", **kw):
        return dict({"arm": arm, "policy": policy, "verdict": verdict, "gen": gen,
                     "case": f"{gen.lower()}-probe-opq", "outcome": "x"}, **kw)

    def test_verdicts_mark_oracle_reuse_and_gate(self):
        from compare import doc, load
        from compare.sections import verdicts
        # the planner's shared_by becomes one case per policy, marked reused
        recs = load.shared({"arm": "remove", "policy": "every-upload", "verdict": "correct-refusal",
                            "gen": "G4", "case": "g4-probe-opq", "outcome": "refused:vermagic",
                            "shared_by": ["dwarf", "declared"]})
        self.assertEqual([(r["policy"], r.get("reused_from")) for r in recs],
                         [("every-upload", None), ("dwarf", "every-upload"),
                          ("declared", "every-upload")])
        cases = recs + [self.case("base", None, "unsafe-load")]
        report = {"cases": cases, "verdicts": {}, "detectors": {"crc_misses": {"G4": {
            "crc_missed": ["modvlab_probe_opq"], "caught_by": {"dwarf": ["modvlab_probe_opq"]}}}}}
        for c in cases:
            lab = c["arm"] + (f"/{c['policy']}" if c["policy"] else "")
            report["verdicts"].setdefault(lab, {}).setdefault(c["verdict"], 0)
            report["verdicts"][lab][c["verdict"]] += 1
        md = doc.md(verdicts.blocks(None, report))
        self.assertIn("**remove/declared (oracle)**", md)
        self.assertIn("**remove/dwarf**: G4 reuse the boot of remove/every-upload", md)
        self.assertIn("**Release gate** (base): G4 changes `modvlab_probe_opq`", md)
        self.assertIn("dwarf flags it", md)
        self.assertIn("would not ship: `g4-probe-opq`", md)
