# SPDX-License-Identifier: GPL-2.0
"""Tests of core/corpus.py on a small module-shaped object built here with gcc -c.

The object has what the recipes edit: .modinfo (ending in vermagic, as
modpost writes it), __versions (64-byte entries), .gnu.linkonce.this_module,
undefined symbols, an __mcount_loc table and its relocation section. Each
recipe's result is read back with readelf (binutils) and with the tool's own
parser, so each mutation is shown to be what it claims. Nothing here is ever
loaded.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
from core import corpus

VERMAGIC = "6.1.192 SMP preempt mod_unload modversions "
SOURCE = r"""
struct modversion_info { unsigned long crc; char name[56]; };
extern int memcpy_like(void *, const void *, unsigned long);
extern int csum_like(const void *, int);
__attribute__((section(".modinfo"), used, aligned(1)))
static const char modinfo[] = "license=GPL\0name=mod_fake\0vermagic=%s";
__attribute__((section("__versions"), used, aligned(32)))
static const struct modversion_info versions[] = {
	{ 0x11111111, "memcpy_like" },
	{ 0x22222222, "csum_like" },
	{ 0x33333333, "module_layout" },
};
int init_fake(void);
/* as modpost's __this_module: init filled in by a relocation (at 0x138) */
__attribute__((section(".gnu.linkonce.this_module"), used, aligned(64)))
struct { char head[0x138]; int (*init)(void); char tail[832 - 0x140]; }
this_module = { .init = init_fake };
__attribute__((section("__this_module_layout"), used))
static const unsigned int layout[4] = { 832, 24, 56, 0x40 };
__attribute__((section(".init.text")))
int init_fake(void) { char a[4], b[4] = "abc"; return memcpy_like(a, b, 4) + csum_like(a, 4); }
__attribute__((section(".exit.text"), used))
void exit_fake(void) { }
__attribute__((section("__mcount_loc"), used))
static int (*const mcount_loc[])(void) = { init_fake };
"""


def read(path):
    with open(path, "rb") as f:
        return f.read()


def readelf(path, *args):
    return subprocess.run(["readelf", "-W", *args, path], capture_output=True, text=True)


SECTION_LINE = re.compile(r"^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)\s")


def sections(path):
    """{name: (type, offset, size)} from readelf -S."""
    out = {}
    for line in readelf(path, "-S").stdout.splitlines():
        m = SECTION_LINE.match(line)
        if m and m.group(1) != "0":
            out[m.group(2)] = (m.group(3), int(m.group(4), 16), int(m.group(5), 16))
    return out


@unittest.skipUnless(shutil.which("gcc") and shutil.which("readelf"), "needs gcc and readelf")
class TestCorpus(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="modvlab-corpus-")
        cls.good = cls.build("good", SOURCE.replace("%s", VERMAGIC))
        # a module of a kernel without modversions: no __versions, its vermagic without it
        src = SOURCE.replace("%s", VERMAGIC.replace("modversions ", ""))
        start = src.index('__attribute__((section("__versions")')
        end = src.index("};", start) + 3
        cls.plain = cls.build("plain", src[:start] + src[end:])
        cls.symvers = os.path.join(cls.tmp, "Module.symvers")
        with open(cls.symvers, "w") as f:
            f.write("0x0000abcd\tmemcpy_like\tvmlinux\tEXPORT_SYMBOL\t\n")

    @classmethod
    def build(cls, name, source):
        c, o = os.path.join(cls.tmp, name + ".c"), os.path.join(cls.tmp, name + ".ko")
        with open(c, "w") as f:
            f.write(source)
        subprocess.run(["gcc", "-c", "-O2", "-fno-pic", "-o", o, c], check=True)
        return o

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def make(self, recipe, src=None, ctx=None):
        with open(src or self.good, "rb") as f:
            data = f.read()
        out = os.path.join(self.tmp, recipe.replace("/", "_").replace(":", "_")[:60] + ".out.ko")
        blob = corpus.apply(recipe, data, ctx or {"symvers": self.symvers})
        with open(out, "wb") as f:
            f.write(blob)
        return out, blob

    def entries(self, path):
        elf = corpus.Elf(read(path))
        i = elf.section("__versions")
        blob = elf.content(i)
        return [(struct.unpack_from("<Q", blob, o)[0], blob[o + 8:o + 64])
                for o in range(0, len(blob) - len(blob) % 64, 64)]

    def modinfo(self, path):
        elf = corpus.Elf(read(path))
        return elf.content(elf.section(".modinfo"))

    def assertReadable(self, path):
        r = readelf(path, "-S")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("Error", r.stderr)

    # --- the fixture itself
    def test_fixture(self):
        s = sections(self.good)
        self.assertEqual(s["__versions"][2], 3 * 64)
        self.assertTrue(self.modinfo(self.good).endswith(VERMAGIC.encode() + b"\0"))
        self.assertNotIn("__versions", sections(self.plain))

    def test_copy_is_identical(self):
        _, blob = self.make("copy")
        self.assertEqual(blob, read(self.good))

    def test_roundtrip_without_edit(self):
        data = read(self.good)
        self.assertEqual(corpus.Elf(data).to_bytes(), data)

    # --- __versions
    def test_truncated_not_multiple_of_64(self):
        out, _ = self.make("shdr:__versions:size=size-32")
        size = sections(out)["__versions"][2]
        self.assertEqual(size, 3 * 64 - 32)
        self.assertNotEqual(size % 64, 0)
        self.assertReadable(out)

    def test_empty(self):
        out, _ = self.make("shdr:__versions:size=0")
        self.assertEqual(sections(out)["__versions"][2], 0)

    def test_huge_count_wraps(self):
        out, _ = self.make("shdr:__versions:size=0xffffffffffffffc0")
        typ, off, size = sections(out)["__versions"]
        self.assertEqual(size, 0xffffffffffffffc0)
        self.assertLess((off + size) % (1 << 64), off)       # offset + size wraps

    def test_past_eof(self):
        out, blob = self.make("shdr:__versions:size=eof")
        _, off, size = sections(out)["__versions"]
        self.assertGreater(off + size, len(blob))

    def test_nobits_past_eof(self):
        out, blob = self.make("shdr:__versions:type=NOBITS,offset=eof,size=1M")
        typ, off, size = sections(out)["__versions"]
        self.assertEqual((typ, off, size), ("NOBITS", len(blob), 1 << 20))

    def test_unterminated_name(self):
        out, _ = self.make("versions-unterminated:csum_like")
        names = [n for _, n in self.entries(out)]
        self.assertEqual(len(names[1]), 56)
        self.assertNotIn(b"\0", names[1])
        self.assertTrue(names[1].startswith(b"csum_like"))
        self.assertIn(b"\0", names[0])                       # the others untouched

    def test_crc_flip(self):
        out, _ = self.make("versions-crc-flip:csum_like")
        crcs = [c for c, _ in self.entries(out)]
        self.assertEqual(crcs, [0x11111111, 0x22222223, 0x33333333])

    def test_dup_orders(self):
        for first, expect in (("good", [0x22222222, 0x22222223]),
                              ("bad", [0x22222223, 0x22222222])):
            out, _ = self.make(f"versions-dup:csum_like,{first}")
            self.assertReadable(out)
            ent = self.entries(out)
            self.assertEqual(len(ent), 4)
            dups = [c for c, n in ent if n.rstrip(b"\0") == b"csum_like"]
            self.assertEqual(dups, expect, first)

    def test_graft_versions_on_a_module_without(self):
        out, _ = self.make("versions-crc-flip:memcpy_like", src=self.plain)
        self.assertReadable(out)
        ent = self.entries(out)
        names = [n.rstrip(b"\0").decode() for _, n in ent]
        self.assertEqual(names, ["memcpy_like", "csum_like", "module_layout"])
        self.assertEqual(ent[0][0], 0xabcd ^ 1)             # CRC from Module.symvers, flipped
        self.assertEqual(ent[1][0], 0)                       # none known: 0
        # every old section is where it was, and still reads the same
        old, new = sections(self.plain), sections(out)
        for name in (".modinfo", ".text", ".gnu.linkonce.this_module"):
            self.assertEqual(old[name][1:], new[name][1:], name)

    # --- .modinfo and vermagic
    def test_drop_vermagic(self):
        out, _ = self.make("modinfo-drop:vermagic")
        info = self.modinfo(out)
        self.assertNotIn(b"vermagic=", info)
        self.assertIn(b"name=mod_fake\0", info)
        self.assertIn("__versions", sections(out))

    def test_vermagic_other_release(self):
        out, _ = self.make("vermagic:6.1.999 {rest}")
        self.assertTrue(self.modinfo(out).endswith(
            b"vermagic=6.1.999 SMP preempt mod_unload modversions \0"))

    def test_vermagic_toggle(self):
        out, _ = self.make("vermagic-toggle-modversions")
        self.assertTrue(self.modinfo(out).endswith(b"vermagic=6.1.192 SMP preempt mod_unload \0"))
        out, _ = self.make("vermagic-toggle-modversions", src=self.plain)
        self.assertTrue(self.modinfo(out).endswith(
            b"vermagic=6.1.192 SMP preempt mod_unload modversions \0"))

    def test_vermagic_overlong_moves_modinfo(self):
        out, blob = self.make("vermagic:{A*8192}")
        self.assertReadable(out)
        info = self.modinfo(out)
        self.assertTrue(info.endswith(b"vermagic=" + b"A" * 8192 + b"\0"))
        self.assertIn(b"name=mod_fake\0", info)
        _, off, size = sections(out)[".modinfo"]
        self.assertGreater(off, sections(self.good)[".modinfo"][1])
        # readelf agrees: the string is whole
        dump = readelf(out, "-p", ".modinfo").stdout
        self.assertIn("A" * 100, dump)

    def test_vermagic_nonprint(self):
        out, _ = self.make(r"vermagic:\x1b[2J\x07\xff{release} {rest}")
        self.assertTrue(self.modinfo(out).endswith(
            b"vermagic=\x1b[2J\x07\xff6.1.192 SMP preempt mod_unload modversions \0"))

    def test_modinfo_unterminated(self):
        out, _ = self.make("modinfo-unterminated")
        info = self.modinfo(out)
        self.assertEqual(info[-1:], b"X")
        self.assertEqual(len(info), sections(self.good)[".modinfo"][2])

    def test_modinfo_unterminated_at_page_end(self):
        out, blob = self.make("modinfo-unterminated-eof")
        _, off, size = sections(out)[".modinfo"]
        self.assertEqual(off + size, len(blob))
        self.assertEqual(len(blob) % 4096, 0)
        self.assertEqual(blob[-1:], b"X")

    def test_flip(self):
        out, _ = self.make("flip:__this_module_layout")
        elf = corpus.Elf(read(out))
        self.assertEqual(struct.unpack("<4I", elf.content(elf.section("__this_module_layout"))),
                         (833, 24, 56, 0x40))

    def test_drop_alloc_flag(self):
        out, _ = self.make("shdr:__this_module_layout:flags=0")
        line = [l for l in readelf(out, "-S").stdout.splitlines() if "__this_module_layout" in l]
        self.assertNotIn(" A ", line[0])

    def test_nobits_this_module(self):
        out, blob = self.make("shdr:.gnu.linkonce.this_module:type=NOBITS,offset=eof")
        typ, off, size = sections(out)[".gnu.linkonce.this_module"]
        self.assertEqual((typ, off, size), ("NOBITS", len(blob), 832))

    # --- headers and whole files
    def test_shoff_past_eof(self):
        out, blob = self.make("ehdr:e_shoff=eof+0x1000")
        self.assertEqual(struct.unpack_from("<Q", blob, 0x28)[0], len(blob) + 0x1000)
        self.assertNotEqual(readelf(out, "-S").stderr, "")  # readelf complains too

    def test_machine_and_type(self):
        _, blob = self.make("ehdr:e_machine=183")
        self.assertEqual(struct.unpack_from("<H", blob, 18)[0], 183)
        _, blob = self.make("ehdr:e_type=2")
        self.assertEqual(struct.unpack_from("<H", blob, 16)[0], 2)

    def test_section_past_eof(self):
        out, blob = self.make("shdr:.text:offset=eof")
        self.assertEqual(sections(out)[".text"][1], len(blob))

    def test_another_sections_place(self):
        out, _ = self.make("shdr:.text:offset=offset(.modinfo)+1,size=size(.modinfo)")
        secs = sections(out)
        self.assertEqual(secs[".text"][1:], (secs[".modinfo"][1] + 1, secs[".modinfo"][2]))
        out, _ = self.make("shdr:.init.text:flags=flags-4")       # SHF_EXECINSTR off
        line = [l for l in readelf(out, "-S").stdout.splitlines() if ".init.text" in l][0]
        self.assertNotIn("X", line.split()[-4])
        with self.assertRaises(corpus.CorpusError):
            self.make("shdr:.text:offset=offset(.no-such-section)")

    def test_whole_files(self):
        self.assertEqual(self.make("empty")[1], b"")
        self.assertEqual(self.make(r"bytes:\x7fELF\x02\x01\x01")[1], b"\x7fELF\x02\x01\x01")
        good = read(self.good)
        self.assertEqual(self.make("truncate:half")[1], good[:len(good) // 2])

    def test_errors(self):
        with self.assertRaises(corpus.CorpusError):
            self.make("no-such-recipe")
        with self.assertRaises(corpus.CorpusError):
            self.make("versions-crc-flip:not_imported")
        with self.assertRaises(corpus.CorpusError):
            corpus.apply("vermagic:x", b"not an elf")
        with self.assertRaises(corpus.CorpusError):
            self.make("shdr:.no-such-section:size=0")

    # --- optional recipes: only where the module has the section
    def test_optional_recipe(self):
        out, _ = self.make("shdr?:.modinfo:size=size-1")
        self.assertEqual(self.modinfo(out), self.modinfo(self.good)[:-1])
        with self.assertRaises(corpus.NotApplicable):
            self.make("shdr?:.orc_unwind:size=0")
        with self.assertRaises(corpus.CorpusError) as e:
            self.make("shdr:.orc_unwind:size=0")      # without ?: a typo is an error
        self.assertNotIsInstance(e.exception, corpus.NotApplicable)

    def test_generate_leaves_out_what_does_not_apply(self):
        arms = os.path.join(self.tmp, "arms")
        mods = os.path.join(arms, "x", "mods")
        os.makedirs(os.path.join(mods, "corpus"), exist_ok=True)
        shutil.copy(self.good, os.path.join(mods, "good.ko"))
        stale = os.path.join(mods, "corpus", "orc.ko")
        open(stale, "w").close()
        tsv = os.path.join(self.tmp, "robust.tsv")
        with open(tsv, "w") as f:
            f.write("# input\tmake\tflags\tnomodv\tbase\tkeep\tremove\tnote\n"
                    "short\tshdr?:.modinfo:size=size-1\t-\tloaded\tloaded\tloaded\tloaded\tn\n"
                    "orc\tshdr?:.orc_unwind:size=0\t-\toops\toops\toops\toops\tn\n"
                    "orc2\tinput:orc\tv\toops\toops\toops\toops\tn\n")
        saved, corpus.ARMS = corpus.ARMS, arms
        try:
            made = corpus.generate("x", tsv, good="good")
        finally:
            corpus.ARMS = saved
        self.assertTrue(os.path.isfile(made["short"]))
        self.assertIsNone(made["orc"])
        self.assertIsNone(made["orc2"])
        self.assertFalse(os.path.exists(stale), "a stale file stood in for an n/a input")

    # --- relocations
    def this_module_relocation(self, path):
        """readelf's line of the one relocation into struct module."""
        r = readelf(path, "-r").stdout
        return r[r.index("'.rela.gnu.linkonce.this_module'"):].splitlines()[2]

    def test_rela_sets_an_entry(self):
        self.assertRegex(self.this_module_relocation(self.good), r"^0+138 .* init_fake \+ 0$")
        out, _ = self.make("rela:.rela.gnu.linkonce.this_module:0:offset=0x98")
        self.assertRegex(self.this_module_relocation(out), r"^0+98 .* init_fake \+ 0$")
        out, _ = self.make("rela:.rela.gnu.linkonce.this_module:0:addend=addend-8")
        self.assertRegex(self.this_module_relocation(out), r"^0+138 .* init_fake - 8$")

    def test_rela_errors(self):
        for bad in ("rela:.rela.gnu.linkonce.this_module:1:offset=0",     # one entry only
                    "rela:.rela.gnu.linkonce.this_module:x:offset=0",
                    "rela:.rela.gnu.linkonce.this_module:0:type=1",
                    "rela:.modinfo:0:offset=0"):
            with self.subTest(recipe=bad), self.assertRaises(corpus.CorpusError):
                self.make(bad)

    # --- the data file
    def test_every_row_of_robust_tsv_applies(self):
        rows = corpus.read_tsv()
        self.assertGreaterEqual(len(rows), 20)
        made = {}
        for r in rows:
            if r["make"].startswith("input:"):
                self.assertIn(r["make"].split(":", 1)[1], made, r["input"])
                continue
            for src in (self.good, self.plain):
                # the recipes name mod-asm-user's symbols: map them to the fixture's
                recipe = r["make"].replace("csum_partial", "csum_like")
                with open(src, "rb") as f:
                    try:
                        made[r["input"]] = corpus.apply(recipe, f.read(),
                                                        {"symvers": self.symvers})
                    except corpus.NotApplicable:    # an ORC-only section, say
                        self.assertIn("?", r["make"].split(":")[0], r["input"])
                        made[r["input"]] = None
            for col in ("nomodv", "base", "keep", "remove"):
                self.assertRegex(r[col], r"^(loaded(\+F)?|refused:E[A-Z0-9]+|oops|-|\?)$",
                                 f"{r['input']}: {col}")
            self.assertRegex(r["flags"], r"^(-|[mvuc]+)$")


if __name__ == "__main__":
    unittest.main()
