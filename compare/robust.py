# SPDX-License-Identifier: GPL-2.0
"""The robustness section: what each arm did with each input of the corpus
(workload/robust.tsv), against what reading its loader says it should do.

Input: the report's case records (report.collect()["cases"]); those planned by
plan/robust.py carry kind=robust, role (input|health), input and
declared. Each input's outcome is put in the words of robust.tsv:

  loaded / loaded+F     the module loaded (+F: it newly set taint F)
  refused:ERRNO         finit_module failed with that errno
  oops                  the kernel reported a bug (Oops, BUG, WARNING, KASAN,
                        UBSAN, panic: classify.SPLATS) while loading it
  loaded-misbehaved, timeout, crashed (no splat, log cut), setup-failed,
  not-run, not-reached  what the lab saw instead

Per arm: inputs, as_declared, oops (cases, inputs or health checks, with a
kernel bug report; their names in bug_cases), known_oops (those of inputs
declared `oops`: a bug of that arm's loader the data records as a finding,
listed in findings; it does not fail the run, any other bug report does),
unhealthy (a health check that
did not load and unload cleanly, or had a splat), unexpected (each input whose
outcome is not its declaration, with the kernel's reason and the log line),
results (every input: declared, observed, errno, reason, log, health). An arm
named ARM-VARIANT (lab/robust.sh's sanitizer builds) also gets variant and of.

The section itself is rendered by compare/sections/robustness.py; `python3 -m
compare robust [--build DIR]` prints it and exits 1 on an oops, an unhealthy
kernel or an unexpected outcome (lab/robust.sh); with --unfinished --arm A...
it judges only the boots that did not finish (make compare): exit 1 for each
that stopped other than on a crash robust.tsv declares.
"""
import json
import os
import time

from core import classify, tables

HEALTHY = "loaded"


def observed(c):
    """The outcome of one case record in robust.tsv's words."""
    out = c.get("outcome") or "not-run"
    if out != "not-run" and not c.get("reached", True):
        return "not-reached"
    if out == "crashed":
        reason = c.get("reason") or ""
        reason = reason.split(": ", 1)[1] if reason.startswith(("no result: ", "not reached: ")) \
            else reason
        return "oops" if classify.is_splat(reason) else "crashed"
    if out == "loaded":
        return "loaded+F" if "F" in (c.get("taint_new") or "") else "loaded"
    if out.startswith("refused:"):
        return f"refused:{c.get('errno') or '?'}"
    return out


def _variant(arm):
    """(variant, arm) of a variant build (base-kasan: kasan, base), else (None, None)."""
    of, variant = tables.split_variant(arm)
    return (variant, of) if variant else (None, None)


def robustness(cases):
    """{arm: {inputs, as_declared, oops, unhealthy, unexpected: [...], results: [...]}}."""
    out = {}
    mine = [c for c in cases if c.get("kind") == "robust"]
    for c in mine:
        arm = c["arm"]
        if arm not in out:
            variant, of = _variant(arm)
            out[arm] = {"inputs": 0, "as_declared": 0, "oops": 0, "known_oops": 0,
                        "unhealthy": 0, "unexpected": [], "results": [], "bug_cases": [],
                        "findings": []}
            if variant:
                out[arm].update(variant=variant, of=of)
    inputs = {}     # (arm, input) -> its result row, for its health check
    for c in mine:
        rec, obs = out[c["arm"]], observed(c)
        if obs == "oops":
            rec["oops"] += 1
            if c.get("role") == "input" and c.get("declared") == "oops":
                rec["known_oops"] += 1
                rec["findings"].append(c.get("input"))
            else:
                rec["bug_cases"].append(c.get("case"))
        if c.get("role") == "health":
            row = inputs.get((c["arm"], c.get("input")))
            if row is not None:
                row["health"] = _health(obs, row["observed"])
                if row["health"] not in ("ok", "n/a"):
                    row.update(health_reason=c.get("reason"), health_log=c.get("log"))
                if row["health"] not in ("ok", "n/a"):
                    rec["unhealthy"] += 1
            elif obs not in (HEALTHY, "not-run"):   # the boot's first check
                rec["unhealthy"] += 1
            continue
        row = {"input": c.get("input"), "declared": c.get("declared"), "observed": obs,
               "errno": c.get("errno"), "taint_new": c.get("taint_new"),
               "reason": c.get("reason"), "log": c.get("log"), "boot": c.get("boot"),
               "flags": c.get("flags"), "health": None}
        inputs[(c["arm"], row["input"])] = row
        rec["results"].append(row)
        rec["inputs"] += 1
        if obs == row["declared"]:
            rec["as_declared"] += 1
        else:
            rec["unexpected"].append(row)
    return out


