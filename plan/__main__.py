# SPDX-License-Identifier: GPL-2.0
"""Plan one arm's boots: the release and generations (plan/release.py), then
the planners PLANS names (plan/<name>.py's add_boots(planner, arm)). Writes
build/arms/ARM/plan.json (read by compare/), boot/BOOT.plan and BOOT.files;
prints "BOOT KERNEL TIMEOUT" per boot to run, for lab/run.sh.

usage: python3 -m plan ARM     env: GENS="G1 G2" (default: all), PLANS="robust bench"
"""
import contextlib
import importlib
import json
import os
import shutil
import sys

import plan as P
from core import runfiles, tables
from plan import release


def plan(arm, gens=(), plans=()):
    p = P.Planner(arm)
    release.add_boots(p, arm, gens)
    for name in plans:
        try:
            mod = importlib.import_module(f"plan.{name}")
        except ModuleNotFoundError:
            sys.exit(f"plan: PLANS: no planner plan/{name}.py")
        mod.add_boots(p, arm)
    return p


def save_tables(out):
    """The tables this run was planned with, for the report of it (compare/
    model.py reads build/tables/gens.tsv, not today's)."""
    os.makedirs(out, exist_ok=True)
    for src in (tables.gens_tsv(), tables.policies_tsv(), tables.ARMS_TSV, tables.CASES_TSV,
                tables.PROBES_TSV, tables.CROSS_TSV, tables.ROBUST_TSV):
        shutil.copyfile(src, os.path.join(out, os.path.basename(src)))
    with open(os.path.join(out, "base-arch.json"), "w") as f:
        json.dump({"base": tables.base(), "arch": tables.arch()}, f, indent=1)
        f.write("\n")


def main(argv):
    if len(argv) != 1:
        sys.exit("usage: python3 -m plan ARM")
    arm = argv[0]
    try:
        p = plan(arm, os.environ.get("GENS", "").split(), os.environ.get("PLANS", "").split())
    except tables.TableError as e:
        sys.exit(f"plan: {e}")
    adir = os.path.join(P.ARMS, arm)
    for boot in p.boots:
        p.write_boot(boot, adir)
    boots = {k: {"kernel": v["kernel"], "kid": v["kid"], "policy": v["policy"],
                 "timeout": v["timeout"], "cases": len(v["plan"])}
             for k, v in p.boots.items()}
    with open(os.path.join(adir, "plan.json"), "w") as f:
        json.dump({"arm": arm, "boots": boots, "cases": p.cases, "not_run": p.not_run}, f,
                  indent=1)
        f.write("\n")
    # a new plan: the resumes of the last one (qemu/resume.py's) are void
    with contextlib.suppress(FileNotFoundError):
        os.remove(os.path.join(adir, runfiles.RESUMES))
    save_tables(os.path.join(P.B, "tables"))
    for boot, b in p.boots.items():
        if b["plan"]:
            print(boot, b["kernel"], b["timeout"] or "-")


if __name__ == "__main__":
    main(sys.argv[1:])
