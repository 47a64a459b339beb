# SPDX-License-Identifier: GPL-2.0
"""Build build/report/report.json, report.md and report.html from the arms' plans, boot logs and build facts.

Inputs (written by lab/): build/arms/<arm>/plan.json, boot/<boot>.log and
boot/<boot>.json, build.json, build-clean.json, sizes.json; build/provenance.json;
and the generations' declaration, workload/gens/gens.tsv, next to this package.
Only what the inputs say is reported; a fact that is missing is null (and "–"
in report.md and report.html).
"""
import json
import os
import pathlib

from . import classify, doc, ktap, plot, robust
from .sections import fuzzing as _fuzzing  # HOOK (issue 16)
fuzzing_blocks = _fuzzing.blocks

ARM_ORDER = ["nomodv", "base", "keep", "remove"]
SIZE_KEYS = ["bzimage_bytes", "exports", "unversioned_exports", "kcrctab_bytes"]
VMLINUX_KEYS = ["text", "data", "bss"]
SERIES_KEYS = ["patches", "files", "added", "removed"]
# The generation every module of the foundation cases is built for and every
# generation's update is measured against (qemu/plan.py's boot "G0").
RELEASE = "G0"
# Modules whose sizes are summed as "the workload" in the code-size table.
WORKLOAD_SET = "main/"
GENS_TSV = pathlib.Path(__file__).resolve().parent.parent / "workload" / "gens" / "gens.tsv"
# Plan fields copied into each case record, in this order (others follow).
PLAN_FIELDS = ["case", "n", "boot", "built_for", "loaded_into", "built_by", "module",
               "flags", "deps", "expected", "note"]


class InputError(Exception):
    """An input exists but cannot be used, or there is nothing to report."""


def load_json(path):
    """The parsed JSON file, None if it does not exist; InputError if unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: {e}") from None


def arm_names(arms_dir):
    """Arms that have a plan.json, in report order: nomodv, base, keep, remove, the rest sorted."""
    try:
        names = [p.name for p in arms_dir.iterdir() if (p / "plan.json").is_file()]
    except FileNotFoundError:
        return []
    except OSError as e:
        raise InputError(f"{arms_dir}: {e}") from None
    known = [a for a in ARM_ORDER if a in names]
    return known + sorted(set(names) - set(known))


def label(arm, policy):
    """The verdict key of an arm and policy: "base", "remove/lax"."""
    return arm if policy is None else f"{arm}/{policy}"


# --- arms -------------------------------------------------------------------

def arm_record(adir):
    """Build facts and sizes of one arm; every missing fact is null."""
    build = load_json(adir / "build.json")
    clean = load_json(adir / "build-clean.json")
    raw_sizes = load_json(adir / "sizes.json")
    sizes = raw_sizes or {}
    if not isinstance(sizes, dict):
        raise InputError(f"{adir / 'sizes.json'}: not a JSON object")
    for name, rec in (("build.json", build), ("build-clean.json", clean)):
        if rec is not None and not isinstance(rec, dict):
            raise InputError(f"{adir / name}: not a JSON object")
    latest = build or clean           # did the arm build: the last build says
    costed = clean or build           # what it costs: the clean build says
    rec = {
        "built": None if latest is None else latest.get("rc") == 0,
        "build_cpu_s": None if costed is None else costed.get("cpu_s"),
        "build": None if costed is None else
        {k: v for k, v in costed.items() if k != "cmd"} | {"clean": clean is not None},
    }
    vml = sizes.get("vmlinux") if isinstance(sizes.get("vmlinux"), dict) else {}
    rec["vmlinux"] = {k: vml.get(k) for k in VMLINUX_KEYS} | vml
    for k in SIZE_KEYS:
        rec[k] = sizes.get(k)
    ser = sizes.get("series") if isinstance(sizes.get("series"), dict) else {}
    rec["series"] = {k: ser.get(k) for k in SERIES_KEYS} | ser
    rec["modules"] = sizes.get("modules") or {}
    rec["workload"] = workload_sizes(rec["modules"]) if rec["modules"] else None
    for k, v in sizes.items():
        rec.setdefault(k, v)
    rec["sizes"] = raw_sizes
    rec["boots"] = {}
    return rec


def workload_sizes(modules):
    """Sum of .ko and __versions bytes over the workload's main/ modules."""
    mine = {m: v for m, v in modules.items()
            if m.startswith(WORKLOAD_SET) and isinstance(v, dict)}
    if not mine:
        return None

    def total(key):
        vals = [v.get(key) for v in mine.values()]
        return None if any(not isinstance(x, int) for x in vals) else sum(vals)
    return {"set": WORKLOAD_SET.rstrip("/"), "modules": len(mine),
            "ko_bytes": total("ko_bytes"), "versions_bytes": total("versions_bytes")}


def read_boot(adir, boot):
    """(runner record, ktap.Run, None) of one boot, or (record, None, what is missing)."""
    jpath, lpath = adir / "boot" / f"{boot}.json", adir / "boot" / f"{boot}.log"
    meta = load_json(jpath)
    if meta is not None and not isinstance(meta, dict):
        raise InputError(f"{jpath}: not a JSON object")
    missing = [p.name for p in (lpath, jpath) if not p.is_file()]
    if missing:
        return meta, None, " and ".join(f"boot/{m}" for m in missing)
    try:
        lines = ktap.read_log(lpath)
    except OSError as e:
        raise InputError(f"{lpath}: {e}") from None
    return meta, ktap.parse(lines, boot_status=meta.get("status")), None


