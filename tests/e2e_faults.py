# SPDX-License-Identifier: GPL-2.0
"""Runner faults with deliberately failing guests, on the base arm's real
kernel: a guest that hangs is timed out (and no QEMU is left behind, nor
after a Ctrl-C), one
that prints garbage gives no results, and one whose module oopses loses
only that case: the rest resumes in a fresh boot (qemu/resume.py)."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

from core import ktap, runfiles, tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REAL_B = tables.build_dir()
BASE = os.path.join(REAL_B, "arms", "base")
FB = os.path.join(REAL_B, "faults")          # this test's own build folder
ARM = os.path.join(FB, "arms", "faults")


def sh(*args, env=None, check=True):
    e = dict(os.environ, TOP=TOP, B=FB, **(env or {}))
    return subprocess.run(["sh", *args], env=e, capture_output=True, text=True, check=check)


class TestFaults(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.isfile(os.path.join(BASE, "kernels", "G0", "bzImage")):
            raise unittest.SkipTest("arm base is not built")
        shutil.rmtree(FB, ignore_errors=True)
        os.makedirs(os.path.join(ARM, "boot"))
        os.symlink(os.path.join(BASE, "obj"), os.path.join(ARM, "obj"))
        mods = os.path.join(ARM, "mods", "faults")
        shutil.copytree(os.path.join(TOP, "tests", "faults"), mods)
        subprocess.run(["make", "-C", os.path.join(BASE, "obj"), "M=" + mods,
                        "CC=ccache gcc", "modules"], check=True, capture_output=True)
        cls.kernel = os.path.join(BASE, "kernels", "G0", "bzImage")
        cls.good = os.path.join(BASE, "mods", "main", "mod-asm-user.ko")
        cls.oops = os.path.join(mods, "mod-oops.ko")

    def write_boot(self, boot, cases):
        """cases: (name, host .ko); writes plan.json, BOOT.plan and BOOT.files."""
        guest = lambda p: "/m/" + os.path.basename(os.path.dirname(p)) + "/" + os.path.basename(p)
        recs = []
        with open(os.path.join(ARM, "boot", boot + ".plan"), "w") as f:
            for n, (name, ko) in enumerate(cases, 1):
                f.write(f"{name}|-|1|{guest(ko)}|\n")
                recs.append({"case": name, "boot": boot, "n": n, "expected": "compatible"})
        with open(os.path.join(ARM, "boot", boot + ".files"), "w") as f:
            for _, ko in cases:
                f.write(f"{guest(ko)}\t{ko}\n")
        with open(os.path.join(ARM, "plan.json"), "w") as f:
            json.dump({"arm": "faults", "cases": recs, "not_run": [],
                       "boots": {boot: {"kernel": self.kernel, "kid": "G0", "policy": None,
                                        "timeout": None, "cases": len(recs)}}}, f)

    def boot(self, boot, timeout=60, init=None):
        env = {"INIT": init} if init else {}
        sh(os.path.join(TOP, "qemu", "initramfs.sh"), "faults", boot, env=env)
        r = sh(os.path.join(TOP, "qemu", "boot.sh"), "faults", boot, check=False,
               env={"KERNEL": self.kernel, "TIMEOUT": str(timeout)})
        with open(os.path.join(ARM, "boot", boot + ".json")) as f:
            st = json.load(f)
        run = ktap.parse(ktap.read_log(os.path.join(ARM, "boot", boot + ".log")), st["status"])
        return r, st, run

    def test_ctrl_c_leaves_no_qemu(self):
        # a terminal's Ctrl-C: SIGINT to the runner's process group
        self.write_boot("intr", [("good", self.good)])
        sh(os.path.join(TOP, "qemu", "initramfs.sh"), "faults", "intr",
           env={"INIT": os.path.join(TOP, "tests", "faults", "init-hang")})
        cpio = os.path.join(ARM, "boot", "intr.cpio.gz")
        env = dict(os.environ, TOP=TOP, B=FB, KERNEL=self.kernel, TIMEOUT="120")
        # SIGINT as a terminal leaves it: a test runner started in the
        # background of a non-interactive shell inherits it ignored, and a
        # shell cannot trap a signal ignored on entry (POSIX): boot.sh would
        # then not see this Ctrl-C at all, busy machine or not
        p = subprocess.Popen(["sh", os.path.join(TOP, "qemu", "boot.sh"), "faults", "intr"],
                             env=env, start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # this run's processes only (its session): not a QEMU another run left
        pgrep = lambda: subprocess.run(["pgrep", "-s", str(p.pid), "-f", cpio],
                                       capture_output=True, text=True).stdout.strip()
        for _ in range(100):
            if pgrep():
                break
            time.sleep(0.2)
        self.assertTrue(pgrep(), "QEMU never started")
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("interrupted", err)
        time.sleep(0.5)
        self.assertEqual(pgrep(), "", "a QEMU was left running after Ctrl-C")
        with open(os.path.join(ARM, "boot", "intr.json")) as f:
            self.assertEqual(json.load(f)["status"], "interrupted")

    def test_hang_times_out(self):
        self.write_boot("hang", [("good", self.good)])
        r, st, run = self.boot("hang", timeout=10, init=os.path.join(TOP, "tests", "faults", "init-hang"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("timeout", r.stderr)
        self.assertEqual(st["status"], "timeout")
        self.assertEqual(run.status, ktap.Status.TIMEOUT)
        left = subprocess.run(["pgrep", "-f", os.path.join(ARM, "boot", "hang.cpio.gz")],
                              capture_output=True, text=True)
        self.assertEqual(left.stdout.strip(), "", "a QEMU was left running")

    def test_garbage_gives_no_results(self):
        self.write_boot("garbage", [("good", self.good)])
        r, st, run = self.boot("garbage", init=os.path.join(TOP, "tests", "faults", "init-garbage"))
        self.assertEqual(st["status"], "exited")
        # a stray "ok 1" without KTAP header, plan or end is never a pass
        self.assertIn(run.status, (ktap.Status.NO_RESULTS, ktap.Status.TRUNCATED))
        self.assertFalse([a for a in run.attempts.values() if a.name == "good" and a.result])

    def test_oops_then_resume(self):
        self.write_boot("oops", [("before", self.good), ("oops", self.oops), ("after", self.good)])
        r, st, run = self.boot("oops")
        self.assertEqual(run.status, ktap.Status.CRASHED, run.detail)
        self.assertEqual([a.name for a in run.attempts.values() if a.result], ["before"])
        out = subprocess.run([sys.executable, "-m", "qemu.resume", "faults", "oops"], cwd=TOP,
                             env=dict(os.environ, B=FB), capture_output=True, text=True, check=True)
        new = out.stdout.split()[0]
        self.assertEqual(new, "oops.r1")
        plan = runfiles.read_plan(ARM)
        moved = {c["case"]: c["boot"] for c in plan["cases"]}
        self.assertEqual(moved, {"before": "oops", "oops": "oops", "after": "oops.r1"})
        r, st, run = self.boot(new)
        self.assertEqual(run.status, ktap.Status.OK, run.detail)
        self.assertEqual([(a.name, a.result.token) for a in run.attempts.values()], [("after", "loaded")])
        # nothing left to resume after a complete boot
        out = subprocess.run([sys.executable, "-m", "qemu.resume", "faults", new], cwd=TOP,
                             env=dict(os.environ, B=FB), capture_output=True, text=True, check=True)
        self.assertEqual(out.stdout, "")


if __name__ == "__main__":
    unittest.main()
