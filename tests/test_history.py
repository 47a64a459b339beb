# SPDX-License-Identifier: GPL-2.0
"""Unit tests of make history's host side: the __versions/.modinfo reader, the
Module.symvers reader, the matrix's prediction, the policies and the section."""
import json
import pathlib
import struct
import tempfile
import unittest
from unittest import mock

from compare import doc
from core import plot
from compare.sections import history as section
from history import boot, dkms, matrix, summary
from history.modfacts import FactsError, module_facts, read_symvers

MAGIC = "6.1.0-55-amd64 SMP preempt mod_unload modversions "


def tiny_ko(path, versions, modinfo):
    """An ELF64 relocatable with a __versions and a .modinfo section, as modpost writes them."""
    vers = b"".join(struct.pack("<Q56s", crc, name.encode()) for name, crc in versions.items())
    info = b"".join(f"{k}={v}".encode() + b"\0" for k, v in modinfo.items())
    names = b"\0__versions\0.modinfo\0.shstrtab\0"
    body = [vers, info, names]
    offs, off = [], 64
    for b in body:
        offs.append(off)
        off += len(b)
    shoff = (off + 7) & ~7
    hdr = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + b"\0" * 9, 1, 62, 1, 0, 0,
                      shoff, 0, 64, 0, 0, 64, 4, 3)
    sh = [struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)]
    for name_off, o, b in zip([1, 12, 21], offs, body):
        sh.append(struct.pack("<IIQQQQIIQQ", name_off, 1 if name_off != 21 else 3, 2, 0, o,
                              len(b), 0, 0, 1, 0))
    data = hdr + b"".join(body)
    data += b"\0" * (shoff - len(data)) + b"".join(sh)
    pathlib.Path(path).write_bytes(data)


def symvers(path, crcs):
    pathlib.Path(path).write_text("".join(f"0x{c:08x}\t{s}\tvmlinux\tEXPORT_SYMBOL\t\n"
                                          for s, c in crcs.items()))


