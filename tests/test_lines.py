# SPDX-License-Identifier: GPL-2.0
"""Unit tests of make history's lines: discovering Debian's kernel lines from
what suites serve, HISTORY's selection, and the mechanism an upload's config ran."""
import pathlib
import tempfile
import unittest
from unittest import mock

from core import tables
from history import lines, mechanism

SERVED = {
    "bookworm": ["6.1.0-47", "6.1.0-57", "6.1.0-57-cloud", "6.12", "6.12.107+deb12",
                 "6.12.118+deb12", "6.12.118+deb12-rt"],
    "trixie": ["6.12.107+deb13", "6.12.117+deb13"],
    "trixie-security": ["6.12.111+deb13", "6.12.115+deb13.1", "6.12.115+deb13.1.2",
                        "6.12.117+deb13"],
    "sid": ["7.2.13+deb14", "7.2.13+deb14-cloud"],
}
SUITES = [{"suite": "bookworm", "apt": "host"}, {"suite": "bookworm-security", "apt": "host"},
          {"suite": "trixie", "apt": "private"}, {"suite": "trixie-security", "apt": "private"},
          {"suite": "sid", "apt": "private"}]


def fake_discover():
    with mock.patch.object(lines, "served", lambda s, a, f: SERVED.get(s, [])), \
         mock.patch.object(lines, "host_suite", lambda abi, f: "bookworm"), \
         mock.patch.object(lines, "kbuild_of", lambda p, abi, s, a: "kb"):
        return lines.discover(SUITES, "amd64")


class Lines(unittest.TestCase):
    def test_split_abi(self):
        self.assertEqual(lines.split_abi("6.1.0-57"), ("6.1.0-{N}", 57))
        self.assertEqual(lines.split_abi("6.12.118+deb12"), ("6.12.{N}+deb12", 118))
        self.assertEqual(lines.split_abi("7.2.13+deb14"), ("7.2.{N}+deb14", 13))
        # a respin: an ABI bump without a new upstream release, upload "N.R"
        self.assertEqual(lines.split_abi("6.12.115+deb13.1"), ("6.12.{N}+deb13", "115.1"))
        for bad in ("6.12", "6.12.115+deb13.1.2", "6.12.115+deb13.", "6.1.0-57-cloud",
                    "6.12.115+deb13.1-rt", "amd64"):
            self.assertIsNone(lines.split_abi(bad), bad)

    def test_upload_names_round_trip(self):
        for pattern, n, abi in (("6.1.0-{N}", 57, "6.1.0-57"),
                                ("6.12.{N}+deb13", 115, "6.12.115+deb13"),
                                ("6.12.{N}+deb13", "115.1", "6.12.115+deb13.1")):
            self.assertEqual(tables.fill(pattern, n), abi)
            self.assertEqual(tables.upload_of(pattern, abi), n)
            self.assertEqual(lines.split_abi(abi), (pattern, n))
        self.assertIsNone(tables.upload_of("6.12.{N}+deb13", "6.12.115+deb12"))
        self.assertEqual(sorted(["116", "115.1", 115, "9", "115.10", "115.2"], key=tables.upload_key),
                         ["9", 115, "115.1", "115.2", "115.10", "116"])
        for bad in ("115.", ".1", "115.1.2", "x", ""):
            with self.assertRaises(ValueError, msg=bad):
                tables.upload_id(bad)

    def test_discover_groups_and_orders(self):
        got, skipped = fake_discover()
        self.assertEqual([x["name"] for x in got],
                         ["6.1.0-N", "6.12.N+deb12", "6.12.N+deb13", "7.2.N+deb14"])
        deb13 = got[2]
        # one line from two suites: every upload, both suites to download from
        # one line from two suites: every upload, the respin in its place
        self.assertEqual(deb13["uploads"], [107, 111, "115.1", 117])
        self.assertEqual(deb13["suites"], ["trixie", "trixie-security"])
        # another flavour and a metapackage are not lines; an irregular name is said
        self.assertEqual(skipped, ["6.12.115+deb13.1.2"])

    def test_select(self):
        got, _ = fake_discover()
        pick = lambda h: {x["name"]: x["uploads"] for x in lines.select(got, h, "6.1.0-{N}")}
        self.assertEqual(len(pick("")), 4)
        self.assertEqual(pick("newest:1"), {"6.1.0-N": [57]})
        self.assertEqual(pick("47 57"), {"6.1.0-N": [47, 57]})
        self.assertEqual(pick("6.12.N+deb13=newest:2 7.2.13+deb14"),
                         {"6.12.N+deb13": ["115.1", 117], "7.2.N+deb14": [13]})
        self.assertEqual(pick("6.12.N+deb13=107,115.1"), {"6.12.N+deb13": [107, "115.1"]})
        self.assertEqual(pick("6.12.115+deb13.1"), {"6.12.N+deb13": ["115.1"]})
        self.assertEqual(pick("6.12.N+deb12"), {"6.12.N+deb12": [107, 118]})
        for bad in ("6.1.0-N=99", "9.9.N+deb99", "6.12.N+deb12=oldest", "48",
                    "6.12.N+deb13=115", "6.12.N+deb13=115.1.1"):
            with self.assertRaises(lines.LineError, msg=bad):
                pick(bad)

    def test_suites_table(self):
        self.assertTrue(lines.read_suites())
        d = pathlib.Path(tempfile.mkdtemp())
        (d / "s").write_text("sid\tsomewhere\n")
        with self.assertRaises(lines.LineError):
            lines.read_suites(d / "s")