def boot_record(meta, run, logname, missing):
    meta = meta or {}
    rec = {k: meta.get(k) for k in ("status", "rc", "wall_s", "accel")} | meta
    rec["log"] = logname
    if run is None:
        rec.update(run=None, detail=f"never ran: no {missing}", planned=None, results=0)
    else:
        rec.update(run=run.status.value, detail=run.detail, planned=run.planned,
                   results=len(run.results), release=run.info.get("release"),
                   problems=run.problems)
    return rec


# --- cases ------------------------------------------------------------------

def base_record(arm, c):
    rec = {"arm": arm, "policy": c.get("policy")}
    for k in PLAN_FIELDS:
        rec[k] = c.get(k)
    rec.update(outcome=None, verdict=None, reason=None, reached=False, log=None,
               errno=None, taint=None,
               taint_new=None, taint_mask=None, ns=None, repeat=None, unload=None)
    for k, v in c.items():
        rec.setdefault(k, v)
    return rec


def find_attempt(run, c):
    """The log's attempt for a planned case: by number, else by name."""
    n = c.get("n")
    if isinstance(n, int) and n in run.attempts:
        return run.attempts[n]
    if n is None:
        return next((a for a in run.attempts.values() if a.name == c.get("case")), None)
    return None


def case_record(arm, c, run, missing, logname):
    """One report.json case: plan fields + outcome, verdict and evidence."""
    rec = base_record(arm, c)
    if run is None:
        rec["outcome"] = "not-run"
        rec["reason"] = f"boot {rec['boot']} never ran: no {missing}"
        rec["verdict"] = classify.verdict("not-run", rec["expected"])
        return rec
    att = find_attempt(run, c)
    if att is not None and att.name != c.get("case"):
        rec["outcome"] = "plan-error"
        rec["reason"] = f"case {att.n} of the log is {att.name}, the plan says {c.get('case')}"
        rec["log"] = f"{logname}:{(att.header or att.result.line).n}"
        rec["verdict"] = classify.verdict("plan-error", rec["expected"])
        return rec
    outcome, reason, where, reached = classify.judge(run, att)
    rec.update(outcome=outcome, reason=reason, reached=reached,
               verdict=classify.verdict(outcome, rec["expected"], reached))
    if where:
        rec["log"] = f"{logname}:{where}"
    if att is not None and att.result is not None:
        res = att.result
        before = res.taint_before or 0
        rec.update(errno=res.errno, taint=classify.decode_taint(res.taint),
                   taint_new=classify.decode_taint(None if res.taint is None
                                                   else res.taint & ~before),
                   taint_mask=res.kv.get("taint"), ns=res.ns, repeat=res.repeat,
                   unload=res.unload)
    return rec


def not_run_record(arm, c):
    rec = base_record(arm, c)
    rec["outcome"] = "not-run"
    rec["reason"] = c.get("reason") or "not run"
    rec["verdict"] = classify.verdict("not-run", rec["expected"])
    return rec


def arm_cases(arm, adir, plan, arec):
    """Case records of one arm, in plan order; fills arec["boots"]."""
    cases = plan.get("cases") or []
    if not isinstance(cases, list) or not all(isinstance(c, dict) for c in cases):
        raise InputError(f"{adir / 'plan.json'}: 'cases' is not a list of objects")
    not_run = plan.get("not_run") or []
    if not isinstance(not_run, list) or not all(isinstance(c, dict) for c in not_run):
        raise InputError(f"{adir / 'plan.json'}: 'not_run' is not a list of objects")
    runs = {}
    out = []
    for c in cases:
        c = dict(c)
        if c.get("policy") is None:
            c["policy"] = plan.get("policy")
        boot = c.get("boot") or c.get("loaded_into")
        c["boot"] = boot
        if boot is None:
            rec = base_record(arm, c)
            rec.update(outcome="plan-error", reason="the plan names no boot for this case",
                       verdict="no-verdict")
            out.append(rec)
            continue
        logname = f"arms/{arm}/boot/{boot}.log"
        if boot not in runs:
            meta, run, missing = read_boot(adir, boot)
            runs[boot] = run, missing
            arec["boots"][boot] = boot_record(meta, run, logname, missing)
        out.append(case_record(arm, c, *runs[boot], logname=logname))
    for c in not_run:
        c = dict(c)
        if c.get("policy") is None:
            c["policy"] = plan.get("policy")
        if c.get("boot") is None:
            c["boot"] = c.get("loaded_into")
        out.append(not_run_record(arm, c))
    planned = plan.get("boots") or {}
    if not isinstance(planned, dict):
        raise InputError(f"{adir / 'plan.json'}: 'boots' is not an object")
    boots = {}
    for boot, b in planned.items():   # the plan's order, its facts under "plan"
        rec = arec["boots"].get(boot) or {
            "status": None, "rc": None, "wall_s": None, "accel": None,
            "log": f"arms/{arm}/boot/{boot}.log", "run": None,
            "detail": "nothing planned in it", "planned": 0, "results": 0}
        rec["plan"] = b if isinstance(b, dict) else None
        boots[boot] = rec
    arec["boots"] = boots | {k: v for k, v in arec["boots"].items() if k not in boots}
    return out