class Facts(unittest.TestCase):
    def setUp(self):
        self.d = pathlib.Path(tempfile.mkdtemp())

    def test_module_facts(self):
        tiny_ko(self.d / "a.ko", {"module_layout": 0x11, "printk": 0xdeadbeef},
                {"vermagic": MAGIC, "name": "a", "depends": "b,c"})
        f = module_facts(self.d / "a.ko")
        self.assertEqual(f["versions"], {"module_layout": 0x11, "printk": 0xdeadbeef})
        self.assertEqual(f["depends"], ["b", "c"])
        self.assertEqual(f["name"], "a")
        self.assertEqual(matrix.vermagic_rest(f["vermagic"]), MAGIC.split(" ", 1)[1])

    def test_names_are_the_kernels(self):
        # modpost writes depends= from file names, name= is KBUILD_MODNAME:
        # the dependency dm-mod is the module dm_mod, or it is never loaded
        tiny_ko(self.d / "a.ko", {}, {"vermagic": MAGIC, "name": "dm_thin", "depends": "dm-mod,crc7"})
        f = module_facts(self.d / "a.ko")
        self.assertEqual(f["depends"], ["dm_mod", "crc7"])
        facts = {"dm_thin": f, "dm_mod": {"depends": []}, "crc7": {"depends": []}}
        self.assertEqual(boot.dep_order("dm_thin", facts), ["dm_mod", "crc7"])
        self.assertEqual(matrix.closure("dm_thin", facts), ["dm_thin", "crc7", "dm_mod"])
        t = self.d / "t"
        t.write_text("dm-thin-pool\tblock /dev/x\n")
        self.assertEqual(boot.read_sample(t), [("dm_thin_pool", "block /dev/x")])

    def test_own_kernel(self):
        sv = {"dm_get_device": (0, "drivers/md/dm-mod")}
        res = {"built_for": "6.1.0-1", "outcomes": {"6.1.0-1": "refused:ENOENT"},
               "reasons": {"6.1.0-1": "oot2: Unknown symbol dm_get_device (err -2)"}}
        self.assertEqual(dkms.own_kernel(res, sv)["verdict"], "lab-error")
        self.assertIn("drivers/md/dm-mod", dkms.own_kernel(res, sv)["why"])
        res["reasons"] = {"6.1.0-1": "oot2: Unknown symbol not_there (err -2)"}
        self.assertEqual(dkms.own_kernel(res, sv)["verdict"], "module-defect")
        res["outcomes"] = {"6.1.0-1": "not-reached"}
        self.assertEqual(dkms.own_kernel(res, sv)["verdict"], "lab-error")
        res["outcomes"] = {"6.1.0-1": "loaded", "6.1.0-2": "refused:EINVAL"}
        self.assertIsNone(dkms.own_kernel(res, sv))

    def test_dkms_per_upload(self):
        consec = {"1->2": {"crc_changed": 1, "removed": 0}, "2->3": {"crc_changed": 0, "removed": 0}}

        def b(mod, f, build="ok", **out):
            return {"package": "p", "module": mod, "built_for": f"6.1.0-{f}", "build": build,
                    "outcomes": {f"6.1.0-{k[1:]}": v for k, v in out.items()}}
        rows = [b("a", 1, u1="loaded", u2="refused:EINVAL", u3="refused:EINVAL"),
                b("a", 2, u2="loaded", u3="loaded"), b("a", 3, u3="loaded"),
                b("gone", 1, u1="loaded", u2="loaded", u3="loaded"),
                b("gone", 2, build="build-failed"), b("gone", 3, build="build-failed"),
                b("lab", 1, u1="refused:ENOENT", u2="refused:ENOENT")]
        rows[-1]["own_kernel"] = {"verdict": "lab-error", "why": "x"}
        rows += [b("lab", 2, u2="loaded"), b("lab", 3, u3="loaded")]
        du = summary.dkms_per_upload(rows, consec, ["1", "2", "3"])
        u12, u23 = du["updates"]
        self.assertEqual(u12["modules"], 2)     # "lab" built for 1 is out
        self.assertEqual(u12["policies"]["modversions"],
                         {"no longer builds": 1, "rebuild": 1, "keeps": 0, "unsafe": 0})
        self.assertEqual(u12["policies"]["never-bump"],
                         {"no longer builds": 1, "rebuild": 0, "keeps": 1, "unsafe": 1})
        self.assertEqual(u12["policies"]["bump-on-crc-change"]["rebuild"], 1)
        self.assertEqual(u23["policies"]["bump-on-crc-change"]["keeps"], 2)
        self.assertEqual(u23["policies"]["per-upload"]["rebuild"], 2)
        self.assertEqual([x["module"] for x in du["excluded"]], ["lab"])

    def test_not_elf(self):
        (self.d / "x.ko").write_bytes(b"garbage")
        with self.assertRaises(FactsError):
            module_facts(self.d / "x.ko")

    def test_symvers(self):
        symvers(self.d / "S", {"printk": 5})
        self.assertEqual(read_symvers(self.d / "S"), {"printk": (5, "vmlinux")})
        (self.d / "bad").write_text("0xzz\tprintk\tvmlinux\tEXPORT_SYMBOL\t\n")
        with self.assertRaises(FactsError):
            read_symvers(self.d / "bad")
        (self.d / "short").write_text("0x1 printk\n")
        with self.assertRaises(FactsError):
            read_symvers(self.d / "short")


