# SPDX-License-Identifier: GPL-2.0
"""Tests of compare/robust.py (the robustness section) and plan/robust.py.

Fixture: tests/data/robust/arms/base/, a plan.json as plan/robust.py writes it and
the console logs of its boots: robust (an input refused as declared, one
refused although declared loaded whose health check then WARNs, an
unprivileged load whose health check fails with EEXIST), robust-crash (an
Oops, declared) with its health check resumed in robust-crash.r1, and
robust-forced (a forced load that newly sets F).
"""
import contextlib
import io
import os
import pathlib
import sys
import tempfile
import unittest

from compare import __main__ as cli
from compare import doc, report, robust
from compare.sections import robustness

HERE = pathlib.Path(__file__).parent
DATA = HERE / "data" / "robust"


def rob():
    return robust.robustness(report.collect(DATA)["cases"])


class TestRobustness(unittest.TestCase):
    def test_counts(self):
        r = rob()["base"]
        self.assertEqual(r["inputs"], 5)
        self.assertEqual(r["as_declared"], 4)
        self.assertEqual(r["oops"], 2)               # the crash and a WARNING
        self.assertEqual(r["known_oops"], 1)         # the crash is declared oops
        self.assertEqual(r["findings"], ["crash"])
        self.assertEqual(r["bug_cases"], ["health-surprise"])
        self.assertEqual(r["unhealthy"], 2)          # the WARNING, the EEXIST

    def test_observed(self):
        got = {x["input"]: (x["observed"], x["health"]) for x in rob()["base"]["results"]}
        self.assertEqual(got, {
            "bad-elf": ("refused:ENOEXEC", "ok"),
            "surprise": ("refused:EINVAL", "oops"),
            "noperm": ("refused:EPERM", "refused:EEXIST"),
            "crash": ("oops", "n/a"),                # its check ran in a fresh boot
            "forced": ("loaded+F", "ok"),
        })

    def test_unexpected_has_evidence(self):
        (u,) = rob()["base"]["unexpected"]
        self.assertEqual((u["input"], u["declared"], u["observed"]),
                         ("surprise", "loaded", "refused:EINVAL"))
        self.assertIn("disagrees about version", u["reason"])
        self.assertEqual(u["log"], "arms/base/boot/robust.log:18")

    def test_oops_evidence(self):
        crash = next(x for x in rob()["base"]["results"] if x["input"] == "crash")
        self.assertIn("BUG: unable to handle page fault", crash["reason"])
        self.assertEqual(crash["log"], "arms/base/boot/robust-crash.log:6")

    def test_failures_and_markdown(self):
        r = rob()
        lines = robust.failures(r)
        self.assertEqual(len(lines), 3)
        self.assertTrue(lines[0].startswith("base: 1 kernel bug report(s) not declared"))
        self.assertIn("health-surprise", lines[0])
        md = doc.md(robustness.blocks(r, {}))
        self.assertIn("## Robustness", md)
        self.assertIn("| **base** | 5 | 4 | 2 (1) | 2 | surprise (refused:EINVAL, declared loaded) |",
                      md)
        self.assertIn("| **base** | crash | no result: BUG: unable to handle page fault", md)

    def test_a_declared_oops_alone_does_not_fail(self):
        r = robust.robustness([
            {"arm": "keep", "kind": "robust", "role": "input", "case": "robust-x",
             "input": "x", "declared": "oops", "outcome": "crashed",
             "reason": "no result: BUG: unable to handle page fault"},
            {"arm": "keep", "kind": "robust", "role": "input", "case": "robust-y",
             "input": "y", "declared": "refused:ENOEXEC", "outcome": "crashed",
             "reason": "no result: Oops: 0000 [#1]"}])
        self.assertEqual((r["keep"]["oops"], r["keep"]["known_oops"]), (2, 1))
        (line, surprise) = robust.failures(r)
        self.assertIn("1 kernel bug report(s) not declared", line)
        self.assertIn("robust-y", line)
        self.assertIn("y: declared refused:ENOEXEC, got oops", surprise)

    def test_saved_results_drop_rebuilt_arms(self):
        with tempfile.TemporaryDirectory() as d:
            for arm, sid in (("base", "aaa"), ("keep", "bbb")):
                os.makedirs(os.path.join(d, "arms", arm))
                with open(os.path.join(d, "arms", arm, "series.id"), "w") as f:
                    f.write(sid + "\n")
            r = rob()
            r = {"base": r["base"], "keep": r["base"]}
            robust.save(r, d, os.path.join(d, "robust.json"))
            with open(os.path.join(d, "arms", "keep", "series.id"), "w") as f:
                f.write("ccc\n")                      # keep rebuilt from another series
            got, date, stale = robust.load_saved(d)
            self.assertEqual(list(got), ["base"])
            self.assertEqual(stale, ["keep"])
            self.assertTrue(date)
            self.assertEqual(got["base"]["inputs"], 5)
            self.assertEqual(robust.load_saved(os.path.join(d, "nothing")), ({}, None, []))

    def test_other_cases_are_ignored(self):
        cases = report.collect(DATA)["cases"] + [
            {"arm": "base", "case": "asm-user", "outcome": "crashed", "reason": "Oops"}]
        self.assertEqual(robust.robustness(cases), rob())
        self.assertEqual(robust.robustness([]), {})
        self.assertIn("Not run", doc.md(robustness.blocks({}, {})))

    def test_observed_words(self):
        o = robust.observed
        self.assertEqual(o({"outcome": "loaded", "taint_new": "F"}), "loaded+F")
        self.assertEqual(o({"outcome": "loaded", "taint_new": "O"}), "loaded")
        self.assertEqual(o({"outcome": "refused:vermagic", "errno": "ENOEXEC"}), "refused:ENOEXEC")
        self.assertEqual(o({"outcome": "crashed", "reason": "BUG: KASAN: vmalloc-out-of-bounds"}),
                         "oops")
        self.assertEqual(o({"outcome": "crashed", "reason": "no result: log truncated"}), "crashed")
        self.assertEqual(o({"outcome": "crashed", "reached": False,
                            "reason": "not reached: Oops: 0000"}), "not-reached")
        self.assertEqual(o({"outcome": "timeout", "reason": "no result: boot timed out"}), "timeout")
        self.assertEqual(o({"outcome": "not-run"}), "not-run")

    def test_variant_arm(self):
        cases = [dict(c, arm="base-kasan") for c in report.collect(DATA)["cases"]]
        r = robust.robustness(cases)["base-kasan"]
        self.assertEqual((r["variant"], r["of"]), ("kasan", "base"))
        self.assertIn("| **base-kasan** | 5 |", doc.md(robustness.blocks({"base-kasan": r}, {})))

    def test_cli_exit_status(self):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            self.assertEqual(cli.main(["robust", "--build", str(DATA)]), 1)
        self.assertIn("## Robustness", out.getvalue())
        self.assertIn("robust: base: surprise: declared loaded", err.getvalue())


