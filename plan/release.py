# SPDX-License-Identifier: GPL-2.0
"""Plan the release and the generations of one arm, from the data in
workload/ (cases.tsv, cross-arm.tsv, probe-cases.tsv, gens/gens.tsv,
gens/policies.tsv; read by core/tables.py and core/generations.py).

Boots: "G0" runs workload/cases.tsv (kind release, or cross for a module
built against another arm) and the probe users (kind release) on the release;
each generation Gn loads the probe users built for G0 (kind update) and
those rebuilt for Gn (kind rebuilt). On an arm whose distributor sets a
string (workload/arms.tsv: release or abi), one boot per distinct string
the policies give Gn (Gn unbumped, Gn-<first policy that bumps>); the
other policies with that string are its cases' shared_by, and the report
gives them the same outcome, marked as reused.
"""
import os
import subprocess

import plan as P
from core import generations, tables

RELEASE = tables.RELEASE


def imports(ko):
    """The symbols a module imports: its undefined symbols (a build fact)."""
    out = subprocess.run(["nm", "-u", ko], capture_output=True, text=True, check=True).stdout
    return {l.split()[-1] for l in out.splitlines() if l.strip()}


def abi_string(arm):
    """The arm's CONFIG_MODULE_ABI_VERSION ("" when it has none)."""
    with open(os.path.join(P.ARMS, arm, "obj", ".config")) as f:
        for line in f:
            if line.startswith("CONFIG_MODULE_ABI_VERSION="):
                return line.split("=", 1)[1].strip().strip('"')
    return ""


def mods(by, module):
    return os.path.join(P.ARMS, by, "mods", module + ".ko")


def add_release(p, arm):
    """Boot G0: the cases of workload/cases.tsv, then the probe users."""
    p.boot(RELEASE, RELEASE, None)
    cross = tables.cross_arm()
    for c in tables.cases():
        by = arm if c["built_by"] == "self" else c["built_by"]
        if c["built_by"] == arm:
            continue    # the same as the arm's own case
        rec = dict(c, built_by=by, built_for=RELEASE,
                   kind="release" if by == arm else "cross")
        if (by, arm) in cross:
            rec["expected"], rec["expected_why"] = cross[(by, arm)]
        p.add(RELEASE, rec, mods(by, c["module"]), [mods(by, d) for d in c["deps"]])
    for pc in tables.probes():
        p.add(RELEASE, dict(pc, case=RELEASE.lower() + "-" + pc["case"], kind="release",
                            probe=pc["case"], built_by=arm, built_for=RELEASE, flags="-",
                            deps=[], expected="compatible"),
              mods(arm, pc["module"]))


def add_generations(p, arm, wanted):
    """One boot per generation (and policy): the probe users built for G0, then rebuilt."""
    gens = generations.select_gens(generations.gens(), wanted)
    abi = abi_string(arm)
    # a variant (ARM-kasan) or an arm not in arms.tsv: no string policies
    kind = tables.arm_string(arm) if arm in tables.arm_names() else "-"
    probes = tables.probes()
    for g in gens:
        for k in generations.gen_kernels(g, abi, kind=kind):
            p.boot(k["boot"], k["kid"], k["policy"], gen=g["gen"])
            for pc in probes:
                base = dict(pc, built_by=arm, flags="-", deps=[], gen_note=g["note"],
                            probe=pc["case"], shared_by=k["shared_by"])
                ko = mods(arm, pc["module"])
                imp = imports(ko) if os.path.isfile(ko) else set()
                name = f"{g['gen'].lower()}-{pc['case']}"
                rec = dict(base, case=name, kind="update", built_for=RELEASE,
                           expected="incompatible" if generations.breaks_old_module(g, imp)
                           else "compatible")
                if "layout" in g["breaks"]:
                    rec["expected_why"] = (f"{g['gen']} changes the layout of what the loader "
                                           "reads from every module (gens.tsv: breaks layout)")
                p.add(k["boot"], rec, ko)
                ko = os.path.join(P.ARMS, arm, "kernels", k["kid"], "mods",
                                  pc["module"] + ".ko")
                imp = imports(ko) if os.path.isfile(ko) else set()
                rec = dict(base, case=name + "-rebuilt", kind="rebuilt", built_for=g["gen"],
                           expected="incompatible" if imp & set(g["removes"])
                           else "compatible")
                if "rebuilt" in g["breaks"] and imp & set(g["changes"]):
                    # a semantic change without a header change: even a module
                    # rebuilt from unchanged source misbehaves if it uses it
                    rec.update(expected="incompatible", declared_broken=True,
                               expected_why=f"{g['gen']} breaks modules rebuilt from unchanged "
                                            "source that use what it changes (gens.tsv: "
                                            "breaks rebuilt)")
                p.add(k["boot"], rec, ko)


def add_boots(p, arm, wanted=()):
    add_release(p, arm)
    add_generations(p, arm, wanted)
