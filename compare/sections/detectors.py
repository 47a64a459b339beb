# SPDX-License-Identifier: GPL-2.0
"""The ABI detectors (issue 13): what each flags per generation against
gens.tsv's declaration, its cost, and which declared changes the genksyms
CRCs miss that another detector catches (the G4 question); from
build/detect/detectors.json (python3 -m detect.run, `make detect`)."""
import json
import os

from detect import ORACLE

from .. import doc
from .cells import C, NONE, num

KEY = "detectors"
TITLE = "ABI detectors"


def load(build, report):
    path = os.path.join(str(build), "detect", "detectors.json")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return None
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    # written by detect.run since the move; a run before it had none
    data.setdefault("crc_misses", {})
    return data


def _cell(r):
    if r is None:
        return NONE
    parts = [", ".join(r["flagged"]) if r["flagged"] else ("bump" if r["bump"] else "·")]
    if r["false_positive"]:
        parts.append(f"FP {', '.join(r['false_positive'])}")
    if r["false_negative"]:
        parts.append(f"FN {', '.join(r['false_negative'])}")
    if r.get("bump_vs_declared") == "needless":
        parts.append("needless bump")
    cls = "bad" if r["false_negative"] else ("warn" if r["false_positive"]
                                              or r.get("bump_vs_declared") == "needless" else None)
    return doc.Cell(parts, cls=cls)


def blocks(data, report):
    dets = data["detectors"]
    gens = sorted({g for r in dets.values() for g in r}, key=lambda g: int(g[1:]) if g[1:].isdigit() else g)
    out = [doc.H(2, TITLE), doc.P(
        "Each detector compares a generation's build with G0's, as a distributor's tooling "
        "would, and names the exports it flags; a policy bumps the string when its detector "
        "flags something. FP / FN: flagged but not declared / declared but not flagged, "
        "against gens.tsv's changes column, which only the oracle reads. CPU: seconds of the "
        "detector's process (abidiff included), summed over the generations.")]
    rows = []
    for d, per in dets.items():
        fp = sum(len(r["false_positive"]) for r in per.values())
        fn = sum(len(r["false_negative"]) for r in per.values())
        needless = sum(r.get("bump_vs_declared") == "needless" for r in per.values())
        missed = sum(r.get("bump_vs_declared") == "missed" for r in per.values())
        cpu = sum(r.get("cpu_s") or 0 for r in per.values())
        name = doc.Bold(d + (" (oracle)" if d == ORACLE else ""))
        rows.append([name] + [_cell(per.get(g)) for g in gens]
                    + [num(fp), num(fn), num(needless), num(missed), num(cpu, 1)])
    out.append(doc.Table(["detector"] + gens + ["FP", "FN", "needless bumps", "missed bumps",
                                               "CPU s"], rows,
                         align="l" + "l" * len(gens) + "rrrrr", cls="detectors"))
    for d, why in data.get("skipped", {}).items():
        out.append(doc.P([C(d), f": not run ({why})."]))
    modes = {d: next((r.get("mode") for r in per.values() if r.get("mode")), None)
             for d, per in dets.items()}
    ab = [(d, g, r["abidiff"]) for d, per in dets.items() for g, r in per.items()
          if r.get("abidiff")]
    if ab:
        out.append(doc.UL([[C(d), f": {m}"] for d, m in modes.items() if m]))
        out.append(doc.Details("abidiff per run: CPU seconds, peak RSS, exit status",
                               [doc.Table(["detector", "gen", "CPU s", "RSS MB", "exit",
                                           "entries"],
                                          [[d, g, num(a["cpu_s"], 1), num(a["maxrss_mb"], 0),
                                            str(a["rc"]), num(a.get("entries"))]
                                           for d, g, a in ab], align="llrrrr")]))
    eb = data.get("extra_build") or {}
    if eb.get("g0"):
        ref = eb.get("reference") or {}
        inc = [v["cpu_s"] for v in eb.get("gens", {}).values() if v.get("cpu_s") is not None]
        sizes = [v["vmlinux_mb"] for v in eb.get("gens", {}).values() if v.get("vmlinux_mb")]
        txt = (f"The dwarf detector's own build ({os.path.basename(eb['dir'])}, never booted): "
               f"G0 {num(eb['g0'].get('cpu_s'), 0)} CPU s")
        if ref.get("cpu_s"):
            txt += (f" against {num(ref['cpu_s'], 0)} for the arm without debug info "
                    f"({ref['cpu_s'] and (eb['g0']['cpu_s'] / ref['cpu_s'] - 1) * 100:+.0f}%; "
                    "ccache state of each run not controlled)")
        if inc:
            txt += f"; each generation incrementally {min(inc):.0f}–{max(inc):.0f} CPU s"
        if sizes:
            txt += f"; vmlinux with DWARF {max(sizes):.0f} MB"
        out.append(doc.P(txt + "."))
    gate = data.get("crc_misses") or {}
    out.append(doc.H(3, "What the CRCs miss"))
    if not gate:
        out.append(doc.P("The crc detector flagged every declared change (or did not run)."))
    for g, x in gate.items():
        caught = x["caught_by"]
        line = [f"{g}: the CRCs miss ", C(", ".join(x["crc_missed"])), "; "]
        line.append("caught by " + ", ".join(caught) if caught else "no detector catches it")
        line.append(". On base and keep a detector that flags it is a release the distributor "
                    "holds back (release gate)." if caught else
                    ". No tool here would hold the release back.")
        out.append(doc.P(line))
        ev = x.get("evidence", {})
        for d in caught:
            other = [n for n in (ev.get(d) or {}).get("entries", []) if n not in x["crc_missed"]
                     and n not in (dets[d][g]["flagged"])]
            if other:
                out.append(doc.P([f"{d}'s report for {g} also names, not exported: ",
                                  C(", ".join(other)), " — the exported function's declared-"
                                  "only struct was resolved to its definition through it."]))
        missing = [d for d in ev if d not in caught]
        if missing:
            out.append(doc.P([f"{', '.join(missing)} (abidiff restricted to the exports) "
                              f"does not flag {g}."]))
        for d, e in ev.items():
            if e:
                out.append(doc.Details(f"{g}, {d}: the abidiff command and its lines",
                                       [doc.Pre("\n".join(e["lines"]))]))
    return out