class TestPlanRobust(unittest.TestCase):
    """plan_robust on a fake arm: the corpus is made, inputs and checks are planned."""

    @classmethod
    def setUpClass(cls):
        from plan import robust as plan_robust
        cls.pr = plan_robust

    def test_columns(self):
        self.assertEqual(self.pr.column("base"), "base")
        self.assertEqual(self.pr.column("base-kasan"), "base")
        self.assertIsNone(self.pr.column("other"))

    def test_isolation_rule(self):
        iso = self.pr.isolated
        self.assertTrue(iso({"flags": "-"}, "oops"))
        self.assertTrue(iso({"flags": "-"}, "loaded+F"))
        self.assertTrue(iso({"flags": "m"}, "loaded"))
        self.assertFalse(iso({"flags": "u"}, "refused:EPERM"))
        self.assertFalse(iso({"flags": "-"}, "refused:ENOEXEC"))

    def plan_base(self, arms, *tsv):
        """(Planner, stderr) of plan.robust for arm base, its arms under arms/."""
        import plan
        corpus = self.pr.corpus
        old = corpus.ARMS
        corpus.ARMS = plan.ARMS = arms
        try:
            p = plan.Planner("base")
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.pr.add_boots(p, "base", *tsv)
        finally:
            corpus.ARMS = plan.ARMS = old
        return p, err.getvalue()

    def test_an_arm_without_a_column_runs_no_corpus(self):
        import plan
        p = plan.Planner("dwarf")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.pr.add_boots(p, "dwarf")
        self.assertIn("declares no outcomes for it", err.getvalue())
        self.assertEqual((p.boots, p.not_run), ({}, []))

    def test_plan_without_good_module(self):
        """No module built: nothing stale is planned, every case is not_run."""
        with tempfile.TemporaryDirectory() as tmp:
            p, err = self.plan_base(os.path.join(tmp, "arms"))
            self.assertIn("the robustness cases are not run", err)
            self.assertIn("robust", p.boots)
            self.assertEqual(sum(len(b["plan"]) for b in p.boots.values()), 0)
            names = {c["case"] for c in p.not_run}
            self.assertIn("health-0", names)
            self.assertIn("robust-versions-empty", names)
            self.assertTrue(all(c["kind"] == "robust" for c in p.not_run))

    def test_plan_leaves_out_an_input_that_does_not_apply(self):
        """An optional recipe (name?:SEC) on a module without SEC: not planned, said why."""
        import subprocess
        with tempfile.TemporaryDirectory() as tmp:
            mods = os.path.join(tmp, "arms", "base", "mods", "main")
            os.makedirs(mods)
            src = os.path.join(tmp, "m.c")
            with open(src, "w") as f:
                f.write('int x = 1;\nconst char v[] __attribute__((section(".modinfo"))) = "a=b";\n')
            subprocess.run(["gcc", "-c", "-o", os.path.join(mods, "mod-asm-user.ko"), src],
                           check=True)
            tsv = os.path.join(tmp, "robust.tsv")
            with open(tsv, "w") as f:
                f.write("# input\tmake\tflags\tnomodv\tbase\tkeep\tremove\tnote\n"
                        "short\tshdr:.data:size=0\t-\tloaded\tloaded\tloaded\tloaded\tn\n"
                        "orc\tshdr?:.orc_unwind:size=0\t-\toops\toops\toops\toops\tn\n")
            p, err = self.plan_base(os.path.join(tmp, "arms"), tsv)
            names = {c["case"] for c in p.not_run} | {
                c["case"] for b in p.boots.values() for c in b["plan"]}
            self.assertIn("robust-short", names)
            self.assertNotIn("robust-orc", names)
            self.assertIn("orc: not applicable, its module has no .orc_unwind section", err)


if __name__ == "__main__":
    unittest.main()
