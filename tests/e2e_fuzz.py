# SPDX-License-Identifier: GPL-2.0
"""End-to-end: a short fixed-seed make fuzz run (FUZZ_TEST_INPUTS per arm,
FUZZ_TEST_SEED) on the series arms keep and remove, which must not crash:
no kernel bug report in the loader, no guest that stopped, no failed health
check. Inputs whose module code itself ran corrupted are counted apart by
fuzz/run.py and are not the loader's. Skipped when neither arm is built."""
import glob
import json
import os
import shutil
import subprocess
import sys
import unittest

from core import tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()
ARMS = [a for a in ("keep", "remove")
        if os.path.isfile(os.path.join(B, "arms", a, "kernels", "G0", "bzImage"))]
INPUTS = int(os.environ.get("FUZZ_TEST_INPUTS", "300"))
SEED = int(os.environ.get("FUZZ_TEST_SEED", "16"))


@unittest.skipUnless(ARMS, "neither keep nor remove is built")
class TestFuzzSeries(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        out = os.path.join(B, "fuzz-test")
        cls.r = subprocess.run([sys.executable, "-m", "fuzz.run",
                                "--seed", str(SEED), "--inputs", str(INPUTS),
                                "--arms", " ".join(ARMS), "--no-kasan", "--out", out,
                                "--minimize-rounds", "3"],
                               capture_output=True, text=True, timeout=1800, cwd=TOP)
        with open(os.path.join(out, "fuzz.json")) as f:
            cls.res = json.load(f)
        cls.out = out

    def test_ran_every_input(self):
        self.assertEqual(self.r.returncode, 0, self.r.stderr[-2000:])
        for arm in ARMS:
            with self.subTest(arm=arm):
                self.assertEqual(self.res["arms"][arm]["inputs"], INPUTS)
                self.assertGreater(self.res["arms"][arm]["inputs_per_s"], 0)

    def test_no_loader_crash(self):
        for arm in ARMS:
            a = self.res["arms"][arm]
            with self.subTest(arm=arm):
                bad = [f"{s['title']} in {s['function']} (input {s['index']}: "
                       f"{s['robust_line'].split(chr(9))[0]})"
                       for s in a["signatures"] if not s.get("in_module")]
                self.assertEqual(a["crashes"], 0, "; ".join(bad))

    def test_runs_restore_one_saved_guest(self):
        for arm in ARMS:
            with self.subTest(arm=arm):
                d = os.path.join(self.out, "boots", "arms", arm, "boot")
                self.assertTrue(os.path.isfile(os.path.join(d, "snap.state")))
                cmds = glob.glob(os.path.join(d, "fuzz-*.cmd"))
                self.assertTrue(cmds)
                for c in cmds:
                    with open(c) as f:
                        self.assertIn("-incoming defer", f.read(), c)

    def test_restored_runs_find_what_boots_find(self):
        """The same seed with a fresh boot per run (FUZZ_SNAPSHOT=0) on the first
        arm: the same crashes, in the same inputs."""
        arm, out = ARMS[0], os.path.join(B, "fuzz-test-boots")
        r = subprocess.run([sys.executable, "-m", "fuzz.run",
                            "--seed", str(SEED), "--inputs", str(INPUTS), "--arms", arm,
                            "--no-kasan", "--out", out, "--minimize-rounds", "0"],
                           capture_output=True, text=True, timeout=1800, cwd=TOP,
                           env=dict(os.environ, FUZZ_SNAPSHOT="0"))
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        with open(os.path.join(out, "fuzz.json")) as f:
            booted = json.load(f)["arms"][arm]

        def crashes(a):
            return sorted((s["title"], s["function"], tuple(s["inputs"])) for s in a["signatures"])
        self.assertEqual(crashes(booted), crashes(self.res["arms"][arm]))
        self.assertEqual(booted["inputs"], self.res["arms"][arm]["inputs"])

    def test_interrupt_stops_every_guest(self):
        """SIGTERM (or Ctrl-C) mid-run: exit 130, no QEMU of the run left."""
        import signal
        import time
        out = os.path.join(B, "fuzz-test-interrupt")
        shutil.rmtree(out, ignore_errors=True)      # its first boot's log is the cue
        p = subprocess.Popen([sys.executable, "-m", "fuzz.run",
                              "--seed", str(SEED), "--inputs", "20000", "--arms", " ".join(ARMS),
                              "--no-kasan", "--out", out],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=TOP)
        log = os.path.join(out, "boots", "arms", ARMS[0], "boot", "fuzz-1.log")
        deadline = time.monotonic() + 300
        while not (os.path.exists(log) and os.path.getsize(log)) and time.monotonic() < deadline:
            time.sleep(0.2)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 130, err[-1000:])
        self.assertIn("interrupted", err)
        # boot.sh's trap gives QEMU 2 s after SIGTERM, then SIGKILL
        deadline = time.monotonic() + 15
        while True:
            ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
            if out + "/" not in ps or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        self.assertNotIn(out + "/", ps)


PRISTINE = [a for a in ("base", "nomodv")
            if os.path.isfile(os.path.join(B, "arms", a, "kernels", "G0", "bzImage"))]


@unittest.skipUnless(PRISTINE, "no pristine arm is built")
class TestMinimizeRestored(unittest.TestCase):
    """Minimizing in restored guests (the driver makes each candidate from the
    input's seed and index and a list of positions) gives what minimizing by
    boots (the candidates as files) gives: on pristine 6.1, whose loader
    crashes every few inputs, so there is something to minimize."""

    def minimize(self, out, snapshot):
        shutil.rmtree(out, ignore_errors=True)
        r = subprocess.run([sys.executable, "-m", "fuzz.run",
                            "--seed", str(SEED), "--inputs", "150", "--arms", PRISTINE[0],
                            "--no-kasan", "--out", out, "--minimize-rounds", "3"],
                           capture_output=True, text=True, timeout=1800, cwd=TOP,
                           env=dict(os.environ, FUZZ_SNAPSHOT=snapshot))
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        with open(os.path.join(out, "fuzz.json")) as f:
            sigs = json.load(f)["arms"][PRISTINE[0]]["signatures"]
        found = {}
        for s in sigs:
            if s.get("minimize_boots"):
                with open(os.path.join(B, s["input"]) if not os.path.isabs(s["input"])
                          else s["input"], "rb") as f:
                    found[(s["title"], s["function"], s["index"])] = f.read()
        return found

    def test_same_minimized_inputs(self):
        arm = PRISTINE[0]
        restored = self.minimize(os.path.join(B, "fuzz-test-min"), "1")
        self.assertTrue(restored, "nothing was minimized: no loader crash in 150 inputs")
        cmds = glob.glob(os.path.join(B, "fuzz-test-min", "boots", "arms", arm, "boot",
                                      "min-*.cmd"))
        self.assertTrue(cmds)
        for c in cmds:
            with open(c) as f:
                self.assertIn("-incoming defer", f.read(), c)
        booted = self.minimize(os.path.join(B, "fuzz-test-min-boots"), "0")
        self.assertEqual(sorted(restored), sorted(booted))
        for k in restored:
            self.assertEqual(restored[k], booted[k], k)