class DkmsSource(unittest.TestCase):
    """A line's -dkms packages come from its own suites (a trixie user's, not
    the host's bookworm ones)."""
    def test_private_line_asks_each_suite(self):
        calls = []

        def run(cmd, **kw):
            calls.append(cmd)
            out = {"trixie": "a-dkms dh-dkms linux-x", "trixie-security": "b-dkms a-dkms"}
            return mock.Mock(stdout=out.get(cmd[2], "host-dkms"), returncode=0)
        with mock.patch.object(dkms.subprocess, "run", run):
            got = dkms.discover("private", ["trixie", "trixie-security"])
        self.assertEqual(got, ["a-dkms", "b-dkms"])
        self.assertEqual([c[2:4] for c in calls], [["trixie", "cache"], ["trixie-security", "cache"]])
        self.assertEqual([d[2] for d in dkms.downloads("private", ["trixie", "trixie-security"])],
                         ["trixie", "trixie-security"])
        self.assertEqual(dkms.downloads("host", ["bookworm"]), [("apt-get", "download", "-q")])

    def test_line_from_make_history(self):
        with mock.patch.dict(dkms.os.environ, {"HIST_APT": "private", "HIST_SUITES": "sid"}):
            self.assertEqual(dkms.line_apt(), ("private", ["sid"]))

    def test_depends_what_apt_installs(self):
        """A package's Depends: host packages (the first alternative, no
        version or architecture), -dkms sources apart; dkms and the kernel's
        packages are the lab's."""
        root = pathlib.Path(tempfile.mkdtemp()) / "west-dkms"
        top = root / "usr/src/west-1.0"
        top.mkdir(parents=True)
        (root / "depends").write_text("bzip2, dkms (>= 2.1.0.0), libxtables-dev (>= 1.4.3), "
                                      "perl:any, gcc-12 | gcc, linux-headers-amd64, "
                                      "xtables-addons-dkms (>= 3.13)\n")
        self.assertEqual(dkms.depends_of(top),
                         (["bzip2", "libxtables-dev", "perl", "gcc-12"], ["xtables-addons-dkms"]))
        (root / "depends").write_text("")
        self.assertEqual(dkms.depends_of(top), ([], []))

    def test_build_env_without_the_labs_make(self):
        """A package's configure that runs make must not see the lab's
        MAKELEVEL (its output would say "Entering directory")."""
        with mock.patch.dict(dkms.os.environ, {"MAKELEVEL": "1", "MAKEFLAGS": "-w", "ARCH": "x86_64",
                                               "PATH": "/usr/bin"}):
            env = dkms.build_env()
        self.assertNotIn("MAKELEVEL", env)
        self.assertNotIn("MAKEFLAGS", env)
        self.assertNotIn("ARCH", env)
        self.assertEqual(env["PATH"], "/usr/bin")


class Matrix(unittest.TestCase):
    def setUp(self):
        d = pathlib.Path(tempfile.mkdtemp())
        symvers(d / "old", {"module_layout": 1, "foo": 2, "bar": 3, "gone": 4})
        symvers(d / "same", {"module_layout": 1, "foo": 2, "bar": 3, "gone": 4})
        symvers(d / "foo", {"module_layout": 1, "foo": 9, "bar": 3, "new": 5})
        symvers(d / "layout", {"module_layout": 7, "foo": 9, "bar": 3})
        self.s = {k: read_symvers(d / k) for k in ("old", "same", "foo", "layout")}
        self.facts = {
            "uses_foo": {"versions": {"module_layout": 1, "foo": 2}, "depends": [],
                         "vermagic": MAGIC},
            "uses_bar": {"versions": {"module_layout": 1, "bar": 3}, "depends": [],
                         "vermagic": MAGIC},
            "needs_foo_user": {"versions": {"module_layout": 1, "bar": 3},
                               "depends": ["uses_foo"], "vermagic": MAGIC}}
        self.magic = "6.1.0-56-amd64 " + MAGIC.split(" ", 1)[1]

    def test_all_equal_all_load(self):
        v = matrix.predict(self.facts, self.s["same"], self.magic)
        self.assertEqual(set(v.values()), {"loaded"})

    def test_one_crc_changed(self):
        v = matrix.predict(self.facts, self.s["foo"], self.magic)
        self.assertEqual(v["uses_foo"], "refused:crc-mismatch:foo")
        self.assertEqual(v["uses_bar"], "loaded")
        self.assertEqual(v["needs_foo_user"], "refused:dependency:uses_foo")

    def test_module_layout_first(self):
        v = matrix.predict(self.facts, self.s["layout"], self.magic)
        self.assertEqual(v["uses_foo"], "refused:crc-mismatch:module_layout")

    def test_vermagic(self):
        # a modversions kernel skips the release of a module with CRCs
        v = matrix.predict(self.facts, self.s["same"], "6.1.0-56-amd64 SMP preempt mod_unload ")
        self.assertEqual(v["uses_bar"], "refused:vermagic")

    def test_no_modversions_kernel(self):
        # 7.2+deb14: no modversions; its loader compares the whole vermagic, the
        # release included, and never the CRCs
        to = "7.2.13+deb14-amd64 SMP preempt mod_unload "
        self.assertEqual(set(matrix.predict(self.facts, self.s["layout"], to).values()),
                         {"refused:vermagic"})
        same = {k: dict(v, versions={}, vermagic=to) for k, v in self.facts.items()}
        self.assertEqual(set(matrix.predict(same, self.s["layout"], to).values()), {"loaded"})
        other = {k: dict(v, vermagic="7.2.12+deb14-amd64 SMP preempt mod_unload ")
                 for k, v in same.items()}
        self.assertEqual(matrix.predict(other, {}, to)["uses_bar"], "refused:vermagic")

    def test_churn(self):
        c = matrix.churn(self.s["old"], self.s["foo"])
        self.assertEqual(c, {"crc_changed": 1, "added": 1, "removed": 1,
                             "module_layout_changed": False})
        self.assertTrue(matrix.churn(self.s["foo"], self.s["layout"])["module_layout_changed"])


