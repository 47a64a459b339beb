# SPDX-License-Identifier: GPL-2.0
"""Build build/report/report.json and report.md from the arms' plans, boot logs and build facts.

Inputs (written by lab/): build/arms/<arm>/plan.json, boot/<boot>.log and
boot/<boot>.json, build.json, build-clean.json, sizes.json; build/provenance.json.
Only what the inputs say is reported; a fact that is missing is null.
"""
import json
import os
import pathlib

from . import classify, ktap

ARM_ORDER = ["nomodv", "base", "keep", "remove"]
SIZE_KEYS = ["bzimage_bytes", "exports", "unversioned_exports", "kcrctab_bytes"]
VMLINUX_KEYS = ["text", "data", "bss"]
SERIES_KEYS = ["patches", "added", "removed"]
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
    sizes = load_json(adir / "sizes.json") or {}
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
    for k, v in sizes.items():
        rec.setdefault(k, v)
    rec["boots"] = {}
    return rec


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
        out.append(not_run_record(arm, c))
    return out


# --- the whole report -------------------------------------------------------

def collect(build):
    """The report.json dict for a build directory."""
    build = pathlib.Path(build)
    arms_dir = build / "arms"
    names = arm_names(arms_dir)
    if not names:
        raise InputError(f"nothing to report: no {arms_dir}/<arm>/plan.json")
    prov = load_json(build / "provenance.json") or {}
    if not isinstance(prov, dict):
        raise InputError(f"{build / 'provenance.json'}: not a JSON object")
    report = {"provenance": dict(prov), "arms": {}, "cases": [], "verdicts": {},
              "robustness": {}, "costs": {}}
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
        v = report["verdicts"].setdefault(label(c["arm"], c["policy"]),
                                          dict.fromkeys(classify.VERDICT_KEYS, 0))
        v[c["verdict"]] = v.get(c["verdict"], 0) + 1
    report["costs"] = costs(report["cases"])
    accels = sorted({b["accel"] for a in report["arms"].values()
                     for b in a["boots"].values() if b.get("accel")})
    if accels and "accel" not in prov:
        report["provenance"]["accel"] = ",".join(accels)
    return report


def costs(cases):
    """load_ns per arm label from repeated loads: key = the plan's "imports", else the case."""
    load = {}
    for c in cases:
        if (c.get("repeat") or 0) > 1 and c["outcome"] == "loaded" and c["ns"] is not None:
            key = str(c["imports"]) if c.get("imports") is not None else c["case"]
            load.setdefault(label(c["arm"], c["policy"]), {})[key] = c["ns"]
    return {"load_ns": load} if load else {}


# --- Markdown ---------------------------------------------------------------

# Provenance shown on the report's first line (all of it is in report.json).
PROV_KEYS = ["tree", "config_sha256", "accel", "gcc", "qemu", "modvlab_commit", "date"]

MARKS = {"correct-load": "✓", "correct-refusal": "✓", "needless-refusal": "✗ NEEDLESS",
         "unsafe-load": "✗ UNSAFE", "lab-error": "✗ LAB-ERROR", "no-verdict": "· no verdict"}


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _code(text):
    return "`" + str(text).replace("`", "'") + "`"


def _num(v):
    return "–" if v is None else (f"{v:,}" if isinstance(v, int) else str(v))


def _delta(v, base):
    s = _num(v)
    if isinstance(v, (int, float)) and isinstance(base, (int, float)) and v != base:
        d = v - base
        s += f" ({d:+,})" if isinstance(d, int) else f" ({d:+.1f})"
    return s


def _flow(c):
    return f"{c.get('built_for') or '?'} → {c.get('loaded_into') or '?'}"


def _columns(report):
    cols = []
    for c in report["cases"]:
        lab = label(c["arm"], c["policy"])
        if lab not in cols:
            cols.append(lab)
    return cols


