# SPDX-License-Identifier: GPL-2.0
"""The report's model: build/report/report.json's dict from the loaded records
(compare/load.py): cases, verdicts per arm and policy, generations, costs.
The sections (compare/sections/) add their own keys; compare/report.py
writes it.
"""
import pathlib

from core import classify, runfiles, tables

from .load import InputError, arm_cases, arm_names, arm_record, load_json, read_gens


# The generation every module of the foundation cases is built for and every
# generation's update is measured against (plan/release.py's boot "G0").
RELEASE = tables.RELEASE


# The declaration a run was planned with: the copy the planner saved beside
# it (build/tables/, plan/__main__.py), so re-rendering an old run does not
# read today's table; a run without one reads the live table. Tests may set
# GENS_TSV to read another file.
GENS_TSV = None


def gens_file(build):
    if GENS_TSV is not None:
        return GENS_TSV
    saved = build / "tables" / "gens.tsv"
    return saved if saved.is_file() else pathlib.Path(tables.gens_tsv())


# The report's part for each kind of case (plan/__init__.py lists the kinds).
SECTION_OF_KIND = {"release": "release", "cross": "release", "update": "update",
                   "rebuilt": "rebuilt"}


GENERATION_KINDS = ("update", "rebuilt")


def label(arm, policy):
    """The verdict key of an arm and policy: "base", "remove/lax"."""
    return arm if policy is None else f"{arm}/{policy}"


def section_of(c, gens=None):
    """Which part of the report a case belongs to: update, rebuilt, release or
    other (robust, bench, ...), from the kind the planner wrote."""
    return SECTION_OF_KIND.get(c.get("kind"), "other")


def collect(build, only=None):
    """The report.json dict for a build directory (only: these arms)."""
    build = pathlib.Path(build)
    arms_dir = build / "arms"
    names = arm_names(arms_dir)
    if only:
        missing = [a for a in only if a not in names]
        if missing:
            raise InputError(f"no {arms_dir}/{missing[0]}/plan.json (arm {missing[0]} did not run)")
        names = [a for a in names if a in only]
    if not names:
        raise InputError(f"nothing to report: no {arms_dir}/<arm>/plan.json")
    prov = load_json(build / "provenance.json") or {}
    if not isinstance(prov, dict):
        raise InputError(f"{build / 'provenance.json'}: not a JSON object")
    report = {"provenance": dict(prov), "arms": {}, "cases": [], "verdicts": {},
              "robustness": {}, "costs": {}}
    bench = load_json(build / "report" / "bench.json")
    for arm in names:
        adir = arms_dir / arm
        plan = load_json(adir / "plan.json")
        resumes = load_json(adir / runfiles.RESUMES) or []
        if isinstance(plan, dict) and isinstance(plan.get("cases"), list) \
                and isinstance(plan.get("boots"), dict):
            runfiles.apply_resumes(plan, resumes)
        if not isinstance(plan, dict):
            raise InputError(f"{adir / 'plan.json'}: not a JSON object")
        arec = arm_record(adir)
        report["arms"][arm] = arec
        cases = arm_cases(arm, adir, plan, arec)
        arec["cases"] = len(cases)
        report["cases"] += cases
    for c in report["cases"]:
        if c.get("kind") == "robust":
            continue        # judged against robust.tsv, in "robustness"
        v = report["verdicts"].setdefault(label(c["arm"], c["policy"]),
                                          dict.fromkeys(classify.VERDICT_KEYS, 0))
        v[c["verdict"]] = v.get(c["verdict"], 0) + 1
    # "robustness" is filled by its section (compare/sections/robustness.py)
    report["costs"] = costs(report["cases"])
    if isinstance(bench, dict):
        report["costs"]["bench"] = bench
        # the contract's costs.load_ns: this run's bench boot, else make bench's
        if not report["costs"].get("load_ns") and bench.get("load_ns"):
            report["costs"]["load_ns"] = bench["load_ns"]
            report["costs"]["load_ns_from"] = "make bench (build/report/bench.json)"
    report["generations"] = generations(report["cases"], read_gens(gens_file(build)))
    accels = sorted({b["accel"] for a in report["arms"].values()
                     for b in a["boots"].values() if b.get("accel")})
    if accels and "accel" not in prov:
        report["provenance"]["accel"] = ",".join(accels)
    return report


def gen_key(gen):
    """Sort key of a generation name: "G2" < "G10"; unknown shapes after, by name."""
    g = str(gen)
    digits = g.lstrip("Gg")
    return (0, int(digits), g) if digits.isdigit() else (1, 0, g)


def generations(cases, declared):
    """The generations the plans booted, with what each changed and where it ran.

    note: the plans' gen_note (what was run), else the declaration's;
    changes/removes/breaks: from the declaration, null when it does not list the generation.
    """
    gens = {}
    for c in cases:
        if c.get("kind") not in GENERATION_KINDS:
            continue
        g = c.get("gen")
        rec = gens.setdefault(g, {"note": None, "changes": None, "removes": None,
                                  "breaks": None, "patch": None, "labels": []})
        if rec["note"] is None and c.get("gen_note"):
            rec["note"] = c["gen_note"]
        lab = label(c["arm"], c["policy"])
        if lab not in rec["labels"]:
            rec["labels"].append(lab)
    for g in declared:           # declared, but no plan booted it
        gens.setdefault(g, {"note": None, "changes": None, "removes": None,
                            "breaks": None, "patch": None, "labels": []})
    for g, rec in gens.items():
        d = declared.get(g) or {}
        for k in ("changes", "removes", "breaks", "patch"):
            rec[k] = d.get(k)
        if rec["note"] is None:
            rec["note"] = d.get("note")
    return {g: gens[g] for g in sorted(gens, key=gen_key)}


def costs(cases):
    """load_ns per arm label from repeated loads: key = the plan's "imports", else the case."""
    load = {}
    for c in cases:
        if (c.get("repeat") or 0) > 1 and c["outcome"] == "loaded" and c["ns"] is not None:
            key = str(c["imports"]) if c.get("imports") is not None else c["case"]
            load.setdefault(label(c["arm"], c["policy"]), {})[key] = c["ns"]
    return {"load_ns": load} if load else {}
