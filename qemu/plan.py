#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn workload/cases.tsv into one arm's boot plan: the guest's plan file,
the module files for the initramfs, and plan.json for the report.

usage: plan.py ARM BOOT    (writes build/arms/ARM/plan.json and boot/BOOT.*)
"""
import json
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.environ.get("B", os.path.join(TOP, "build"))
FIELDS = ["case", "module", "built_by", "flags", "deps", "expected", "note"]


def read_cases(path):
    cases = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != len(FIELDS):
                sys.exit(f"plan: {path}:{lineno}: want {len(FIELDS)} tab-separated columns, got {len(cols)}")
            c = dict(zip(FIELDS, cols))
            if c["expected"] not in ("compatible", "incompatible"):
                sys.exit(f"plan: {path}:{lineno}: expected must be compatible|incompatible")
            c["deps"] = [] if c["deps"] == "-" else c["deps"].split(",")
            cases.append(c)
    names = [c["case"] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit(f"plan: {path}: duplicate case names: {', '.join(sorted(dup))}")
    return cases


def ko_host(arm, module):
    return os.path.join(B, "arms", arm, "mods", module + ".ko")


def ko_guest(arm, module):
    return f"/m/{arm}/{module}.ko"


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: plan.py ARM BOOT")
    arm, boot = argv
    cases = read_cases(os.path.join(TOP, "workload", "cases.tsv"))
    adir = os.path.join(B, "arms", arm)
    os.makedirs(os.path.join(adir, "boot"), exist_ok=True)
    run, not_run, files = [], [], {}
    for c in cases:
        by = arm if c["built_by"] == "self" else c["built_by"]
        rec = dict(c, built_by=by, built_for="G0", loaded_into=boot, boot=boot,
                   policy=None)
        if c["built_by"] == arm:
            continue    # the same as the arm's own case
        mods = [c["module"]] + c["deps"]
        missing = [m for m in mods if not os.path.isfile(ko_host(by, m))]
        if missing:
            not_run.append(dict(rec, reason=f"arm {by} not built ({missing[0]}.ko missing)"))
            continue
        for m in mods:
            files[ko_guest(by, m)] = ko_host(by, m)
        rec["n"] = len(run) + 1
        run.append(rec)
    with open(os.path.join(adir, "boot", boot + ".plan"), "w") as f:
        f.write(f"# modvlab plan: arm {arm}, boot {boot}\n")
        for c in run:
            deps = ",".join(ko_guest(c["built_by"], d) for d in c["deps"])
            f.write(f"{c['case']}|{c['flags']}|1|{ko_guest(c['built_by'], c['module'])}|{deps}\n")
    with open(os.path.join(adir, "boot", boot + ".files"), "w") as f:
        for g, h in sorted(files.items()):
            f.write(f"{g}\t{h}\n")
    with open(os.path.join(adir, "plan.json"), "w") as f:
        json.dump({"arm": arm, "cases": run, "not_run": not_run}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
