# SPDX-License-Identifier: GPL-2.0
"""Tests of core.classify: outcomes of every fixture case, the verdict table, taint letters, splats."""
import pathlib
import unittest

from core import classify, ktap

# one folder a console log: tests/cases/<name>/log (and its expected parse)
CASES = pathlib.Path(__file__).parent / "cases"


def judged(name, boot_status=None):
    """{n: (outcome, reason, reached)} for every planned or seen case of a fixture."""
    run = ktap.parse(ktap.read_log(CASES / name.removesuffix(".log") / "log"), boot_status)
    ns = sorted(set(run.attempts) | set(range(1, (run.planned or 0) + 1)))
    out = {}
    for n in ns:
        outcome, reason, _, reached = classify.judge(run, run.attempts.get(n))
        out[n] = (outcome, reason, reached)
    return out


class TestFixtureOutcomes(unittest.TestCase):
    def test_clean(self):
        got = judged("clean.log")
        self.assertEqual({n: o for n, (o, _, _) in got.items()},
                         {1: "loaded", 2: "refused:crc-missing", 3: "refused:vermagic"})
        self.assertEqual(got[2][1], "mod_consumer: no symbol version for modvlab_prov_asm_add")
        self.assertTrue(got[3][1].startswith("mod_asm_user: version magic '6.1.192 SMP"))

    def test_namespace_before_unknown_symbol(self):
        # verify_namespace_is_imported(), then simplify_symbols()'s line
        dmesg = ["mod_probe_gone: module uses symbol (modvlab_probe_gone) from namespace "
                 "MODVLAB, but does not import it.",
                 "mod_probe_gone: Unknown symbol modvlab_probe_gone (err -22)"]
        reason, line = classify.refusal_reason("EINVAL", dmesg)
        self.assertEqual(reason, "namespace")
        self.assertIn("from namespace MODVLAB", line)
        self.assertEqual(classify.refusal_reason("EINVAL", dmesg[1:])[0], "unknown-symbol")

    def test_noisy_equals_clean(self):
        self.assertEqual(judged("noisy.log"), judged("clean.log"))

    def test_outcomes(self):
        got = judged("outcomes.log")
        want = {
            1: ("refused:crc-mismatch", "disagrees about version of symbol modvlab_probe_fn"),
            2: ("refused:crc-missing", "no symbol version for modvlab_prov_asm_add"),
            3: ("refused:vermagic", "version magic '6.1.192 SMP preempt mod_unload '"),
            4: ("refused:abi-version", "module ABI version 'deb12-3' should be"),
            5: ("refused:unknown-symbol", "Unknown symbol modvlab_probe_gone (err -2)"),
            6: ("refused:already-loaded", "finit_module: EEXIST, no kernel log line"),
            7: ("refused:eperm", "finit_module: EPERM, no kernel log line"),
            8: ("refused:bad-elf", "finit_module: ENOEXEC, no kernel log line"),
            9: ("refused:einval", "something the classifier has no pattern for"),
            10: ("loaded-misbehaved", "modvlab: selftest failed: probe_opaque(&s) read 7"),
            11: ("refused:enotrecoverable", "mod_asm_user: init said no"),
            12: ("loaded", 'no version for "module_layout" found: kernel tainted.'),
            13: ("loaded", "loading out-of-tree module taints kernel."),
            14: ("setup-failed", "(crc-missing): mod_provider: no symbol version for memcpy"),
            15: ("plan-error", "malformed plan line"),
            16: ("crashed", "WARNING: CPU: 0 PID: 45 at kernel/module/main.c:1234"),
            17: ("loaded", "modvlab: selftest ok"),
        }
        self.assertEqual(sorted(got), sorted(want))
        for n, (outcome, reason) in want.items():
            with self.subTest(n=n):
                self.assertEqual(got[n][0], outcome)
                self.assertIn(reason, got[n][1])
                self.assertTrue(got[n][2])

    def test_forced_load_taints_f(self):
        run = ktap.parse(ktap.read_log(CASES / "outcomes" / "log"))
        res = run.attempts[12].result
        self.assertEqual(classify.decode_taint(res.taint), "FO")
        self.assertEqual(classify.decode_taint(res.taint & ~res.taint_before), "F")
        self.assertEqual(run.attempts[12].fields["flags"], "mv")

    def test_panic(self):
        got = judged("panic.log")
        self.assertEqual(got[1][0], "loaded")
        self.assertEqual(got[2], ("crashed", "no result: BUG: kernel NULL pointer dereference, "
                                  "address: 0000000000000008", True))
        for n in (3, 4):
            self.assertEqual(got[n][0], "crashed")
            self.assertTrue(got[n][1].startswith("not reached: BUG: kernel NULL pointer"))
            self.assertFalse(got[n][2])

    def test_timeout(self):
        got = judged("timeout.log", "timeout")
        self.assertEqual(got[2], ("timeout", "no result: boot timed out", True))
        self.assertEqual(got[3], ("timeout", "not reached: boot timed out", False))
        got = judged("timeout.log")  # no runner record: truncated is a crash
        self.assertEqual(got[2], ("crashed", "no result: log truncated", True))

    def test_empty_and_garbage_have_no_cases(self):
        self.assertEqual(judged("empty.log"), {})
        self.assertEqual(judged("garbage.log"), {})

    def test_missing_case_of_empty_log(self):
        run = ktap.parse(ktap.read_log(CASES / "empty" / "log"))
        self.assertEqual(classify.judge(run, None),
                         ("crashed", "not reached: log truncated", None, False))