def render_md(report):
    prov, cases, cols = report["provenance"], report["cases"], _columns(report)
    out = ["# modvlab report", ""]
    items = []
    keys = [k for k in PROV_KEYS if k in prov] or list(prov)
    for k in keys:
        v = prov[k]
        if isinstance(v, (str, int, float)) and not isinstance(v, bool):
            v = str(v)
            items.append(f"{k} {_code(v[:12] + '…' if k.endswith('sha256') else v)}")
    items.append(f"{len(report['arms'])} arms, {len(cases)} cases")
    out += ["Provenance: " + ", ".join(items) + ".", ""]

    # 1. the matrix
    out += ["## Load outcomes", "",
            "Each cell: what the kernel of that arm did with the module, and whether it was "
            "right: ✓ correct; ✗ UNSAFE = an incompatible module got in; "
            "✗ NEEDLESS = a compatible module was kept out; ✗ LAB-ERROR = the lab "
            "misbehaved (a compatible module failed its self-test or crashed); "
            "· = no verdict (not run, timeout, setup failed).", ""]
    rows = {}
    for c in cases:
        row = rows.setdefault(c["case"], {"first": c, "cells": {}, "expected": set()})
        row["expected"].add(c["expected"])
        mark = MARKS.get(c["verdict"], c["verdict"])
        row["cells"].setdefault(label(c["arm"], c["policy"]), []).append(
            (f"{_code(c['outcome'])} {mark}", c["expected"]))
    out.append("| case | expected | built → loaded | " + " | ".join(cols) + " |")
    out.append("|---|---|---|" + "---|" * len(cols))
    for name, row in rows.items():
        varies = len(row["expected"]) > 1   # then each cell says what it expected
        exp = "varies" if varies else row["expected"].pop()
        cells = [_cell("<br>".join(f"{text} ({e})" if varies else text
                                   for text, e in row["cells"].get(col, [("–", None)])))
                 for col in cols]
        out.append(f"| {_cell(name)} | {exp or '?'} | {_flow(row['first'])} | "
                   + " | ".join(cells) + " |")
    out.append("")

    # 2. verdicts
    out += ["## Verdicts", "",
            "| arm | correct loads | correct refusals | needless refusals | unsafe loads "
            "| lab errors | no verdict | cases |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for lab, v in report["verdicts"].items():
        out.append(f"| {lab} | " + " | ".join(str(v.get(k, 0)) for k in classify.VERDICT_KEYS)
                   + f" | {sum(v.values())} |")
    out.append("")
    wrong = []
    for lab in cols:
        mine = [c for c in cases if label(c["arm"], c["policy"]) == lab]
        for verdict, what in (("unsafe-load", "let in"), ("needless-refusal", "kept out"),
                              ("lab-error", "lab error on")):
            names = [f"{c['case']} ({_flow(c)}, {c['outcome']})"
                     for c in mine if c["verdict"] == verdict]
            if names:
                wrong.append(f"- **{lab}** {what}: " + "; ".join(names))
    out += (wrong or ["No unsafe loads and no needless refusals."]) + [""]

    # 3. reasons
    out += ["## Reasons", ""]
    for lab in cols:
        mine = [c for c in cases if label(c["arm"], c["policy"]) == lab]
        out += [f"<details><summary><b>{lab}</b>: the kernel's reason for each of "
                f"{len(mine)} cases</summary>", ""]
        for c in mine:
            extra = [f"boot {c['boot']}" if c.get("boot") else None,
                     f"errno {c['errno']}" if c.get("errno") not in (None, "0") else None,
                     f"taint +{c['taint_new']}" if c.get("taint_new") else None,
                     c.get("log")]
            extra = ", ".join(e for e in extra if e)
            why = _code(c["reason"]) if c.get("reason") else "no kernel message"
            out.append(f"- {_code(c['case'])} {_flow(c)}, {c['expected']}: "
                       f"{_code(c['outcome'])} → {c['verdict']}. {why}"
                       + (f" ({extra})" if extra else ""))
        out += ["", "</details>", ""]

    # 4. build facts, sizes, boots, costs
    out += ["## Build facts", ""]
    arms = report["arms"]
    base = arms.get("base", {})
    bv = base.get("vmlinux") or {}
    out += ["| arm | built | build CPU s | vmlinux text | data | bss | bzImage bytes "
            "| exports | unversioned exports | __kcrctab bytes | series patches | +/- lines |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for arm, a in arms.items():
        v, s = a.get("vmlinux") or {}, a.get("series") or {}
        built = {True: "yes", False: "FAILED", None: "–"}[a.get("built")]
        churn = ("–" if s.get("added") is None and s.get("removed") is None
                 else f"+{_num(s.get('added'))}/-{_num(s.get('removed'))}")
        out.append(f"| {arm} | {built} | {_num(a.get('build_cpu_s'))} | "
                   + " | ".join(_delta(v.get(k), bv.get(k)) for k in VMLINUX_KEYS) + " | "
                   + " | ".join(_delta(a.get(k), base.get(k)) for k in SIZE_KEYS)
                   + f" | {_num(s.get('patches'))} | {churn} |")
    out += ["", "Sizes in bytes; (±n) is the difference to base; – = not measured.", ""]
    mods = sorted({m for a in arms.values() for m in (a.get("modules") or {})})
    if mods:
        out += ["| module | " + " | ".join(f"{a} .ko / __versions" for a in arms) + " |",
                "|---|" + "---:|" * len(arms)]
        for m in mods:
            cells = []
            for a in arms.values():
                info = (a.get("modules") or {}).get(m) or {}
                cells.append(f"{_num(info.get('ko_bytes'))} / {_num(info.get('versions_bytes'))}")
            out.append(f"| {_cell(m)} | " + " | ".join(cells) + " |")
        out.append("")
    out += ["| arm | boot | runner | accel | wall s | console log | results |",
            "|---|---|---|---|---:|---|---|"]
    for arm, a in arms.items():
        for boot, b in a["boots"].items():
            out.append(f"| {arm} | {boot} | {_num(b.get('status'))} | {_num(b.get('accel'))} "
                       f"| {_num(b.get('wall_s'))} | {b['run'] or 'never ran'} "
                       f"| {_cell(b['detail'])} |")
    out.append("")
    load = report["costs"].get("load_ns") or {}
    if load:
        keys = sorted({k for v in load.values() for k in v},
                      key=lambda k: (not k.isdigit(), int(k) if k.isdigit() else 0, k))
        out += ["## Load cost (median ns per finit_module)", "",
                "| arm | " + " | ".join(keys) + " |", "|---|" + "---:|" * len(keys)]
        for lab, v in load.items():
            out.append(f"| {lab} | " + " | ".join(_num(v.get(k)) for k in keys) + " |")
        out.append("")
    return "\n".join(out)


def _write(path, text):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write(build):
    """Collect and write DIR/report/report.json and report.md; returns their paths."""
    report = collect(build)
    outdir = pathlib.Path(build) / "report"
    try:
        outdir.mkdir(parents=True, exist_ok=True)
        jpath, mpath = outdir / "report.json", outdir / "report.md"
        _write(jpath, json.dumps(report, indent=1, ensure_ascii=False) + "\n")
        _write(mpath, render_md(report) + "\n")
    except OSError as e:
        raise InputError(f"cannot write {outdir}: {e}") from None
    return report, jpath, mpath
