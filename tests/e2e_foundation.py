# SPDX-License-Identifier: GPL-2.0
"""End-to-end assertions on the run `make test` just did: every boot finished,
every config took, and the pristine kernels gave the outcomes in
tests/expect/foundation.tsv."""
import json
import os
import subprocess
import unittest

from core import tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()
ARMS = os.path.join(B, "arms")
REPORT = os.path.join(B, "report", "report.json")
PRISTINE = ("nomodv", "base")
# every arm that must have run: the pristine ones and each with a series
EXPECTED_ARMS = PRISTINE + tuple(
    a for a in ("keep", "remove")
    if os.path.isfile(os.path.join(TOP, "series-" + a, "series")))


def load_report():
    with open(REPORT) as f:
        return json.load(f)


def read_expect(name):
    rows = []
    with open(os.path.join(TOP, "tests", "expect", name)) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                rows.append(line.rstrip("\n").split("\t"))
    return rows


def arms_run():
    return sorted(a for a in os.listdir(ARMS)
                  if os.path.isfile(os.path.join(ARMS, a, "plan.json")))


class TestRun(unittest.TestCase):
    def test_report_written(self):
        self.assertTrue(os.path.isfile(REPORT), "make compare wrote no report.json")
        rep = load_report()
        for arm in EXPECTED_ARMS:
            self.assertIn(arm, rep["arms"], f"arm {arm} missing from the report")
        with open(os.path.join(B, "report", "report.md")) as f:
            md = f.read()
        for arm in PRISTINE:
            self.assertIn(arm, md)

    def test_boots_finished(self):
        for arm in arms_run():
            with self.subTest(arm=arm):
                with open(os.path.join(ARMS, arm, "boot", "G0.json")) as f:
                    st = json.load(f)
                self.assertEqual(st["status"], "exited", f"{arm}: {st}")
                with open(os.path.join(ARMS, arm, "boot", "G0.log"), errors="replace") as f:
                    self.assertIn("# modvlab: end", f.read())

    def test_config_took(self):
        for arm in arms_run():
            with self.subTest(arm=arm):
                # lab.config, the architecture's, the base's and the arm's
                # fragments, renamed for the base (lab/fragments.sh)
                frags = subprocess.run(
                    ["sh", os.path.join(TOP, "lab", "fragments.sh"),
                     os.path.join(TOP, "qemu", "config", arm + ".config")],
                    capture_output=True, text=True, check=True).stdout.split()
                self.assertGreaterEqual(len(frags), 3)
                r = subprocess.run(["sh", os.path.join(TOP, "lab", "config-check.sh"),
                                    os.path.join(ARMS, arm, "obj", ".config"), *frags],
                                   capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr)

    def test_foundation_outcomes(self):
        rep = load_report()
        got = {(c["arm"], c["case"]): c for c in rep["cases"]
               if c.get("loaded_into") in (None, "G0") and not c.get("policy")}
        for arm, case, outcome in read_expect("foundation.tsv"):
            if arm not in EXPECTED_ARMS:
                continue    # a series arm without a series file yet
            with self.subTest(arm=arm, case=case):
                self.assertIn((arm, case), got, f"{arm}/{case} not in the report")
                self.assertEqual(got[(arm, case)]["outcome"], outcome,
                                 got[(arm, case)].get("reason"))


class TestBuildFacts(unittest.TestCase):
    def dump(self, arm, ko):
        r = subprocess.run(["modprobe", "--dump-modversions",
                            os.path.join(ARMS, arm, "mods", ko)],
                           capture_output=True, text=True)
        return dict((l.split("\t")[1], int(l.split("\t")[0], 16))
                    for l in r.stdout.splitlines() if "\t" in l)

    def test_base_asm_export_versioned_by_include(self):
        # the provider's Kbuild declares its .S export the way 6.1 allows
        # (CFLAGS_provider-asm.o := -include mod-provider.h, the same in every
        # arm): base versions it like its C export (the hole without a
        # declaration is keep's noproto case)
        same = self.dump("base", "main/mod-consumer.ko")
        self.assertNotEqual(same.get("modvlab_prov_asm_add", 0), 0)
        self.assertNotEqual(same.get("modvlab_prov_c_add", 0), 0)

    def test_versions_sections(self):
        sizes = {}
        for arm in PRISTINE:
            with open(os.path.join(ARMS, arm, "sizes.json")) as f:
                sizes[arm] = json.load(f)
        self.assertEqual(sizes["nomodv"]["modules"]["main/mod-asm-user"]["versions_bytes"], 0)
        self.assertEqual(sizes["nomodv"]["kcrctab_bytes"], 0)
        v = sizes["base"]["modules"]["main/mod-asm-user"]["versions_bytes"]
        self.assertGreater(v, 0)
        self.assertEqual(v % 64, 0, "struct modversion_info is 64 bytes")
        self.assertEqual(sizes["base"]["kcrctab_bytes"], 4 * sizes["base"]["exports"])


if __name__ == "__main__":
    unittest.main()
