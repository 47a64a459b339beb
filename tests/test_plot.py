# SPDX-License-Identifier: GPL-2.0
"""core/plot.py: the load-vs-imports SVG is well-formed and has one line per arm."""
import unittest
import xml.etree.ElementTree as ET

from core import plot

SVG = "{http://www.w3.org/2000/svg}"
LOAD = {"base": {"16": 11.8e6, "256": 15.9e6, "1024": 63.9e6, "4096": 587.8e6},
        "keep": {"16": 11.5e6, "256": 12.0e6, "1024": 16.0e6, "4096": 40.0e6},
        "nomodv": {16: 10.0e6, 256: 11.0e6, 1024: 14.0e6, 4096: 35.0e6}}


class TestSvgLoadVsImports(unittest.TestCase):
    def parse(self, load):
        return ET.fromstring(plot.svg_load_vs_imports(load))

    def test_parses_with_one_polyline_per_arm(self):
        root = self.parse(LOAD)
        self.assertEqual(root.tag, SVG + "svg")
        lines = root.findall(f"{SVG}polyline")
        self.assertEqual([l.get("data-arm") for l in lines], ["base", "keep", "nomodv"])
        for l in lines:
            self.assertEqual(len(l.get("points").split()), 4)

    def test_axes_labels_and_legend(self):
        texts = [t.text or "" for t in self.parse(LOAD).iter(f"{SVG}text")]
        self.assertTrue(any("imported symbols" in t for t in texts))
        self.assertTrue(any("ms" in t for t in texts))
        for arm in LOAD:
            self.assertIn(arm, texts)       # the legend names every arm
        for n in ("16", "256", "1024", "4096"):
            self.assertIn(n, texts)         # the x ticks are the Ns

    def test_larger_time_is_higher(self):
        base = self.parse(LOAD).find(f"{SVG}polyline[@data-arm='base']")
        ys = [float(p.split(",")[1]) for p in base.get("points").split()]
        self.assertEqual(ys, sorted(ys, reverse=True))  # SVG y grows downwards

    def test_empty_input_fails(self):
        for bad in ({}, None, {"base": {}}, {"base": {"16": 0, "256": None}}):
            with self.assertRaises(ValueError):
                plot.svg_load_vs_imports(bad)

    def test_bad_points_dropped_and_names_escaped(self):
        root = self.parse({"a<&>": {"16": 5e6, "x": 1, "256": -1}, "base": {"16": 7e6}})
        lines = root.findall(f"{SVG}polyline")
        self.assertEqual([l.get("data-arm") for l in lines], ["a<&>", "base"])
        self.assertEqual(len(lines[0].get("points").split()), 1)


if __name__ == "__main__":
    unittest.main()
