# SPDX-License-Identifier: GPL-2.0
"""make valid's host side without a kernel: the feature scan on ELF files of
every class and byte order, the module facts of a build folder, the pass rule
(a series refusing what the reference loads), the skip table and the section."""
import json
import os
import pathlib
import shutil
import struct
import subprocess
import tempfile
import unittest
from unittest import mock

from core.elf import ElfError, read_sections
from compare.sections import valid as section
from compare import doc
from valid import boot, extra, features

SOURCE = r"""
__attribute__((section(".modinfo"), used)) static const char mi[] =
	"name=%s\0depends=%s\0softdep=pre: crc-alias post: late\0%s";
__attribute__((section("__param"), used)) static const long p = 1;
__attribute__((section("__jump_table"), used)) static const long j = 2;
extern int imported(void);
int f(void) { return imported(); }
"""


def elf32_be(names):
    """A minimal ELF32 big-endian relocatable file with empty sections NAMES."""
    strtab = b"\0" + b"".join(n.encode() + b"\0" for n in names) + b".shstrtab\0"
    shoff = 52 + len(strtab)
    hdr = bytearray(b"\x7fELF\x01\x02\x01" + bytes(9))
    hdr += struct.pack(">HHIIIIIHHHHHH", 1, 2, 1, 0, 0, shoff, 0, 52, 0, 0, 40,
                       len(names) + 2, len(names) + 1)
    sh = bytes(40)
    off = 1
    for n in names:
        sh += struct.pack(">IIIIIIIIII", off, 1, 0, 0, 52, 0, 0, 0, 1, 0)
        off += len(n) + 1
    sh += struct.pack(">IIIIIIIIII", off, 3, 0, 0, 52, len(strtab), 0, 0, 1, 0)
    return bytes(hdr) + strtab + sh


class Scan(unittest.TestCase):
    def test_elf32_big_endian(self):
        secs = read_sections(elf32_be(["__ex_table", ".orc_unwind", ".klp.rela.vmlinux..text"]))
        self.assertEqual([n for n, *_ in secs],
                         ["__ex_table", ".orc_unwind", ".klp.rela.vmlinux..text", ".shstrtab"])

    def test_not_elf(self):
        for bad in (b"", b"\x7fELF\x03\x01" + bytes(60), b"MZ" + bytes(80)):
            with self.assertRaises(ElfError):
                read_sections(bad)

    def test_header_table_past_the_end(self):
        data = bytearray(elf32_be(["__param"]))
        data[0x20:0x24] = struct.pack(">I", len(data))
        with self.assertRaises(ElfError):
            read_sections(bytes(data))