class Policies(unittest.TestCase):
    consec = {"1->2": {"crc_changed": 0, "removed": 0}, "2->3": {"crc_changed": 3, "removed": 0}}

    def test_survive(self):
        s = summary.survive({"from": "1", "to": "2", "of": 10, "loaded": 10}, self.consec,
                            ["1", "2", "3"])
        self.assertEqual(s["per-upload"]["modules"], 0)
        self.assertEqual(s["bump-on-crc-change"]["modules"], 10)
        s = summary.survive({"from": "1", "to": "3", "of": 10, "loaded": 4}, self.consec,
                            ["1", "2", "3"])
        self.assertEqual(s["bump-on-crc-change"]["modules"], 0)
        self.assertEqual(s["never-bump"], {"modules": 10, "of": 10, "unsafe": 6})
        self.assertEqual(s["modversions"]["modules"], 4)

    def test_judge(self):
        ok = {"outcome": "loaded", "check": "pass"}
        no = {"outcome": "refused:ENOEXEC", "check": None}
        self.assertEqual(summary.judge({"observed": no, "forced": ok}), "needless")
        self.assertEqual(summary.judge({"observed": no, "forced": {**ok, "check": "fail"}}),
                         "needed")
        self.assertEqual(summary.judge({"observed": no, "forced": {"outcome": "crashed"}}),
                         "needed")
        self.assertEqual(summary.judge({"observed": no, "forced": {**ok, "check": None}}),
                         "unknown")
        self.assertEqual(summary.judge({"observed": ok}), "needless")


class Tables(unittest.TestCase):
    def test_bad_lines(self):
        d = pathlib.Path(tempfile.mkdtemp())
        (d / "s").write_text("# c\ndummy\tnetdev dummy\nbroken\n")
        with self.assertRaises(ValueError):
            boot.read_sample(d / "s")
        (d / "k").write_text("vpoll-dkms\t.\t-\tvpoll\n")
        with self.assertRaises(ValueError):
            dkms.read_table(d / "k")

    def test_repo_tables_parse(self):
        top = pathlib.Path(__file__).resolve().parent.parent
        self.assertTrue(boot.read_sample(top / "history/sample.tsv"))
        self.assertTrue(dkms.read_table(top / "history/dkms.tsv"))

    def test_guest_paths_distinct(self):
        paths = ["/o/up/47/lib/modules/x/kernel/fs/ext4/ext4.ko", "/o/up/50/lib/x/ext4.ko",
                 "/o/dkms/build/vpoll-dkms/47/vpoll.ko", "/o/dkms/build/vpoll-dkms/57/vpoll.ko"]
        self.assertEqual(len({boot.guest_path(p) for p in paths}), 4)
        with self.assertRaises(ValueError):
            boot.guest_path("/elsewhere/a.ko")

    def test_dep_order(self):
        f = {"a": {"depends": ["b"]}, "b": {"depends": ["c"]}, "c": {"depends": []}}
        self.assertEqual(boot.dep_order("a", f), ["c", "b"])


