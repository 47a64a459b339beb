# SPDX-License-Identifier: GPL-2.0
"""The report from saved logs stays the same: each tests/golden/<run>/ (a
trimmed real run, see tests/golden/README) renders to the report.md it holds,
byte for byte."""
import pathlib
import shutil
import tempfile
import unittest

from compare import report

GOLDEN = pathlib.Path(__file__).parent / "golden"
RUNS = sorted(p for p in GOLDEN.iterdir() if (p / "report.md").is_file())


def render(run, change=None):
    """report.md of a golden run (change(build): edit the copy first)."""
    with tempfile.TemporaryDirectory() as tmp:
        build = pathlib.Path(tmp) / "build"
        shutil.copytree(run / "build", build)
        if change:
            change(build)
        return report.render_md(report.collect(build))


class TestGolden(unittest.TestCase):
    def test_report_md_unchanged(self):
        self.assertEqual([r.name for r in RUNS], ["compare", "test-run"])
        for run in RUNS:
            with self.subTest(run=run.name):
                got = render(run)
                want = (run / "report.md").read_text(encoding="utf-8")
                diff = [f"line {i}: want {w!r}\n         got  {g!r}"
                        for i, (w, g) in enumerate(zip(want.splitlines(), got.splitlines()), 1)
                        if w != g][:5]
                self.assertEqual(got, want, f"{run.name}: report.md differs:\n" + "\n".join(diff))

    def test_the_check_sees_a_change(self):
        """A changed log changes the report: the golden test can fail."""
        def refused_to_loaded(build):
            log = build / "arms/base/boot/G2.log"
            log.write_text(log.read_text().replace("not ok 1 g2-probe-c # refused errno=EINVAL",
                                                   "ok 1 g2-probe-c # loaded errno=0"))
        run = GOLDEN / "compare"
        self.assertNotEqual(render(run, refused_to_loaded),
                            (run / "report.md").read_text(encoding="utf-8"))


if __name__ == "__main__":
    unittest.main()
