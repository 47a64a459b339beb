# SPDX-License-Identifier: GPL-2.0
"""End-to-end assertions on the reduced real history make test ran (history/run.sh
with TEST_HISTORY): what follows from Debian's data, never from a policy's result."""
import json
import os
import pathlib
import unittest

from core import tables

TOP = pathlib.Path(__file__).resolve().parent.parent
OUT = pathlib.Path(os.environ.get("HISTORY_OUT", pathlib.Path(tables.build_dir()) / "history"))


class History(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        path = OUT / "history.json"
        if not path.exists():
            raise AssertionError(f"{path} missing: make test's history run did not finish")
        cls.h = json.loads(path.read_text())

    def test_uploads_and_sample(self):
        self.assertGreaterEqual(len(self.h["uploads"]), 2)
        for u in self.h["uploads"]:
            self.assertTrue(u["version"] and u["modules"] > 1000, u)
        self.assertTrue(self.h["sample"], "no sampled module was booted")

    def test_boot_agrees_with_host(self):
        for c in self.h["sample"]:
            if not c.get("control_ok", True):
                continue    # the guest cannot run this module at all: no prediction tested
            self.assertTrue(c["agree"], c)
            self.assertNotIn(c["observed"], ("crashed", "not-reached"), c)

    def test_controls_pass(self):
        # make test's sample is chosen to run in the guest (a template through
        # tcrypt, an nls table on a FAT image, a netdev, a filesystem): each
        # to-kernel's own copy passes its check, or the check itself is broken
        self.assertTrue(self.h["sample"])
        for c in self.h["sample"]:
            self.assertTrue(c.get("control_ok"), c)

    def test_follows_from_crcs(self):
        for u in self.h["updates"]:
            name = lambda n: tables.fill(self.h["abiname"], n)
            cases = [c for c in self.h["sample"] if name(c["from"]) == u["from"]
                     and name(c["to"]) == u["to"]]
            mv = u["survive"]["modversions"]
            if not u["crc_changed"] and not u["removed"] and not u["module_layout_changed"]:
                # nothing the loader compares changed: every module loads, and passes its check
                self.assertEqual(mv["modules"], mv["of"], u)
                for c in cases:
                    if not c.get("control_ok", True):
                        continue    # its own copy fails in the guest too
                    self.assertEqual(c["observed"], "loaded", c)
                    self.assertNotEqual(c.get("check"), "fail", c)
            if u["module_layout_changed"]:
                # every module imports module_layout: none survives
                self.assertEqual(mv["modules"], 0, u)
                for c in cases:
                    self.assertNotEqual(c["observed"], "loaded", c)
            self.assertEqual(u["survive"]["per-upload"]["modules"], 0)
            self.assertEqual(u["survive"]["never-bump"]["unsafe"], mv["of"] - mv["modules"])

    def layout_changed(self, a, b):
        return any(u["module_layout_changed"] for u in self.h["updates"]
                   if u["from"] == a and u["to"] == b)

    def test_dkms_rebuild_loads(self):
        self.assertTrue(self.h["dkms"], "no DKMS module in the run")
        for d in self.h["dkms"]:
            self.assertEqual(d["build"], "ok", d)
            own = d["outcomes"].get(d["built_for"])
            # built against an upload's headers, it loads into that upload's kernel
            # a build imports module_layout: refused wherever it changed since
            for to, out in d["outcomes"].items():
                if self.layout_changed(d["built_for"], to):
                    self.assertNotEqual(out, "loaded", (d["module"], d["built_for"], to))
            if d["module"] == "vpoll":
                self.assertEqual(own, "loaded", d)
                self.assertEqual(d["checks"][d["built_for"]], "pass", d)
            # the lab loads in-tree dependencies by the kernel's name (dm-mod is dm_mod):
            # a build that does not load into its own kernel is never the lab's doing
            self.assertNotEqual((d.get("own_kernel") or {}).get("verdict"), "lab-error", d)

    def test_user_package_with_an_in_tree_dependency(self):
        # make test drops in tests/data/oot-dm as MODULES=: oot_dm needs dm-mod
        self.assertIn("oot_dm", {d["module"] for d in self.h["dkms"]},
                      "the MODULES= package was not built")
        for d in self.h["dkms"]:
            if d["module"] in ("oot_dm", "oot_plain"):
                self.assertEqual(d["build"], "ok", d)
                self.assertEqual(d["outcomes"].get(d["built_for"]), "loaded", d)


if __name__ == "__main__":
    unittest.main()
