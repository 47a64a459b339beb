# SPDX-License-Identifier: GPL-2.0
"""The release cases (kind release and cross) in each arm; also the
"Other cases" section's table (compare/sections/other.py)."""
from .. import doc
from ..model import RELEASE, label, section_of
from .cells import C, column_labels, expected_text, flow, matrix


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
    cols = column_labels(cases)
    flows = any(flow(c) != f"{RELEASE} → {RELEASE}" for c in cases)
    groups = {}
    for c in cases:
        row = groups.setdefault(c["case"], {"first": c, "cells": {}, "expected": set()})
        row["cells"].setdefault(label(c["arm"], c["policy"]), []).append(c)
        row["expected"].add(c["expected"])
    rows = []
    for name, g in groups.items():
        lead = [C(name), expected_text(g["expected"])]
        if flows:
            lead.append(flow(g["first"]))
        rows.append((lead, g["cells"], g["expected"]))
    head = ["case", "expected"] + (["built → loaded"] if flows else [])
    out.append(matrix(rows, cols, head, "l" * len(head)))
    notes = [[C(name), ": ", g["first"].get("note")] for name, g in groups.items()
             if g["first"].get("note")]
    if notes:
        out.append(doc.Details("What each case shows", [doc.UL(notes)]))
    return out


KEY = "cases"
TITLE = "Module cases on the release"


def blocks(data, report):
    return release_blocks(report)