class Dkms(unittest.TestCase):
    def test_first_error(self):
        d = pathlib.Path(tempfile.mkdtemp())
        (d / "make.log").write_text("make -C x\n  CC [M] a.o\na.c:3:1: error: 'b' undeclared\n"
                                    "make[1]: *** Error 1\n")
        self.assertEqual(dkms.first_error(d / "make.log"), "a.c:3:1: error: 'b' undeclared")
        self.assertEqual(dkms.first_error(d / "none"), "no log")

    def test_conf_of(self):
        d = pathlib.Path(tempfile.mkdtemp())
        (d / "dkms.conf").write_text('PACKAGE_NAME="vpoll"\nPACKAGE_VERSION="0.1"\n'
                                     'BUILT_MODULE_NAME[0]="$PACKAGE_NAME"\n'
                                     'MAKE[0]="make -C ${kernel_source_dir} M=${dkms_tree}"\n')
        self.assertEqual(dkms.conf_of(d), ("vpoll", "0.1"))

    def test_softdep(self):
        from history.modfacts import softdep_pre
        self.assertEqual(softdep_pre("pre: crc32c post: x"), ["crc32c"])
        self.assertEqual(softdep_pre("post: a pre: b c"), ["b", "c"])
        facts = {"ext4": {"depends": ["jbd2"], "softdep": ["crc32c"]}, "jbd2": {"depends": []},
                 "crc32c_intel": {"depends": [], "aliases": ["crc32c"]},
                 "crc32c_generic": {"depends": [], "aliases": ["crc32c", "crypto-crc32c"]}}
        # modprobe's softdep: the generic implementation (no CPU feature) first
        self.assertEqual(boot.dep_order("ext4", facts), ["jbd2", "crc32c_generic"])
        self.assertIsNone(boot.resolve("nothing", facts))


    def test_edited_user_source_is_built_again(self):
        """A build is cached per (package, upload, source content): the same
        folder is not rebuilt, an edited one is."""
        out = pathlib.Path(tempfile.mkdtemp())
        src = out / "mine"
        src.mkdir()
        (src / "a.c").write_text("int x;\n")
        made = []

        def run(cmd, **kw):
            made.append(cmd)
            return mock.Mock(returncode=1)
        with mock.patch.object(dkms.subprocess, "run", run), \
             mock.patch.object(dkms, "upload_paths", lambda o, n: {"symvers": out / "h/Module.symvers"}):
            for _ in range(2):
                dkms.build(out, "user-mine", src, ".", "", "1", out / "log")
            self.assertEqual(len(made), 1)
            (src / "a.c").write_text("int y;\n")
            dkms.fingerprint.cache_clear()
            dkms.build(out, "user-mine", src, ".", "", "1", out / "log")
            self.assertEqual(len(made), 2)


class Sample(unittest.TestCase):
    def test_table_checks_and_classes(self):
        top = pathlib.Path(__file__).resolve().parent.parent
        sample = boot.read_sample(top / "history/sample.tsv")
        checked = [m for m, c in sample if c]
        self.assertGreaterEqual(len(checked), 150, "the sample must exercise 150 modules")
        for m, c in sample:
            self.assertNotEqual(summary.class_of(c), "other", (m, c))
        # every image a check mounts is in the images table
        self.assertLessEqual(set(boot.images_named(sample)), set(boot.read_images()))
        self.assertIn("tcrypt", boot.helpers_named(sample))
        self.assertIn("nls_cp437", boot.helpers_named(sample))

    def test_each_line_names_its_image(self):
        # a run of one line (make test's reduced sample) makes only the
        # images that line names: an nls check on an unnamed image failed
        top = pathlib.Path(__file__).resolve().parent.parent
        for m, c in boot.read_sample(top / "history/sample.tsv"):
            if boot.kind_of(c) in boot.IMAGE_KINDS:
                self.assertTrue(boot.images_named([(m, c)]), (m, c))
        d = tempfile.mkdtemp()
        p = pathlib.Path(d) / "s.tsv"
        p.write_text("nls_cp850\twith fat nls codepage=850\n")
        with self.assertRaisesRegex(ValueError, "s.tsv:1:.*name it"):
            boot.read_sample(p)

    def test_missing_image(self):
        with self.assertRaises(OSError):
            boot.fs_images(tempfile.mkdtemp(), ["no-such.img"])

    def test_wilson(self):
        lo, hi = summary.wilson(9, 10)
        self.assertTrue(0.55 < lo < 0.6 and 0.98 < hi <= 1.0, (lo, hi))
        self.assertIsNone(summary.wilson(0, 0))
        self.assertEqual(summary.wilson(0, 5)[0], 0.0)

    def test_control_makes_unknown(self):
        forced_ok = {"outcome": "loaded", "check": "pass"}
        case = {"observed": {"outcome": "refused:EINVAL"}, "forced": forced_ok,
                "control": {"outcome": "loaded", "check": "pass"}}
        self.assertEqual(summary.judge(case), "needless")
        case["control"] = {"outcome": "loaded", "check": "fail"}
        self.assertEqual(summary.judge(case), "unknown")
        case["control"] = None      # the to-kernel has no own copy
        self.assertEqual(summary.judge(case), "unknown")
        del case["control"]         # a run from before the control
        self.assertEqual(summary.judge(case), "needless")

    def test_sources(self):
        self.assertEqual(boot.sources(["1", "2", "3", "4"], 3), ["1", "3"])
        self.assertEqual(boot.sources(["1", "2"], 1), ["1"])