# --- the whole report -------------------------------------------------------

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
    report["robustness"] = robust.robustness(report["cases"])
    # arms (or their sanitizer builds) this run gave no corpus: the last make
    # robust's results, if they are of the series the arm is built from now
    rob, date, stale = robust.load_saved(str(build))
    extra = {a: r for a, r in rob.items()
             if a not in report["robustness"] and a.partition("-")[0] in names}
    if extra:
        report["robustness"].update(extra)
        report["robustness_source"] = {"run": "make robust", "date": date,
                                       "arms": list(extra), "stale_arms_left_out": stale}
    # HOOK (issue 16, until the house layout lands): the fuzzing section module
    fz = _fuzzing.load(build, report)
    if fz is not None:
        report[_fuzzing.KEY] = fz
    report["costs"] = costs(report["cases"])
    if isinstance(bench, dict):
        report["costs"]["bench"] = bench
        # the contract's costs.load_ns: this run's bench boot, else make bench's
        if not report["costs"].get("load_ns") and bench.get("load_ns"):
            report["costs"]["load_ns"] = bench["load_ns"]
            report["costs"]["load_ns_from"] = "make bench (build/report/bench.json)"
    report["generations"] = generations(report["cases"], read_gens(GENS_TSV))
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


def read_gens(path):
    """The generations' declaration (workload/gens/gens.tsv), {} if it is not there."""
    try:
        text = pathlib.Path(path).read_text(encoding="utf-8")
    except OSError:
        return {}
    gens = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 5:
            continue
        gen, patch, changes, removes, note = cols
        syms = lambda v: [] if v == "-" else v.split(",")
        gens[gen] = {"patch": patch, "changes": syms(changes), "removes": syms(removes),
                     "note": note}
    return gens


def generations(cases, declared):
    """The generations the plans booted, with what each changed and where it ran.

    note: the plans' gen_note (what was run), else the declaration's;
    changes/removes: from the declaration, null when it does not list the generation.
    """
    gens = {}
    for c in cases:
        g = c.get("loaded_into")
        if not is_generation_case(c, declared):
            continue
        rec = gens.setdefault(g, {"note": None, "changes": None, "removes": None,
                                  "patch": None, "labels": []})
        if rec["note"] is None and c.get("gen_note"):
            rec["note"] = c["gen_note"]
        lab = label(c["arm"], c["policy"])
        if lab not in rec["labels"]:
            rec["labels"].append(lab)
    for g in declared:           # declared, but no plan booted it
        gens.setdefault(g, {"note": None, "changes": None, "removes": None,
                            "patch": None, "labels": []})
    for g, rec in gens.items():
        d = declared.get(g) or {}
        for k in ("changes", "removes", "patch"):
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


# --- rendering: one document, two formats ----------------------------------

# Provenance shown on the report's first line (all of it is in report.json).
PROV_KEYS = ["tree", "config_sha256", "accel", "gcc", "binutils", "qemu", "modvlab_commit",
             "date"]

MARKS = {"correct-load": "✓", "correct-refusal": "✓", "needless-refusal": "✗ NEEDLESS",
         "unsafe-load": "✗ UNSAFE", "lab-error": "✗ LAB-ERROR", "no-verdict": "· no verdict"}
# A cell holding several cases is coloured by its worst verdict.
SEVERITY = ["unsafe-load", "lab-error", "needless-refusal", "no-verdict", "correct-refusal",
            "correct-load"]
LEGEND = ("✓ right; ✗ UNSAFE = an incompatible module got in; ✗ NEEDLESS = a compatible "
          "module was kept out; ✗ LAB-ERROR = the lab misbehaved (a compatible module failed "
          "its self-test or crashed the kernel); · no verdict = not run, timed out, setup "
          "failed; – = no such case in that column. The kernel's reason for each cell is in "
          "Reasons (and the cell's tooltip in report.html).")
NONE = "–"
C = doc.Code


def _num(v, digits=None):
    if v is None or isinstance(v, bool):
        return NONE
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float) and digits is not None:
        return f"{v:,.{digits}f}"
    return str(v)


def _delta(v, base, is_base=False):
    """"1,000 (+10)": a value and its difference to base's (none on base's own row)."""
    s = _num(v)
    if is_base or not isinstance(v, (int, float)) or not isinstance(base, (int, float)) \
            or isinstance(v, bool) or isinstance(base, bool):
        return s
    d = v - base
    if d == 0:
        return s + " (±0)"
    return s + (f" ({d:+,})" if isinstance(d, int) else f" ({d:+,.1f})")


def _n(n, what):
    """"1 case", "2 cases"."""
    return f"{n} {what}" + ("" if n == 1 else "s")


def _flow(c):
    return f"{c.get('built_for') or '?'} → {c.get('loaded_into') or '?'}"


def _labels(cases):
    out = []
    for c in cases:
        lab = label(c["arm"], c["policy"])
        if lab not in out:
            out.append(lab)
    return out


def _columns(report):
    return _labels(report["cases"])


def is_generation_case(c, declared=()):
    """A case loaded into a kernel generation (not the release, not e.g. the bench boot)."""
    into = c.get("loaded_into")
    return bool(into) and into != RELEASE and ("gen_note" in c or into in declared)


def section_of(c, gens=()):
    """Which part of the report a case belongs to: update, rebuilt, release or other.

    gens: the generations (report["generations"]).
    """
    into, built = c.get("loaded_into"), c.get("built_for")
    if is_generation_case(c, gens):
        if built == RELEASE:
            return "update"   # the distributor's update, the old out-of-tree module
        if built == into:
            return "rebuilt"  # the module rebuilt for that generation (sanity)
        return "other"
    if not into or into == RELEASE:
        return "release"
    return "other"            # e.g. the load-cost bench boot


def probe_name(c):
    """The probe user of a generation case: "g2-probe-c" -> "probe-c"."""
    name, into = c["case"], str(c.get("loaded_into") or "")
    prefix = into.lower() + "-"
    if into and name.startswith(prefix):
        name = name[len(prefix):]
    return name[:-len("-rebuilt")] if name.endswith("-rebuilt") else name


