# SPDX-License-Identifier: GPL-2.0
"""The other bases' series are real kernel patches too: make test extracts
the tree of every base with a series of its own (make tree BASE=...), and
each series applies in order on that base's pristine tree and passes that
tree's own checkpatch.pl --strict with 0 errors and warnings, and no
check but those CHECKS_ALLOWED explains one by one (libdw's type names).

The trees are Debian's tarballs imported as one commit, so checkpatch cannot
find an upstream commit a Fixes: tag names (UNKNOWN_COMMIT_ID): that one
check is left to a tree with upstream history; every other one runs."""
import os
import re
import subprocess
import tempfile
import unittest

from core import series, tables

CHECKPATCH_ARGS = ["--strict", "--no-color", "--ignore", "UNKNOWN_COMMIT_ID"]

# The --strict checks a patch may still draw, and why each is right as it
# is: (file regex, message regex, why). Nothing else is allowed.
CHECKS_ALLOWED = [
    (r"^scripts/mod/modlayout\.c$", r"^Avoid CamelCase: <Dwarf(_[A-Z][a-z]+)?>$",
     "libdw's own type names (elfutils' API, as upstream's gendwarfksyms uses them)"),
]
CHECK_BLOCK = re.compile(r"^CHECK: (.+)\n#\d+: FILE: ([^:]+):", re.M)


def unexplained_checks(out):
    """The CHECKs of a checkpatch run that CHECKS_ALLOWED does not explain."""
    return [f"{f}: {msg}" for msg, f in CHECK_BLOCK.findall(out)
            if not any(re.search(fr, f) and re.search(mr, msg) for fr, mr, _ in CHECKS_ALLOWED)]


def tree_of(b):
    return os.path.join(tables.TOP, "build", b, "linux")


def series_of(b):
    """{arm: [patch paths]} of base b's series arms."""
    row = next(x for x in tables.bases() if x["base"] == b)
    out = {}
    for a in tables.arms():
        d = tables.series_dir(a["arm"], row)
        if d and os.path.isfile(os.path.join(d, "series")):
            out[a["arm"]] = series.listed(d)
    return out


class OtherBases(unittest.TestCase):
    def setUp(self):
        self.bases = tables.series_bases()

    def test_their_trees_are_here(self):
        for b in self.bases:
            with self.subTest(base=b):
                self.assertTrue(os.path.isfile(os.path.join(tree_of(b), "scripts", "checkpatch.pl")),
                                f"no tree for base {b}: make tree BASE={b} did not finish")

    def test_each_series_applies_in_order_on_its_pristine_tree(self):
        for b in self.bases:
            tree = tree_of(b)
            for arm, patches in series_of(b).items():
                with self.subTest(base=b, arm=arm), tempfile.TemporaryDirectory() as t:
                    # an index of its own: the patches apply to pristine's
                    # blobs, no work tree is checked out
                    env = dict(os.environ, GIT_INDEX_FILE=os.path.join(t, "index"))
                    r = subprocess.run(["git", "-C", tree, "read-tree", "pristine"], env=env,
                                       capture_output=True, text=True)
                    self.assertEqual(r.returncode, 0, r.stderr)
                    for p in patches:
                        r = subprocess.run(["git", "-C", tree, "apply", "--cached", p], env=env,
                                           capture_output=True, text=True)
                        self.assertEqual(r.returncode, 0, f"{os.path.basename(p)}: {r.stderr}")

    def test_allowed_checks_are_narrow(self):
        out = ("CHECK: Avoid CamelCase: <Dwarf_Die>\n#724: FILE: scripts/mod/modlayout.c:48:\n"
               "CHECK: Avoid CamelCase: <myVar>\n#9: FILE: scripts/mod/modlayout.c:3:\n"
               "CHECK: Avoid CamelCase: <Dwarf_Die>\n#9: FILE: kernel/module/main.c:3:\n"
               "CHECK: Prefer kernel type 'u32'\n#9: FILE: scripts/mod/modlayout.c:4:\n")
        self.assertEqual(unexplained_checks(out),
                         ["scripts/mod/modlayout.c: Avoid CamelCase: <myVar>",
                          "kernel/module/main.c: Avoid CamelCase: <Dwarf_Die>",
                          "scripts/mod/modlayout.c: Prefer kernel type 'u32'"])

    def test_checkpatch_strict(self):
        for b in self.bases:
            tree = tree_of(b)
            for arm, patches in series_of(b).items():
                runs = series.checkpatch(tree, patches, CHECKPATCH_ARGS)
                for p in patches:
                    with self.subTest(base=b, arm=arm, patch=os.path.basename(p)):
                        r = runs[p]
                        m = re.search(r"total: (\d+) errors, (\d+) warnings, (\d+) checks",
                                      r.stdout)
                        self.assertTrue(m, r.stdout[-2000:] + r.stderr[-500:])
                        self.assertEqual(m.groups()[:2], ("0", "0"), r.stdout[-3000:])
                        # every check is one CHECKS_ALLOWED explains, and is
                        # seen as a block (else the count and the blocks differ)
                        self.assertEqual(len(CHECK_BLOCK.findall(r.stdout)), int(m.group(3)),
                                         r.stdout[-3000:])
                        self.assertEqual(unexplained_checks(r.stdout), [], r.stdout[-3000:])


if __name__ == "__main__":
    unittest.main()
