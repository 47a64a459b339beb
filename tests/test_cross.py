# SPDX-License-Identifier: GPL-2.0
"""make cross: the report section reads build/cross/cross.tsv; the arch table
lab/arches.tsv's make cross lines are well formed."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

from compare import doc
from compare.sections import cross
from core import tables

TOP = pathlib.Path(__file__).resolve().parent.parent


class CrossSectionTest(unittest.TestCase):
    def load(self, text):
        with tempfile.TemporaryDirectory() as d:
            b = pathlib.Path(d)
            if text is not None:
                (b / "cross").mkdir()
                (b / "cross" / "cross.tsv").write_text(text)
            return cross.load(b, {})

    def test_absent_means_no_section(self):
        self.assertIsNone(self.load(None))

    def test_rows_and_failure_shown(self):
        data = self.load("arch\ttree\tresult\tcpu_s\tmissing_crc\n"
                         "arm64\tkeep\tpass\t301.5\t0\n"
                         "sparc32\tpristine\tpass\t250\t13\n"
                         "sparc32\tkeep\tfail\t-\t2\n")
        self.assertEqual(data["rows"][0], {"arch": "arm64", "tree": "keep", "result": "pass",
                                           "cpu_s": 301.5, "missing_crc": 0})
        md = doc.md(cross.blocks(data, {}))
        self.assertIn("| sparc32 | pristine | pass | 250 | 13 |", md)
        self.assertIn("Failed: sparc32 (keep).", md)

    def test_bad_file_is_an_error(self):
        with self.assertRaises(ValueError):
            self.load("arch\tresult\narm64\tpass\n")


class CrossTableTest(unittest.TestCase):
    def test_lines(self):
        lines = [a for a in tables.arches() if a["cross_config"]]
        self.assertIn("arm64", [a["name"] for a in lines])
        for a in lines:
            self.assertTrue(a["cross"].endswith("-"), a)           # CROSS_COMPILE prefix
            self.assertNotEqual(a["cc_pkg"], "-", a)               # its compiler's package
            self.assertTrue(any("=m" in o for o in a["cross_config"]), a)  # one module to build

    def test_the_shell_reads_one_line(self):
        r = subprocess.run([sys.executable, "-m", "core.tables", "arches", "cross_config"],
                           cwd=TOP, capture_output=True, text=True, check=True)
        self.assertEqual(r.stdout.split(), [a["name"] for a in tables.arches() if a["cross_config"]])


if __name__ == "__main__":
    unittest.main()