def _worst(verdicts):
    return min(verdicts, key=lambda v: SEVERITY.index(v) if v in SEVERITY else len(SEVERITY))


def outcome_cell(cs, show_expected=False):
    """The cell of one or more cases: outcome + mark; coloured by verdict, reason as tooltip."""
    if not cs:
        return doc.Cell([NONE], cls="none")
    lines = []
    for c in cs:
        line = [C(c["outcome"]), " " + MARKS.get(c["verdict"], str(c["verdict"]))]
        if show_expected:
            line.append(f" ({c['expected'] or '?'})")
        lines.append(line)
    title = " | ".join(f"{c['case']}: {c['reason']}" if len(cs) > 1 else str(c["reason"])
                       for c in cs if c.get("reason")) or None
    return doc.Cell(lines, cls=_worst([c["verdict"] for c in cs]), title=title)


def _matrix(rows, cols, lead_head, align):
    """rows: [(lead cells, {label: [cases]}, expected set)] -> a doc.Table."""
    body = []
    for lead, cells, expected in rows:
        varies = len(expected) > 1
        body.append(lead + [outcome_cell(cells.get(col, []), show_expected=varies)
                            for col in cols])
    return doc.Table(lead_head + cols, body, align=align, cls="matrix")


def _expected_text(expected):
    return "varies" if len(expected) > 1 else (next(iter(expected)) or "?")


def _names(cs):
    out = []
    for i, c in enumerate(cs):
        out += ([", "] if i else []) + [C(c["case"])]
    return out


def provenance_line(report):
    prov = report["provenance"]
    items = []
    keys = [k for k in PROV_KEYS if k in prov] or list(prov)
    for k in keys:
        v = prov[k]
        if isinstance(v, (str, int, float)) and not isinstance(v, bool):
            v = str(v)
            items += [f"{k} ", C(v[:12] + "…" if k.endswith("sha256") else v), ", "]
    items.append(f"{len(report['arms'])} arms, {len(report['cases'])} cases.")
    return doc.P(["Provenance: "] + items)


def verdict_blocks(report):
    cases, out = report["cases"], [doc.H(2, "Verdicts")]
    labels = list(report["verdicts"])
    out.append(doc.P("Per arm, and per distributor policy where the arm has one, over every "
                     "case it ran: a correct load or refusal is right; a needless refusal "
                     "kept a compatible module out; an unsafe load let an incompatible one in."))
    rows = []
    for lab in labels:
        v = report["verdicts"][lab]
        row = [doc.Cell([doc.Bold(lab)])]
        for k in classify.VERDICT_KEYS:
            n = v.get(k, 0)
            bad = k in ("unsafe-load", "needless-refusal", "lab-error") and n
            row.append(doc.Cell([str(n)], cls=k if bad else None))
        rows.append(row + [str(sum(v.values()))])
    out.append(doc.Table(["arm/policy", "correct loads", "correct refusals", "needless refusals",
                          "unsafe loads", "lab errors", "no verdict", "cases"], rows,
                         align="lrrrrrrr", cls="verdicts"))
    items = []
    for lab in labels:
        mine = [c for c in cases if label(c["arm"], c["policy"]) == lab]
        parts = []
        for verdict, what in (("unsafe-load", "UNSAFE (let in): "),
                              ("needless-refusal", "NEEDLESS (kept out): "),
                              ("lab-error", "lab errors: ")):
            hit = [c for c in mine if c["verdict"] == verdict]
            if hit:
                parts += (["; "] if parts else []) + [what] + _names(hit)
        items.append([doc.Bold(lab), ": "]
                     + (parts or ["no unsafe loads, no needless refusals"]))
    if items:
        out.append(doc.UL(items))
    return out


def update_blocks(report):
    gens = report.get("generations") or {}
    cases = [c for c in report["cases"] if section_of(c, gens) == "update"]
    out = [doc.H(2, f"Kernel updates: does the module built for {RELEASE} still load, "
                    "and should it?")]
    out.append(doc.P(f"A distributor ships generation Gn; the out-of-tree module built for "
                     f"{RELEASE} stays. One row per generation and probe user (the copy built "
                     f"for {RELEASE}); \"expected\" follows from what the generation declares "
                     "it changed, never from an outcome. " + LEGEND))
    if not cases:
        out.append(doc.P("No generation boots in these arms."))
    else:
        cols = _labels(cases)
        groups = {}
        for c in cases:
            key = (c.get("loaded_into"), probe_name(c))
            row = groups.setdefault(key, {"cells": {}, "expected": set()})
            row["cells"].setdefault(label(c["arm"], c["policy"]), []).append(c)
            row["expected"].add(c["expected"])
        order = sorted(groups, key=lambda k: gen_key(k[0]))   # stable: probe order kept
        rows, seen = [], set()
        for gen, probe in order:
            g = groups[(gen, probe)]
            if gen in seen:
                what = [""]
            else:
                seen.add(gen)
                note = (gens.get(gen) or {}).get("note") or next(
                    (c.get("gen_note") for cs in g["cells"].values() for c in cs
                     if c.get("gen_note")), None)
                what = [note or NONE]
                changed = (gens.get(gen) or {}).get("changes")
                if changed:
                    what += [" (changes "] + _names([{"case": s} for s in changed]) + [")"]
            rows.append(([doc.Bold(gen), doc.Cell([what]), C(probe),
                          _expected_text(g["expected"])], g["cells"], g["expected"]))
        out.append(_matrix(rows, cols, ["generation", "what it changed", "probe user",
                                        "expected"], "llll"))
    arms_with = {c["arm"] for c in cases}
    without = [a for a in report["arms"] if a not in arms_with]
    notes = []
    if cases and without:
        notes.append("No generation boots: " + ", ".join(without) + ".")
    idle = [g for g, rec in gens.items() if not rec.get("labels")]
    if idle:
        notes.append("Declared but booted by no arm: " + ", ".join(idle) + ".")
    if notes:
        out.append(doc.P(" ".join(notes)))
    return out


