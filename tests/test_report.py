# SPDX-License-Identifier: GPL-2.0
"""End-to-end tests of `python3 -m compare report` and `parse` on build directories made in a tmpdir."""
import io
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

from compare import __main__ as cli
from compare import model, report

# one folder a console log: tests/cases/<name>/log (and its expected parse)
CASES = pathlib.Path(__file__).parent / "cases"
TOP = pathlib.Path(__file__).parent.parent


def case(n, name, expected, boot="G0", **kw):
    """A plan record as plan/ writes it: kind release on G0, else update."""
    rec = {"n": n, "case": name, "module": f"main/mod-{name}", "built_by": "base",
           "flags": "-", "deps": [], "expected": expected, "note": "", "built_for": "G0",
           "loaded_into": boot, "boot": boot, "gen": boot,
           "kind": "release" if boot == "G0" else "update",
           "probe": None if boot == "G0" else name.split("-", 1)[1]}
    rec.update(kw)
    return rec


def write_json(path, obj):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj))


def boot(build, arm, name, log, status="exited", meta=True):
    d = build / "arms" / arm / "boot"
    d.mkdir(parents=True, exist_ok=True)
    shutil.copy(CASES / log.removesuffix(".log") / "log", d / f"{name}.log")
    if meta:
        write_json(d / f"{name}.json", {"status": status, "rc": 0, "wall_s": 2.5,
                                        "accel": "tcg", "cmd": "qemu-system-x86_64 ..."})


def make_build(build):
    """base: clean.log in G0, a G2 boot that never ran, a not_run entry;
    nomodv: panic.log; keep: plan only; remove/lax: outcomes.log with a repeat case;
    extra: a G0 log without its runner record."""
    write_json(build / "provenance.json", {"tree": "6.1.192-3", "config_sha256": "ab" * 32})
    write_json(build / "arms/base/plan.json", {"arm": "base", "cases": [
        case(1, "asm-user", "compatible"),
        case(2, "consumer-same", "compatible"),
        case(3, "from-nomodv", "incompatible", built_by="nomodv", flags="mv"),
        case(1, "g2-proto-user", "incompatible", boot="G2", gen_note="prototype changes"),
    ], "not_run": [dict(case(None, "from-keep", "compatible"), reason="arm keep not built")]})
    boot(build, "base", "G0", "clean.log")
    write_json(build / "arms/base/build.json", {"cpu_s": 40.0, "wall_s": 20, "rc": 0})
    write_json(build / "arms/base/build-clean.json", {"cpu_s": 390.5, "wall_s": 240, "rc": 0,
                                                      "cmd": ["make"]})
    write_json(build / "arms/base/sizes.json", {
        "vmlinux": {"text": 1000, "data": 200, "bss": 50}, "bzimage_bytes": 900000,
        "exports": 3697, "kcrctab_bytes": 14788, "ksymtab_bytes": 44364,
        "modules": {"main/mod-asm-user": {"ko_bytes": 9672, "versions_bytes": 1280}}})

    write_json(build / "arms/nomodv/plan.json", {"arm": "nomodv", "cases": [
        case(1, "asm-user", "compatible"),
        case(2, "g3-visible-user", "incompatible"),
        case(3, "consumer-same", "compatible"),
        case(4, "from-base", "incompatible"),
    ]})
    boot(build, "nomodv", "G0", "panic.log")
    write_json(build / "arms/nomodv/build.json", {"cpu_s": 300.0, "rc": 0})
    write_json(build / "arms/nomodv/sizes.json", {"vmlinux": {"text": 990}})

    write_json(build / "arms/keep/plan.json", {"arm": "keep", "cases": [
        case(1, "asm-user", "compatible")]})

    names = ["crc-mismatch", "crc-missing", "vermagic", "abi-version", "unknown-symbol",
             "already-loaded", "eperm", "bad-elf", "other-einval", "misbehaved",
             "notrecoverable", "forced", "out-of-tree", "setup-failed", "bad-line", "warned",
             "load-256"]
    compatible = {"forced", "out-of-tree", "load-256", "notrecoverable", "warned", "bad-line"}
    write_json(build / "arms/remove/plan.json", {"arm": "remove", "policy": "lax", "cases": [
        case(i, n, "compatible" if n in compatible else "incompatible", policy=None,
             **({"imports": 256} if n == "load-256" else {}))
        for i, n in enumerate(names, 1)]})
    boot(build, "remove", "G0", "outcomes.log")

    write_json(build / "arms/extra/plan.json", {"arm": "extra", "cases": [
        case(1, "asm-user", "compatible")]})
    boot(build, "extra", "G0", "clean.log", meta=False)
    (build / "arms/not-an-arm").mkdir()


def run_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = cli.main(list(argv))
    return rc, out.getvalue(), err.getvalue()


