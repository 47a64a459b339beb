# SPDX-License-Identifier: GPL-2.0
"""core/tables.py: the one reader of each data table, its CLI, the
policies' rule and the generation kernels they share; the report's refusal of
a plan without kinds."""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

from compare import load, model, report
from core import classify, generations, tables

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

    def test_bases_and_arches(self):
        b = tables.bases()[0]
        self.assertEqual(tables.base(), b)                    # the first line by default
        self.assertIn("{N}", b["abiname"])
        self.assertTrue(tables.bootable(tables.arch()))
        self.assertEqual(tables.reference_arm(), "base")
        self.assertEqual(tables.split_variant("base-kasan"), ("base", "kasan"))
        self.assertEqual(tables.split_variant("keep"), ("keep", None))
        self.assertEqual(tables.split_variant("other-kasan"), (None, None))
        bad = self.write("bases.tsv", "x\tp\ts\tnowhere\tx.{N}\tk\t.\tp\tg\t-\t-\t-\tn\n")
        with self.assertRaisesRegex(tables.TableError, r"bases.tsv:1: apt: nowhere is not one of"):
            tables.bases(bad)
        with self.assertRaisesRegex(tables.TableError, "BASE=nope: no such base"):
            tables.base("nope")

    def test_every_bootable_architecture_has_what_a_boot_needs(self):
        # its fragment, a QEMU package, and a guest /init it can run: the
        # host's busybox only on the host's own architecture, else the
        # loader cross-built (qemu/initramfs.sh), with its static libc
        host = subprocess.run(["dpkg", "--print-architecture"], capture_output=True,
                              text=True).stdout.strip() or "amd64"
        for a in tables.arches():
            if not tables.bootable(a):
                continue
            with self.subTest(arch=a["name"]):
                self.assertTrue((pathlib.Path(tables.TOP) / a["config"]).is_file(), a["config"])
                self.assertIn(":", a["qemu"])
                if a["debian"] != host:
                    self.assertNotEqual(a["cross"], "-", "a foreign guest needs a cross-built /init")
                    self.assertNotEqual(a["cc_pkg"], "-")

    def test_a_bases_own_loader_wording(self):
        from core import classify
        msgs = self.write("messages.tsv", "# reason\tregex\ncrc-missing\tsymbol version missing for\n")
        b = dict(tables.base(), messages=msgs)
        saved = classify._BASE_REFUSALS
        try:
            classify._BASE_REFUSALS = None
            self.assertEqual(classify.refusal_reason("EINVAL", ["m: symbol version missing for f"])[0],
                             "einval")          # the default wording does not know it
            classify._BASE_REFUSALS = [(n, re.compile(x)) for n, x in tables.messages(b)]
            self.assertEqual(classify.refusal_reason("EINVAL", ["m: symbol version missing for f"]),
                             ("crc-missing", "m: symbol version missing for f"))
            self.assertEqual(classify.refusal_reason("EINVAL", ["m: no symbol version for f"])[0],
                             "crc-missing")     # and the default's still applies
        finally:
            classify._BASE_REFUSALS = saved
        bad = self.write("bad.tsv", "crc-missing\t(unclosed\n")
        with self.assertRaisesRegex(tables.TableError, "bad.tsv:1: regex"):
            tables.messages(dict(b, messages=bad))

    def test_generations_folders_are_a_search_path(self):
        (self.dir / "mine").mkdir()
        (self.dir / "shared").mkdir()
        (self.dir / "shared" / "G1.patch").write_text("shared")
        (self.dir / "shared" / "G2.patch").write_text("shared")
        (self.dir / "mine" / "G2.patch").write_text("ported")
        b = dict(tables.base(), gens=f"{self.dir}/mine:{self.dir}/shared")
        self.assertEqual(tables.gens_file("G1.patch", b), str(self.dir / "shared" / "G1.patch"))
        self.assertEqual(tables.gens_file("G2.patch", b), str(self.dir / "mine" / "G2.patch"))
        with self.assertRaisesRegex(tables.TableError, "no G3.patch in the base's generations"):
            tables.gens_file("G3.patch", b)

    def test_the_repository_tables_read(self):
        self.assertEqual(tables.arm_names()[:2], ["nomodv", "base"])
        self.assertTrue(generations.gens())
        pols = generations.policies(runnable=False)
        self.assertEqual([p["policy"] for p in pols],
                         ["never", "every-upload", "crc", "stablelist", "dwarf", "declared"])
        self.assertEqual([p["policy"] for p in pols if p["oracle"]], ["declared"])
        self.assertEqual({a["arm"]: a["string"] for a in tables.arms()},
                         {"nomodv": "release", "base": "-", "dwarf": "-", "keep": "-",
                          "remove": "abi"})
        self.assertEqual(tables.robust_columns(), ["nomodv", "base", "keep", "remove"])
        self.assertTrue(tables.cases() and tables.probes() and tables.cross_arm())
        self.assertTrue(tables.robust())

    def test_an_arm_needs_what_the_tree_offers(self):
        arms = self.write("arms.tsv", "# arm\tseries\tstring\tnote\trole\tneeds\n"
                                      "a\t-\t-\tn\treference\n"
                                      "d\t-\t-\tn\t-\tGENDWARFKSYMS,EXTENDED_MODVERSIONS\n")
        rows = {a["arm"]: a for a in tables.arms(arms)}
        self.assertEqual(rows["d"]["needs"], ["GENDWARFKSYMS", "EXTENDED_MODVERSIONS"])
        self.assertEqual(rows["a"]["needs"], [])
        tree = os.path.join(self.tmp.name, "tree")
        os.makedirs(os.path.join(tree, "kernel", "module"))
        kc = os.path.join(tree, "kernel", "module", "Kconfig")
        with open(kc, "w") as f:
            f.write("config MODVERSIONS\n\tbool\nmenuconfig GENDWARFKSYMS\n")
        self.assertEqual(tables.kconfig_options(tree), {"MODVERSIONS", "GENDWARFKSYMS"})
        why = tables.arm_not_ready(rows["d"], tree=tree)
        self.assertIn("CONFIG_EXTENDED_MODVERSIONS", why)
        self.assertNotIn("CONFIG_GENDWARFKSYMS", why)
        with open(kc, "a") as f:
            f.write("config EXTENDED_MODVERSIONS\n")
        self.assertIsNone(tables.arm_not_ready(rows["d"], tree=tree))
        self.assertIsNone(tables.arm_not_ready(rows["a"], tree=tree))
        self.assertIn("not extracted", tables.arm_not_ready(rows["d"], tree=self.tmp.name + "/none"))
        bad = self.write("arms2.tsv", "a\t-\t-\tn\treference\tCONFIG_X\n")
        with self.assertRaises(tables.TableError):
            tables.arms(bad)

    def test_make_asks_the_tables_with_the_command_lines_base(self):
        # GNU make 4.3's $(shell) does not see exported variables: a
        # command-line BASE= must still pick that base's build folder
        import subprocess
        top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for b in [r["base"] for r in tables.bases()]:
            env = {k: v for k, v in os.environ.items() if k not in ("BASE", "B", "ARMS")}
            out = subprocess.run(["make", "-C", top, "-pn", f"BASE={b}", "help"], env=env,
                                 capture_output=True, text=True).stdout
            with self.subTest(base=b):
                self.assertIn(f"B := {os.path.join(top, 'build', b)}\n", out)

    def test_robust_columns_are_its_header(self):
        tsv = self.write("robust.tsv", "# input\tmake\tflags\tbase\tnomodv\tnote\n"
                                       "x\tcopy\t-\tloaded\tloaded\tn\n")
        self.assertEqual(tables.robust_columns(tsv), ["base", "nomodv"])
        self.assertEqual(tables.robust(tsv)[0]["nomodv"], "loaded")
        for text in ("x\tcopy\t-\tloaded\tn\n",
                     "# input\tmake\tflags\tnoarm\tnote\n"):
            with self.assertRaises(tables.TableError):
                tables.robust_columns(self.write("r2.tsv", text))

    def test_bad_line_is_one_error_with_its_place(self):
        path = self.write("gens.tsv", "# gen\tpatch\n\nG1\tG1.patch\t-\n")
        with self.assertRaises(tables.TableError) as e:
            generations.gens(path)
        self.assertEqual(str(e.exception),
                         f"{path}:3: want 5 to 7 tab-separated columns, got 3")
        with self.assertRaises(tables.TableError):
            generations.gens(str(self.dir / "missing.tsv"))

    def test_breaks_column_is_optional_and_checked(self):
        path = self.write("gens.tsv", "G1\tp\t-\t-\tnote\nG2\tp\ta,b\t-\tnote\trebuilt\n")
        g1, g2 = generations.gens(path)
        self.assertEqual((g1["breaks"], g2["breaks"], g2["changes"]), ([], ["rebuilt"], ["a", "b"]))
        path = self.write("bad.tsv", "G1\tp\t-\t-\tnote\teverything\n")
        with self.assertRaisesRegex(tables.TableError, r"bad.tsv:1: breaks: unknown everything"):
            generations.gens(path)

    def test_layout_breaks_every_old_module_and_cost_keeps_it_out(self):
        path = self.write("gens.tsv", "G1\tp\ta\t-\tnote\nG8\tp\t-\t-\tnote\tlayout\tfull\n"
                                      "G9\tp\ta\t-\tnote\trebuilt,layout\t-\n")
        g1, g8, g9 = generations.gens(path)
        self.assertEqual((g1["cost"], g8["cost"], g8["breaks"], g9["breaks"]),
                         ("-", "full", ["layout"], ["rebuilt", "layout"]))
        # a layout break: incompatible whatever the module imports
        self.assertTrue(generations.breaks_old_module(g8, set()))
        self.assertTrue(generations.breaks_old_module(g8, {"printk"}))
        self.assertFalse(generations.breaks_old_module(g1, {"printk"}))
        self.assertTrue(generations.breaks_old_module(g1, {"a"}))
        # the oracle bumps for it though it lists no export
        self.assertTrue(generations.declares_change(g8))
        self.assertTrue(generations.RULES["changes"](g8))
        self.assertFalse(generations.declares_change(dict(g8, breaks=[])))
        # cost full: out of the default list, in when named or with "all"
        rows = generations.gens(path)
        self.assertEqual([g["gen"] for g in generations.select_gens(rows, [])], ["G1", "G9"])
        self.assertEqual([g["gen"] for g in generations.select_gens(rows, ["G8"])], ["G8"])
        self.assertEqual([g["gen"] for g in generations.select_gens(rows, ["all"])],
                         ["G1", "G8", "G9"])
        path = self.write("bad.tsv", "G1\tp\t-\t-\tnote\t-\tcheap\n")
        with self.assertRaisesRegex(tables.TableError, r"bad.tsv:1: cost: unknown cheap"):
            generations.gens(path)

    def test_report_carries_the_layout_break(self):
        path = self.write("gens.tsv", "G8\tp\t-\t-\ta loader struct changes\tlayout\tfull\n")
        declared = load.read_gens(path)
        self.assertEqual(declared["G8"]["breaks"], ["layout"])
        gens = model.generations([], declared)
        self.assertEqual((gens["G8"]["breaks"], gens["G8"]["changes"]), (["layout"], []))

    def test_the_repository_layout_generation(self):
        g = {x["gen"]: x for x in generations.gens()}["G8"]
        self.assertEqual((g["breaks"], g["cost"], g["changes"]), (["layout"], "full", []))
        self.assertNotIn("G8", [x["gen"] for x in generations.select_gens(generations.gens(), [])])

    def test_duplicates_and_unknown_rules(self):
        with self.assertRaisesRegex(tables.TableError, "duplicate generations: G1"):
            generations.gens(self.write("g.tsv", "G1\tp\t-\t-\tn\nG1\tq\t-\t-\tn\n"))
        with self.assertRaisesRegex(tables.TableError, "p.tsv:1: unknown rule sometimes"):
            generations.policies(self.write("p.tsv", "odd\tsometimes\tnote\n"))

    def test_policies_share_a_kernel_by_string(self):
        pols = [{"policy": "lax", "rule": "never"}, {"policy": "diligent", "rule": "changes"},
                {"policy": "eager", "rule": "changes"}]
        ks = generations.gen_kernels(GEN, "deb", pols)
        # one boot per string; eager reuses diligent's
        self.assertEqual([(k["boot"], k["kid"], k["string"], k["shared_by"]) for k in ks],
                         [("G2", "G2", None, []),
                          ("G2-diligent", "G2-diligent", "deb.G2", ["eager"])])
        # the release as the string: the CONFIG_LOCALVERSION a bump sets
        ks = generations.gen_kernels(GEN, "", pols, kind="release")
        self.assertEqual([(k["kid"], k["string"]) for k in ks],
                         [("G2", None), ("G2-diligent", "-G2")])
        # no string: one boot, no policy
        self.assertEqual(generations.gen_kernels(GEN, ""), [{"boot": "G2", "policy": None,
                                                        "kid": "G2", "string": None,
                                                        "shared_by": []}])
        nothing = dict(GEN, changes=[])
        self.assertEqual({k["kid"] for k in generations.gen_kernels(nothing, "deb", pols)}, {"G2"})

    def test_detector_rules_read_detect_run(self):
        path = self.write("detectors.json", json.dumps({"detectors": {
            "crc": {"G2": {"bump": True, "flagged": ["modvlab_probe_c"]}}}}))
        old = generations.detectors_json
        generations.detectors_json = lambda: path
        try:
            pols = [{"policy": "crc", "rule": "detect:crc"}]
            self.assertEqual(generations.gen_kernels(GEN, "deb", pols)[0]["string"], "deb.G2")
            with self.assertRaisesRegex(tables.TableError, "detector crc has no result for G3"):
                generations.gen_kernels(dict(GEN, gen="G3"), "deb", pols)
            p = self.write("p.tsv", "crc\tdetect:crc\tn\ndwarf\tdetect:dwarf\tn\n")
            # a detector that has not run: its policy is left out
            self.assertEqual([x["policy"] for x in generations.policies(p)], ["crc"])
        finally:
            generations.detectors_json = old

    def test_cli(self):
        cli = lambda mod, *a, env=None: subprocess.run(
            [sys.executable, "-m", mod, *a], cwd=TOP, capture_output=True, text=True,
            env={**os.environ, "GENS": "", **(env or {})})
        self.assertEqual(cli("core.tables", "arms").stdout.split()[:2], ["nomodv", "base"])
        self.assertEqual(cli("core.tables", "timeout", "boot").stdout.strip(),
                         str(tables.TIMEOUTS["boot"]))
        # the generations' commands are core.generations' (one TableError
        # class under -m: a bad GENS is one line, not a traceback)
        run = lambda *a, env=None: cli("core.generations", *a, env=env)
        r = run("gens", env={"GENS": "G99"})
        self.assertEqual(r.returncode, 1)
        self.assertIn("modvlab: error: GENS: unknown generation(s) G99", r.stderr)
        self.assertEqual(run("kernels", "-", env={"GENS": "G2"}).stdout,
                         "G2\tG2-proto.patch\tG2\t-\n")
        # GENS arrives one way: no generation as an argument
        self.assertEqual(run("kernels", "-", "G2").returncode, 1)

    def test_report_read_gens_fails_on_a_bad_line(self):
        path = self.write("gens.tsv", "G1\tp\n")
        with self.assertRaisesRegex(report.InputError, "gens.tsv:1: want 5 to 7"):
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