class Mechanism(unittest.TestCase):
    def cfg(self, text):
        p = pathlib.Path(tempfile.mkdtemp()) / "config"
        p.write_text(text)
        return mechanism.mechanism(mechanism.read_config(p))

    def test_61_genksyms(self):
        m = self.cfg("CONFIG_MODVERSIONS=y\nCONFIG_ASM_MODVERSIONS=y\nCONFIG_MODULE_FORCE_LOAD=y\n")
        self.assertEqual((m["modversions"], m["tool"], m["basic"], m["extended"]),
                         (True, "genksyms", True, False))

    def test_dwarf_extended_only(self):
        m = self.cfg("CONFIG_MODVERSIONS=y\nCONFIG_GENDWARFKSYMS=y\n"
                     "# CONFIG_BASIC_MODVERSIONS is not set\nCONFIG_EXTENDED_MODVERSIONS=y\n")
        self.assertEqual((m["tool"], m["basic"], m["extended"]), ("gendwarfksyms", False, True))

    def test_off(self):
        m = self.cfg("# CONFIG_MODVERSIONS is not set\n")
        self.assertFalse(m["modversions"])
        self.assertIn("vermagic", m["label"])


if __name__ == "__main__":
    unittest.main()


class Report(unittest.TestCase):
    data = {"lines": [{"name": "6.1.0-N", "pattern": "6.1.0-{N}", "suites": ["bookworm"],
                       "apt": "host", "out": "/x", "uploads": ["6.1.0-56", "6.1.0-57"]},
                      {"name": "7.2.N+deb14", "pattern": "7.2.{N}+deb14", "suites": ["sid"],
                       "apt": "private", "out": "/y", "uploads": ["7.2.13+deb14"]}],
            "uploads": [{"abiname": "6.1.0-56", "line": "6.1.0-N", "fetched": True,
                         "mechanism": {"label": "modversions (genksyms; basic)"}},
                        {"abiname": "6.1.0-57", "line": "6.1.0-N", "fetched": True,
                         "mechanism": {"label": "modversions (genksyms; basic)"}},
                        {"abiname": "7.2.13+deb14", "line": "7.2.N+deb14", "fetched": True,
                         "mechanism": {"label": "no modversions: vermagic (the release)"}}],
            "upgrades": [{"from": "6.1.0-57", "to": "7.2.13+deb14", "of": 10, "loaded": 0,
                          "crc_changed": 5, "removed": 1, "module_layout_changed": True,
                          "refused_by": {"vermagic": 10},
                          "survive": {"per-upload": 0, "bump-on-crc-change": 0, "never-bump": 10,
                                      "what the kernel did": 0},
                          "sample": [{"module": "dummy", "predicted": "refused:vermagic",
                                      "observed": "refused:ENOEXEC", "agree": True}]}]}

    def test_renders(self):
        from compare import doc
        from compare.sections import lines as section
        md = doc.md(section.blocks(self.data, {}))
        self.assertIn("6.1.0-57 → 7.2.13+deb14", md)
        self.assertIn("no modversions: vermagic (the release): 7.2.13+deb14", md)
        self.assertIn("vermagic 10", md)

    def test_strip(self):
        from compare.sections import lines as section
        svg = section.strip(self.data)
        self.assertEqual(svg.count('class="upload"'), 3)
        self.assertEqual(svg.count('data-kind="modversions (genksyms; basic)"'), 2)