def release_blocks(report, which="release"):
    gens = report.get("generations") or {}
    cases = [c for c in report["cases"] if section_of(c, gens) == which]
    if which == "release":
        out = [doc.H(2, f"Module cases on the release ({RELEASE})")]
        if not cases:
            return out + [doc.P("No cases.")]
        out.append(doc.P("The foundation cases (workload/cases.tsv) and the probe users, "
                         "loaded into each arm's release kernel; a from-<arm> case loads a "
                         "module built against another arm."))
    else:
        if not cases:
            return []
        boots = sorted({str(c.get("loaded_into")) for c in cases})
        out = [doc.H(2, "Other cases"),
               doc.P("Cases of other boots (" + ", ".join(boots) + "), e.g. the load-cost "
                     "bench.")]
    cols = _labels(cases)
    flows = any(_flow(c) != f"{RELEASE} → {RELEASE}" for c in cases)
    groups = {}
    for c in cases:
        row = groups.setdefault(c["case"], {"first": c, "cells": {}, "expected": set()})
        row["cells"].setdefault(label(c["arm"], c["policy"]), []).append(c)
        row["expected"].add(c["expected"])
    rows = []
    for name, g in groups.items():
        lead = [C(name), _expected_text(g["expected"])]
        if flows:
            lead.append(_flow(g["first"]))
        rows.append((lead, g["cells"], g["expected"]))
    head = ["case", "expected"] + (["built → loaded"] if flows else [])
    out.append(_matrix(rows, cols, head, "l" * len(head)))
    notes = [[C(name), ": ", g["first"].get("note")] for name, g in groups.items()
             if g["first"].get("note")]
    if notes:
        out.append(doc.Details("What each case shows", [doc.UL(notes)]))
    return out


def sanity_blocks(report):
    cases = [c for c in report["cases"]
             if section_of(c, report.get("generations") or {}) == "rebuilt"]
    out = [doc.H(2, "Sanity: modules rebuilt for each generation")]
    if not cases:
        return out + [doc.P("No rebuilt modules in these arms.")]
    out.append(doc.P("The probe users rebuilt against each generation and loaded into it; "
                     "each should do what the generation's declaration expects."))
    items, bad = [], []
    for lab in _labels(cases):
        mine = [c for c in cases if label(c["arm"], c["policy"]) == lab]
        ok = [c for c in mine if c["verdict"] in classify.CORRECT]
        wrong = [c for c in mine if c["verdict"] not in classify.CORRECT]
        bad += wrong
        items.append([doc.Bold(lab), f": {len(ok)} of {len(mine)} rebuilt loads as expected"
                      + (f"; {_n(len(wrong), 'exception')} below." if wrong else ".")])
    out.append(doc.UL(items))
    if bad:
        rows = [[label(c["arm"], c["policy"]), C(c["case"]), _flow(c), c["expected"] or "?",
                 doc.Cell([[C(c["outcome"]), " " + MARKS.get(c["verdict"], str(c["verdict"]))]],
                          cls=c["verdict"]),
                 C(c["reason"]) if c.get("reason") else NONE] for c in bad]
        out.append(doc.Table(["arm/policy", "case", "built → loaded", "expected", "outcome",
                              "reason"], rows, cls="matrix"))
    return out


