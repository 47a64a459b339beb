# SPDX-License-Identifier: GPL-2.0
"""README's recipes, as a newcomer follows them, in a scratch copy of the lab:
a generation, a probe user, a case and a corpus input are added as files
only, then workload/build.sh (against a stub make) and python3 -m plan
(against a stub nm) must pick them all up without any script edit. So must
a base (a lab/bases.tsv line: its build folder, its generations reach the
planner) and an architecture (a lab/arches.tsv line reaches the boot
command). Also: a module set that fails to build names make's failing line."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

TOP = pathlib.Path(__file__).resolve().parent.parent

# make -C OBJ M=DIR ... modules: a .ko per obj-m whose "nm -u" (the stub nm
# below prints the file) lists the modvlab_probe_* symbols its source names
FAKE_MAKE = r"""#!/bin/sh
for a; do case $a in M=*) m=${a#M=} ;; esac; done
if [ -n "${FAKE_MAKE_FAIL:-}" ]; then
	echo "  CC [M]  $m/mod-asm-user.o"
	echo "make[2]: *** No rule to make target '$m/mod-missing.o', needed by '$m/'.  Stop."
	exit 2
fi
# modpost fails the whole M= run, while FAKE_MODPOST_FAIL's module is in it
if [ -n "${FAKE_MODPOST_FAIL:-}" ] && grep -q "^obj-m += $FAKE_MODPOST_FAIL.o" "$m/Kbuild"; then
	echo "ERROR: modpost: module $FAKE_MODPOST_FAIL uses symbol modvlab_probe_gone from namespace MODVLAB, but does not import it."
	exit 2
fi
for o in $(sed -n 's/^obj-m += //p' "$m/Kbuild"); do
	x=${o%.o}
	: > "$m/$o"
	if [ -f "$m/$x.c" ]; then
		grep -o 'modvlab_probe_[a-z_]*' "$m/$x.c" | sort -u | sed 's/^/                 U /'
	fi > "$m/$x.ko"
done
: > "$m/Module.symvers"
"""
FAKE_NM = '#!/bin/sh\n[ "$1" = -u ] && shift\ncat "$1"\n'

PROBE_USER = """// SPDX-License-Identifier: GPL-2.0
/* Probe user: calls modvlab_probe_new(1), expects 2 */
#include "probe-user.h"

static int __init probe_new_check(void)
{
	int r = modvlab_probe_new(1);

	modvlab_check(r == 2, "modvlab_probe_new(1) = %d, want 2", r);
	return 0;
}

MODVLAB_PROBE_USER(probe_new_check, "calls modvlab_probe_new(1), expects 2");
"""


def append(path, line):
    with open(path, "a") as f:
        f.write(line + "\n")


class TestRecipes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        top = cls.top = pathlib.Path(cls.tmp.name) / "lab"
        for d in ("core", "compare", "plan", "lab", "workload", "qemu"):
            shutil.copytree(TOP / d, top / d, ignore=shutil.ignore_patterns("__pycache__"))
        bin_ = pathlib.Path(cls.tmp.name) / "bin"
        bin_.mkdir()
        for name, text in (("make", FAKE_MAKE), ("nm", FAKE_NM), ("ccache", "#!/bin/sh\n")):
            (bin_ / name).write_text(text)
            (bin_ / name).chmod(0o755)
        cls.b = top / "build"
        cls.env = dict(os.environ, TOP=str(top), B=str(cls.b), PATH=f"{bin_}:{os.environ['PATH']}",
                       GENS="", PLANS="")
        w = top / "workload"
        # a generation: its patch and one line
        (w / "gens" / "G99-new.patch").write_text("--- a/x\n+++ b/x\n")
        append(w / "gens" / "gens.tsv", "G99\tG99-new.patch\tmodvlab_probe_new\t-\ta new "
               "generation changes modvlab_probe_new\trebuilt")
        # a generation that changes what the loader reads from every module,
        # and costs a full rebuild (left out unless GENS names it)
        (w / "gens" / "G98-layout.patch").write_text("--- a/x\n+++ b/x\n")
        append(w / "gens" / "gens.tsv", "G98\tG98-layout.patch\t-\t-\ta loader struct "
               "changes\tlayout\tfull")
        # a probe user: its source, one obj-m line, one probe-cases.tsv line
        (w / "probe-users" / "mod-probe-new.c").write_text(PROBE_USER)
        append(w / "probe-users" / "Kbuild", "obj-m += mod-probe-new.o")
        append(w / "probe-cases.tsv", "probe-new\tprobe/mod-probe-new\tcalls modvlab_probe_new")
        # a case: a module, one obj-m line, one cases.tsv line
        shutil.copy(w / "modules" / "mod-asm-user.c", w / "modules" / "mod-extra.c")
        append(w / "modules" / "Kbuild", "obj-m += mod-extra.o")
        append(w / "cases.tsv", "extra\tmain/mod-extra\tself\t-\t-\tcompatible\ta new case")
        # a corpus input: one robust.tsv line
        append(w / "robust.tsv", "new-input\tcopy\t-\tloaded\tloaded\tloaded\tloaded\tthe good "
               "module, copied")
        # an arm "built": its kernels exist (empty files) and obj/ has a symvers
        a = cls.b / "arms" / "base"
        (a / "obj").mkdir(parents=True)
        (a / "obj" / "Module.symvers").write_text("")
        (a / "obj" / ".config").write_text("CONFIG_MODVERSIONS=y\n")
        for kid in ("G0", "G99", "G98"):
            (a / "kernels" / kid).mkdir(parents=True)
            (a / "kernels" / kid / "bzImage").write_text("")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_in(self, *argv, env=None, check=True):
        r = subprocess.run(list(argv), cwd=self.top, env=dict(self.env, **(env or {})),
                           capture_output=True, text=True, timeout=120)
        if check and r.returncode:
            self.fail(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr}")
        return r

    def plan(self):
        mods = self.b / "arms" / "base" / "mods"
        if not (mods / "probe" / "mod-probe-new.ko").is_file():
            self.run_in("sh", "workload/build.sh", "base")
            self.run_in("sh", "workload/build.sh", "base", "probe",
                        str(self.b / "arms" / "base" / "kernels" / "G99" / "mods"))
        self.run_in(sys.executable, "-m", "plan", "base", env={"GENS": "G99", "PLANS": "robust"})
        return json.loads((self.b / "arms" / "base" / "plan.json").read_text())

    def test_all_appear_in_the_plan(self):
        p = self.plan()
        cases = {c["case"]: c for c in p["cases"] + p["not_run"]}
        self.assertIn("G99", p["boots"])
        self.assertEqual(cases["extra"]["kind"], "release")
        self.assertEqual(cases["g0-probe-new"]["probe"], "probe-new")
        new = cases["g99-probe-new"]
        self.assertEqual((new["kind"], new["gen"], new["expected"]),
                         ("update", "G99", "incompatible"))      # it imports what G99 changes
        self.assertEqual(cases["g99-probe-c"]["expected"], "compatible")
        # G99 declares breaks=rebuilt: even the rebuilt copy of a user of what
        # it changes is incompatible; a bystander's is not
        self.assertEqual(cases["g99-probe-new-rebuilt"]["expected"], "incompatible")
        self.assertIn("breaks rebuilt", cases["g99-probe-new-rebuilt"]["expected_why"])
        self.assertEqual(cases["g99-probe-c-rebuilt"]["expected"], "compatible")
        self.assertEqual(cases["robust-new-input"]["kind"], "robust")
        planned = (self.b / "arms" / "base" / "boot" / "G99.plan").read_text()
        self.assertIn("g99-probe-new-rebuilt|-|1|/m/base/kernels/G99/mods/probe/mod-probe-new.ko",
                      planned)

    def test_layout_generation_breaks_every_old_module(self):
        mods = self.b / "arms" / "base" / "mods"
        if not (mods / "probe" / "mod-probe-new.ko").is_file():
            self.plan()
        self.run_in("sh", "workload/build.sh", "base", "probe",
                    str(self.b / "arms" / "base" / "kernels" / "G98" / "mods"))
        self.run_in(sys.executable, "-m", "plan", "base", env={"GENS": "G98", "PLANS": ""})
        p = json.loads((self.b / "arms" / "base" / "plan.json").read_text())
        upd = [c for c in p["cases"] if c["gen"] == "G98" and c["kind"] == "update"]
        reb = [c for c in p["cases"] if c["gen"] == "G98" and c["kind"] == "rebuilt"]
        self.assertTrue(upd and reb)
        # whatever they import: the bystander probe-enum too
        self.assertEqual({c["expected"] for c in upd}, {"incompatible"})
        self.assertIn("breaks layout", upd[0]["expected_why"])
        self.assertEqual({c["expected"] for c in reb}, {"compatible"})

    def test_full_cost_generation_only_when_named(self):
        default = self.run_in(sys.executable, "-m", "core.generations", "gens").stdout.split()
        self.assertNotIn("G98", default)
        self.assertIn("G99", default)
        every = self.run_in(sys.executable, "-m", "core.generations", "gens",
                            env={"GENS": "all"}).stdout.split()
        self.assertIn("G98", every)
        named = self.run_in(sys.executable, "-m", "core.generations", "kernels", "lab",
                            env={"GENS": "G98"})
        self.assertEqual(named.stdout.split("\n")[:2], ["G98\tG98-layout.patch\tG98\t-",
                                                        "G98\tG98-layout.patch\tG98-every-upload"
                                                        "\tlab.G98"])

    def test_tables_cli_sees_the_generation(self):
        r = self.run_in(sys.executable, "-m", "core.generations", "kernels", "lab", env={"GENS": "G99"})
        self.assertEqual(r.stdout.split("\n")[:2], ["G99\tG99-new.patch\tG99\t-",
                                                   "G99\tG99-new.patch\tG99-every-upload\tlab.G99"])

    def add_base(self):
        """A base 9.9 with its own generations folder (a copy plus G77)."""
        gens = self.top / "bases" / "9.9" / "gens"
        if not gens.is_dir():
            shutil.copytree(self.top / "workload" / "gens", gens)
            (gens / "G77-base.patch").write_text("--- a/x\n+++ b/x\n")
            append(gens / "gens.tsv", "G77\tG77-base.patch\tmodvlab_probe_c\t-\tonly in 9.9")
            append(self.top / "lab" / "bases.tsv", "9.9\tlinux-source-9.9\ttestsuite\thost\t"
                   "9.9.0-{N}\tlinux-kbuild-9.9\tbases/9.9\tworkload/probe\tbases/9.9/gens\t-\t"
                   "bases/9.9/renames\t-\ta base added by a table line")
            (gens.parent / "renames").write_text("# old new\nSMP SMP_RENAMED\n")

    def test_a_base_is_one_table_line(self):
        self.add_base()
        env = {k: v for k, v in self.env.items() if k != "B"}
        r = subprocess.run([sys.executable, "-m", "core.tables", "build-dir"], cwd=self.top,
                           env=dict(env, BASE="9.9"), capture_output=True, text=True, check=True)
        self.assertEqual(r.stdout.strip(), str(self.top / "build" / "9.9"))
        (self.top / "lab" / "_show.sh").write_text(
            '. "$(dirname "$0")/common.sh"\necho "$B $TREE $BASE_PACKAGE $BASE_GENS"\n')
        r = subprocess.run(["sh", "lab/_show.sh"], cwd=self.top, env=dict(env, BASE="9.9"),
                           capture_output=True, text=True, check=True)
        b = self.top / "build" / "9.9"
        self.assertEqual(r.stdout.split(), [str(b), str(b / "linux"), "linux-source-9.9",
                                            "bases/9.9/gens"])
        # the default base is the table's first line, and its folder another
        r = subprocess.run([sys.executable, "-m", "core.tables", "build-dir"], cwd=self.top,
                           env=env, capture_output=True, text=True, check=True)
        self.assertNotEqual(r.stdout.strip(), str(b))
        # an unknown base is one line and a non-zero exit
        r = subprocess.run(["sh", "lab/_show.sh"], cwd=self.top, env=dict(env, BASE="0.0"),
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("BASE=0.0: no such base", r.stderr)
        # the base's option renames reach every fragment (lab.config's SMP here)
        r = subprocess.run(["sh", "lab/fragments.sh", "qemu/config/keep.config"], cwd=self.top,
                           env=dict(env, BASE="9.9"), capture_output=True, text=True, check=True)
        frags = r.stdout.split()
        self.assertEqual([pathlib.Path(f).name for f in frags],
                         ["1-lab.config", "2-x86_64.config", "3-keep.config"])
        lab = pathlib.Path(frags[0]).read_text()
        self.assertIn("CONFIG_SMP_RENAMED=y", lab)
        self.assertNotIn("CONFIG_SMP=y", lab)
        # the planner reads the base's generations, and keeps the copy it ran with
        self.plan()
        self.run_in(sys.executable, "-m", "plan", "base",
                    env={"BASE": "9.9", "GENS": "G77", "PLANS": ""})
        p = json.loads((self.b / "arms" / "base" / "plan.json").read_text())
        self.assertIn("G77", {c["gen"] for c in p["cases"] + p["not_run"]})
        self.assertIn("G77\t", (self.b / "tables" / "gens.tsv").read_text())
        self.plan()     # back to the default base's plan for the other tests

    def test_a_full_disk_is_one_line_before_any_work(self):
        """An arm or a tree on a disk without room stops at once, in one line,
        before it creates anything (a full disk otherwise shows up later as
        truncated modules and a report with no arms)."""
        env = dict(self.env, MODVLAB_MIN_FREE_GIB="1000000000")
        r = subprocess.run(["sh", "lab/arm.sh", "base"], cwd=self.top, env=env,
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("needs 1000000000 GiB free", r.stderr)
        self.assertFalse((self.b / "arms" / "base" / "src").exists())
        # with room (1 GiB) the check says nothing
        (self.top / "lab" / "_space.sh").write_text(
            '. "$(dirname "$0")/common.sh"\nneed_space 3 test && echo ok\n')
        r = subprocess.run(["sh", "lab/_space.sh"], cwd=self.top,
                           env=dict(self.env, MODVLAB_MIN_FREE_GIB="1"),
                           capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "ok"), r.stderr)

    def test_an_architecture_is_one_table_line(self):
        arches = self.top / "lab" / "arches.tsv"
        if "fakearch" not in arches.read_text():
            append(arches, "\t".join([
                "fakearch", "x86_64", "x86", "amd64", "-", "gcc", "arch/x86/boot/bzImage",
                "qemu-system-fake:qemu-system-fake", "virt", "fakecpu", "ttyFAKE0", "earlycon",
                "-", "qemu/config/arch/x86_64.config", "rela", "-", "-", "-", "-",
                "an architecture added by a table line"]))
            append(arches, "\t".join(["noqemu", "x86_64", "x86", "amd64"] + ["-"] * 10
                                     + ["rela", "-", "-", "-", "-", "no QEMU line"]))
        fake = self.top.parent / "bin" / "qemu-system-fake"
        fake.write_text("#!/bin/sh\necho fake qemu\n")
        fake.chmod(0o755)
        d = self.b / "arms" / "base" / "boot"
        d.mkdir(parents=True, exist_ok=True)
        (d / "archboot.cpio.gz").write_text("")
        kernel = self.b / "arms" / "base" / "kernels" / "G0" / "bzImage"
        r = self.run_in("sh", "qemu/boot.sh", "base", "archboot",
                        env={"ARCH": "fakearch", "KERNEL": str(kernel), "TIMEOUT": "10"})
        cmd = (d / "archboot.cmd").read_text()
        for want in ("qemu-system-fake ", "-machine virt,accel=tcg", "-cpu fakecpu",
                     "console=ttyFAKE0", " earlycon "):
            self.assertIn(want, cmd)
        self.assertNotIn("tsc", cmd)
        # a line without a QEMU machine: one line, non-zero
        r = self.run_in("sh", "qemu/boot.sh", "base", "archboot",
                        env={"ARCH": "noqemu", "KERNEL": str(kernel)}, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("ARCH=noqemu cannot boot here", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_a_guest_that_halts_after_its_plan_has_finished(self):
        """A board without a reset driver: the plan's end line, then silence;
        the boot stops after HALT_SILENCE seconds, not at the timeout."""
        arches = self.top / "lab" / "arches.tsv"
        if "haltarch" not in arches.read_text():
            append(arches, "\t".join([
                "haltarch", "x86_64", "x86", "amd64", "-", "gcc", "arch/x86/boot/bzImage",
                "qemu-system-halt:qemu-system-halt", "virt", "cpu", "ttyS0", "-",
                "-", "qemu/config/arch/x86_64.config", "rela", "-", "-", "-", "-", "halts"]))
        fake = self.top.parent / "bin" / "qemu-system-halt"
        fake.write_text("#!/bin/sh\necho '# modvlab: end cases=0 taint=0x0'\n"
                        "echo 'Reboot failed -- System halted'\nexec sleep 60\n")
        fake.chmod(0o755)
        d = self.b / "arms" / "base" / "boot"
        d.mkdir(parents=True, exist_ok=True)
        (d / "halt.cpio.gz").write_text("")
        kernel = self.b / "arms" / "base" / "kernels" / "G0" / "bzImage"
        t0 = time.monotonic()
        self.run_in("sh", "qemu/boot.sh", "base", "halt",
                    env={"ARCH": "haltarch", "KERNEL": str(kernel), "TIMEOUT": "50",
                         "HALT_SILENCE": "2"})
        self.assertLess(time.monotonic() - t0, 30)
        self.assertEqual(json.loads((d / "halt.json").read_text())["status"], "halted")

    def test_a_rebuilt_module_that_does_not_build_is_a_result(self):
        # a generation moves an export into a namespace: modpost fails the
        # probe set's M= run; the others still build, and the plan reports
        # the one that does not with modpost's line, instead of exit 2
        if not (self.b / "arms" / "base" / "mods" / "probe" / "mod-probe-new.ko").is_file():
            self.plan()
        out = self.b / "arms" / "base" / "kernels" / "G99" / "mods"
        self.run_in("sh", "workload/build.sh", "base", "probe", str(out),
                    env={"FAKE_MODPOST_FAIL": "mod-probe-gone"})
        self.assertFalse((out / "probe" / "mod-probe-gone.ko").exists())
        self.assertTrue((out / "probe" / "mod-probe-c.ko").is_file())
        self.assertIn("mod-probe-gone\tERROR: modpost: module mod-probe-gone uses symbol",
                      (out / "probe" / "not-built.tsv").read_text())
        self.run_in(sys.executable, "-m", "plan", "base", env={"GENS": "G99", "PLANS": ""})
        p = json.loads((self.b / "arms" / "base" / "plan.json").read_text())
        cases = {c["case"]: c for c in p["cases"] + p["not_run"]}
        gone = cases["g99-probe-gone-rebuilt"]
        self.assertEqual(gone["outcome"], "does-not-build")
        self.assertIn("does not build: ERROR: modpost: module mod-probe-gone uses symbol "
                      "modvlab_probe_gone from namespace MODVLAB", gone["reason"])
        self.assertNotIn("outcome", cases["g99-probe-c-rebuilt"])
        self.assertIn("g99-probe-gone", {c["case"] for c in p["cases"]})   # G0's copy runs
        # a clean rebuild forgets it
        self.run_in("sh", "workload/build.sh", "base", "probe", str(out))
        self.assertFalse((out / "probe" / "not-built.tsv").exists())
        self.assertTrue((out / "probe" / "mod-probe-gone.ko").is_file())

    def test_failed_module_set_names_the_line(self):
        r = self.run_in("sh", "workload/build.sh", "base", env={"FAKE_MAKE_FAIL": "1"},
                        check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("module set main of base failed to build: make[2]: *** No rule to make "
                      "target", r.stderr)


if __name__ == "__main__":
    unittest.main()
