# SPDX-License-Identifier: GPL-2.0
"""End-to-end checks of series-remove on the run `make test` just did: the
series is clean (lint; e2e_series runs checkpatch), the tree it leaves has no live
modversions code left (git grep against a commented allowlist), and the
remove arm really is built without symbol versions and with the ABI string
in vermagic. Skipped only when series-remove/series does not exist."""
import email
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from core import tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()
ARM = os.path.join(B, "arms", "remove")
SERIES_DIR = tables.series_dir("remove")
SERIES = os.path.join(SERIES_DIR, "series")
HAVE_SERIES = os.path.isfile(SERIES)
NO_SERIES = "series-remove/series does not exist"
FRAGMENT = os.path.join(TOP, "qemu", "config", "remove.config")
# The tag lab/arm.sh puts on the arm's tree after `git am` of the series,
# before the lab's probe patch: the tree exactly as the series leaves it.
ARM_TAG = "arm/remove"

SUBJECT = re.compile(r"^\[RFC PATCH (\d+)/(\d+)\] ([A-Za-z0-9_/.-]+): (.+)$")

# What `git grep -i -e modversions -e genksyms -e __kcrctab` may still find
# after the series, and why it stays. (path regex, line regex, why)
LEFTOVERS_ALLOWED = [
    (r"^include/uapi/linux/module\.h$", r"MODULE_INIT_IGNORE_MODVERSIONS",
     "user ABI: the finit_module() flag must stay defined; kmod passes it"),
    (r"^kernel/module/main\.c$", r"MODULE_INIT_IGNORE_MODVERSIONS",
     "finit_module() still accepts the flag (as a no-op), or old kmod breaks"),
    (r"^kernel/module/main\.c$", r"symbol versions \(CONFIG_MODVERSIONS\)",
     "the loader's hint for a module built for a modversions kernel"),
    (r"^kernel/module/signing\.c$", r"MODULE_INIT_IGNORE_MODVERSIONS",
     "a forced load still counts as a modified module for signature checks"),
    (r"^Documentation/kbuild/modules\.rst$", r"MODULE_INIT_IGNORE_MODVERSIONS",
     "the documentation says what the flag does now"),
    (r"^scripts/remove-stale-files$", r"CONFIG_MODVERSIONS|scripts/genksyms",
     "deletes stale genksyms build output in trees built before the series"),
    (r"^tools/perf/tests/vmlinux-kallsyms\.c$", r"__crc_.*modversions",
     "perf also reads older kernels, whose kallsyms have __crc_ symbols"),
]


def listed():
    with open(SERIES) as f:
        return [l.strip() for l in f if l.strip() and not l.lstrip().startswith("#")]


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def subject(text):
    """The Subject: header, unfolded (format-patch folds long ones)."""
    subj = email.message_from_string(text)["Subject"] or ""
    return SUBJECT.match(" ".join(subj.split()))


def abi_string():
    """CONFIG_MODULE_ABI_VERSION as qemu/config/remove.config sets it."""
    for line in read(FRAGMENT).splitlines():
        m = re.match(r'^CONFIG_MODULE_ABI_VERSION="(.+)"$', line)
        if m:
            return m.group(1)
    return None


def vermagic(ko):
    """A module's vermagic, from its .modinfo (modinfo reads the file only)."""
    if shutil.which("modinfo"):
        r = subprocess.run(["modinfo", "-F", "vermagic", ko], capture_output=True, text=True)
        if r.returncode == 0:
            return r.stdout.strip()
    r = subprocess.run(["readelf", "-p", ".modinfo", ko], capture_output=True, text=True, check=True)
    m = re.search(r"\]\s+vermagic=(.*)$", r.stdout, re.M)
    return m.group(1).strip() if m else None


def section_names(path):
    r = subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True, check=True)
    return set(re.findall(r"^\s*\[\s*\d+\]\s+(\S+)", r.stdout, re.M))