def size_blocks(report):
    arms = report["arms"]
    base = arms.get("base")
    out = [doc.H(2, "Code size vs base")]
    b = base or {}
    bv, bw, bs = b.get("vmlinux") or {}, b.get("workload") or {}, b.get("series") or {}
    rows = []
    for arm, a in arms.items():
        is_base = arm == "base"
        v, w, s = a.get("vmlinux") or {}, a.get("workload") or {}, a.get("series") or {}
        built = {True: "yes", False: "FAILED", None: NONE}[a.get("built")]
        rows.append([doc.Bold(arm), built]
                    + [_delta(v.get(k), bv.get(k), is_base) for k in VMLINUX_KEYS]
                    + [_delta(a.get(k), b.get(k), is_base)
                       for k in ("bzimage_bytes", "exports", "unversioned_exports",
                                 "kcrctab_bytes")]
                    + [_delta(w.get(k), bw.get(k), is_base) for k in ("ko_bytes", "versions_bytes")]
                    + [_num(s.get("patches")), _num(s.get("files")),
                       NONE if s.get("added") is None else f"+{_num(s['added'])}",
                       NONE if s.get("removed") is None else f"-{_num(s['removed'])}"])
    out.append(doc.Table(["arm", "built", "vmlinux text", "data", "bss", "bzImage",
                          "exports", "unversioned exports", C("__kcrctab"), "workload .ko",
                          ["workload ", C("__versions")], "patches", "files", "added", "removed"],
                         rows, align="llrrrrrrrrrrrrr", cls="sizes"))
    counts = {arm: (a.get("workload") or {}).get("modules") for arm, a in arms.items()}
    known = {n for n in counts.values() if n is not None}
    if len(known) == 1 and None not in counts.values():
        wtext = f"{known.pop()} modules in every arm"
    else:
        wtext = "modules per arm: " + ", ".join(f"{arm} {_num(n)}" for arm, n in counts.items())
    out.append(doc.P(
        "Bytes. " + ("(±n) is the difference to base. " if base else "No base arm: no "
                     "differences. ")
        + f"Workload = the sum over the {WORKLOAD_SET}* modules ({wtext}); series = the "
        "arm's patches against the pristine tree (diffstat: files, lines added, removed); "
        f"{NONE} = not measured."))
    bloat_lines, measured = [], False
    for arm, a in arms.items():
        if arm == "base":
            continue
        bl = a.get("bloat_vs_base")
        if isinstance(bl, dict):
            measured = True
            bloat_lines += [f"{arm}:", f"  {bl.get('summary') or NONE}",
                            f"  {bl.get('total') or NONE}"]
        else:
            bloat_lines += [f"{arm}:", f"  {NONE}"]
    if base and bloat_lines and not measured:
        out.append(doc.P(["The tree's ", C("scripts/bloat-o-meter"), f": {NONE} (not measured "
                          "for any arm)."]))
    elif base and bloat_lines:
        out.append(doc.P(["The tree's ", C("scripts/bloat-o-meter"), ", base's vmlinux → "
                          "the arm's:"]))
        out.append(doc.Pre("\n".join(bloat_lines)))
        tops = [(arm, a["bloat_vs_base"].get("top")) for arm, a in arms.items()
                if isinstance(a.get("bloat_vs_base"), dict) and a["bloat_vs_base"].get("top")]
        if tops:
            out.append(doc.Details("bloat-o-meter: the largest changes per arm",
                                   [doc.Pre("\n".join(f"{arm}:\n" + "\n".join(
                                       f"  {ln}" for ln in top) for arm, top in tops))]))
    mods = sorted({m for a in arms.values() for m in (a.get("modules") or {})})
    if mods:
        rows = []
        for m in mods:
            cells = [C(m)]
            for a in arms.values():
                info = (a.get("modules") or {}).get(m) or {}
                cells.append(f"{_num(info.get('ko_bytes'))} / {_num(info.get('versions_bytes'))}")
            rows.append(cells)
        out.append(doc.Details(["Every module: .ko bytes / ", C("__versions"),
                                " bytes per arm"],
                               [doc.Table(["module"] + list(arms), rows,
                                          align="l" + "r" * len(arms))]))
    return out


AUDIT_KEYS = [("vmlinux_zero_crc", "zero-CRC exports in vmlinux"),
              ("workload_zero_crc", "zero-CRC exports in the workload"),
              ("kernel_missing_crc_msgs", "modpost missing-CRC messages (kernel)"),
              ("workload_missing_crc_msgs", "modpost missing-CRC messages (workload)")]


def _audit_count(audit, key):
    v = audit.get(key)
    if isinstance(v, dict):
        return v.get("count"), list(v.get("names") or [])
    return (v if isinstance(v, int) else None), []


def audit_blocks(report):
    arms = report["arms"]
    out = [doc.H(2, "Modversions completeness audit")]
    audited = {arm: a["audit"] for arm, a in arms.items() if isinstance(a.get("audit"), dict)}
    no_modv = [arm for arm, a in arms.items()
               if isinstance(a.get("sizes"), dict) and "audit" in a["sizes"]
               and a["sizes"]["audit"] is None]
    unknown = [arm for arm in arms if arm not in audited and arm not in no_modv]
    if audited:
        out.append(doc.P(["For the arms built with CONFIG_MODVERSIONS: exports that carry no "
                          "CRC (a zero ", C("__crc_"), " value), and modpost's messages about "
                          "missing CRCs while building the kernel and the workload."]))
        rows = []
        for arm, au in audited.items():
            row = [doc.Bold(arm)]
            for key, _ in AUDIT_KEYS:
                n, names = _audit_count(au, key)
                line = [_num(n)]
                if names:
                    line += [": "] + _names([{"case": x} for x in names])
                    if isinstance(n, int) and n > len(names):
                        line.append(", …")
                row.append(doc.Cell([line], cls="bad" if n else None))
            rows.append(row)
        out.append(doc.Table(["arm"] + [what for _, what in AUDIT_KEYS], rows,
                             align="lrrrr", cls="audit"))
        base = audited.get("base")
        items = []
        for arm, au in audited.items():
            if arm == "base" or base is None:
                continue
            items.append([doc.Bold(arm), " relative to base: "] + audit_diff(base, au))
        if items:
            out.append(doc.UL(items))
    else:
        out.append(doc.P("No arm has audit data."))
    notes = []
    if no_modv:
        notes.append("Not audited (no CONFIG_MODVERSIONS): " + ", ".join(no_modv) + ".")
    if unknown:
        notes.append(f"No audit data ({NONE}): " + ", ".join(unknown) + ".")
    if notes:
        out.append(doc.P(" ".join(notes)))
    return out


def audit_diff(base, other):
    """Inline text: what changed in each audit count from base to another arm."""
    parts = []
    for key, what in AUDIT_KEYS:
        b, bnames = _audit_count(base, key)
        o, onames = _audit_count(other, key)
        if not isinstance(b, int) or not isinstance(o, int):
            continue
        if b == o:
            continue
        part = [f"{what} {b:,} → {o:,}"]
        gone = [n for n in bnames if n not in onames]
        new = [n for n in onames if n not in bnames]
        if gone:
            part += [" (fixed: "] + _names([{"case": x} for x in gone]) + [")"]
        if new:
            part += [" (new: "] + _names([{"case": x} for x in new]) + [")"]
        parts += (["; "] if parts else []) + part
    return parts or ["the same counts as base."]


