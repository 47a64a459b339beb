# SPDX-License-Identifier: GPL-2.0
"""The kernel-update matrix: generation x probe user x arm/policy (kind update)."""
from .. import doc
from ..model import RELEASE, gen_key, label, section_of
from .cells import C, LEGEND, NONE, case_names, column_labels, expected_text, matrix


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
        cols = column_labels(cases)
        groups = {}
        for c in cases:
            key = (c.get("gen"), c.get("probe"))
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
                    what += [" (changes "] + case_names([{"case": s} for s in changed]) + [")"]
                if "layout" in ((gens.get(gen) or {}).get("breaks") or []):
                    what += [" (breaks layout: every module built for G0)"]
            rows.append(([doc.Bold(gen), doc.Cell([what]), C(probe),
                          expected_text(g["expected"])], g["cells"], g["expected"]))
        out.append(matrix(rows, cols, ["generation", "what it changed", "probe user",
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


KEY = "generations"
TITLE = "Kernel updates"


def blocks(data, report):
    return update_blocks(report)