def _health(obs, input_obs):
    """ok, n/a (the input took the kernel down; the check ran in a fresh boot), or what it saw."""
    if input_obs in ("oops", "crashed", "timeout"):
        return "n/a"
    return "ok" if obs == HEALTHY else obs


def failures(rob):
    """One line per reason `make robust` fails: oopses, unhealthy kernels, surprises."""
    lines = []
    for arm, r in rob.items():
        if r["oops"] - r.get("known_oops", 0):
            lines.append(f"{arm}: {r['oops'] - r.get('known_oops', 0)} kernel bug report(s) "
                         "not declared in workload/robust.tsv: " + ", ".join(r["bug_cases"]))
        if r["unhealthy"]:
            lines.append(f"{arm}: {r['unhealthy']} failed health check(s)")
        for u in r["unexpected"]:
            lines.append(f"{arm}: {u['input']}: declared {u['declared']}, got {u['observed']}"
                         + (f" ({u['reason']})" if u.get("reason") else ""))
    return lines


def unfinished_problems(rob, unfinished):
    """Boots that did not finish for a reason other than a declared crash.

    unfinished: {arm: [boot, ...]} (lab/run.sh's boot/unfinished). A boot
    that stopped on a robustness input declared `oops` for the arm, and
    observed so, is that finding; any other stop is one line here."""
    out = []
    for arm, boots in unfinished.items():
        rows = (rob.get(arm) or {}).get("results", [])
        for boot in boots:
            stopped = [r for r in rows if r.get("boot") == boot
                       and r["observed"] in ("oops", "crashed", "timeout")]
            if not stopped:
                out.append(f"{arm} {boot}: did not finish, and not on a robustness input "
                           "declared oops")
            for r in stopped:
                if not (r["declared"] == "oops" and r["observed"] == "oops"):
                    out.append(f"{arm} {boot}: did not finish on {r['input']}: declared "
                               f"{r['declared']}, got {r['observed']}")
    return out


def read_unfinished(build, arms):
    """{arm: [boots]} from build/arms/ARM/boot/unfinished (lab/run.sh)."""
    out = {}
    for arm in arms:
        try:
            with open(os.path.join(build, "arms", arm, "boot", "unfinished")) as f:
                boots = sorted({l.strip() for l in f if l.strip()})
        except FileNotFoundError:
            continue
        if boots:
            out[arm] = boots
    return out


def _series_id(build, arm):
    try:
        with open(os.path.join(build, "arms", arm, "series.id")) as f:
            return f.read().strip()
    except OSError:
        return None


def save(rob, build, path):
    """rob with each arm's series.id, so a later report can tell stale results."""
    out = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "arms": {}}
    for arm, r in rob.items():
        out["arms"][arm] = dict(r, series_id=_series_id(build, arm))
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
    os.replace(tmp, path)


def load_saved(build, path=None):
    """(rob, date, stale arms) from make robust's saved results; an arm whose
    series.id changed since (rebuilt from another series) is left out."""
    path = path or os.path.join(build, "robust.json")
    try:
        with open(path) as f:
            saved = json.load(f)
    except (OSError, ValueError):
        return {}, None, []
    rob, stale = {}, []
    for arm, r in (saved.get("arms") or {}).items():
        if r.get("series_id") and r.get("series_id") == _series_id(build, arm):
            rob[arm] = r
        else:
            stale.append(arm)
    return rob, saved.get("date"), stale
