#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Plan one arm's boots: which kernel each boot runs and which module loads
it attempts, from the data in workload/ (cases.tsv, probe-cases.tsv,
gens/gens.tsv). Writes build/arms/ARM/plan.json (read by compare/) and, per
boot, boot/BOOT.plan (read by the guest loader) and boot/BOOT.files (the
modules the initramfs carries).

Boots: "G0" runs workload/cases.tsv and the probe users on the release; each
generation Gn (per policy, for an arm with an ABI string: Gn-lax, Gn-diligent)
loads the probe users built for G0 and those rebuilt for Gn.

usage: plan.py ARM        env: GENS="G1 G2" (default: all generations)
"""
import json
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.environ.get("B", os.path.join(TOP, "build"))
ARMS = os.path.join(B, "arms")
CASE_FIELDS = ["case", "module", "built_by", "flags", "deps", "expected", "note"]
PROBE_FIELDS = ["case", "module", "note"]
GEN_FIELDS = ["gen", "patch", "changes", "removes", "note"]


def read_tsv(path, fields):
    rows = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != len(fields):
                sys.exit(f"plan: {path}:{lineno}: want {len(fields)} tab-separated columns, got {len(cols)}")
            rows.append(dict(zip(fields, cols)))
    return rows


def symbols(value):
    return set() if value == "-" else set(value.split(","))


def read_cases():
    cases = read_tsv(os.path.join(TOP, "workload", "cases.tsv"), CASE_FIELDS)
    for c in cases:
        if c["expected"] not in ("compatible", "incompatible"):
            sys.exit(f"plan: cases.tsv: {c['case']}: expected must be compatible|incompatible")
        c["deps"] = [] if c["deps"] == "-" else c["deps"].split(",")
    names = [c["case"] for c in cases]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        sys.exit(f"plan: cases.tsv: duplicate case names: {', '.join(dup)}")
    return cases


def cross_arm():
    """(built_by, arm) -> (expected, why) from workload/cross-arm.tsv."""
    rows = read_tsv(os.path.join(TOP, "workload", "cross-arm.tsv"),
                    ["built_by", "arm", "expected", "why"])
    return {(r["built_by"], r["arm"]): (r["expected"], r["why"]) for r in rows}


def imports(ko):
    """The symbols a module imports: its undefined symbols (a build fact)."""
    out = subprocess.run(["nm", "-u", ko], capture_output=True, text=True, check=True).stdout
    return {l.split()[-1] for l in out.splitlines() if l.strip()}


def abi_string(arm):
    with open(os.path.join(ARMS, arm, "obj", ".config")) as f:
        for line in f:
            if line.startswith("CONFIG_MODULE_ABI_VERSION="):
                return line.split("=", 1)[1].strip().strip('"')
    return ""


class Planner:
    def __init__(self, arm):
        self.arm = arm
        self.boots = {}
        self.cases = []
        self.not_run = []

    def boot(self, boot, kid, policy, timeout=None):
        kernel = os.path.join(ARMS, self.arm, "kernels", kid, "bzImage")
        self.boots[boot] = {"kernel": kernel, "kid": kid, "policy": policy,
                            "timeout": timeout, "plan": [], "files": {}}

    def add(self, boot, rec, ko, deps=(), repeat=1):
        """One attempt in a boot: ko (+deps) are host paths."""
        b = self.boots[boot]
        rec = dict(rec, boot=boot, arm=self.arm, policy=b["policy"],
                   loaded_into=boot.split("-")[0])
        missing = [p for p in (ko, *deps) if not os.path.isfile(p)]
        if missing or not os.path.isfile(b["kernel"]):
            what = missing[0] if missing else b["kernel"]
            self.not_run.append(dict(rec, reason=f"not built: {os.path.relpath(what, B)}"))
            return
        guest = lambda p: "/m/" + os.path.relpath(p, ARMS)
        for p in (ko, *deps):
            b["files"][guest(p)] = p
        rec["n"] = len(b["plan"]) + 1
        rec["repeat"] = repeat
        b["plan"].append(f"{rec['case']}|{rec['flags']}|{repeat}|{guest(ko)}|"
                         f"{','.join(guest(d) for d in deps)}")
        self.cases.append(rec)


def plan(arm, gen_filter):
    p = Planner(arm)
    mods = lambda by, m: os.path.join(ARMS, by, "mods", m + ".ko")
    # G0: the foundation cases, then the probe users on the release
    p.boot("G0", "G0", None)
    cross = cross_arm()
    for c in read_cases():
        by = arm if c["built_by"] == "self" else c["built_by"]
        if c["built_by"] == arm:
            continue    # the same as the arm's own case
        rec = dict(c, built_by=by, built_for="G0")
        if (by, arm) in cross:
            rec["expected"], rec["expected_why"] = cross[(by, arm)]
        p.add("G0", rec, mods(by, c["module"]), [mods(by, d) for d in c["deps"]])
    probes = read_tsv(os.path.join(TOP, "workload", "probe-cases.tsv"), PROBE_FIELDS)
    for pc in probes:
        p.add("G0", dict(pc, case="g0-" + pc["case"], built_by=arm, built_for="G0",
                         flags="-", deps=[], expected="compatible"),
              mods(arm, pc["module"]))
    # the generations, per policy
    gens = read_tsv(os.path.join(TOP, "workload", "gens", "gens.tsv"), GEN_FIELDS)
    known = [g["gen"] for g in gens]
    bad = [g for g in gen_filter if g not in known]
    if bad:
        sys.exit(f"plan: GENS: unknown generation(s) {' '.join(bad)} (known: {' '.join(known)})")
    policies = ["lax", "diligent"] if abi_string(arm) else [None]
    for g in gens:
        if gen_filter and g["gen"] not in gen_filter:
            continue
        changes, removes = symbols(g["changes"]), symbols(g["removes"])
        for pol in policies:
            boot = g["gen"] + (f"-{pol}" if pol else "")
            kid = g["gen"] + ("-diligent" if pol == "diligent" and changes else "")
            p.boot(boot, kid, pol)
            for pc in probes:
                base = dict(pc, built_by=arm, flags="-", deps=[], gen_note=g["note"])
                ko = mods(arm, pc["module"])
                imp = imports(ko) if os.path.isfile(ko) else set()
                p.add(boot, dict(base, case=f"{g['gen'].lower()}-{pc['case']}", built_for="G0",
                                 expected="incompatible" if imp & changes else "compatible"), ko)
                ko = os.path.join(ARMS, arm, "kernels", kid, "mods", pc["module"] + ".ko")
                imp = imports(ko) if os.path.isfile(ko) else set()
                p.add(boot, dict(base, case=f"{g['gen'].lower()}-{pc['case']}-rebuilt",
                                 built_for=g["gen"],
                                 expected="incompatible" if imp & removes else "compatible"), ko)
    # more boots from the other planners (robustness corpus, load-cost bench):
    # qemu/plan_<name>.py with add_boots(planner, arm), run when PLANS names it
    for name in os.environ.get("PLANS", "").split():
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        __import__("plan_" + name).add_boots(p, arm)
    return p


def main(argv):
    if len(argv) != 1:
        sys.exit("usage: plan.py ARM")
    arm = argv[0]
    p = plan(arm, os.environ.get("GENS", "").split())
    adir = os.path.join(ARMS, arm)
    os.makedirs(os.path.join(adir, "boot"), exist_ok=True)
    for boot, b in p.boots.items():
        with open(os.path.join(adir, "boot", boot + ".plan"), "w") as f:
            f.write(f"# modvlab plan: arm {arm}, boot {boot}\n")
            f.writelines(l + "\n" for l in b["plan"])
        with open(os.path.join(adir, "boot", boot + ".files"), "w") as f:
            f.writelines(f"{g}\t{h}\n" for g, h in sorted(b["files"].items()))
    boots = {k: {"kernel": v["kernel"], "kid": v["kid"], "policy": v["policy"],
                 "timeout": v["timeout"], "cases": len(v["plan"])}
             for k, v in p.boots.items()}
    with open(os.path.join(adir, "plan.json"), "w") as f:
        json.dump({"arm": arm, "boots": boots, "cases": p.cases, "not_run": p.not_run}, f, indent=1)
        f.write("\n")
    # the boots to run, one per line, for lab/run.sh
    for boot, b in p.boots.items():
        if b["plan"]:
            print(boot, b["kernel"], b["timeout"] or "-")


if __name__ == "__main__":
    main(sys.argv[1:])