@unittest.skipUnless(shutil.which("gcc"), "needs gcc")
class BuildFolder(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="modvlab-valid-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.obj = self.tmp / "arms" / "base" / "obj"
        (self.obj / "lib").mkdir(parents=True)

    def ko(self, rel, name, depends="", extra=""):
        c = self.tmp / (name + ".c")
        c.write_text(SOURCE.replace("%s", name, 1).replace("%s", depends, 1).replace("%s", extra, 1))
        subprocess.run(["gcc", "-c", "-O2", "-fno-pic", "-o", str(self.obj / rel), str(c)],
                       check=True)

    def test_facts_and_features(self):
        self.ko("lib/dm-mod.ko", "dm_mod")
        self.ko("lib/crc.ko", "crc_gen", extra="alias=crc-alias\\0livepatch=Y\\0import_ns=NS")
        self.ko("lib/top.ko", "top", depends="dm-mod")
        (self.obj / "Module.symvers").write_text(
            "0x1\tx\tlib/dm-mod\tEXPORT_SYMBOL_GPL\tDM\n0x2\ty\tvmlinux\tEXPORT_SYMBOL\t\n")
        mods = boot.arm_modules(self.obj.parent)
        self.assertEqual(sorted(mods), ["crc_gen", "dm_mod", "top"])
        self.assertEqual(mods["top"]["depends"], ["dm_mod"])     # '-' is '_' to the kernel
        self.assertEqual(boot.dep_order("top", mods), ["crc_gen", "dm_mod"])   # softdep by alias
        f = mods["crc_gen"]["features"]
        for k in ("params", "jump_labels", "livepatch", "import_ns", "rela"):
            self.assertIn(k, f)
        self.assertIn("export_ns", mods["dm_mod"]["features"])
        self.assertNotIn("export_ns", mods["top"]["features"])

    def test_a_broken_file_is_named(self):
        (self.obj / "lib" / "bad.ko").write_bytes(b"not a module")
        with self.assertRaisesRegex(ValueError, "bad.ko"):
            boot.arm_modules(self.obj.parent)


def result(outcome, why="x"):
    return {"outcome": outcome, "boot": "valid", "dmesg": [why], "unload": "0"}


class PassRule(unittest.TestCase):
    def summarize(self, per_arm):
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="modvlab-valid-"))
        self.addCleanup(shutil.rmtree, tmp, True)
        v = tmp / "x86_64-small"
        v.mkdir()
        mods = {m: {"features": f, "path": f"lib/{m}.ko", "depends": [], "softdep": [],
                    "aliases": []}
                for m, f in (("a", ["params"]), ("b", ["params", "exports"]))}
        with mock.patch("core.tables.reference_arm", return_value="base"):
            out = boot.summarize(v, list(per_arm), {a: {"results": r, "boots": 1}
                                                   for a, r in per_arm.items()},
                                 {a: mods for a in per_arm}, {})
        self.assertEqual(json.loads((v / "valid.json").read_text())["failures"], out["failures"])
        return out

    def test_a_series_refusing_what_pristine_loads_fails(self):
        out = self.summarize({
            "base": {"a": result("loaded"), "b": result("refused:ENODEV")},
            "keep": {"a": result("loaded"), "b": result("refused:ENODEV")},
            "remove": {"a": result("refused:ENOEXEC", "module: a: bad relocation"),
                       "b": result("loaded")}})
        self.assertEqual(out["failures"], [{"arm": "remove", "module": "a",
                                            "outcome": "refused:ENOEXEC",
                                            "reason": "module: a: bad relocation"}])
        self.assertEqual(out["extra_loads"], [{"arm": "remove", "module": "b",
                                               "reference": "refused:ENODEV"}])
        self.assertEqual(out["features"]["params"], 2)
        self.assertEqual(out["features"]["exports"], 1)
        self.assertEqual(out["arms"]["keep"]["refused"], 1)

    def test_only_the_skipped_modules_the_set_built_count(self):
        per_arm = {"base": {"a": result("loaded")}, "keep": {"a": result("loaded")}}
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="modvlab-valid-"))
        self.addCleanup(shutil.rmtree, tmp, True)
        mods = {m: {"features": [], "path": f"{m}.ko", "depends": [], "softdep": [],
                    "aliases": []} for m in ("a", "b")}
        with mock.patch("core.tables.reference_arm", return_value="base"):
            out = boot.summarize(tmp, ["base", "keep"],
                                 {a: {"results": r, "boots": 1} for a, r in per_arm.items()},
                                 {"base": mods, "keep": mods}, {"b": "hangs", "zz": "not here"})
        self.assertEqual(out["skipped"], {"b": "hangs"})

    def test_a_crash_and_a_missing_module_fail_too(self):
        out = self.summarize({"base": {"a": result("loaded"), "b": result("loaded")},
                              "keep": {"a": result("crashed", "BUG: oops")}})
        self.assertEqual([(f["module"], f["outcome"]) for f in out["failures"]],
                         [("a", "crashed"), ("b", "not-built")])

    def test_the_section_names_each_failure(self):
        out = self.summarize({"base": {"a": result("loaded"), "b": result("loaded")},
                              "keep": {"a": result("refused:EINVAL", "kernel words"),
                                       "b": result("loaded")}})
        md = doc.md(section.blocks({"x86_64-small": out}, {}))
        self.assertIn("kernel words", md)
        self.assertIn("`a`", md)