def cost_blocks(report):
    arms = report["arms"]
    out = [doc.H(2, "Costs")]
    bcpu = (arms.get("base") or {}).get("build_cpu_s")
    rows = []
    for arm, a in arms.items():
        cpu = a.get("build_cpu_s")
        build = a.get("build") or {}
        source = NONE if not build else ("clean build" if build.get("clean") else "last build")
        ratio = (f"{cpu / bcpu:.2f}×" if isinstance(cpu, (int, float))
                 and isinstance(bcpu, (int, float)) and bcpu else NONE)
        walls = [b.get("wall_s") for b in a["boots"].values()
                 if isinstance(b.get("wall_s"), (int, float))]
        ran = sum(1 for b in a["boots"].values() if b.get("run"))
        rows.append([doc.Bold(arm), _num(cpu, 1), source, ratio, f"{ran} of {len(a['boots'])}",
                     _num(round(sum(walls), 2)) if walls else NONE])
    out.append(doc.Table(["arm", "lab build CPU s (ccache on)", "measured on", "× base", "boots run",
                          "boot wall s (sum)"], rows, align="lrlrrr"))
    out += bench_blocks(report["costs"].get("bench"))
    load = report["costs"].get("load_ns") or {}
    if load:
        keys = sorted({k for v in load.values() for k in v},
                      key=lambda k: (not k.isdigit(), int(k) if k.isdigit() else 0, k))
        out += [doc.H(3, "Load cost (median ns per finit_module)"),
                doc.Table(["arm/policy"] + keys,
                          [[lab] + [_num(v.get(k)) for k in keys] for lab, v in load.items()],
                          align="l" + "r" * len(keys))]
    rows = []
    for arm, a in arms.items():
        for boot, b in a["boots"].items():
            plan = b.get("plan") or {}
            rows.append([arm, boot, _num(plan.get("kid")), _num(plan.get("policy")),
                         _num(b.get("status")), _num(b.get("accel")), _num(b.get("wall_s")),
                         b.get("run") or "never ran", b.get("detail") or NONE])
    if rows:
        out.append(doc.Details("Every boot", [doc.Table(
            ["arm", "boot", "kernel", "policy", "runner", "accel", "wall s", "console log",
             "results"], rows, align="llllllrll")]))
    return out


def bench_blocks(bench):
    """make bench's numbers (build/report/bench.json), when it ran."""
    if not bench:
        return [doc.P("make bench has not run: the lab build CPU seconds above come from "
                      "builds with ccache and are not a cost comparison.")]
    out = [doc.H(3, f"Measured by make bench ({bench.get('accel', '–')})")]
    rows = []
    for arm, b in (bench.get("build_cpu_s") or {}).items():
        g = ((bench.get("genksyms_cpu_s") or {}).get(arm) or {})
        gs = sum((g.get(k) or {}).get("median") or 0
                 for k in ("genksyms", "cpp_genksyms", "cpp_asm_exports", "nm_check")) \
            if g.get("applicable") else None
        rows.append([doc.Bold(arm), _num(b.get("median")), _num(b.get("spread")),
                     len(b.get("runs") or []), _num(b.get("mode")),
                     f"{b['ratio_to_base']:.3f}×" if isinstance(b.get("ratio_to_base"), (int, float)) else NONE,
                     _num(round(gs, 1)) if gs else NONE])
    if rows:
        out.append(doc.Table(["arm", "clean build CPU s (median)", "spread", "runs", "mode",
                              "× base", "genksyms + symversions CPU s"], rows, align="lrrrlrr"))
    load = bench.get("load_ns") or {}
    if load:
        keys = sorted({k for v in load.values() for k in v}, key=int)
        ratio = bench.get("load_ratio_to_base") or {}
        out.append(doc.Table(["arm"] + [f"N={k}: ms (× base)" for k in keys],
                             [[doc.Bold(a)] + [
                                 f"{v[k] / 1e6:.1f} ({ratio.get(a, {}).get(k, 0):.2f}×)"
                                 if k in v else NONE for k in keys] for a, v in load.items()],
                             align="l" + "r" * len(keys)))
        try:
            svg = plot.svg_load_vs_imports(load)
        except (ValueError, KeyError, TypeError):
            svg = None
        if svg:
            out.append(doc.Figure(svg, "bench.svg", "finit_module time vs imported symbols"))
    out += target_blocks(bench.get("targets") or {})
    out += lab_time_blocks(bench.get("lab") or {})
    return out


def _target_value(t):
    for k, unit in (("value_s", " s"), ("value_pct", " %"), ("value", "×")):
        if isinstance(t.get(k), (int, float)):
            pre = "≥ " if t.get("bound") == "lower" else ""
            return f"{pre}{t[k]:g}{unit}"
    return NONE


def target_blocks(targets):
    """Issue 7's targets: met or missed, and by how much, from bench.json."""
    rows = []
    for name, t in targets.items():
        if "target" not in t:
            continue
        met = {True: "met", False: "**missed**", None: "not measured"}[t.get("met")]
        rows.append([name.replace("_", " "), _target_value(t), t["target"], met,
                     " ".join(x for x in (t.get("what"), t.get("note")) if x) or NONE])
    if not rows:
        return []
    return [doc.H(3, "Targets"), doc.Table(["what", "measured", "target", "", "how, and why"],
                                           rows, align="lrrll")]


