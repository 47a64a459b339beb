# SPDX-License-Identifier: GPL-2.0
"""lab/config-check.sh: every requested option took, and of an option two
fragments set, the later one (merge order) is what is checked."""
import os
import pathlib
import shutil
import subprocess
import tempfile
import unittest

TOP = pathlib.Path(__file__).resolve().parent.parent


class ConfigCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="modvlab-cc-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def check(self, config, *frags):
        (self.tmp / ".config").write_text(config)
        paths = []
        for i, f in enumerate(frags):
            p = self.tmp / f"{i}.config"
            p.write_text(f)
            paths.append(str(p))
        return subprocess.run(["sh", str(TOP / "lab/config-check.sh"),
                               str(self.tmp / ".config"), *paths],
                              capture_output=True, text=True, env=dict(os.environ))

    def test_an_option_that_did_not_take_fails(self):
        r = self.check("# CONFIG_SMP is not set\n", "CONFIG_SMP=y\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("wanted 'CONFIG_SMP=y'", r.stderr)

    def test_a_later_fragment_wins(self):
        r = self.check("# CONFIG_SMP is not set\nCONFIG_A=y\n",
                       "CONFIG_SMP=y\nCONFIG_A=y\n", "# CONFIG_SMP is not set\n")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_the_later_line_is_still_checked(self):
        r = self.check("CONFIG_SMP=y\n", "CONFIG_SMP=y\n", "# CONFIG_SMP is not set\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("wanted 'CONFIG_SMP' off", r.stderr)
        self.assertIn("1.config", r.stderr)

    def test_an_option_where_the_tree_has_it(self):
        # asked only where the tree's Kconfig (the O= folder's source link) declares it
        src = self.tmp / "src"
        (src / "arch").mkdir(parents=True)
        (src / "arch" / "Kconfig").write_text("config OLD\n\tbool\n")
        (self.tmp / "source").symlink_to(src)
        frag = "# modvlab: where the tree has it\nCONFIG_NEW=y\nCONFIG_OLD=y\n"
        r = self.check("CONFIG_OLD=y\n", frag)
        self.assertEqual(r.returncode, 0, r.stderr)
        (src / "arch" / "Kconfig").write_text("config OLD\n\tbool\nconfig NEW\n\tbool\n")
        r = self.check("CONFIG_OLD=y\n", frag)
        self.assertEqual(r.returncode, 1)
        self.assertIn("wanted 'CONFIG_NEW=y'", r.stderr)
        # the marker is for the next option only
        r = self.check("CONFIG_NEW=y\n", frag)
        self.assertIn("wanted 'CONFIG_OLD=y'", r.stderr)


if __name__ == "__main__":
    unittest.main()
