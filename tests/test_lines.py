# SPDX-License-Identifier: GPL-2.0
"""Unit tests of make history's lines: discovering Debian's kernel lines from
what suites serve, HISTORY's selection, and the mechanism an upload's config ran."""
import pathlib
import tempfile
import unittest
from unittest import mock

from history import lines, mechanism

SERVED = {
    "bookworm": ["6.1.0-47", "6.1.0-57", "6.1.0-57-cloud", "6.12", "6.12.107+deb12",
                 "6.12.118+deb12", "6.12.118+deb12-rt"],
    "trixie": ["6.12.107+deb13", "6.12.117+deb13"],
    "trixie-security": ["6.12.111+deb13", "6.12.115+deb13.1", "6.12.117+deb13"],
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
        for bad in ("6.12", "6.12.115+deb13.1", "6.1.0-57-cloud", "amd64"):
            self.assertIsNone(lines.split_abi(bad), bad)

    def test_discover_groups_and_orders(self):
        got, skipped = fake_discover()
        self.assertEqual([x["name"] for x in got],
                         ["6.1.0-N", "6.12.N+deb12", "6.12.N+deb13", "7.2.N+deb14"])
        deb13 = got[2]
        # one line from two suites: every upload, both suites to download from
        self.assertEqual(deb13["uploads"], [107, 111, 117])
        self.assertEqual(deb13["suites"], ["trixie", "trixie-security"])
        # another flavour and a metapackage are not lines; an irregular name is said
        self.assertEqual(skipped, ["6.12.115+deb13.1"])

    def test_select(self):
        got, _ = fake_discover()
        pick = lambda h: {x["name"]: x["uploads"] for x in lines.select(got, h, "6.1.0-{N}")}
        self.assertEqual(len(pick("")), 4)
        self.assertEqual(pick("newest:1"), {"6.1.0-N": [57]})
        self.assertEqual(pick("47 57"), {"6.1.0-N": [47, 57]})
        self.assertEqual(pick("6.12.N+deb13=newest:2 7.2.13+deb14"),
                         {"6.12.N+deb13": [111, 117], "7.2.N+deb14": [13]})
        self.assertEqual(pick("6.12.N+deb12"), {"6.12.N+deb12": [107, 118]})
        for bad in ("6.1.0-N=99", "9.9.N+deb99", "6.12.N+deb12=oldest", "48"):
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
