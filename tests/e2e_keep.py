# SPDX-License-Identifier: GPL-2.0
"""End-to-end checks of series-keep on the run `make test` just did: the
completeness audit, real CRCs for a module's own .S export, refusals that
name both CRCs, the build-time error, and sorted __versions."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from core import tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()
ARMS = os.path.join(B, "arms")
HAVE_KEEP = os.path.isfile(os.path.join(tables.series_dir("keep"), "series"))


def sizes(arm):
    with open(os.path.join(ARMS, arm, "sizes.json")) as f:
        return json.load(f)


def modversions(arm, ko):
    r = subprocess.run(["modprobe", "--dump-modversions", os.path.join(ARMS, arm, "mods", ko)],
                       capture_output=True, text=True, check=True)
    return [(l.split("\t")[1], int(l.split("\t")[0], 16)) for l in r.stdout.splitlines()]


@unittest.skipUnless(HAVE_KEEP, "series-keep/series does not exist")
class TestKeep(unittest.TestCase):
    def test_audit_complete(self):
        a = sizes("keep")["audit"]
        self.assertEqual(a["vmlinux_zero_crc"]["count"], 0, a["vmlinux_zero_crc"])
        self.assertEqual(a["workload_zero_crc"]["count"], 0, a["workload_zero_crc"])
        self.assertEqual(a["workload_missing_crc_msgs"], 0)
        self.assertEqual(a["kernel_missing_crc_msgs"], 0)

    def test_existing_way_versions_base_too(self):
        # CFLAGS_provider-asm.o := -include (workload/modules/Kbuild) is a
        # 6.1 way: base gets the same real CRC as keep; only the module
        # that never declared the prototype (noproto/) dumps it as 0
        a = sizes("base")["audit"]
        self.assertNotIn("modvlab_prov_asm_add", a["workload_zero_crc"]["names"])
        base = dict(modversions("base", "main/mod-consumer.ko")).get("modvlab_prov_asm_add")
        keep = dict(modversions("keep", "main/mod-consumer.ko")).get("modvlab_prov_asm_add")
        self.assertTrue(base, "base: no real CRC for the .S export")
        self.assertEqual(base, keep)
        with open(os.path.join(ARMS, "base", "mods", "noproto", "Module.symvers")) as f:
            crcs = {l.split("\t")[1]: int(l.split("\t")[0], 16) for l in f if "\t" in l}
        self.assertEqual(crcs.get("modvlab_prov_asm_add"), 0)

    def test_asm_export_has_real_crc(self):
        for ko in ("main/mod-consumer.ko", "apart/mod-consumer.ko"):
            with self.subTest(ko=ko):
                crc = dict(modversions("keep", ko)).get("modvlab_prov_asm_add")
                self.assertIsNotNone(crc, "no __versions entry")
                self.assertNotEqual(crc, 0)

    def test_refusal_names_both_crcs(self):
        with open(os.path.join(B, "report", "report.json")) as f:
            cases = {c["case"]: c for c in json.load(f)["cases"]
                     if c["arm"] == "keep" and c.get("loaded_into") == "G0"}
        reason = cases["asm-proto-changed"]["reason"]
        m = re.search(r"module CRC (0x[0-9a-f]{8}), mod_provider CRC (0x[0-9a-f]{8})", reason)
        self.assertTrue(m, reason)
        self.assertNotEqual(m.group(1), m.group(2))

    def test_versions_sorted(self):
        names = [n for n, _ in modversions("keep", "main/mod-asm-user.ko")]
        self.assertGreater(len(names), 10)
        self.assertEqual(names, sorted(names))

    def test_missing_prototype_fails_the_build(self):
        src = os.path.join(TOP, "workload", "modules")
        with tempfile.TemporaryDirectory(dir=B) as d:
            for f in ("modvlab.h", "mod-provider.h", "provider-c.c", "provider-asm.S"):
                shutil.copy(os.path.join(src, f), d)
            with open(os.path.join(d, "Kbuild"), "w") as f:
                f.write("obj-m += mod-provider.o\nmod-provider-y := provider-c.o provider-asm.o\n")
            r = subprocess.run(["make", "-C", os.path.join(ARMS, "keep", "obj"), "M=" + d,
                                "CC=ccache gcc", "modules"], capture_output=True, text=True)
            self.assertNotEqual(r.returncode, 0, "keep built a module whose .S export has no CRC")
            self.assertIn('EXPORT symbol "modvlab_prov_asm_add"', r.stderr)
            # the hint names the ways 6.1 has
            self.assertIn("-include", r.stderr)
            self.assertIn("Documentation/kbuild/modules.rst", r.stderr)


if __name__ == "__main__":
    unittest.main()
