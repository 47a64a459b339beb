# SPDX-License-Identifier: GPL-2.0
"""core/resume.py: a guest that dies keeps the outcome of the case it was
running, the rest boot again; a guest that starts none ends the run."""
import unittest
from types import SimpleNamespace as NS

from core.resume import boot_until_done


def run(started, done=()):
    """A ktap.Run-like guest: cases STARTED, of which DONE have a result."""
    return NS(status=None, attempts={n: NS(name=n, started=True,
                                           result=NS(kv={}) if n in done else None)
                                     for n in started})


class Resume(unittest.TestCase):
    def go(self, guests, todo, max_resumes=24):
        calls = []

        def boot(name, cases):
            calls.append((name, list(cases)))
            return guests.pop(0) if guests else run([])
        res, n = boot_until_done(todo, boot, lambda c: c, lambda a, r: {
            "outcome": "loaded" if a.result else "crashed"}, "g", {"dmesg": []}, max_resumes)
        return res, n, calls

    def test_a_crash_resumes_after_the_case_it_was_running(self):
        res, n, calls = self.go([run(["a", "b"], done=["a"]), run(["c"], done=["c"])],
                                ["a", "b", "c"])
        self.assertEqual(calls, [("g", ["a", "b", "c"]), ("g.r1", ["c"])])
        self.assertEqual({k: (v["outcome"], v["boot"]) for k, v in res.items()},
                         {"a": ("loaded", "g"), "b": ("crashed", "g"), "c": ("loaded", "g.r1")})
        self.assertEqual(n, 2)

    def test_a_guest_that_starts_nothing_ends_the_run(self):
        res, n, calls = self.go([run([])], ["a", "b"])
        self.assertEqual(len(calls), 1)
        self.assertEqual(res["a"], {"dmesg": [], "outcome": "not-reached", "boot": "g"})

    def test_what_the_last_resume_leaves_is_not_reached(self):
        res, n, calls = self.go([run(["a"]), run(["b"])], ["a", "b", "c"], max_resumes=1)
        self.assertEqual([c[0] for c in calls], ["g", "g.r1"])
        self.assertEqual((res["c"]["outcome"], res["c"]["boot"]), ("not-reached", "-"))


if __name__ == "__main__":
    unittest.main()
