# SPDX-License-Identifier: GPL-2.0
"""No kernel version, Debian kernel package or suite is named outside the
places that are about one base: lab/bases.tsv (the table of bases),
history/suites.tsv (the suites make history asks), the
patches and series, the docs and the tests' fixtures. Everything else reads
the base from the table, so a second base needs a table line, not an edit."""
import pathlib
import re
import subprocess
import unittest

TOP = pathlib.Path(__file__).resolve().parent.parent
# a kernel version (5.x to 7.x, with a stable and a Debian ABI part), a Debian
# kernel package with its version, a Debian suite
LITERAL = re.compile(r"(?<![\w.])[5-7]\.\d{1,2}(?:\.\d+)?(?:-\d+)?(?!\w)"
                     r"|linux-(?:source|kbuild|headers|image)-\d"
                     r"|\b(?:bookworm|trixie|forky|sid)\b")
ALLOWED = ("lab/bases.tsv", "history/suites.tsv")
ALLOWED_DIRS = ("tests/",)
ALLOWED_SUFFIXES = (".patch", ".md", "README")


def allowed(path):
    return (path in ALLOWED or path.startswith(ALLOWED_DIRS) or path.endswith(ALLOWED_SUFFIXES)
            or path.split("/")[0].startswith("series-") or "/series-" in path)


def literals(path, text):
    return [f"{path}:{n}: {m.group(0)}" for n, line in enumerate(text.splitlines(), 1)
            for m in LITERAL.finditer(line)]


class TestLiterals(unittest.TestCase):
    def test_no_version_outside_the_table(self):
        files = subprocess.run(["git", "ls-files"], cwd=TOP, capture_output=True, text=True,
                               check=True).stdout.split()
        found = []
        for f in files:
            if allowed(f) or not (TOP / f).is_file():
                continue
            try:
                text = (TOP / f).read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            found += literals(f, text)
        self.assertEqual(found, [], "a version literal outside lab/bases.tsv, patches, docs, "
                         "fixtures: read it from the base's table line")

    def test_the_check_finds_one(self):
        self.assertEqual(literals("x.sh", 'tar -xf /usr/src/linux-source-6.1.tar.xz\n'),
                         ["x.sh:1: linux-source-6"])
        self.assertEqual(literals("x.sh", 'echo "extract 6.12 7.2.13"\n'),
                         ["x.sh:1: 6.12", "x.sh:1: 7.2.13"])
        self.assertEqual(literals("x.py", 'rel = f"6.1.0-{n}-amd64"  # on bookworm\n'),
                         ["x.py:1: 6.1.0", "x.py:1: bookworm"])
        # a float in that range counts too: write it another way (5 or 5.00)
        self.assertEqual(literals("x.py", "timeout = 5.0; ratio 1.00x; v2.40\n"), ["x.py:1: 5.0"])
        self.assertFalse(allowed("qemu/boot.sh"))
        self.assertTrue(allowed("series-keep/0001-x.patch"))


if __name__ == "__main__":
    unittest.main()
