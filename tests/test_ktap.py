# SPDX-License-Identifier: GPL-2.0
"""Tests of core.ktap, the console-log parser, on the fixture logs in tests/cases/<name>/log.

Fixtures: clean.log (the loader's output alone), noisy.log (the same with
printk lines around every line, CRLF endings), panic.log (Oops + panic in case
2 of 4, no end line), timeout.log (stops in case 2 of 3, no splat), empty.log,
garbage.log (random bytes and KTAP-like words), outcomes.log (one case per
outcome the classifier knows).
"""
import pathlib
import unittest

from core import ktap

# one folder a console log: tests/cases/<name>/log (and its expected parse)
CASES = pathlib.Path(__file__).parent / "cases"


def parse(name, boot_status=None):
    return ktap.parse(ktap.read_log(CASES / name.removesuffix(".log") / "log"), boot_status=boot_status)


def summary(run):
    """(n, name, token, errno, taint, ns) of every result, in order."""
    return [(r.n, r.name, r.token, r.errno, r.taint, r.ns) for r in run.results]


CLEAN = [
    (1, "asm-user", "loaded", "0", 0, 123456),
    (2, "consumer-same", "refused", "EINVAL", 0, 4567),
    (3, "from-nomodv", "refused", "EINVAL", 0, 999),
]


class TestClean(unittest.TestCase):
    def test_results(self):
        run = parse("clean.log")
        self.assertIs(run.status, ktap.Status.OK)
        self.assertEqual(run.status.value, "complete")
        self.assertEqual(run.planned, 3)
        self.assertEqual(summary(run), CLEAN)
        self.assertEqual(run.problems, [])
        self.assertEqual(run.splats, [])

    def test_banner_and_end(self):
        run = parse("clean.log")
        self.assertEqual(run.info["release"], "6.1.192")
        self.assertEqual(run.info["version"],
                         "#1 SMP PREEMPT_DYNAMIC Sun Jan  5 12:00:00 UTC 2025")
        self.assertEqual(run.info["taint"], "0x0")
        self.assertEqual(run.end.n, 14)
        self.assertEqual(run.end_info, {"cases": "3", "taint": "0x0"})

    def test_attempts_carry_header_and_dmesg(self):
        run = parse("clean.log")
        att = run.attempts[2]
        self.assertEqual(att.header.n, 7)
        self.assertEqual(att.fields, {"module": "/m/base/main/mod-consumer.ko",
                                      "flags": "-", "deps": "1"})
        self.assertEqual([d.text for d in att.dmesg], [
            "mod_consumer: no symbol version for modvlab_prov_asm_add",
            "mod_consumer: Unknown symbol modvlab_prov_asm_add (err -22)"])
        self.assertEqual([d.n for d in att.dmesg], [8, 9])
        res = att.result
        self.assertFalse(res.ok)
        self.assertEqual((res.taint_before, res.repeat, res.unload), (0, 1, "0"))


