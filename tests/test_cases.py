# SPDX-License-Identifier: GPL-2.0
"""One console log, one folder: tests/cases/<name>/ holds `log` (a guest
console log), optionally `boot-status` (the runner's status: exited, timeout,
...), and `expected`: what `python3 -m compare parse` prints for it, then
"exit N". Adding a case is adding a folder; write `expected` by hand, or run
the command and read every line before keeping it."""
import io
import pathlib
import unittest
from contextlib import redirect_stderr, redirect_stdout

from compare import __main__ as cli

CASES = pathlib.Path(__file__).parent / "cases"


def parse(folder):
    argv = ["parse", str(folder / "log")]
    status = folder / "boot-status"
    if status.is_file():
        argv[1:1] = ["--boot-status", status.read_text().strip()]
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        rc = cli.main(argv)
    return out.getvalue() + f"exit {rc}\n"


class TestCases(unittest.TestCase):
    def test_every_case(self):
        folders = sorted(p for p in CASES.iterdir() if (p / "log").is_file())
        self.assertGreaterEqual(len(folders), 7)
        for d in folders:
            with self.subTest(case=d.name):
                self.assertEqual(parse(d), (d / "expected").read_text(encoding="utf-8"))


if __name__ == "__main__":
    unittest.main()
