# SPDX-License-Identifier: GPL-2.0
"""The robustness section: the bad-module corpus (compare/robust.py judges
each input against workload/robust.tsv); this run's cases, else the last
make robust's saved results (build/robust.json) for arms this run gave no
corpus."""
from .. import doc, robust
from .cells import NONE


def robust_blocks(rob, report):
    """rob: {arm: results} (compare/robust.py); report: for robustness_source."""
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
                     "bug of that loader, never a pass. An input declared - for an arm, or "
                     "made by a recipe that needs a section the arm's module lacks "
                     "(name?:SEC, e.g. .orc_unwind, which only the KASAN builds' ORC "
                     "unwinder emits), is not run there: the input counts differ."))
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


KEY = "robustness"
TITLE = "Robustness"


def load(build, report):
    """{arm: results} of this run's robust cases; for arms (or their sanitizer
    builds) this run gave no corpus, the last make robust's results, if they
    are of the series the arm is built from now (report["robustness_source"])."""
    rob = robust.robustness(report["cases"])
    saved, date, stale = robust.load_saved(str(build))
    extra = {a: r for a, r in saved.items()
             if a not in rob and a.partition("-")[0] in report["arms"]}
    if extra:
        rob.update(extra)
        report["robustness_source"] = {"run": "make robust", "date": date,
                                       "arms": list(extra), "stale_arms_left_out": stale}
    return rob


def blocks(data, report):
    return robust_blocks(data or {}, report)
