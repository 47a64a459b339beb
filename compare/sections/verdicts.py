# SPDX-License-Identifier: GPL-2.0
"""The verdicts per arm and policy, and the cases each got wrong."""
from .. import classify, doc
from ..model import label
from .cells import case_names


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
                parts += (["; "] if parts else []) + [what] + case_names(hit)
        items.append([doc.Bold(lab), ": "]
                     + (parts or ["no unsafe loads, no needless refusals"]))
    if items:
        out.append(doc.UL(items))
    return out


KEY = "verdicts"
TITLE = "Verdicts"


def blocks(data, report):
    return verdict_blocks(report)
