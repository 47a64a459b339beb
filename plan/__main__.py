# SPDX-License-Identifier: GPL-2.0
"""Plan one arm's boots: the release and generations (plan/release.py), then
the planners PLANS names (plan/<name>.py's add_boots(planner, arm)). Writes
build/arms/ARM/plan.json (read by compare/), boot/BOOT.plan and BOOT.files;
prints "BOOT KERNEL TIMEOUT" per boot to run, for lab/run.sh.

usage: python3 -m plan ARM     env: GENS="G1 G2" (default: all), PLANS="robust bench"
"""
import importlib
import json
import os
import sys

import plan as P
from core import tables
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
    for boot, b in p.boots.items():
        if b["plan"]:
            print(boot, b["kernel"], b["timeout"] or "-")


if __name__ == "__main__":
    main(sys.argv[1:])
