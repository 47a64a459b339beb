# SPDX-License-Identifier: GPL-2.0
"""Planner of the load-cost benchmark (PLANS=bench): one boot "bench" on the
arm's release kernel (G0) that, for each N, loads the generated provider of N
exports, then loads and unloads the consumer importing all N `repeat` times;
the guest loader reports the median finit_module time as ns= (measured in the
guest, clock_gettime around the syscall).

The modules are workload/bench/build.sh's, in build/arms/ARM/mods/bench/N/.
Standalone (lab/bench.sh): `python3 -m plan.bench ARM` plans only this boot, writing
boot/bench.plan, bench.files and bench.plan.json (its case records) without
touching the arm's plan.json, and prints "bench KERNEL TIMEOUT".

Env: BENCH_NS      the Ns (default "16 256 1024 4096")
     BENCH_REPEAT  repeats per load: one number for all N, or N:R pairs
                   ("16:31 4096:9"); default REPEAT below
     BENCH_QUICK=1 3 repeats each (make test's sanity run)
     BENCH_UNSORTED the Ns also loaded with __versions unsorted (default:
                   the largest; "" for none)
     BENCH_TIMEOUT seconds for the boot (default 600)
"""
import json
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
import plan as P
from core import tables

NS = [16, 256, 1024, 4096]
# Enough for a stable median under TCG; base's quadratic lookup makes one
# N=4096 load take ~0.6 s there (TCG), so fewer of those.
REPEAT = {16: 51, 256: 51, 1024: 21, 4096: 11}
QUICK_REPEAT = 3
TIMEOUT = tables.TIMEOUTS["long"]


def ns():
    v = os.environ.get("BENCH_NS", "").split()
    return [int(n) for n in v] if v else NS


def unsorted_ns():
    """The Ns also loaded with __versions unsorted: the largest (BENCH_UNSORTED)."""
    v = os.environ.get("BENCH_UNSORTED")
    if v is not None:
        return [int(n) for n in v.split() if int(n) in ns()]
    return [max(ns())]


def repeats():
    if os.environ.get("BENCH_QUICK") == "1":
        return {n: QUICK_REPEAT for n in ns()}
    rep = {n: REPEAT.get(n, 15) for n in ns()}
    v = os.environ.get("BENCH_REPEAT", "").split()
    for word in v:
        n, sep, r = word.partition(":")
        if sep:
            rep[int(n)] = int(r)
        else:
            rep = {k: int(n) for k in rep}
    return rep


def module(arm, n, what):
    return os.path.join(P.ARMS, arm, "mods", "bench", str(n), f"bench_{what}_{n}.ko")


def add_boots(planner, arm):
    timeout = int(os.environ.get("BENCH_TIMEOUT", TIMEOUT))
    planner.boot("bench", "G0", None, timeout=timeout, loaded_into="bench")
    rep = repeats()
    # largest N first: the first, longest case lets the guest settle (late
    # boot work such as the switch to the TSC clocksource) before the small
    # Ns, whose differences are the finest, are timed. After the largest,
    # the same-kernel A/B: that consumer with its __versions unsorted (keep's
    # loader falls back to the linear scan); it has no "imports" field, so
    # the report keys it by case name, apart from the per-N series.
    unsorted = unsorted_ns()
    for n in sorted(ns(), reverse=True):
        prov, cons = module(arm, n, "provider"), module(arm, n, "consumer")
        rec = {"case": f"load-{n}", "kind": "bench", "module": f"bench/{n}/bench_consumer_{n}",
               "built_by": arm, "built_for": "G0", "flags": "-",
               "deps": [f"bench/{n}/bench_provider_{n}"], "expected": "compatible",
               "note": f"load cost: a consumer importing {n} symbols, "
                       f"median of {rep[n]} loads",
               "imports": n}
        planner.add("bench", rec, cons, [prov], repeat=rep[n])
        cons = os.path.join(os.path.dirname(cons), "unsorted", os.path.basename(cons))
        if n not in unsorted or not os.path.isfile(cons):
            continue    # not asked for, or no __versions in this arm to unsort
        rec = dict(rec, case=f"load-{n}-unsorted",
                   module=f"bench/{n}/unsorted/bench_consumer_{n}",
                   note=f"load cost: the {n}-import consumer with __versions reversed "
                        f"(unsorted), median of {rep[n]} loads",
                   imports_unsorted=n)
        del rec["imports"]
        planner.add("bench", rec, cons, [prov], repeat=rep[n])


def main(argv):
    if len(argv) != 1:
        sys.exit("usage: python3 -m plan.bench ARM")
    arm = argv[0]
    p = P.Planner(arm)
    add_boots(p, arm)
    b = p.boots["bench"]
    if p.not_run:
        sys.exit(f"plan.bench: {arm}: {p.not_run[0]['reason']} (workload/bench/build.sh {arm})")
    d = os.path.join(P.ARMS, arm, "boot")
    p.write_boot("bench", os.path.dirname(d))
    with open(os.path.join(d, "bench.plan.json"), "w") as f:
        json.dump({"arm": arm, "boot": "bench", "kernel": b["kernel"],
                   "timeout": b["timeout"], "cases": p.cases}, f, indent=1)
        f.write("\n")
    print("bench", b["kernel"], b["timeout"])


if __name__ == "__main__":
    main(sys.argv[1:])