def lab_time_blocks(lab):
    """The lab's own wall times (lab/timed.sh, make bench's warm compare)."""
    names = [("make_compare_cold_s", "make compare, cold (empty build/ and ccache)"),
             ("make_compare_fresh_s", "make compare, fresh clone (warm ccache)"),
             ("make_compare_warm_s", "make compare, warm (nothing changed)"),
             ("make_test_s", "make test (last run)")]
    rows = [[label, f"{lab[k]:.0f}", lab.get(k[:-2] + "_date") or NONE]
            for k, label in names if isinstance(lab.get(k), (int, float))]
    out = [doc.H(3, "The lab itself")]
    if not rows:
        return out + [doc.P("No wall times recorded yet (lab/timed.sh writes "
                            "build/lab-times.tsv on every make compare and make test).")]
    out.append(doc.Table(["run", "wall s", "when"], rows, align="lrl"))
    st = lab.get("make_compare_warm_steps") or lab.get("steps_tsv_all") or {}
    top = st.get("top") or []
    if top:
        out.append(doc.Details("Where the time goes (slowest steps, build/steps.tsv)", [doc.Table(
            ["step", "what", "s"], [[a, b, c] for a, b, c in top[:12]], align="llr")]))
    return out


def robust_blocks(report):
    rob = report.get("robustness") or {}
    out = [doc.H(2, "Robustness")]
    if not rob:
        return out + [doc.P("Not run (PLANS=robust, or make robust).")]
    src = report.get("robustness_source")
    if src:
        out.append(doc.P(f"{', '.join(src['arms'])}: from the last {src['run']} "
                         f"({src.get('date') or '?'}; build/robust.json), not from this run"
                         + (f"; left out, rebuilt since: {', '.join(src['stale_arms_left_out'])}"
                            if src.get("stale_arms_left_out") else "") + "."))
    out.append(doc.P("Bad, forced and unprivileged module files (workload/robust.tsv), each "
                     "followed by a health check (a good module loads and unloads). Declared = "
                     "what the arm's loader code says it does. A kernel bug report is a failure, "
                     "unless the input is declared oops for that arm: then it is a finding, a "
                     "bug of that loader, never a pass."))
    out.append(doc.Table(["arm", "inputs", "as declared", "oops (declared)", "unhealthy",
                          "unexpected"],
                         [[doc.Bold(a), r["inputs"], r["as_declared"],
                           f"{r['oops']} ({r.get('known_oops', 0)})", r["unhealthy"],
                           ", ".join(f"{x['input']} ({x['observed']}, declared {x['declared']})"
                                     for x in r["unexpected"]) or "none"]
                          for a, r in rob.items()], align="lrrrrl"))
    found = [[doc.Bold(a), x["input"], x.get("reason") or NONE, x.get("log") or NONE]
             for a, r in rob.items() for x in r["results"] if x["input"] in r.get("findings", ())]
    if found:
        out.append(doc.P("Findings: the loader crashed, as its code says it would "
                         "(workload/robust.tsv's note has the why):"))
        out.append(doc.Table(["arm", "input", "the kernel's report", "console log"], found,
                             align="llll"))
    return out


def reason_blocks(report):
    cases, out = report["cases"], [doc.H(2, "Reasons")]
    for lab in _columns(report):
        mine = [c for c in cases if label(c["arm"], c["policy"]) == lab]
        items = []
        for c in mine:
            extra = [f"boot {c['boot']}" if c.get("boot") else None,
                     f"errno {c['errno']}" if c.get("errno") not in (None, "0") else None,
                     f"taint +{c['taint_new']}" if c.get("taint_new") else None,
                     c.get("log")]
            extra = ", ".join(e for e in extra if e)
            why = C(c["reason"]) if c.get("reason") else "no kernel message"
            items.append([C(c["case"]), f" {_flow(c)}, {c['expected']}: ", C(c["outcome"]),
                          f" → {c['verdict']}. ", why] + ([f" ({extra})"] if extra else []))
        out.append(doc.Details([doc.Bold(lab), f": the kernel's reason for each of "
                                               f"{_n(len(mine), 'case')}"], [doc.UL(items)]))
    return out


def build_doc(report):
    """The report as doc blocks, in reading order: verdicts first."""
    return ([doc.H(1, "modvlab report"), provenance_line(report)]
            + verdict_blocks(report) + update_blocks(report) + release_blocks(report)
            + sanity_blocks(report) + release_blocks(report, "other") + size_blocks(report) + audit_blocks(report)
            + robust_blocks(report)
            # HOOK (issue 16): the fuzzing section module
            + (fuzzing_blocks(report[_fuzzing.KEY], report) if _fuzzing.KEY in report else [])
            + cost_blocks(report) + reason_blocks(report))


def render_md(report):
    return doc.md(build_doc(report))


def render_html(report):
    tree = report["provenance"].get("tree")
    return doc.html(build_doc(report), "modvlab report" + (f" ({tree})" if tree else ""))


def _write(path, text):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write(build, only=None):
    """Collect and write DIR/report/report.json, report.md and report.html.

    Returns (report, json path, md path, html path)."""
    report = collect(build, only)
    outdir = pathlib.Path(build) / "report"
    md, page = render_md(report), render_html(report)
    try:
        outdir.mkdir(parents=True, exist_ok=True)
        jpath, mpath, hpath = outdir / "report.json", outdir / "report.md", outdir / "report.html"
        _write(jpath, json.dumps(report, indent=1, ensure_ascii=False) + "\n")
        _write(mpath, md)
        _write(hpath, page)
    except OSError as e:
        raise InputError(f"cannot write {outdir}: {e}") from None
    return report, jpath, mpath, hpath