@unittest.skipUnless(HAVE_SERIES, NO_SERIES)
class TestSeriesRemove(unittest.TestCase):
    def test_series_lint(self):
        names = listed()
        on_disk = sorted(os.path.basename(p) for p in
                         glob.glob(os.path.join(SERIES_DIR, "[0-9][0-9][0-9][0-9]-*.patch")))
        self.assertEqual(sorted(names), [p for p in on_disk if p != "0000-cover-letter.patch"],
                         "series must list every NNNN-*.patch but the cover letter")
        self.assertEqual(names, sorted(names), "series is not in patch order")
        self.assertRegex(read(SERIES), r"(?m)^# ", "series has no '#' group headers")
        for i, name in enumerate(names, 1):
            with self.subTest(patch=name):
                path = os.path.join(SERIES_DIR, name)
                self.assertTrue(os.path.isfile(path), "listed but missing")
                text = read(path)
                self.assertTrue(text.startswith("From "), "not git format-patch output")
                m = subject(text)
                self.assertTrue(m, "subject is not '[RFC PATCH n/m] subsystem: summary'")
                self.assertEqual((int(m.group(1)), int(m.group(2))), (i, len(names)))
                self.assertLessEqual(len(m.group(3)) + 2 + len(m.group(4)), 75, "subject too long")
                author = email.message_from_string(text)["From"]
                self.assertRegex(text, r"(?m)^Signed-off-by: " + re.escape(" ".join(author.split())) + "$",
                                 "no Signed-off-by from the author")

    def test_cover_letter(self):
        text = read(os.path.join(SERIES_DIR, "0000-cover-letter.patch"))
        for placeholder in ("*** SUBJECT HERE ***", "*** BLURB HERE ***"):
            self.assertFalse(placeholder in text, f"cover letter still has '{placeholder}'")
        self.assertRegex(text, r"\d+ files changed", "no diffstat")

    def test_no_modversions_left(self):
        src = os.path.join(ARM, "src")
        r = subprocess.run(["git", "-C", src, "rev-parse", "--verify", "-q", ARM_TAG + "^{commit}"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, f"no {ARM_TAG} in {src}: was the remove arm built (make remove)?")
        n = subprocess.run(["git", "-C", src, "rev-list", "--count", "pristine.." + ARM_TAG],
                           capture_output=True, text=True, check=True).stdout.strip()
        self.assertEqual(int(n), len(listed()), f"{ARM_TAG} is not pristine + series-remove")
        r = subprocess.run(["git", "-C", src, "grep", "-i", "-n", "-I", "-e", "modversions",
                            "-e", "genksyms", "-e", "__kcrctab", ARM_TAG],
                           capture_output=True, text=True)
        self.assertIn(r.returncode, (0, 1), r.stderr)     # 1: no match at all
        leftovers = []
        for hit in r.stdout.splitlines():
            _, path, _, text = hit.split(":", 3)          # TAG:path:line:text
            if not any(re.search(p, path) and re.search(t, text)
                       for p, t, _ in LEFTOVERS_ALLOWED):
                leftovers.append(hit[len(ARM_TAG) + 1:])
        self.assertEqual(leftovers, [], "modversions leftovers not in LEFTOVERS_ALLOWED:\n  "
                         + "\n  ".join(leftovers))

    def test_config(self):
        cfg = read(os.path.join(ARM, "obj", ".config"))
        self.assertNotRegex(cfg, r"(?m)^(# )?CONFIG_(ASM_|HAVE_ASM_)?MODVERSIONS\b",
                            "the remove arm's .config still knows MODVERSIONS")
        abi = abi_string()
        self.assertTrue(abi, "qemu/config/remove.config sets no CONFIG_MODULE_ABI_VERSION")
        self.assertIn(f'CONFIG_MODULE_ABI_VERSION="{abi}"', cfg.splitlines())

    def test_vermagic(self):
        abi = abi_string()
        for ko in ("main/mod-asm-user.ko", "main/mod-consumer.ko", "apart/mod-consumer.ko"):
            with self.subTest(ko=ko):
                vm = vermagic(os.path.join(ARM, "mods", ko))
                self.assertTrue(vm, "no vermagic")
                self.assertEqual(vm.split()[0], abi, f"vermagic '{vm}' does not start with the ABI string")
                self.assertNotIn("modversions", vm)

    def test_no_versions_sections(self):
        kos = sorted(k for k in glob.glob(os.path.join(ARM, "mods", "*", "*.ko"))
                     if os.sep + "corpus" + os.sep not in k)   # crafted inputs
        self.assertTrue(kos, "no workload modules built for the remove arm")
        for ko in kos:
            with self.subTest(ko=os.path.relpath(ko, ARM)):
                secs = section_names(ko)
                self.assertNotIn("__versions", secs)
                self.assertFalse({"__kcrctab", "__kcrctab_gpl"} & secs)
        self.assertFalse({"__kcrctab", "__kcrctab_gpl"} & section_names(os.path.join(ARM, "obj", "vmlinux")))

    def test_outcomes(self):
        # tests/expect/remove.tsv: what the remove kernel really does with
        # the foundation cases (G0, no policy), as seen in a TCG guest
        expect = os.path.join(TOP, "tests", "expect", "remove.tsv")
        if not os.path.isfile(expect):
            self.skipTest("no tests/expect/remove.tsv")
        with open(os.path.join(B, "report", "report.json")) as f:
            got = {c["case"]: c for c in json.load(f)["cases"]
                   if c["arm"] == "remove" and c.get("loaded_into") in (None, "G0")
                   and not c.get("policy")}
        for line in read(expect).splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            arm, case, outcome = line.split("\t")[:3]
            with self.subTest(case=case):
                self.assertEqual(arm, "remove")
                self.assertIn(case, got, f"remove/{case} not in the report")
                self.assertEqual(got[case]["outcome"], outcome, got[case].get("reason"))

    def test_symvers_keeps_its_format(self):
        # decision in "modpost: remove symbol CRC support": five columns, CRC 0
        with open(os.path.join(ARM, "obj", "Module.symvers")) as f:
            rows = [l.rstrip("\n").split("\t") for l in f if l.strip()]
        self.assertTrue(rows)
        self.assertEqual({len(r) for r in rows}, {5})
        self.assertEqual({r[0] for r in rows}, {"0x00000000"})



# The layout record's descriptions (series-remove patch 4): the arm's own
# scripts/mod/modlayout run on small linked objects, one per variant of a
# structure. What changes how the loader reads the bytes must change the
# hash; spelling (a typedef, a qualifier, a structure only pointed to) must not.
MODLAYOUT = os.path.join(ARM, "obj", "scripts", "mod", "modlayout")
LAYOUT_SRC = r"""
typedef unsigned short u16;
typedef u16 perm_t;
struct other { int x; OTHER };
struct inner { int a; INNER b; };
enum state { LIVE, FIRST, SECOND };
struct param {
	NAMEQ char *name;
	PERM perm;
	int (*set)(const char *SETARGS);
	enum state st;
	struct inner in;
	struct other *peer;
};
struct param *module_layout_param;
"""
LAYOUT_BASE = {"OTHER": "", "INNER": "long", "NAMEQ": "const", "PERM": "u16",
               "SETARGS": "", "FIRST": "COMING", "SECOND": "GOING"}


@unittest.skipUnless(HAVE_SERIES, NO_SERIES)
class TestLayoutRecord(unittest.TestCase):
    def setUp(self):
        if not os.access(MODLAYOUT, os.X_OK):
            self.fail(f"no {MODLAYOUT}: was the remove arm built (make remove)?")
        self.tmp = self.enterContext(tempfile.TemporaryDirectory())

    def record(self, **change):
        defs = LAYOUT_BASE | change
        c, o, elf = (os.path.join(self.tmp, n) for n in ("t.c", "t.o", "t.elf"))
        with open(c, "w") as f:
            f.write(LAYOUT_SRC)
        subprocess.run(["gcc", "-g", "-c", "-o", o, c] + [f"-D{k}={v}" for k, v in defs.items()],
                       check=True)
        subprocess.run(["ld", "-e", "0", "-o", elf, o], check=True)
        r = subprocess.run([MODLAYOUT, elf], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.search(r"MODULE_LAYOUT_RECORD \\\n\t\{ (0x[0-9a-f]+), (\d+) \}", r.stdout)
        self.assertTrue(m, r.stdout[:500])
        self.assertIn('"param"', r.stdout)
        return m.group(1), int(m.group(2))

    def test_meaning_changes_the_record(self):
        base = self.record()
        for what, change in (("signedness", {"PERM": "short"}),
                             ("a function pointer's prototype", {"SETARGS": ", int"}),
                             ("an enum's values", {"FIRST": "GOING", "SECOND": "COMING"}),
                             ("a type inside an embedded struct", {"INNER": "unsigned long"})):
            with self.subTest(what):
                self.assertNotEqual(self.record(**change), base)

    def test_spelling_does_not(self):
        base = self.record()
        for what, change in (("a typedef of the same type", {"PERM": "perm_t"}),
                             ("a qualifier", {"NAMEQ": ""}),
                             ("a struct only pointed to", {"OTHER": "int y;"})):
            with self.subTest(what):
                self.assertEqual(self.record(**change), base)


if __name__ == "__main__":
    unittest.main()
