# SPDX-License-Identifier: GPL-2.0
"""Unit tests of make fuzz's host side (fuzz/): the mutator regenerates the
same input from (seed, index), the minimizer finds the fewest bytes a fake
oracle needs, crash signatures and the guest's console lines are read right,
and a saved finding goes into the corpus with the file: recipe."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
from core import corpus
from fuzz import minimize, signature, snapshot
from fuzz import run as fuzzrun

SEED_C = "int counter;\nint get(void) { return counter + 1; }\nconst char *s = \"modvlab\";\n"


class TestMutator(unittest.TestCase):
    """The C mutator, built for the host, over a small relocatable ELF."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        t = cls.tmp.name
        cls.bins = fuzzrun.build_driver(t)
        with open(os.path.join(t, "s.c"), "w") as f:
            f.write(SEED_C)
        cls.seed = os.path.join(t, "s.o")
        subprocess.run(["gcc", "-c", "-O2", "-o", cls.seed, os.path.join(t, "s.c")], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def write(self, seed, index, *seeds):
        out = os.path.join(self.tmp.name, f"in-{seed}-{index}.ko")
        r = subprocess.run([self.bins["host"], "write", str(seed), str(index), out,
                            *(seeds or [self.seed])], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, "rb") as f:
            return f.read()

    def test_same_seed_and_index_same_bytes(self):
        for i in (0, 1, 17, 4242):
            self.assertEqual(self.write(7, i), self.write(7, i))

    def test_inputs_differ_from_the_seed_and_each_other(self):
        with open(self.seed, "rb") as f:
            good = f.read()
        inputs = [self.write(7, i) for i in range(40)]
        self.assertGreater(sum(x != good for x in inputs), 30)
        self.assertGreater(len(set(inputs)), 30)
        self.assertNotEqual(self.write(7, 3), self.write(8, 3))
        self.assertTrue(any(len(x) < len(good) for x in inputs), "no truncation in 40 inputs")

    def test_a_candidate_made_by_the_driver_is_the_hosts(self):
        """cand (the guest's cands, one file) == minimize.build of the same positions."""
        import random
        with open(self.seed, "rb") as f:
            good = f.read()
        rnd, tried = random.Random(3), 0
        for i in range(60):
            data = self.write(7, i)
            pos = minimize.changed(good, data)
            if len(pos) < 2:
                continue
            for c in (pos, rnd.sample(pos, len(pos) // 2), pos[:1]):
                out = os.path.join(self.tmp.name, "cand.ko")
                r = subprocess.run([self.bins["host"], "cand", "7", str(i), out,
                                    minimize.spec(c), self.seed], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr)
                with open(out, "rb") as f:
                    self.assertEqual(f.read(), minimize.build(good, data, c), (i, c))
                tried += 1
        self.assertGreater(tried, 30)

    def test_spec(self):
        self.assertEqual(minimize.spec([9, 1, 2, 3, 5]), "1-3,5,9")
        self.assertEqual(minimize.spec([]), "")

    def test_rejects_a_seed_that_is_not_elf(self):
        bad = os.path.join(self.tmp.name, "bad.ko")
        with open(bad, "wb") as f:
            f.write(b"not an ELF file at all, but long enough to have a header" * 2)
        r = subprocess.run([self.bins["host"], "write", "1", "0", bad + ".out", bad],
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not a usable ELF64 module", r.stderr)


class TestMinimize(unittest.TestCase):
    def test_finds_the_bytes_the_oracle_needs(self):
        seed = bytes(range(256)) * 4
        data = bytearray(seed)
        for p in (3, 50, 51, 300, 700, 701, 702, 900):
            data[p] ^= 0xff
        need = {51, 701}
        calls = []

        def oracle(cands):
            calls.append(len(cands))
            for i, c in enumerate(cands):
                if all(c[p] == data[p] for p in need):
                    return i
            return None

        small, pos, rounds = minimize.minimize(seed, bytes(data), oracle, max_rounds=30)
        self.assertEqual(set(pos), need)
        self.assertEqual(minimize.changed(seed, small), sorted(need))
        self.assertEqual(rounds, len(calls))

    def test_keeps_a_truncation(self):
        seed = bytes(100)
        data = bytearray(seed[:60])
        data[10] = 1
        data[20] = 2
        small, pos, _ = minimize.minimize(seed, bytes(data),
                                          lambda cs: next((i for i, c in enumerate(cs)
                                                           if c[20] == 2), None))
        self.assertEqual(pos, [20])
        self.assertEqual(len(small), 60)

    def test_bounded_rounds(self):
        seed = bytes(64)
        data = bytes([1] * 64)
        _, pos, rounds = minimize.minimize(seed, data, lambda cs: None, max_rounds=3)
        self.assertLessEqual(rounds, 3)
        self.assertEqual(len(pos), 64)      # nothing smaller crashed: all kept


OOPS = """\
F 11
F 12
[    1.000044] BUG: unable to handle page fault for address: 000000fea0001064
[    1.000148] #PF: supervisor read access in kernel mode
[    1.000503] Oops: 0000 [#1] PREEMPT SMP NOPTI
[    1.000607] CPU: 0 PID: 1 Comm: init Tainted: G        W  O       6.1.192 #1
[    1.000818] RIP: 0010:apply_relocate_add+0x16c/0x228
[    1.005882] Kernel panic - not syncing: Fatal exception
""".splitlines(True)

WARN = """\
F 5
S 5 ------------[ cut here ]------------
S 5 WARNING: CPU: 1 PID: 1 at fs/sysfs/dir.c:32 sysfs_warn_dup+0x5e/0x70
S 5 RIP: 0010:sysfs_warn_dup+0x5e/0x70
F 6
# fuzz end inputs=2 loaded=0 splats=1 unhealthy=0 ms=40
""".splitlines(True)


class TestConsole(unittest.TestCase):
    def test_a_dying_guest_names_the_input(self):
        b = fuzzrun.Boot(OOPS)
        self.assertEqual(b.died, 12)
        crashes = fuzzrun.crashes_of(b)
        self.assertEqual(list(crashes), [12])
        self.assertEqual(signature.signature(crashes[12]),
                         ("BUG: unable to handle page fault for address", "apply_relocate_add", None))

    def test_a_warning_the_guest_survives(self):
        b = fuzzrun.Boot(WARN)
        self.assertIsNone(b.died)
        self.assertEqual(b.end["inputs"], 2)
        sig = signature.signature(fuzzrun.crashes_of(b)[5])
        self.assertEqual(sig, ("WARNING: at fs/sysfs/dir.c:32 sysfs_warn_dup", "sysfs_warn_dup", None))

    def test_module_code_and_kasan(self):
        sig = signature.signature(["[ 1.0] general protection fault, probably for non-canonical "
                                   "address 0xdead000000000100: 0000 [#1] SMP",
                                   "[ 1.1] RIP: 0010:asm_user_init+0x12/0x2ca [mod_asm_user]"])
        self.assertEqual(sig[1:], ("asm_user_init", "mod_asm_user"))
        # arm64's die(): its pc line, not RIP
        sig = signature.signature(["[ 3.4] Internal error: Oops: 0000000096000005 [#1] SMP",
                                   "[ 3.4] pc : __apply_alternatives+0x84/0x1d0",
                                   "[ 3.4] lr : apply_alternatives_module+0x34/0x40",
                                   "[ 3.4] Call trace:",
                                   "[ 3.4]  __apply_alternatives+0x84/0x1d0"])
        self.assertEqual(sig[1:], ("__apply_alternatives", None))
        sig = signature.signature(["[ 1.0] Internal error: Oops: 0000000096000005 [#1] SMP",
                                   "[ 1.0] pc : example_init+0x10/0x40 [kobject_example]"])
        self.assertEqual(sig[1:], ("example_init", "kobject_example"))
        sig = signature.signature(["S 3 BUG: KASAN: slab-out-of-bounds in find_sec+0x21/0x80"])
        self.assertEqual(sig[:2], ("BUG: KASAN: slab-out-of-bounds in find_sec", "find_sec"))
        sig = signature.signature(["UBSAN: shift-out-of-bounds in kernel/module/main.c:12:3"])
        self.assertEqual(sig[1], "kernel/module/main.c")
        self.assertIsNone(signature.signature(["F 1", "all fine"]))

    def test_code_patching_checks_are_module_content(self):
        # the kernel's checks of the code at a site the module's own table
        # lists (IBT seal, return sites), not of the file's structure
        for func in ("apply_seal_endbr", "apply_returns", "ftrace_verify_code.isra.0"):
            self.assertEqual(signature.content(func, None)[1], "content", func)
        self.assertEqual(signature.content("module_destroy_params", None), ("module_destroy_params", None))

    def test_initramfs_is_newc(self):
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "x.cpio.gz")
            fuzzrun.initramfs(p, b"\x7fELF", "run 1 0 1 1 /h.ko /s0.ko", {"/s0.ko": b"abc"})
            import gzip
            with gzip.open(p) as f:
                blob = f.read()
        self.assertTrue(blob.startswith(b"070701"))
        self.assertIn(b"fuzz.args\0", blob)
        self.assertIn(b"TRAILER!!!\0", blob)


class TestWatch(unittest.TestCase):
    """A guest that runs on after its oops (an oops while oopsing) is
    stopped AFTER_FATAL seconds later, not at the stall timeout."""

    def run_guest(self, text, stall, chatty=True):
        """(seconds, console) of a fake guest: prints text, then a dot every
        0.2 s (chatty: it never goes quiet) or nothing."""
        from fuzz import guest
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "g.log")
            # 20 s at most: without the rule under test, a failure, not a hang
            script = (f"printf '{text}' >> {log}; i=0; while [ $i -lt 100 ]; do "
                      "sleep 0.2; i=$((i + 1)); " + (f"echo . >> {log}; done" if chatty else "done"))
            p = subprocess.Popen(["sh", "-c", script], start_new_session=True)
            saved, guest.AFTER_FATAL = guest.AFTER_FATAL, 1
            t0 = time.monotonic()
            try:
                guest.watch(p, log, stall)
            finally:
                guest.AFTER_FATAL = saved
                guest.stop(p)
            with open(log) as f:
                return time.monotonic() - t0, f.read()

    def test_an_oops_storm_is_stopped(self):
        took, text = self.run_guest("F 7\\n[    5.43] Oops: 0002 [#1] PREEMPT SMP KASAN\\n", 30)
        self.assertLess(took, 10)
        self.assertIn("after its oops (an oops while oopsing): stopped", text)
        self.assertEqual(fuzzrun.Boot(text.splitlines(True)).died, 7)

    def test_a_guest_that_only_warns_runs_on(self):
        took, text = self.run_guest("F 7\\nS 7 WARNING: CPU: 0 PID: 1 at x\\n", 3, chatty=False)
        self.assertGreaterEqual(took, 3)
        self.assertNotIn("after its oops", text)


class TestFileRecipe(unittest.TestCase):
    def test_file_recipe_reads_under_workload(self):
        name = "fuzz/.test-file-recipe.ko"
        path = os.path.join(TOP, "workload", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            with open(path, "wb") as f:
                f.write(b"\x7fELF saved")
            self.assertEqual(corpus.apply("file:" + name, b"ignored"), b"\x7fELF saved")
        finally:
            os.unlink(path)
        with self.assertRaises(corpus.CorpusError):
            corpus.apply("file:fuzz/no-such-file.ko", b"")


class TestGarbageRip(unittest.TestCase):
    def test_jump_to_garbage_is_named_by_its_caller(self):
        lines = ["[ 2.4] general protection fault, probably for non-canonical address 0xef: 0000",
                 "[ 2.4] RIP: 0010:0xef28a83be8410c66",
                 "[ 2.4] Call Trace:", "[ 2.4]  <TASK>",
                 "[ 2.4]  ? asm_user_init+0x39/0x1000 [mod_asm_user]",
                 "[ 2.4]  ? do_one_initcall+0x8f/0x193"]
        self.assertEqual(signature.signature(lines)[1:], ("? from asm_user_init", "mod_asm_user"))


class TestDieHeader(unittest.TestCase):
    def test_int3_oops_in_module_code_is_a_splat_and_content(self):
        # from a real keep guest: a relocation addend sent the module's init
        # into the middle of memcpy; the report starts with die()'s "int3:"
        lines = ["[ 2.468] int3: 0000 [#1] PREEMPT SMP NOPTI",
                 "[ 2.469] RIP: 0010:__memcpy+0x0/0x20",
                 "[ 2.470] Call Trace:", "[ 2.470]  <TASK>",
                 "[ 2.470]  ? asm_user_init+0x1c3/0x1000 [mod_asm_user]",
                 "[ 2.470]  ? do_one_initcall+0x8f/0x193",
                 "[ 2.473] Kernel panic - not syncing: Fatal exception in interrupt"]
        self.assertEqual(signature.signature(lines),
                         ("int3: 0000 PREEMPT SMP NOPTI", "__memcpy", "mod_asm_user"))

    def test_a_jump_to_garbage_from_do_init_module_is_content(self):
        lines = ["[ 1.0] BUG: kernel NULL pointer dereference, address: 0000000000000000",
                 "[ 1.0] RIP: 0010:0x0", "[ 1.0] Call Trace:",
                 "[ 1.0]  ? do_init_module+0x44/0x1cd"]
        self.assertEqual(signature.signature(lines)[1:], ("? from do_init_module", "content"))


class TestCause(unittest.TestCase):
    """cause.py: code bytes and relocation addends are module content; a
    header, a section header, a relocation's symbol or a cut are structure."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        src = os.path.join(cls.tmp.name, "s.c")
        with open(src, "w") as f:
            f.write(SEED_C)
        obj = os.path.join(cls.tmp.name, "s.o")
        subprocess.run(["gcc", "-c", "-O2", "-fno-pic", "-mcmodel=kernel", "-o", obj, src],
                       check=True)
        with open(obj, "rb") as f:
            cls.seed = f.read()
        from core.elf import Elf
        cls.elf = Elf(cls.seed)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def at(self, name, delta):
        return self.elf.shdrs[self.elf.section(name)]["offset"] + delta

    def test_kinds(self):
        from fuzz import cause
        text, rela = self.at(".text", 0), self.at(".rela.text", 0)
        data = bytearray(self.seed)
        self.assertEqual(cause.content_only(self.seed, data, [text]), "code")
        self.assertEqual(cause.content_only(self.seed, data, [rela + 16, rela + 17]),
                         "relocation addend")
        self.assertEqual(cause.content_only(self.seed, data, [text, rela + 20]),
                         "code and relocation addend")
        self.assertIsNone(cause.content_only(self.seed, data, [rela + 8]))       # r_info type
        none, other = bytearray(self.seed), bytearray(self.seed)
        none[rela + 8:rela + 12] = bytes(4)                 # R_X86_64_NONE: nothing applied
        other[rela + 8:rela + 12] = (2).to_bytes(4, "little")   # R_X86_64_PC32: structure
        self.assertEqual(cause.content_only(self.seed, none, [rela + 8]),
                         "relocation dropped (R_X86_64_NONE)")
        self.assertIsNone(cause.content_only(self.seed, other, [rela + 8]))
        sym = self.at(".symtab", 0)
        self.assertEqual(cause.content_only(self.seed, data, [sym + 24 + 5]), "symbol visibility")
        # a symbol (value 0) defined in an allocated section, or in one the
        # loader does not allocate, or made absolute
        from core.elf import SYM as SYMS
        tab = self.elf.content(self.elf.section(".symtab"))
        und = next(k for k in range(1, len(tab) // 24) if SYMS.unpack_from(tab, k * 24)[4] == 0)
        for target, want in ((self.elf.section(".text"), "symbol section"),
                             (self.elf.section(".symtab"), None), (0xfff1, None)):
            moved = bytearray(self.seed)
            moved[sym + und * 24 + 6:sym + und * 24 + 8] = target.to_bytes(2, "little")
            self.assertEqual(cause.content_only(self.seed, moved, [sym + und * 24 + 6]), want,
                             f"st_shndx {target:#x}")
        self.assertEqual(cause.content_only(self.seed, data, [self.at(".data", 0)]), "data")
        # the module's tracepoint objects are its data too, not a table the
        # loader parses (__param is)
        from core.elf import Elf
        for name, want in (("__tracepoints", "data"), ("__param", None)):
            e = Elf(self.seed)
            i = e.add_section(name, bytes(64), 1, 3, 8)
            seed2 = e.to_bytes()
            pos = Elf(seed2).shdrs[i]["offset"] + 8
            changed = bytearray(seed2)
            changed[pos] = 1
            self.assertEqual(cause.content_only(seed2, bytes(changed), [pos]), want, name)
        # a defined symbol moved inside its section, or far past it
        from core.elf import SYM
        tab = self.elf.content(self.elf.section(".symtab"))
        for k in range(1, len(tab) // 24):
            shndx = SYM.unpack_from(tab, k * 24)[3]
            if 0 < shndx < len(self.elf.shdrs) and self.elf.shdrs[shndx]["size"] >= 8:
                moved, far = bytearray(self.seed), bytearray(self.seed)
                moved[sym + k * 24 + 8] = 1
                far[sym + k * 24 + 8:sym + k * 24 + 16] = (1 << 40).to_bytes(8, "little")
                self.assertEqual(cause.content_only(self.seed, moved, [sym + k * 24 + 8]),
                                 "symbol value")
                self.assertIsNone(cause.content_only(self.seed, far, [sym + k * 24 + 8]))
                break
        else:
            self.fail("no defined symbol in a section of 8 bytes or more")
        other = bytearray(self.seed)        # the relocation names symbol 1, in the table
        other[rela + 12:rela + 16] = (1).to_bytes(4, "little")
        self.assertEqual(cause.content_only(self.seed, other, [rela + 12]), "relocation symbol")
        other[rela + 12:rela + 16] = (10 ** 6).to_bytes(4, "little")          # past the table
        self.assertIsNone(cause.content_only(self.seed, other, [rela + 12]))
        other[rela + 12:rela + 16] = bytes(4)      # the null symbol: value 0, the addend as is
        self.assertEqual(cause.content_only(self.seed, other, [rela + 12]), "relocation symbol")
        self.assertIsNone(cause.content_only(self.seed, data, [text, 0x10]))    # e_type
        shdr = self.elf.ehdr["e_shoff"] + 64 * self.elf.section(".text")
        self.assertIsNone(cause.content_only(self.seed, data, [shdr + 4]))      # sh_type
        self.assertIsNone(cause.content_only(self.seed, self.seed[:-8], [text]))  # a cut
        self.assertIsNone(cause.content_only(self.seed, data, []))


    def test_relocation_offsets_and_dropped_relocation_sections(self):
        from fuzz import cause
        e = self.elf
        rela = self.at(".rela.text", 0)
        size = e.shdrs[e.section(".text")]["size"]
        for off, want in ((0, "relocation offset"), (size - 8, "relocation offset"),
                          (size - 7, None), (1 << 32, None)):
            moved = bytearray(self.seed)
            moved[rela:rela + 8] = off.to_bytes(8, "little")
            self.assertEqual(cause.content_only(self.seed, moved, [rela]), want, off)
        # the same move in a relocation section of a section the loader reads
        i = e.section(".rela.text")
        hdr = e.ehdr["e_shoff"] + 64 * i
        seed2 = bytearray(self.seed)
        seed2[hdr + 44:hdr + 48] = e.section(".comment").to_bytes(4, "little")   # sh_info
        moved = bytearray(seed2)
        moved[rela:rela + 8] = (0).to_bytes(8, "little")
        self.assertIsNone(cause.content_only(bytes(seed2), moved, [rela]))
        # .rela.text made NOBITS, NOTE or an unknown type (ignored, nothing
        # applied), or SYMTAB or REL (which the loader acts on)
        gone = "relocation section dropped (its type one the loader ignores)"
        for t, want in ((8, gone), (7, gone), (68, gone), (2, None), (9, None)):
            typed = bytearray(self.seed)
            typed[hdr + 4:hdr + 8] = t.to_bytes(4, "little")
            self.assertEqual(cause.content_only(self.seed, typed, [hdr + 4]), want, t)
        # .rela.text aimed at a section not allocated (skipped, nothing
        # applied) or at another allocated one (structure)
        aimed = "relocation section dropped (aimed at a section not allocated)"
        for target, want in ((e.section(".comment"), aimed), (e.section(".data"), None)):
            moved = bytearray(self.seed)
            moved[hdr + 44:hdr + 48] = target.to_bytes(4, "little")
            self.assertEqual(cause.content_only(self.seed, moved, [hdr + 44]), want, target)
        # another section's type changed is structure
        t_hdr = e.ehdr["e_shoff"] + 64 * e.section(".text")
        typed = bytearray(self.seed)
        typed[t_hdr + 4:t_hdr + 8] = (8).to_bytes(4, "little")
        self.assertIsNone(cause.content_only(self.seed, typed, [t_hdr + 4]))

    def test_an_unmodified_seed_is_carried_over(self):
        # minimized to no changed byte: the crash was an earlier input's
        from fuzz import cause, results
        with tempfile.TemporaryDirectory() as t:
            mods = os.path.join(t, "keep", "mods", "main")
            os.makedirs(mods)
            for name, data in (("s.ko", self.seed), ("same.ko", self.seed),
                               ("cut.ko", self.seed[:-8])):
                with open(os.path.join(t if name != "s.ko" else mods, name), "wb") as f:
                    f.write(data)
            sig = {"seed_module": "s.ko", "input": os.path.join(t, "same.ko")}
            self.assertEqual(results.content_of_finding("keep", sig, t), cause.CARRIED)
            sig["input"] = os.path.join(t, "cut.ko")
            self.assertIsNone(results.content_of_finding("keep", sig, t))

    def test_split_test_shows_content_with_one_boot(self):
        """run.split_test: the other bytes alone load, the content alone
        crashes with the same first line: the crash is the module's."""
        text, e_ident = self.at(".text", 0), 5
        data = bytearray(self.seed)
        data[text] ^= 0xff
        data[e_ident] ^= 0xff          # EI_DATA: structure by the rules, inert
        sig = ("general protection fault, probably for non-canonical address", "_printk", None)
        gpf = ["[ 1.0] general protection fault, probably for non-canonical address "
               "0xdead000000000100: 0000 [#1] SMP\n", "[ 1.1] RIP: 0010:vprintk+0x1/0x2\n",
               "[ 1.2] Kernel panic - not syncing: Fatal exception\n"]

        class Arm:
            def __init__(self, lines):
                self.lines, self.blobs = lines, None

            def try_files(self, blobs, origin=None):
                self.blobs = blobs
                return fuzzrun.Boot(self.lines)

        arm = Arm(["F 0\n", "F 1\n"] + gpf)
        got = fuzzrun.split_test(arm, self.seed, bytes(data), [e_ident, text], sig)
        self.assertEqual(got["content_alone"], "vprintk")
        self.assertTrue(got["in_module"].startswith("content: code (alone it crashes in vprintk"))
        self.assertEqual(minimize.changed(self.seed, arm.blobs[0]), [e_ident])
        self.assertEqual(minimize.changed(self.seed, arm.blobs[1]), [text])
        # the other bytes crash by themselves, or the content crashes otherwise: no
        for lines in (["F 0\n"] + gpf, ["F 0\n", "F 1\n", "[ 1.0] BUG: unable to handle "
                                         "page fault for address: 0\n",
                                         "[ 1.1] RIP: 0010:vprintk+0x1/0x2\n"],
                      ["F 0\n", "F 1\n", "# fuzz end inputs=2 loaded=2 splats=0 unhealthy=0 "
                                           "ms=5\n"]):
            self.assertIsNone(fuzzrun.split_test(Arm(lines), self.seed, bytes(data),
                                                 [e_ident, text], sig), lines[-1])
        # content only, or structure only: nothing to split, no boot
        arm = Arm([])
        self.assertIsNone(fuzzrun.split_test(arm, self.seed, bytes(data), [text], sig))
        self.assertIsNone(fuzzrun.split_test(arm, self.seed, bytes(data), [e_ident], sig))
        self.assertIsNone(arm.blobs)


class TestQmp(unittest.TestCase):
    """fuzz/snapshot.py's QMP client against a scripted server on a unix socket."""

    def serve(self, replies):
        t = tempfile.mkdtemp(prefix="modvlab-qmp-")
        self.addCleanup(shutil.rmtree, t, True)
        path = os.path.join(t, "qmp")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        srv.listen(1)
        self.got = []

        def run():
            c, _ = srv.accept()
            f = c.makefile("rwb")
            f.write(b'{"QMP": {"version": {}}}\n')
            f.flush()
            for reply in replies:
                self.got.append(json.loads(f.readline()))
                f.write(reply.encode() + b"\n")
                f.flush()
            c.close()
            srv.close()
        threading.Thread(target=run, daemon=True).start()
        return path

    def test_commands_events_and_errors(self):
        path = self.serve(['{"return": {}}',
                           '{"event": "STOP"}\n{"return": {"status": "completed"}}',
                           '{"error": {"class": "GenericError", "desc": "no such file"}}'])
        q = snapshot.Qmp(path, time.monotonic() + 5)
        self.assertEqual(q.cmd("query-migrate"), {"status": "completed"})   # the event skipped
        with self.assertRaisesRegex(snapshot.SnapshotError, "migrate-incoming: no such file"):
            q.cmd("migrate-incoming", uri="exec:cat x")
        q.close()
        self.assertEqual([m["execute"] for m in self.got],
                         ["qmp_capabilities", "query-migrate", "migrate-incoming"])
        self.assertEqual(self.got[2]["arguments"], {"uri": "exec:cat x"})

    def test_no_socket_is_an_error_not_a_hang(self):
        with self.assertRaisesRegex(snapshot.SnapshotError, "no QMP socket"):
            snapshot.Qmp("/nonexistent/qmp", time.monotonic() + 0.2)


class TestOutcomes(unittest.TestCase):
    """What an arm did with each input, from its console logs (the Elsewhere column)."""

    LOG = """# modvlab: guest up (fuzz)\r
# fuzz start seed=1 first=0 count=10 health_every=4\r
F 0\r
L 0 mod_asm_user 0\r
F 1\r
F 2\r
F 3\r
h 3 mod_provider 0\r
F 4\r
[    1.0] BUG: unable to handle page fault for address: ffffffffa0005038\r
[    1.0] RIP: 0010:apply_relocate_add+0x33/0xcb\r
"""

    def test_loaded_refused_crash_and_the_health_check_apart(self):
        with tempfile.TemporaryDirectory() as t:
            d = os.path.join(t, "boots", "arms", "keep", "boot")
            os.makedirs(d)
            with open(os.path.join(d, "fuzz-1.log"), "w") as f:
                f.write(self.LOG)
            o = fuzzrun.outcomes(t, "keep", 1)
            self.assertEqual(o, {0: "loaded", 1: "refused", 2: "refused", 3: "refused",
                                 4: "crash in apply_relocate_add"})
            res = {"arms": {"keep": {"boots": 1, "signatures": []},
                            "nomodv": {"boots": 0, "signatures": [{"index": 4}, {"index": 9}]}}}
            fuzzrun.cross_outcomes(res, t)
            sigs = res["arms"]["nomodv"]["signatures"]
            self.assertEqual(sigs[0]["elsewhere"], {"keep": "crash in apply_relocate_add"})
            self.assertEqual(sigs[1]["elsewhere"], {})      # keep never ran input 9

    def test_inputs_compare_only_within_one_seed_set(self):
        # make valid's seeds per architecture are other modules: input 4 of
        # base-valid.arm64 is not input 4 of keep-valid or of keep
        with tempfile.TemporaryDirectory() as t:
            for arm in ("keep", "keep-valid", "keep-valid.arm64"):
                d = os.path.join(t, "boots", "arms", arm, "boot")
                os.makedirs(d)
                with open(os.path.join(d, "fuzz-1.log"), "w") as f:
                    f.write(self.LOG)
            res = {"arms": {a: {"boots": 1, "signatures": []}
                            for a in ("keep", "keep-valid", "keep-valid.arm64")}}
            res["arms"]["base-valid.arm64"] = {"boots": 0, "signatures": [{"index": 4}]}
            res["arms"]["base-valid"] = {"boots": 0, "signatures": [{"index": 4}]}
            fuzzrun.cross_outcomes(res, t)
            self.assertEqual(list(res["arms"]["base-valid.arm64"]["signatures"][0]["elsewhere"]),
                             ["keep-valid.arm64"])
            self.assertEqual(list(res["arms"]["base-valid"]["signatures"][0]["elsewhere"]),
                             ["keep-valid"])