class TestNoisy(unittest.TestCase):
    def test_same_results_as_clean(self):
        run = parse("noisy.log")
        self.assertIs(run.status, ktap.Status.OK)
        self.assertEqual(summary(run), CLEAN)
        self.assertEqual(run.problems, [])

    def test_carriage_returns_are_gone(self):
        lines = ktap.read_log(CASES / "noisy" / "log")
        self.assertIn(b"\r\n", (CASES / "noisy" / "log").read_bytes())
        self.assertFalse(any("\r" in ln.text for ln in lines))

    def test_stamped_lines_are_noise(self):
        run = parse("noisy.log")
        # "[    0.612000] ok 9 not-a-result-it-is-stamped # loaded" is printk text
        self.assertNotIn(9, run.attempts)
        # "RETBleed: WARNING: Spectre v2 ..." is a boot notice, not a splat
        self.assertEqual(run.splats, [])
        # the printk copies of the dmesg lines are not dmesg lines of the case
        self.assertEqual(len(run.attempts[2].dmesg), 2)

    def test_printk_inside_a_result_line(self):
        # seen in make history: a printk spliced into result 12 of a boot
        log = ("KTAP version 1\n1..2\n"
               "# case a: module=/m/a.ko flags=- deps=0\n"
               "not ok 1 a # refused errno=ENOEXEC taint=0x0\n"
               "# case poly1305: module=/m/p.ko flags=- deps=1\n"
               "not ok 2 poly130[    2.895493] dummy: disagrees about version of symbol module_layout\n"
               "5 # setup-failed errno=ENOEXEC taint=0x0\n"
               "# modvlab: end cases=2 taint=0x0\n")
        run = ktap.parse(ktap.read_lines(log))
        self.assertIs(run.status, ktap.Status.OK)
        self.assertEqual([(r.n, r.name, r.token, r.errno) for r in run.results],
                         [(1, "a", "refused", "ENOEXEC"), (2, "poly1305", "setup-failed", "ENOEXEC")])

    def test_stamp_in_a_whole_line_is_left_alone(self):
        # a complete guest line followed by a guest line: nothing to join
        log = ("KTAP version 1\n1..1\n# case a: module=/m/a.ko flags=- deps=0\n"
               "# dmesg a: [    1.0] text\nok 1 a # loaded errno=0 taint=0x0\n"
               "# modvlab: end cases=1 taint=0x0\n")
        run = ktap.parse(ktap.read_lines(log))
        self.assertIs(run.status, ktap.Status.OK)
        self.assertEqual(run.attempts[1].dmesg[0].text, "[    1.0] text")

    def test_console_lines_are_kept_per_attempt(self):
        run = parse("noisy.log")
        texts = [c.text for c in run.attempts[2].console]
        self.assertTrue(texts and all(t.startswith("[") or not t.strip() for t in texts))


class TestBroken(unittest.TestCase):
    def test_panic_is_crashed(self):
        run = parse("panic.log")
        self.assertIs(run.status, ktap.Status.CRASHED)
        self.assertEqual(run.planned, 4)
        self.assertEqual([r.n for r in run.results], [1])
        att = run.attempts[2]
        self.assertEqual(att.name, "g3-visible-user")
        self.assertIsNone(att.result)
        self.assertTrue(att.started)
        self.assertNotIn(3, run.attempts)
        self.assertEqual(run.splats[0].n, 10)
        self.assertEqual(run.splats[0].text,
                         "BUG: kernel NULL pointer dereference, address: 0000000000000008")
        self.assertEqual([s.text.split()[0] for s in run.splats], ["BUG:", "Oops:", "Kernel"])
        self.assertIn("1/4 results, no end line", run.detail)

    def test_panic_wins_over_timeout(self):
        self.assertIs(parse("panic.log", "timeout").status, ktap.Status.CRASHED)

    def test_empty(self):
        run = parse("empty.log")
        self.assertIs(run.status, ktap.Status.NO_RESULTS)
        self.assertIs(run.status, ktap.Status.NO_TESTS)
        self.assertEqual(run.status.value, "no-results")
        self.assertIsNone(run.planned)
        self.assertEqual(run.attempts, {})

    def test_garbage(self):
        run = parse("garbage.log")
        self.assertIs(run.status, ktap.Status.NO_RESULTS)
        self.assertIsNone(run.header)
        self.assertIsNone(run.planned)
        self.assertIsNone(run.end)
        self.assertEqual(run.attempts, {})

    def test_timeout_needs_the_runner(self):
        self.assertIs(parse("timeout.log").status, ktap.Status.TRUNCATED)
        run = parse("timeout.log", "timeout")
        self.assertIs(run.status, ktap.Status.TIMEOUT)
        self.assertEqual([r.n for r in run.results], [1])
        self.assertEqual(run.attempts[2].name, "g4-opaque-user")


def parse_text(text, boot_status=None):
    return ktap.parse(ktap.read_lines(text), boot_status)


HEAD = "KTAP version 1\n1..2\n"
R1 = "ok 1 a # loaded errno=0 taint=0x0 taint_before=0x0 ns=5 repeat=1 unload=0\n"
R2 = "not ok 2 b # refused errno=EPERM taint=0x0 taint_before=0x0 ns=6 repeat=1 unload=0\n"
END = "# modvlab: end cases=2 taint=0x0\n"


