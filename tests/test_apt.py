# SPDX-License-Identifier: GPL-2.0
"""lab/apt.sh, the private apt configuration of a suite the host does not
list, on a fixture of the host's apt sources: its sources list takes the
host's archive and keyring and names the suite; it lives under the build
folder, and a suite that cannot be reached is one line and a non-zero exit."""
import os
import pathlib
import subprocess
import tempfile
import unittest

TOP = pathlib.Path(__file__).resolve().parent.parent
SOURCES = """Types: deb
URIs: file://{archive}
Suites: stable
Components: main
Signed-By: /usr/share/keyrings/test-keyring.gpg

Types: deb
URIs: file://{archive}-security
Suites: stable-security
Components: main
Signed-By: /usr/share/keyrings/test-security.gpg
"""


class TestPrivateApt(unittest.TestCase):
    def test_sources_and_an_unreachable_suite(self):
        with tempfile.TemporaryDirectory() as d:
            d = pathlib.Path(d)
            host = d / "etc-apt"
            (host / "sources.list.d").mkdir(parents=True)
            (host / "sources.list.d" / "debian.sources").write_text(
                SOURCES.format(archive=d / "archive"))
            b = d / "build" / "9.9"
            env = dict(os.environ, APT_HOST=str(host), B=str(b))
            r = subprocess.run(["sh", str(TOP / "lab" / "apt.sh"), "nosuchsuite", "update"],
                               env=env, capture_output=True, text=True, timeout=120)
            self.assertNotEqual(r.returncode, 0)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn("apt-get update of nosuchsuite failed", r.stderr)
            src = (d / "build" / "apt" / "nosuchsuite" / "etc" / "sources.list").read_text()
            self.assertEqual(src, f"deb [signed-by=/usr/share/keyrings/test-keyring.gpg] "
                                  f"file://{d / 'archive'} nosuchsuite main\n")
            # nothing of the host's was written
            self.assertEqual(sorted(p.name for p in (host / "sources.list.d").iterdir()),
                             ["debian.sources"])

    def test_no_archive_on_the_host(self):
        with tempfile.TemporaryDirectory() as d:
            host = pathlib.Path(d) / "etc-apt"
            host.mkdir()
            env = dict(os.environ, APT_HOST=str(host), B=str(pathlib.Path(d) / "b" / "x"))
            r = subprocess.run(["sh", str(TOP / "lab" / "apt.sh"), "sid", "update"],
                               env=env, capture_output=True, text=True, timeout=60)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("no Debian archive in the host's apt sources", r.stderr)


if __name__ == "__main__":
    unittest.main()