class TestOutcome(unittest.TestCase):
    def test_first_pattern_wins_whatever_the_line_order(self):
        lines = ["m: Unknown symbol f (err -22)", "m: disagrees about version of symbol f"]
        self.assertEqual(classify.outcome("refused", "EINVAL", lines),
                         ("refused:crc-mismatch", "m: disagrees about version of symbol f"))

    def test_eexist_from_dmesg_and_errno(self):
        self.assertEqual(classify.outcome("refused", "EINVAL", ["m: module is already loaded"])[0],
                         "refused:already-loaded")
        self.assertEqual(classify.outcome("refused", "EEXIST", [])[0], "refused:already-loaded")

    def test_enoexec_with_a_line_is_not_bad_elf(self):
        self.assertEqual(classify.outcome("refused", "ENOEXEC", ["Invalid ELF header len 12"]),
                         ("refused:enoexec", "Invalid ELF header len 12"))

    def test_layout_record_refusals(self):
        # series-remove's loader: each shape of its layout refusal
        for line in ("m: no struct module layout record: module was built for another kernel",
                     "m: struct module layout record has no contents: module was built for "
                     "another kernel",
                     "m: struct module layout record differs from this kernel's: 96 bytes, "
                     "here 104: module was built for another kernel",
                     "m: struct kernel_param layout differs from this kernel's: size 40, here "
                     "48: module was built for another kernel",
                     "m: struct kernel_param layout differs from this kernel's: ops at offset "
                     "16 size 8, here 24 size 8: module was built for another kernel",
                     "m: struct module layout differs from this kernel's: "
                     ".gnu.linkonce.this_module of 832 bytes, here 896: module was built for "
                     "another kernel"):
            self.assertEqual(classify.outcome("refused", "ENOEXEC", [line]),
                             ("refused:layout", line))
        # vermagic is printed first and says more
        self.assertEqual(classify.outcome("refused", "ENOEXEC", [
            "m: struct module layout differs from this kernel's: size 1, here 2",
            "m: version magic 'a' should be 'b'"])[0], "refused:vermagic")
        # not every "layout" is the record
        self.assertEqual(classify.outcome("refused", "ENOEXEC", ["m: bad layout of x"])[0],
                         "refused:enoexec")

    def test_selftest_failed_needs_enotrecoverable(self):
        line = "m: modvlab: selftest failed: x"
        self.assertEqual(classify.outcome("refused", "ENOTRECOVERABLE", [line])[0],
                         "loaded-misbehaved")
        self.assertEqual(classify.outcome("refused", "EINVAL", [line])[0], "refused:einval")

    def test_splat_makes_any_result_crashed(self):
        for token in ("loaded", "refused", "setup-failed"):
            self.assertEqual(
                classify.outcome(token, "0", ["[    2.000001] general protection fault, "
                                              "probably for non-canonical address"]),
                ("crashed", "general protection fault, probably for non-canonical address"))

    def test_unknown_token(self):
        self.assertEqual(classify.outcome("exploded", "0", [])[0], "plan-error")

    def test_own_module_line_is_the_reason(self):
        text = ("KTAP version 1\n1..1\n# case c: module=/m/base/apart/mod-consumer.ko flags=- deps=1\n"
                "# dmesg c: mod_provider: modvlab: selftest ok\n"
                "# dmesg c: mod_consumer: modvlab: selftest ok\n"
                "ok 1 c # loaded errno=0 taint=0x0 taint_before=0x0 ns=1 repeat=1 unload=0\n"
                "# modvlab: end cases=1 taint=0x0\n")
        run = ktap.parse(ktap.read_lines(text))
        self.assertEqual(classify.judge(run, run.attempts[1]),
                         ("loaded", "mod_consumer: modvlab: selftest ok", 5, True))

    def test_module_name(self):
        self.assertEqual(classify.module_name("/m/base/main/mod-asm-user.ko"), "mod_asm_user")


