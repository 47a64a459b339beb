# SPDX-License-Identifier: GPL-2.0
"""The verdicts per arm and policy, and the cases each got wrong."""
from core import classify, generations, tables

from .. import doc
from ..model import label
from .cells import case_names


def oracles():
    """The policies whose rule reads the lab's own declaration (policies.tsv)."""
    try:
        return {p["policy"] for p in generations.policies(runnable=False) if p["oracle"]}
    except tables.TableError:
        return set()


def shared_lines(cases):
    """Which policy reused which boot: "nomodv/crc: G1, G4 from nomodv/never"."""
    reuse = {}
    for c in cases:
        if c.get("reused_from"):
            key = (label(c["arm"], c["policy"]), label(c["arm"], c["reused_from"]))
            gens = reuse.setdefault(key, [])
            if c.get("gen") not in gens:
                gens.append(c.get("gen"))
    return [[doc.Bold(mine), f": {', '.join(g for g in gens if g)} reuse the boot of ", other]
            for (mine, other), gens in reuse.items()]


def release_gate(report, cases):
    """For the arms the CRCs decide: what a detector used as a release gate
    would hold back (a declared change the CRCs miss that it flags)."""
    misses = (report.get("detectors") or {}).get("crc_misses") or {}
    # the arms the CRCs decide (no distributor string)
    arms = [a for a in tables.arm_names() if tables.arm_string(a) == "-"
            and any(c["arm"] == a for c in cases)]
    out = []
    for g, x in misses.items():
        if not x["caught_by"] or not arms:
            continue
        unsafe = [c for c in cases if c["arm"] in arms and c.get("gen") == g
                  and c["verdict"] == "unsafe-load"]
        out.append(doc.P([doc.Bold("Release gate"), f" ({', '.join(arms)}): {g} changes ",
                          doc.Code(", ".join(x["crc_missed"])), " and the CRCs miss it; ",
                          ", ".join(x["caught_by"]), " flags it, so a distributor gating "
                          f"releases on it would hold {g} back"]
                         + ([" and its unsafe loads here would not ship: "] + case_names(unsafe)
                            if unsafe else [" (no unsafe load of it here)"]) + ["."]))
    return out


def verdict_blocks(report):
    cases, out = report["cases"], [doc.H(2, "Verdicts")]
    labels = list(report["verdicts"])
    out.append(doc.P("Per arm, and per distributor policy where the arm has one, over every "
                     "case it ran: a correct load or refusal is right; a needless refusal "
                     "kept a compatible module out; an unsafe load let an incompatible one in."))
    rows = []
    oracle = {label(c["arm"], c["policy"]) for c in cases if c.get("policy") in oracles()}
    for lab in labels:
        v = report["verdicts"][lab]
        row = [doc.Cell([doc.Bold(lab + (" (oracle)" if lab in oracle else ""))])]
        for k in classify.VERDICT_KEYS:
            n = v.get(k, 0)
            bad = k in ("unsafe-load", "needless-refusal", "lab-error") and n
            row.append(doc.Cell([str(n)], cls=k if bad else None))
        rows.append(row + [str(sum(v.values()))])
    out.append(doc.Table(["arm/policy", "correct loads", "correct refusals", "needless refusals",
                          "unsafe loads", "lab errors", "no verdict", "cases"], rows,
                         align="lrrrrrrr", cls="verdicts"))
    if oracle:
        out.append(doc.P(f"{', '.join(sorted(oracle))}: the oracle, an upper bound: its rule "
                         "reads the lab's own declaration (gens.tsv), which no distributor has; "
                         "the other policies bump when a detector flags an export (ABI "
                         "detectors below) or never / always."))
    sh = shared_lines(cases)
    if sh:
        out.append(doc.Details("Policies that give a generation the same string share its "
                               "kernel and boot: their cases reuse that boot's outcome",
                               [doc.UL(sh)]))
    out += release_gate(report, cases)
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