class TestEdges(unittest.TestCase):
    def test_minimal_complete(self):
        run = parse_text(HEAD + R1 + R2 + END)
        self.assertIs(run.status, ktap.Status.OK)
        self.assertEqual([(r.n, r.name, r.errno) for r in run.results],
                         [(1, "a", "0"), (2, "b", "EPERM")])

    def test_all_results_but_no_end_is_not_a_pass(self):
        self.assertIs(parse_text(HEAD + R1 + R2).status, ktap.Status.TRUNCATED)

    def test_end_with_missing_results_is_truncated(self):
        run = parse_text(HEAD + R1 + "# modvlab: end cases=1 taint=0x0\n")
        self.assertIs(run.status, ktap.Status.TRUNCATED)

    def test_duplicate_result_is_parse_failure(self):
        run = parse_text(HEAD + R1 + R1 + R2 + END)
        self.assertIs(run.status, ktap.Status.PARSE_FAILURE)
        self.assertIn("duplicate result 1", run.problems[0])

    def test_result_outside_plan_is_parse_failure(self):
        run = parse_text(HEAD + R1 + R2 + R2.replace(" 2 b ", " 3 c ") + END)
        self.assertIs(run.status, ktap.Status.PARSE_FAILURE)
        self.assertIn("outside the plan", run.problems[0])

    def test_no_plan_line_is_parse_failure(self):
        run = parse_text("KTAP version 1\n" + R1 + END)
        self.assertIs(run.status, ktap.Status.PARSE_FAILURE)

    def test_crlf_and_stray_cr(self):
        run = parse_text((HEAD + R1 + R2 + END).replace("\n", "\r\r\n").encode())
        self.assertIs(run.status, ktap.Status.OK)
        self.assertEqual(run.results[1].unload, "0")

    def test_plan_error_line_has_no_header(self):
        run = parse_text(HEAD + "not ok 1 ? # plan-error malformed plan line\n" + R2 + END)
        self.assertIs(run.status, ktap.Status.OK)
        res = run.attempts[1].result
        self.assertEqual((res.token, res.text, res.errno), ("plan-error", "malformed plan line", "0"))
        self.assertIsNone(run.attempts[1].header)

    def test_header_numbering_follows_results(self):
        text = (HEAD + "not ok 1 x # plan-error malformed plan line\n"
                "# case b: module=/m/b.ko flags=- deps=0\n# dmesg b: hello\n" + R2 + END)
        run = parse_text(text)
        self.assertEqual(run.attempts[2].header.n, 4)
        self.assertEqual([d.text for d in run.attempts[2].dmesg], ["hello"])

    def test_splat_in_dmesg_is_collected(self):
        text = HEAD + "# case a: module=/m/a.ko\n# dmesg a: BUG: unable to handle page fault\n" + R1
        run = parse_text(text)
        self.assertEqual([s.n for s in run.splats], [4])
        self.assertIs(run.status, ktap.Status.CRASHED)

    def test_indented_and_unknown_lines(self):
        text = ("noise before\n  KTAP version 1\n1..1\nrandom # words\n"
                "  " + R1 + "# modvlab: end cases=1 taint=0x0\n")
        run = parse_text(text)
        self.assertIs(run.status, ktap.Status.OK)
        self.assertEqual(run.results[0].ns, 5)

    def test_guest_notes_explain_no_results(self):
        run = parse_text("# modvlab: guest up\n"
                         "# modvlab: cannot open plan /plan: No such file or directory\n")
        self.assertIs(run.status, ktap.Status.NO_RESULTS)
        self.assertIn("line 2: cannot open plan /plan", run.detail)
        self.assertEqual(run.info, {})

    def test_banner_among_notes(self):
        run = parse_text("# modvlab: guest up\nKTAP version 1\n"
                         "# modvlab: release=6.1.192+ version=#1 SMP PREEMPT Thu Jan  1 "
                         "00:00:00 UTC 2026 taint=0x0\n# modvlab: later note\n")
        self.assertEqual(run.info["release"], "6.1.192+")
        self.assertEqual(run.info["version"], "#1 SMP PREEMPT Thu Jan  1 00:00:00 UTC 2026")
        self.assertEqual([n.text for n in run.notes], ["guest up", "later note"])

    def test_unparsable_numbers_are_none(self):
        run = parse_text("KTAP version 1\n1..1\nok 1 a # loaded taint=zz ns=?\n")
        self.assertIsNone(run.results[0].taint)
        self.assertIsNone(run.results[0].ns)


if __name__ == "__main__":
    unittest.main()