class Boots(unittest.TestCase):
    def test_in_parallel_keeps_order(self):
        """Kernels boot at once; their results come back in upload order."""
        import time
        with mock.patch.dict(boot.os.environ, {"HIST_JOBS": "2"}):
            got = boot.in_parallel(lambda i, d: (time.sleep(d), i)[1], [(1, 0.05), (2, 0), (3, 0)])
        self.assertEqual(got, [1, 2, 3])

    def test_sources_first_and_previous(self):
        self.assertEqual(boot.sources(["47", "50", "53", "54"], 3), ["47", "53"])
        self.assertEqual(boot.sources(["47", "50"], 1), ["47"])

    def test_control_says_why(self):
        """A failed control keeps the line that says why, not a trace's tail."""
        dmesg = ["DRBG: could not allocate CTR cipher TFM handle: ctr(aes)",
                 "alg: drbg: Failed to reset rng", "x", "y", "---[ end trace ]---"]
        self.assertEqual(boot.telling(dmesg), dmesg[:3])
        self.assertEqual(boot.telling(["a", "b", "c", "d"]), ["b", "c", "d"])


class Section(unittest.TestCase):
    data = {"uploads": [{"abiname": "6.1.0-1", "version": "6.1.1-1", "modules": 2},
                        {"abiname": "6.1.0-2", "version": "6.1.2-1", "modules": 2}],
            "policies": {p: "d" for p in summary.POLICIES},
            "updates": [{"from": "6.1.0-1", "to": "6.1.0-2", "consecutive": True,
                         "crc_changed": 0, "added": 0, "removed": 0,
                         "module_layout_changed": False,
                         "survive": {"per-upload": {"modules": 0, "of": 2},
                                     "bump-on-crc-change": {"modules": 2, "of": 2},
                                     "never-bump": {"modules": 2, "of": 2, "unsafe": 0},
                                     "modversions": {"modules": 2, "of": 2}},
                         "sampled": 1, "agree": 1,
                         "forced": {"needless": 0, "needed": 0, "unknown": 0},
                         "refusals": {p: {"needless": 0, "needed": 0, "unknown": 0}
                                      for p in summary.POLICIES}}],
            "sample": [], "dkms": [{"module": "vpoll", "package": "vpoll-dkms 0.1-3",
                                    "built_for": "6.1.0-1", "build": "ok",
                                    "outcomes": {"6.1.0-2": "loaded"}}],
            "dkms_updates": {"updates": [{"from": "6.1.0-1", "to": "6.1.0-2", "modules": 1,
                                          "policies": {p: {"no longer builds": 0, "rebuild": 1,
                                                           "keeps": 0, "unsafe": 0}
                                                       for p in summary.POLICIES}}],
                             "excluded": [{"module": "oot2", "built_for": "6.1.0-1",
                                           "verdict": "lab-error", "why": "Unknown symbol"}]}}

    def test_renders(self):
        md = doc.md(section.blocks(self.data, {}))
        self.assertIn("6.1.0-1 → 6.1.0-2", md)
        self.assertIn("vpoll-dkms 0.1-3", md)
        self.assertIn("oot2 built for 6.1.0-1: lab-error", md)
        json.dumps(self.data)

    def test_plot(self):
        svg = summary.svg(self.data)
        self.assertEqual(svg.count('class="policy"'), 4)
        with self.assertRaises(ValueError):
            plot.svg_share_lines({}, [], "t", "y")


if __name__ == "__main__":
    unittest.main()