class BuildCell(unittest.TestCase):
    def test_clean_incremental_and_unknown(self):
        from compare.sections.valid import build_cell
        self.assertEqual(build_cell({"build_cpu_s": 412.5, "build_from": "clean"}), 412.5)
        self.assertEqual(build_cell({"build_cpu_s": None, "build_from": "keep"}),
                         "- (incremental on keep's build)")
        self.assertEqual(build_cell({"build_cpu_s": None, "build_from": "clean"}), "-")
        self.assertEqual(build_cell({"build_cpu_s": None}), "-")


class Compiler(unittest.TestCase):
    """VALID_CC: the folder's name carries the compiler, valid.json the set and
    the compiler's own words from the reference arm's configuration."""
    def test_set_and_compiler_come_from_the_build(self):
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="modvlab-valid-"))
        self.addCleanup(shutil.rmtree, tmp, True)
        v = tmp / "x86_64-small-clang-16"
        (v / "arms" / "base" / "obj").mkdir(parents=True)
        (v / "set").write_text("small\n")
        (v / "arms" / "base" / "extra.json").write_text(json.dumps(
            {"vpoll-dkms": {"source": "vpoll-dkms 0.1-3", "status": "built",
                            "modules": ["extra/vpoll-dkms/vpoll.ko"]}}))
        (v / "arms" / "base" / "obj" / ".config").write_text(
            'CONFIG_CC_VERSION_TEXT="Debian clang version 16.0.6"\nCONFIG_CC_IS_CLANG=y\n')
        mods = {"a": {"features": [], "path": "a.ko", "depends": [], "softdep": [],
                      "aliases": []}}
        with mock.patch("core.tables.reference_arm", return_value="base"):
            out = boot.summarize(v, ["base"], {"base": {"results": {"a": result("loaded")},
                                                        "boots": 1}}, {"base": mods}, {})
        self.assertEqual((out["set"], out["compiler"]), ("small", "Debian clang version 16.0.6"))
        self.assertEqual(out["extra"]["base"]["vpoll-dkms"]["status"], "built")
        self.assertIn("set small, Debian clang version 16.0.6",
                      doc.md(section.blocks({v.name: out}, {})))

    def test_no_configuration_no_compiler(self):
        self.assertIsNone(boot.compiler("/nonexistent/.config"))

    def test_an_unknown_compiler_is_one_line(self):
        r = subprocess.run(["sh", "lab/valid.sh", "small", "base"], capture_output=True,
                           text=True, env={**os.environ, "VALID_CC": "icc"},
                           cwd=pathlib.Path(__file__).resolve().parent.parent)
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(r.stderr.strip().splitlines(),
                         ["modvlab: error: VALID_CC=icc: not a compiler the lab builds with "
                          "(clang, clang-N, gcc-N)"])


