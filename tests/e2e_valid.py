# SPDX-License-Identifier: GPL-2.0
"""End-to-end assertions on make test's valid run (make valid VALID_SET=small):
every module of the set was built in every arm and booted, and no series
refused a module the reference arm loads."""
import json
import os
import pathlib
import unittest

from core import tables

B = pathlib.Path(tables.build_dir())
RUN = B / "valid" / f"{tables.arch()['name']}-{os.environ.get('TEST_VALID_SET', 'small')}"


class Valid(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        path = RUN / "valid.json"
        if not path.exists():
            raise AssertionError(f"{path} missing: make test's valid run did not finish")
        cls.v = json.loads(path.read_text())

    def test_reference_and_series_arms(self):
        arms = set(self.v["arms"])
        self.assertIn(tables.reference_arm(), arms)
        self.assertEqual(self.v["reference"], tables.reference_arm())
        self.assertGreaterEqual(len(arms), 2, "no series arm ran")

    def test_every_arm_built_and_booted_the_set(self):
        ref = self.v["arms"][self.v["reference"]]
        self.assertGreaterEqual(ref["built"], 5)
        for arm, a in self.v["arms"].items():
            self.assertEqual(a["built"], ref["built"], arm)
            self.assertEqual(a["booted"] + len(self.v["skipped"]), a["built"], arm)
            self.assertEqual(a["not_reached"], 0, arm)
            self.assertEqual(set(a["results"]), set(ref["results"]), arm)

    def test_each_build_started_from_its_arms_objects(self):
        # make test builds the arms first: lab/valid.sh must then start from
        # each arm's G0 objects (an incremental build), not from scratch,
        # or make test pays three more clean kernel builds
        for arm, a in self.v["arms"].items():
            with self.subTest(arm=arm):
                self.assertEqual(a.get("build_from"), arm)

    def test_the_reference_loads_most_of_the_set(self):
        ref = self.v["arms"][self.v["reference"]]
        self.assertGreater(ref["loaded"], ref["booted"] // 2, ref["results"])

    def test_no_series_refuses_what_pristine_loads(self):
        self.assertEqual(self.v["failures"], [])

    def test_modules_from_elsewhere_were_built_and_booted(self):
        # a -dkms package of the base's suite builds against every arm and
        # its modules boot with the set (the pass rule covers them)
        extra = self.v.get("extra") or {}
        self.assertEqual(set(extra), set(self.v["arms"]), "an arm without valid/extra.py's run")
        ref = extra[self.v["reference"]]
        built = {p: e["modules"] for p, e in ref.items() if e["status"] == "built"}
        self.assertTrue(built, ref)
        for arm, a in self.v["arms"].items():
            for mods in built.values():
                for m in mods:
                    self.assertIn(m.rsplit("/", 1)[-1][:-3].replace("-", "_"), a["results"], arm)

    def test_the_set_carries_what_it_was_chosen_for(self):
        f = self.v["features"]
        for k in ("params", "exports", "tracepoints", "rela"):
            self.assertGreater(f[k], 0, k)


if __name__ == "__main__":
    unittest.main()
