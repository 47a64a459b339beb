# SPDX-License-Identifier: GPL-2.0
"""The report from saved logs stays the same: tests/golden/ (a trimmed real
run, see its README) renders to the report.md it holds, byte for byte."""
import pathlib
import shutil
import tempfile
import unittest

from compare import model, report

GOLDEN = pathlib.Path(__file__).parent / "golden"


class TestGolden(unittest.TestCase):
    def render(self, build):
        saved = model.GENS_TSV
        model.GENS_TSV = GOLDEN / "gens.tsv"
        try:
            return report.render_md(report.collect(build))
        finally:
            model.GENS_TSV = saved

    def test_report_md_unchanged(self):
        with tempfile.TemporaryDirectory() as tmp:
            build = pathlib.Path(tmp) / "build"
            shutil.copytree(GOLDEN / "build", build)
            got = self.render(build)
        want = (GOLDEN / "report.md").read_text(encoding="utf-8")
        if got != want:
            diff = [f"line {i}: want {w!r}\n         got  {g!r}"
                    for i, (w, g) in enumerate(zip(want.splitlines(), got.splitlines()), 1)
                    if w != g][:5]
            self.fail("report.md differs from tests/golden/report.md:\n" + "\n".join(diff)
                      + f"\n({len(want.splitlines())} vs {len(got.splitlines())} lines)")

    def test_the_check_sees_a_change(self):
        """A changed log changes the report: the golden test can fail."""
        with tempfile.TemporaryDirectory() as tmp:
            build = pathlib.Path(tmp) / "build"
            shutil.copytree(GOLDEN / "build", build)
            log = build / "arms/base/boot/G2.log"
            log.write_text(log.read_text().replace("not ok 1 g2-probe-c", "ok 1 g2-probe-c"))
            got = self.render(build)
        self.assertNotEqual(got, (GOLDEN / "report.md").read_text(encoding="utf-8"))


if __name__ == "__main__":
    unittest.main()
