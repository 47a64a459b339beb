# SPDX-License-Identifier: GPL-2.0
"""The probe users rebuilt for each generation (kind rebuilt): how many did as declared."""
from core import classify

from .. import doc
from ..model import label, section_of
from .cells import C, MARKS, NONE, column_labels, flow, plural


def sanity_blocks(report):
    cases = [c for c in report["cases"]
             if section_of(c, report.get("generations") or {}) == "rebuilt"]
    out = [doc.H(2, "Sanity: modules rebuilt for each generation")]
    if not cases:
        return out + [doc.P("No rebuilt modules in these arms.")]
    out.append(doc.P("The probe users rebuilt against each generation and loaded into it; "
                     "each should do what the generation's declaration expects."))
    items, bad = [], []
    for lab in column_labels(cases):
        mine = [c for c in cases if label(c["arm"], c["policy"]) == lab]
        ok = [c for c in mine if c["verdict"] in classify.CORRECT]
        wrong = [c for c in mine if c["verdict"] not in classify.CORRECT]
        bad += wrong
        items.append([doc.Bold(lab), f": {len(ok)} of {len(mine)} rebuilt loads as expected"
                      + (f"; {plural(len(wrong), 'exception')} below." if wrong else ".")])
    out.append(doc.UL(items))
    if bad:
        rows = [[label(c["arm"], c["policy"]), C(c["case"]), flow(c), c["expected"] or "?",
                 doc.Cell([[C(c["outcome"]), " " + MARKS.get(c["verdict"], str(c["verdict"]))]],
                          cls=c["verdict"]),
                 C(c["reason"]) if c.get("reason") else NONE] for c in bad]
        out.append(doc.Table(["arm/policy", "case", "built → loaded", "expected", "outcome",
                              "reason"], rows, cls="matrix"))
    return out


KEY = "cases"
TITLE = "Sanity: modules rebuilt for each generation"


def blocks(data, report):
    return sanity_blocks(report)
