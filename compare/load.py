# SPDX-License-Identifier: GPL-2.0
"""Loading and validation: an arm's plan.json, boot logs and build facts as
report records (compare/model.py puts them together). A fact that is
missing is null; an input that exists but cannot be used is an InputError.
"""
import json
import pathlib

from core import classify, generations, ktap, tables


ARM_ORDER = tables.arm_names()


SIZE_KEYS = ["bzimage_bytes", "exports", "unversioned_exports", "kcrctab_bytes"]


VMLINUX_KEYS = ["text", "data", "bss"]


SERIES_KEYS = ["patches", "files", "added", "removed"]


# Modules whose sizes are summed as "the workload" in the code-size table.
WORKLOAD_SET = "main/"
# Plan fields copied into each case record, in this order (others follow).
PLAN_FIELDS = ["case", "n", "boot", "kind", "gen", "probe", "built_for", "loaded_into",
               "built_by", "module", "flags", "deps", "expected", "note"]


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
    # not-run, or does-not-build (the module's own build failed: a result,
    # with the compiler's or modpost's line as its reason; no verdict)
    rec["outcome"] = c.get("outcome") or "not-run"
    rec["reason"] = c.get("reason") or "not run"
    rec["verdict"] = classify.verdict(rec["outcome"], rec["expected"])
    return rec


def shared(rec):
    """A case and its copies for the policies that share its boot (the
    planner's shared_by: same string, same kernel): same outcome, marked
    reused_from the policy whose boot ran."""
    out = [rec]
    for p in rec.pop("shared_by", None) or []:
        out.append(dict(rec, policy=p, reused_from=rec["policy"]))
    return out


def arm_cases(arm, adir, plan, arec):
    """Case records of one arm, in plan order; fills arec["boots"]."""
    cases = plan.get("cases") or []
    if not isinstance(cases, list) or not all(isinstance(c, dict) for c in cases):
        raise InputError(f"{adir / 'plan.json'}: 'cases' is not a list of objects")
    not_run = plan.get("not_run") or []
    if not isinstance(not_run, list) or not all(isinstance(c, dict) for c in not_run):
        raise InputError(f"{adir / 'plan.json'}: 'not_run' is not a list of objects")
    unkinded = next((c for c in cases + not_run if c.get("kind") is None), None)
    if unkinded is not None:
        raise InputError(f"{adir / 'plan.json'}: case {unkinded.get('case')} has no kind "
                         "(an older planner wrote it: run python3 -m plan ARM again)")
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
        out += shared(case_record(arm, c, *runs[boot], logname=logname))
    for c in not_run:
        c = dict(c)
        if c.get("policy") is None:
            c["policy"] = plan.get("policy")
        if c.get("boot") is None:
            c["boot"] = c.get("loaded_into")
        out += shared(not_run_record(arm, c))
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


def read_gens(path):
    """The generations' declaration (workload/gens/gens.tsv), {} if it is not there;
    InputError on a malformed line (core/tables.py reads it for everyone)."""
    if not pathlib.Path(path).is_file():
        return {}
    try:
        rows = generations.gens(str(path))
    except tables.TableError as e:
        raise InputError(str(e)) from None
    return {g["gen"]: {"patch": g["patch"], "changes": g["changes"], "removes": g["removes"],
                       "breaks": g["breaks"], "note": g["note"]} for g in rows}