class Extra(unittest.TestCase):
    """Modules from elsewhere (valid/extra.py): each package once per folder
    and arguments, a user's folder, and the report's cell per arm."""
    def table(self, text):
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="modvlab-valid-"))
        self.addCleanup(shutil.rmtree, tmp, True)
        (tmp / "dkms.tsv").write_text(text)
        return tmp

    def test_a_package_twice_with_other_arguments_gets_two_folders(self):
        tmp = self.table("p-dkms\t.\tA=1\tm1\t-\np-dkms\t.\tA=1\tm2\t-\n"
                         "p-dkms\t.\tA=2\tm3\t-\nq-dkms\t.\t-\tq\t-\n")
        with mock.patch("valid.extra.fetch", side_effect=lambda v, p, d: (tmp, f"{p} 1\n")):
            got = extra.sources(tmp, tmp / "dkms.tsv", str(tmp))
        self.assertEqual([(g[0], g[2], g[4]) for g in got],
                         [("p-dkms-1", "p-dkms 1", "A=1"), ("p-dkms-2", "p-dkms 1", "A=2"),
                          ("q-dkms", "q-dkms 1", ""), ("user-" + tmp.name, f"{tmp.name} "
                                                     f"(MODULES={tmp})", "")])

    def test_a_missing_user_folder_and_an_unfetchable_package_are_named(self):
        tmp = self.table("p-dkms\t.\t-\tm\t-\n")
        with mock.patch("valid.extra.fetch", side_effect=RuntimeError("apt-get download p-dkms failed: E: none")):
            with self.assertRaisesRegex(ValueError, "^p-dkms: apt-get download p-dkms failed"):
                extra.sources(tmp, tmp / "dkms.tsv", None)
        (tmp / "dkms.tsv").write_text("")
        with self.assertRaisesRegex(ValueError, "MODULES=/nonexistent is not a directory"):
            extra.sources(tmp, tmp / "dkms.tsv", "/nonexistent")

    def test_the_report_says_what_built_where(self):
        self.assertEqual(section.extra_cell({"status": "built", "modules": [
            "extra/tp-smapi-dkms/tp_smapi.ko", "extra/tp-smapi-dkms/hdaps.ko"]}), "tp_smapi, hdaps")
        self.assertEqual(section.extra_cell({"status": "build-failed: x.c:1: error: y",
                                             "modules": []}), "build-failed: x.c:1: error: y")
        self.assertEqual(section.extra_cell(None), "-")

    def test_usage(self):
        with mock.patch("sys.stderr"):
            self.assertEqual(extra.main(["extra", "V", "ARM"]), 2)


class Skip(unittest.TestCase):
    def test_a_line_without_a_reason_is_refused(self):
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
            f.write("# comment\ntest_lockup\n")
        self.addCleanup(os.unlink, f.name)
        with self.assertRaisesRegex(ValueError, ":2:"):
            boot.read_skip(f.name)

    def test_the_table_reads(self):
        self.assertIsInstance(boot.read_skip(), dict)


if __name__ == "__main__":
    unittest.main()


class FuzzSeeds(unittest.TestCase):
    def valid(self):
        res = lambda o, u="0": {"outcome": o, "unload": u}    # noqa: E731
        return {"arms": {"base": {"results": {"a": res("loaded"), "b": res("loaded"),
                                              "c": res("loaded", "EBUSY"), "d": res("loaded"),
                                              "e": res("refused:EINVAL")}},
                         "keep": {"results": {"a": res("loaded"), "b": res("loaded"),
                                              "c": res("loaded", "EBUSY"), "d": res("loaded"),
                                              "e": res("loaded")}}},
                "modules": {"a": ["params"], "b": ["params", "exports"], "c": ["orc", "params"],
                            "d": ["params", "exports", "orc"], "e": ["ex_table"]},
                "needs": {"a": [], "b": [], "c": [], "d": ["a"], "e": []},
                "sizes": {"a": 10, "b": 30, "c": 5, "d": 1, "e": 1}}

    def test_features_first_then_the_smallest(self):
        from fuzz import seeds
        chosen, health = seeds.pick(self.valid(), 3)
        # d needs a (one file per input), e is not loaded everywhere
        self.assertEqual(chosen[:2], ["c", "b"])
        self.assertEqual(chosen, ["c", "b", "a"])
        self.assertEqual(health, "a")       # c loaded but did not unload

    def test_nothing_to_seed_is_an_error(self):
        from fuzz import seeds
        v = self.valid()
        v["needs"] = {m: ["x"] for m in v["modules"]}
        with self.assertRaises(ValueError):
            seeds.pick(v, 3)