class TestReport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.build = pathlib.Path(cls.tmp.name) / "build"
        make_build(cls.build)
        cls.gens_tsv = model.GENS_TSV   # independent of workload/gens/gens.tsv
        model.GENS_TSV = pathlib.Path(cls.tmp.name) / "no-gens.tsv"
        try:
            cls.rc, cls.out, cls.err = run_cli("report", "--build", str(cls.build))
        finally:
            model.GENS_TSV = cls.gens_tsv
        cls.json = json.loads((cls.build / "report/report.json").read_text())
        cls.md = (cls.build / "report/report.md").read_text()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def cases(self, arm):
        return {c["case"]: c for c in self.json["cases"] if c["arm"] == arm}

    def test_exit_and_files(self):
        self.assertEqual(self.rc, 0, self.err)
        self.assertEqual(self.err, "")
        self.assertIn("wrote", self.out)

    def test_top_level_contract(self):
        self.assertEqual(list(self.json)[:6], ["provenance", "arms", "cases", "verdicts",
                                               "robustness", "costs"])
        self.assertEqual(list(self.json)[6:], ["generations"])
        self.assertEqual(self.json["robustness"], {})

    def test_arm_order(self):
        self.assertEqual(list(self.json["arms"]), ["nomodv", "base", "keep", "remove", "extra"])
        self.assertEqual(list(self.json["verdicts"]),
                         ["nomodv", "base", "keep", "remove/lax", "extra"])

    def test_provenance(self):
        prov = self.json["provenance"]
        self.assertEqual(prov["tree"], "6.1.192-3")
        self.assertEqual(prov["config_sha256"], "ab" * 32)
        self.assertEqual(prov["accel"], "tcg")  # from the boot records

    def test_case_record_fields(self):
        c = self.cases("base")["consumer-same"]
        for key in ("arm", "policy", "case", "built_for", "loaded_into", "expected",
                    "outcome", "verdict", "reason", "errno", "taint", "ns", "boot",
                    "built_by", "flags"):
            self.assertIn(key, c)
        self.assertEqual(c["arm"], "base")
        self.assertIsNone(c["policy"])
        self.assertEqual(c["outcome"], "refused:crc-missing")
        self.assertEqual(c["verdict"], "needless-refusal")
        self.assertEqual(c["reason"], "mod_consumer: no symbol version for modvlab_prov_asm_add")
        self.assertEqual((c["errno"], c["taint"], c["ns"], c["boot"]), ("EINVAL", "", 4567, "G0"))
        self.assertEqual(c["log"], "arms/base/boot/G0.log:8")

    def test_base_outcomes(self):
        got = {n: (c["outcome"], c["verdict"]) for n, c in self.cases("base").items()}
        self.assertEqual(got, {
            "asm-user": ("loaded", "correct-load"),
            "consumer-same": ("refused:crc-missing", "needless-refusal"),
            "from-nomodv": ("refused:vermagic", "correct-refusal"),
            "g2-proto-user": ("not-run", "no-verdict"),
            "from-keep": ("not-run", "no-verdict"),
        })
        self.assertEqual(self.cases("base")["from-keep"]["reason"], "arm keep not built")
        self.assertIn("G2.log", self.cases("base")["g2-proto-user"]["reason"])
        self.assertEqual(self.json["verdicts"]["base"], {
            "correct-load": 1, "correct-refusal": 1, "needless-refusal": 1, "unsafe-load": 0,
            "lab-error": 0, "no-verdict": 2})

    def test_crashed_arm(self):
        got = {n: (c["outcome"], c["verdict"]) for n, c in self.cases("nomodv").items()}
        self.assertEqual(got, {
            "asm-user": ("loaded", "correct-load"),
            "g3-visible-user": ("crashed", "unsafe-load"),
            "consumer-same": ("crashed", "no-verdict"),
            "from-base": ("crashed", "no-verdict"),
        })
        self.assertEqual(self.json["arms"]["nomodv"]["boots"]["G0"]["run"], "crashed")
        self.assertEqual(self.json["verdicts"]["nomodv"]["unsafe-load"], 1)

    def test_arm_without_boots(self):
        (c,) = self.cases("keep").values()
        self.assertEqual((c["outcome"], c["verdict"]), ("not-run", "no-verdict"))
        keep = self.json["arms"]["keep"]
        self.assertIsNone(keep["built"])
        self.assertIsNone(keep["build_cpu_s"])
        self.assertEqual(keep["vmlinux"], {"text": None, "data": None, "bss": None})
        self.assertEqual(keep["series"], {"patches": None, "files": None, "added": None,
                                          "removed": None})
        self.assertIsNone(keep["sizes"])
        self.assertIsNone(keep["workload"])
        self.assertIsNone(keep["bzimage_bytes"])
        self.assertEqual(keep["boots"]["G0"]["run"], None)

    def test_log_without_runner_record_is_not_run(self):
        (c,) = self.cases("extra").values()
        self.assertEqual((c["outcome"], c["verdict"]), ("not-run", "no-verdict"))
        self.assertEqual(c["reason"], "boot G0 never ran: no boot/G0.json")
        self.assertEqual(self.json["arms"]["extra"]["boots"]["G0"]["detail"],
                         "never ran: no boot/G0.json")

    def test_policy_arm(self):
        got = self.cases("remove")
        self.assertEqual(len(got), 17)
        self.assertTrue(all(c["policy"] == "lax" for c in got.values()))
        self.assertEqual(got["misbehaved"]["verdict"], "unsafe-load")
        self.assertEqual(got["warned"]["verdict"], "lab-error")
        self.assertEqual(got["forced"]["taint"], "FO")
        self.assertEqual(got["forced"]["taint_new"], "F")
        self.assertEqual(got["setup-failed"]["verdict"], "no-verdict")
        self.assertEqual(self.json["verdicts"]["remove/lax"], {
            "correct-load": 3, "correct-refusal": 9, "needless-refusal": 1,
            "unsafe-load": 1, "lab-error": 1, "no-verdict": 2})

    def test_costs(self):
        self.assertEqual(self.json["costs"], {"load_ns": {"remove/lax": {"256": 88000}}})

    def test_build_facts(self):
        base, nomodv = self.json["arms"]["base"], self.json["arms"]["nomodv"]
        self.assertTrue(base["built"])
        self.assertEqual(base["build_cpu_s"], 390.5)   # the clean build, not the last one
        self.assertTrue(base["build"]["clean"])
        self.assertNotIn("cmd", base["build"])
        self.assertEqual(base["vmlinux"], {"text": 1000, "data": 200, "bss": 50})
        self.assertEqual((base["exports"], base["unversioned_exports"], base["kcrctab_bytes"]),
                         (3697, None, 14788))
        self.assertEqual(base["ksymtab_bytes"], 44364)  # extra sizes are copied as they are
        self.assertEqual(base["modules"]["main/mod-asm-user"]["versions_bytes"], 1280)
        self.assertEqual(nomodv["build_cpu_s"], 300.0)
        self.assertEqual(nomodv["vmlinux"], {"text": 990, "data": None, "bss": None})

    def test_markdown(self):
        md = self.md
        self.assertTrue(md.startswith("# modvlab report\n"))
        self.assertIn("Provenance: tree `6.1.192-3`", md)
        head = "| case | expected | nomodv | base | keep | remove/lax | extra |"
        self.assertIn(head, md)
        # verdicts first, then the update matrix, the release matrix, ... reasons
        order = [md.index(s) for s in ("## Verdicts", "## Kernel updates", head,
                                       "## Code size vs base", "## Costs", "## Reasons")]
        self.assertEqual(order, sorted(order))
        row = next(ln for ln in md.splitlines() if ln.startswith("| `consumer-same` |"))
        self.assertEqual(row, "| `consumer-same` | compatible | `crashed` · no verdict "
                              "| `refused:crc-missing` ✗ NEEDLESS | – | – | – |")
        row = next(ln for ln in md.splitlines() if ln.startswith("| `g3-visible-user` |"))
        self.assertIn("`crashed` ✗ UNSAFE", row)
        self.assertIn("`refused:vermagic` ✓", md)
        self.assertIn("| **base** | 1 | 1 | 1 | 0 | 0 | 2 | 5 |", md)
        self.assertIn("- **nomodv**: UNSAFE (let in): `g3-visible-user`", md)
        self.assertIn("- **base**: NEEDLESS (kept out): `consumer-same`", md)
        # the G2 case built for G0 is in the update matrix, not among the release cases
        self.assertIn("| **G2** | prototype changes | `proto-user` | incompatible "
                      "| `not-run` · no verdict |", md)
        self.assertNotIn("| `g2-proto-user` |", md)
        self.assertIn("<details><summary><b>base</b>", md)
        self.assertIn("| **base** | yes | 1,000 | 200 | 50 | 900,000 | 3,697 | – | 14,788 "
                      "| 9,672 | 1,280 | – | – | – | – |", md)
        self.assertIn("| **nomodv** | yes | 990 (-10) | – |", md)
        self.assertIn("| **base** | 390.5 | clean build | 1.00× |", md)
        self.assertIn("| **nomodv** | 300.0 | last build | 0.77× |", md)
        self.assertIn("| `main/mod-asm-user` |", md)
        self.assertIn("### Load cost", md)
        self.assertIn("No audit data (–): nomodv, base, keep, remove, extra.", md)