class TestVerdict(unittest.TestCase):
    TABLE = [
        ("loaded", "compatible", "correct-load"),
        ("loaded", "incompatible", "unsafe-load"),
        ("loaded-misbehaved", "compatible", "lab-error"),
        ("loaded-misbehaved", "incompatible", "unsafe-load"),
        ("refused:crc-mismatch", "compatible", "needless-refusal"),
        ("refused:vermagic", "incompatible", "correct-refusal"),
        ("refused:einval", "incompatible", "correct-refusal"),
        ("crashed", "compatible", "lab-error"),
        ("crashed", "incompatible", "unsafe-load"),
        ("timeout", "compatible", "no-verdict"),
        ("timeout", "incompatible", "no-verdict"),
        ("setup-failed", "incompatible", "no-verdict"),
        ("plan-error", "compatible", "no-verdict"),
        ("not-run", "incompatible", "no-verdict"),
        ("loaded", None, "no-verdict"),
        ("loaded", "maybe", "no-verdict"),
    ]

    def test_table(self):
        for outcome, expected, verdict in self.TABLE:
            with self.subTest(outcome=outcome, expected=expected):
                self.assertEqual(classify.verdict(outcome, expected), verdict)

    def test_not_reached_is_never_judged(self):
        self.assertEqual(classify.verdict("crashed", "incompatible", reached=False), "no-verdict")
        self.assertEqual(classify.verdict("crashed", "compatible", reached=False), "no-verdict")

    def test_keys(self):
        self.assertEqual(classify.VERDICT_KEYS[:4], ["correct-load", "correct-refusal",
                                                     "needless-refusal", "unsafe-load"])
        self.assertEqual(set(classify.VERDICT_KEYS[4:]), {"lab-error", "no-verdict"})


class TestTaint(unittest.TestCase):
    def test_letters(self):
        cases = {0: "", 0x1: "P", 0x2: "F", 0x1000: "O", 0x1002: "FO", 0x3000: "OE",
                 0x200: "W", 0x80: "D", 1 << 15: "K", 1 << 18: "N", (1 << 19) - 1:
                 "PFSRMBUDAWCIOELKXTN", 1 << 20 | 1: "P?20"}
        for mask, letters in cases.items():
            with self.subTest(mask=hex(mask)):
                self.assertEqual(classify.decode_taint(mask), letters)

    def test_unknown(self):
        self.assertIsNone(classify.decode_taint(None))
        self.assertIsNone(classify.decode_taint((1 << 64) - 1))


class TestSplats(unittest.TestCase):
    def test_denylist(self):
        yes = ["[    1.4] BUG: kernel NULL pointer dereference, address: 0000000000000008",
               "Oops: 0002 [#1] PREEMPT SMP NOPTI",
               "[    1.5] kernel BUG at kernel/module/main.c:99!",
               "[    1.6] WARNING: CPU: 0 PID: 1 at lib/foo.c:1 f+0x1/0x2",
               "BUG: KASAN: slab-out-of-bounds in f+0x1/0x2",
               "[    1.7] Kernel panic - not syncing: Fatal exception",
               "general protection fault, probably for non-canonical address 0xdead",
               "UBSAN: shift-out-of-bounds in lib/x.c:3:4"]
        no = ["[    0.06] RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable",
              "[    1.40] CPU: 0 PID: 45 Comm: modvlab-load Tainted: G           O       6.1.192",
              "x86/bugs: nothing", "mod_asm_user: loading out-of-tree module taints kernel.",
              "[    0.00] Kernel command line: console=ttyS0 panic=-1 oops=panic loglevel=7", ""]
        for line in yes:
            with self.subTest(line=line):
                self.assertTrue(classify.is_splat(line))
        for line in no:
            with self.subTest(line=line):
                self.assertFalse(classify.is_splat(line))


if __name__ == "__main__":
    unittest.main()
