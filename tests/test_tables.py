# SPDX-License-Identifier: GPL-2.0
"""compare/tables.py: the one reader of each data table, its CLI, the
policies' rule and the generation kernels they share; the report's refusal of
a plan without kinds."""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

from compare import classify, load, model, report, tables

TOP = pathlib.Path(__file__).resolve().parent.parent
GEN = {"gen": "G2", "changes": ["modvlab_probe_c"], "removes": [], "breaks": []}


class TestTables(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        p = self.dir / name
        p.write_text(text)
        return str(p)

    def test_the_repository_tables_read(self):
        self.assertEqual(tables.arm_names()[:2], ["nomodv", "base"])
        self.assertTrue(tables.gens())
        self.assertEqual([p["policy"] for p in tables.policies()], ["lax", "diligent"])
        self.assertTrue(tables.cases() and tables.probes() and tables.cross_arm())
        self.assertTrue(tables.robust())

    def test_bad_line_is_one_error_with_its_place(self):
        path = self.write("gens.tsv", "# gen\tpatch\n\nG1\tG1.patch\t-\n")
        with self.assertRaises(tables.TableError) as e:
            tables.gens(path)
        self.assertEqual(str(e.exception),
                         f"{path}:3: want 5 to 6 tab-separated columns, got 3")
        with self.assertRaises(tables.TableError):
            tables.gens(str(self.dir / "missing.tsv"))

    def test_breaks_column_is_optional_and_checked(self):
        path = self.write("gens.tsv", "G1\tp\t-\t-\tnote\nG2\tp\ta,b\t-\tnote\trebuilt\n")
        g1, g2 = tables.gens(path)
        self.assertEqual((g1["breaks"], g2["breaks"], g2["changes"]), ([], ["rebuilt"], ["a", "b"]))
        path = self.write("bad.tsv", "G1\tp\t-\t-\tnote\teverything\n")
        with self.assertRaisesRegex(tables.TableError, r"bad.tsv:1: breaks: unknown everything"):
            tables.gens(path)

    def test_duplicates_and_unknown_rules(self):
        with self.assertRaisesRegex(tables.TableError, "duplicate generations: G1"):
            tables.gens(self.write("g.tsv", "G1\tp\t-\t-\tn\nG1\tq\t-\t-\tn\n"))
        with self.assertRaisesRegex(tables.TableError, "p.tsv:1: unknown rule sometimes"):
            tables.policies(self.write("p.tsv", "odd\tsometimes\tnote\n"))

    def test_policies_share_a_kernel_by_string(self):
        pols = [{"policy": "lax", "rule": "never"}, {"policy": "diligent", "rule": "changes"},
                {"policy": "eager", "rule": "changes"}]
        ks = tables.gen_kernels(GEN, "deb", pols)
        self.assertEqual([(k["boot"], k["kid"], k["string"]) for k in ks],
                         [("G2-lax", "G2", None), ("G2-diligent", "G2-diligent", "deb.G2"),
                          ("G2-eager", "G2-diligent", "deb.G2")])
        # no ABI string: one boot, no policy
        self.assertEqual(tables.gen_kernels(GEN, ""), [{"boot": "G2", "policy": None,
                                                        "kid": "G2", "string": None}])
        nothing = dict(GEN, changes=[])
        self.assertEqual({k["kid"] for k in tables.gen_kernels(nothing, "deb", pols)}, {"G2"})

    def test_cli(self):
        run = lambda *a: subprocess.run([sys.executable, "-m", "compare.tables", *a], cwd=TOP,
                                        capture_output=True, text=True)
        self.assertEqual(run("arms").stdout.split()[:2], ["nomodv", "base"])
        self.assertEqual(run("timeout", "boot").stdout.strip(), str(tables.TIMEOUTS["boot"]))
        r = run("gens", "G99")
        self.assertEqual(r.returncode, 1)
        self.assertIn("modvlab: error: GENS: unknown generation(s) G99", r.stderr)
        self.assertEqual(run("kernels", "-", "G2").stdout, "G2\tG2-proto.patch\tG2\t-\n")

    def test_report_read_gens_fails_on_a_bad_line(self):
        path = self.write("gens.tsv", "G1\tp\n")
        with self.assertRaisesRegex(report.InputError, "gens.tsv:1: want 5 to 6"):
            load.read_gens(path)
        self.assertEqual(load.read_gens(self.dir / "none.tsv"), {})

    def test_a_plan_without_kinds_is_refused(self):
        adir = self.dir / "arms" / "base"
        adir.mkdir(parents=True)
        (adir / "plan.json").write_text(json.dumps({"arm": "base", "cases": [
            {"case": "asm-user", "boot": "G0", "n": 1, "expected": "compatible"}]}))
        with self.assertRaisesRegex(report.InputError, "case asm-user has no kind"):
            model.collect(self.dir)

    def test_declared_breakage_makes_the_verdict_unsafe(self):
        # a rebuilt copy of a generation that declares breaks=rebuilt is
        # expected incompatible: its misbehaving load is an unsafe load
        self.assertEqual(classify.verdict("loaded-misbehaved", "incompatible"), "unsafe-load")
        self.assertEqual(classify.verdict("loaded-misbehaved", "compatible"), "lab-error")


if __name__ == "__main__":
    unittest.main()