class TestReportErrors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.build = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_nothing_to_report(self):
        (self.build / "arms/base").mkdir(parents=True)
        rc, out, err = run_cli("report", "--build", str(self.build))
        self.assertNotEqual(rc, 0)
        self.assertTrue(err.startswith("compare: error: nothing to report"), err)
        self.assertEqual(err.count("\n"), 1)
        self.assertFalse((self.build / "report").exists())

    def test_no_build_dir(self):
        rc, _, err = run_cli("report", "--build", str(self.build / "nope"))
        self.assertNotEqual(rc, 0)
        self.assertIn("compare: error:", err)

    def test_unreadable_plan(self):
        (self.build / "arms/base").mkdir(parents=True)
        (self.build / "arms/base/plan.json").write_text("{not json")
        rc, _, err = run_cli("report", "--build", str(self.build))
        self.assertNotEqual(rc, 0)
        self.assertIn("plan.json", err)

    def test_unreadable_boot_record(self):
        write_json(self.build / "arms/base/plan.json", {"cases": [case(1, "a", "compatible")]})
        boot(self.build, "base", "G0", "clean.log", meta=False)
        (self.build / "arms/base/boot/G0.json").write_text("[1, 2")
        with self.assertRaises(report.InputError):
            report.collect(self.build)

    def test_crash_only_still_reports(self):
        write_json(self.build / "arms/base/plan.json", {"cases": [case(1, "a", "compatible")]})
        boot(self.build, "base", "G0", "empty.log", status="qemu-error")
        rc, _, err = run_cli("report", "--build", str(self.build))
        self.assertEqual(rc, 0, err)
        rep = json.loads((self.build / "report/report.json").read_text())
        self.assertEqual([(c["outcome"], c["verdict"]) for c in rep["cases"]],
                         [("crashed", "no-verdict")])
        self.assertEqual(rep["arms"]["base"]["boots"]["G0"]["status"], "qemu-error")
        self.assertEqual(rep["arms"]["base"]["boots"]["G0"]["run"], "no-results")

    def test_plan_and_log_disagree(self):
        write_json(self.build / "arms/base/plan.json", {"cases": [case(1, "other", "compatible")]})
        boot(self.build, "base", "G0", "clean.log")
        (c,) = report.collect(self.build)["cases"]
        self.assertEqual((c["outcome"], c["verdict"]), ("plan-error", "no-verdict"))
        self.assertIn("asm-user", c["reason"])


