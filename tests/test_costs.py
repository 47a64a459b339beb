# SPDX-License-Identifier: GPL-2.0
"""Tests of the report's Costs targets and lab wall-time blocks
(compare/report.py), from a bench.json-shaped dict."""
import unittest

from compare import doc
from compare.sections import costs


BENCH = {
    "accel": "tcg",
    "targets": {
        "keep_lookup_speedup_at_4096": {"value": 4.2, "target": ">= 10x", "met": False,
                                        "what": "version lookup alone"},
        "make_compare_warm": {"value_s": 101.6, "target": "< 180 s", "met": True},
        "make_compare_cold": {"value_s": None, "target": "< 2700 s", "met": None,
                              "note": "no cold run recorded"},
        "keep_unsorted_over_sorted_at_4096": {"value": 4.9, "what": "no target"},
    },
    "lab": {"make_compare_fresh_s": 1234.4, "make_compare_fresh_date": "2026-12-03T12:00:00Z",
            "make_test_s": 700.0,
            "steps_tsv_all": {"top": [["BUILD", "base G0", 300], ["BOOT", "keep G0", 20]]}},
}


class TestCosts(unittest.TestCase):
    def setUp(self):
        self.md = doc.md(costs.bench_blocks(BENCH))

    def test_targets_say_met_or_missed(self):
        self.assertIn("| keep lookup speedup at 4096 | 4.2× | >= 10x | **missed** |", self.md)
        self.assertIn("| make compare warm | 101.6 s | < 180 s | met |", self.md)
        self.assertIn("| make compare cold | – | < 2700 s | not measured | no cold run recorded |",
                      self.md)
        self.assertNotIn("unsorted over sorted", self.md)   # not a target

    def test_lab_times(self):
        self.assertIn("| make compare, fresh clone (warm ccache) | 1234 | 2026-12-03T12:00:00Z |",
                      self.md)
        self.assertIn("| make test (last run) | 700 |", self.md)
        self.assertIn("| BUILD | base G0 | 300 |", self.md)

    def test_tool_costs_from_runs(self):
        import json
        import os
        import tempfile
        from lab import bench
        with tempfile.TemporaryDirectory() as bb:
            def run(name, cpu, tool, dbg, tool_s=0.0):
                d = os.path.join(bb, "runs", name)
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, "r1.json"), "w") as f:
                    json.dump({"rc": 0, "cpu_s": cpu, "mode": "clean", "tool": tool,
                               "debug_info": dbg, "symversions": {"total_cpu_s": tool_s,
                                   "genksyms": {"cpu_s": tool_s} if tool == "genksyms" else None,
                                   "gendwarfksyms": ({"cpu_s": tool_s}
                                                     if tool == "gendwarfksyms" else None)}}, f)
            run("nomodv", 1000.0, "none", False)
            run("base", 1100.0, "genksyms", False, 40.0)
            run("nomodv+dwarf5", 1500.0, "none", True)
            run("base+dwarf5", 1600.0, "genksyms", True, 41.0)
            run("dwarf", 1650.0, "gendwarfksyms", True, 90.0)
            saved, bench.BB = bench.BB, bb
            try:
                rows = bench.tool_costs(["nomodv", "base", "dwarf", "nomodv+dwarf5", "base+dwarf5"])
            finally:
                bench.BB = saved
        self.assertEqual(rows["base"]["ratio_to_none"], 1.1)
        self.assertEqual(rows["dwarf"]["ratio_to_none"], 1.1)        # against nomodv+dwarf5
        self.assertEqual(rows["dwarf"]["tool_cpu_s"]["median"], 90.0)
        self.assertIsNone(rows["nomodv"]["tool_cpu_s"])
        md = doc.md(costs.tool_blocks({"tool_cpu_s": rows}))
        self.assertIn("| **dwarf** | gendwarfksyms | DWARF | 1650.0 | 1 | 1.100× | 90.0 |", md)
        self.assertLess(md.index("**base**"), md.index("**nomodv+dwarf5**"))

    def test_no_lab_times(self):
        md = doc.md(costs.lab_time_blocks({}))
        self.assertIn("No wall times recorded yet", md)


if __name__ == "__main__":
    unittest.main()