class CoverLine(unittest.TestCase):
    def test_the_cover_says_what_make_valid_found(self):
        from lab import cover_results
        report = {"arms": {"base": {}, "keep": {}}, "cases": [], "verdicts": {},
                  "valid": {"x86_64-full": {
                      "arch": "x86_64", "set": "full", "reference": "base",
                      "arms": {"base": {"built": 9, "loaded": 8}, "keep": {"built": 9, "loaded": 7}},
                      "failures": [{"arm": "keep", "module": "ext4"}]}},
                  "cross": {"rows": [{"arch": "arm64", "tree": "keep", "result": "pass",
                                      "missing_crc": "0"},
                                     {"arch": "arm64", "tree": "remove", "result": "fail",
                                      "missing_crc": "0"}]}}
        lines = cover_results.render("keep", report)
        self.assertEqual(lines["  valid modules, x86_64 set full"],
                         "  valid modules, x86_64 set full: 9 built; base loads 8, keep 7; "
                         "keep refuses 1 that base loads (ext4)")
        self.assertEqual(lines["  cross-built"],
                         "  cross-built: arm64 pass; missing-CRC messages 0")

    def test_write_keeps_only_the_runs_this_report_did_not_make(self):
        from lab import cover_results
        old = ["  G2 probe-c (incompatible): base refused (old)",
               "  G5 probe-unused (incompatible): base refused (old)",
               "  vmlinux vs base: text -1",
               "  fuzz seed 1, remove: 20000 inputs, 0 loader crashes",
               "  valid modules, x86_64 set full: 9 built"]
        new = {"  G2 probe-c (incompatible)": "  G2 probe-c (incompatible): base loaded (new)",
               "  vmlinux vs base": "  vmlinux vs base: text -2",
               "  G13 compatible modules kept out": "  G13 compatible modules kept out: base 0"}
        lines, kept = cover_results.merge(old, new)
        self.assertEqual(list(lines.values()), [
            "  G2 probe-c (incompatible): base loaded (new)",
            "  G5 probe-unused (incompatible): base refused (old)",
            "  vmlinux vs base: text -2",
            "  fuzz seed 1, remove: 20000 inputs, 0 loader crashes",
            "  valid modules, x86_64 set full: 9 built",
            "  G13 compatible modules kept out: base 0"])
        # a new line of a kind the old block has goes after that kind's lines
        lines, _ = cover_results.merge(old, new | {
            "  G13 probe-c (incompatible)": "  G13 probe-c (incompatible): x"})
        self.assertEqual(list(lines)[:3], ["  G2 probe-c (incompatible)",
                                           "  G5 probe-unused (incompatible)",
                                           "  G13 probe-c (incompatible)"])
        self.assertEqual(kept, ["  G5 probe-unused (incompatible)", "  fuzz seed 1, remove",
                                "  valid modules, x86_64 set full"])
        # a line every report renders is never kept from the old cover
        self.assertNotIn("  bzImage vs base", cover_results.merge(["  bzImage vs base: 1"], {})[0])


class Order(unittest.TestCase):
    FACTS = {"crypto_algapi": {"depends": [], "softdep": ["cryptomgr"], "aliases": []},
             "cryptomgr": {"depends": ["crypto_algapi"], "softdep": [], "aliases": []},
             "crypto_hash": {"depends": ["crypto_algapi"], "softdep": [], "aliases": []},
             "sha1": {"depends": ["crypto_hash"], "softdep": ["crypto-sha1-lib"], "aliases": []},
             "libsha1": {"depends": [], "softdep": [], "aliases": ["crypto-sha1-lib"]}}

    def test_a_softdep_that_needs_the_module_follows_it(self):
        self.assertEqual(boot.dep_order("crypto_hash", self.FACTS),
                         ["crypto_algapi", "cryptomgr"])
        self.assertEqual(boot.dep_order("sha1", self.FACTS),
                         ["crypto_algapi", "cryptomgr", "crypto_hash", "libsha1"])

    def test_the_module_itself_is_loaded_without_it(self):
        self.assertEqual(boot.dep_order("crypto_algapi", self.FACTS), [])
        self.assertEqual(boot.dep_order("cryptomgr", self.FACTS), ["crypto_algapi"])