class TestParseCommand(unittest.TestCase):
    def test_clean(self):
        rc, out, _ = run_cli("parse", str(CASES / "clean" / "log"))
        self.assertEqual(rc, 0)
        lines = out.splitlines()
        self.assertEqual(lines[0].split("  #")[0], "1 asm-user loaded 0 0x0 123456 loaded")
        self.assertEqual(lines[1].split("  #")[0],
                         "2 consumer-same refused EINVAL 0x0 4567 refused:crc-missing")
        self.assertEqual(lines[-1], "status: complete (3/3 results)")

    def test_panic(self):
        rc, out, _ = run_cli("parse", str(CASES / "panic" / "log"))
        self.assertEqual(rc, 1)
        lines = out.splitlines()
        self.assertTrue(lines[1].startswith("2 g3-visible-user - - - - crashed  # line 10: "
                                            "no result: BUG: kernel NULL pointer"))
        self.assertTrue(lines[3].startswith("4 ? - - - - crashed"))
        self.assertTrue(lines[-1].startswith("status: crashed (1/4 results, no end line;"))

    def test_timeout_flag(self):
        rc, out, _ = run_cli("parse", "--boot-status", "timeout", str(CASES / "timeout" / "log"))
        self.assertEqual(rc, 1)
        self.assertIn("2 g4-opaque-user - - - - timeout", out)
        self.assertTrue(out.splitlines()[-1].startswith("status: timeout"))

    def test_empty_and_missing(self):
        rc, out, _ = run_cli("parse", str(CASES / "empty" / "log"))
        self.assertEqual((rc, out), (1, "status: no-results (no KTAP header, no end line)\n"))
        rc, _, err = run_cli("parse", str(CASES / "no-such" / "log"))
        self.assertEqual(rc, 2)
        self.assertTrue(err.startswith("compare: error: "))

    def test_forced_taint_letters(self):
        _, out, _ = run_cli("parse", str(CASES / "outcomes" / "log"))
        line = next(ln for ln in out.splitlines() if ln.startswith("12 "))
        self.assertTrue(line.startswith("12 forced loaded 0 0x1002(FO) 1000 loaded"), line)

    def test_module_entry_point(self):
        p = subprocess.run([sys.executable, "-m", "compare", "parse", str(CASES / "noisy" / "log")],
                           cwd=TOP, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("3 from-nomodv refused EINVAL 0x0 999 refused:vermagic", p.stdout)


if __name__ == "__main__":
    unittest.main()
