# SPDX-License-Identifier: GPL-2.0
"""An arm's plan as it ran: build/.../arms/ARM/plan.json, written by the
planner alone (python3 -m plan), plus boot/resumes.json, written by
qemu/resume.py alone: one record per boot that did not finish, saying which
of its cases moved into which fresh boot. Every reader applies the resumes
to the plan with read_plan(), so the two writers never share a file.
"""
import json
import os

RESUMES = os.path.join("boot", "resumes.json")


def apply_resumes(plan, resumes):
    """plan with each resume applied in order: the moved cases get their new
    boot, number and resumed_from; the new boot its record (cases, resumes)."""
    for r in resumes:
        moved = {old: new for old, new in r["cases"]}
        for c in plan["cases"]:
            if c["boot"] == r["from"] and c["n"] in moved:
                c.update(boot=r["boot"], n=moved[c["n"]], resumed_from=r["from"])
        plan["boots"][r["boot"]] = dict(plan["boots"][r["from"]], cases=len(moved),
                                        resumes=r["from"])
    return plan


def read_resumes(adir):
    try:
        with open(os.path.join(adir, RESUMES), encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return []


def read_plan(adir):
    """plan.json of arm folder adir with its resumes applied (OSError, ValueError)."""
    with open(os.path.join(adir, "plan.json"), encoding="utf-8") as f:
        plan = json.load(f)
    return apply_resumes(plan, read_resumes(adir))


def add_resume(adir, record):
    """Append one resume record (qemu/resume.py's, the file's only writer)."""
    resumes = read_resumes(adir) + [record]
    path = os.path.join(adir, RESUMES)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(resumes, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
