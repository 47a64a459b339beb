# SPDX-License-Identifier: GPL-2.0
"""The modversions audit: exports without a CRC and modpost's missing-CRC messages."""
from core import tables

from .. import doc
from .cells import C, NONE, case_names, num


AUDIT_KEYS = [("vmlinux_zero_crc", "zero-CRC exports in vmlinux"),
              ("workload_zero_crc", "zero-CRC exports in the workload"),
              ("kernel_missing_crc_msgs", "modpost missing-CRC messages (kernel)"),
              ("workload_missing_crc_msgs", "modpost missing-CRC messages (workload)")]


def _audit_count(audit, key):
    v = audit.get(key)
    if isinstance(v, dict):
        return v.get("count"), list(v.get("names") or [])
    return (v if isinstance(v, int) else None), []


def audit_blocks(report):
    arms = report["arms"]
    out = [doc.H(2, "Modversions completeness audit")]
    audited = {arm: a["audit"] for arm, a in arms.items() if isinstance(a.get("audit"), dict)}
    no_modv = [arm for arm, a in arms.items()
               if isinstance(a.get("sizes"), dict) and "audit" in a["sizes"]
               and a["sizes"]["audit"] is None]
    unknown = [arm for arm in arms if arm not in audited and arm not in no_modv]
    if audited:
        out.append(doc.P(["For the arms built with CONFIG_MODVERSIONS: exports that carry no "
                          "CRC (a zero ", C("__crc_"), " value), and modpost's messages about "
                          "missing CRCs while building the kernel and the workload."]))
        rows = []
        for arm, au in audited.items():
            row = [doc.Bold(arm)]
            for key, _ in AUDIT_KEYS:
                n, names = _audit_count(au, key)
                line = [num(n)]
                if names:
                    line += [": "] + case_names([{"case": x} for x in names])
                    if isinstance(n, int) and n > len(names):
                        line.append(", …")
                row.append(doc.Cell([line], cls="bad" if n else None))
            rows.append(row)
        out.append(doc.Table(["arm"] + [what for _, what in AUDIT_KEYS], rows,
                             align="lrrrr", cls="audit"))
        ref = tables.reference_arm()
        base = audited.get(ref)
        items = []
        for arm, au in audited.items():
            if arm == ref or base is None:
                continue
            items.append([doc.Bold(arm), " relative to base: "] + audit_diff(base, au))
        if items:
            out.append(doc.UL(items))
    else:
        out.append(doc.P("No arm has audit data."))
    notes = []
    if no_modv:
        notes.append("Not audited (no CONFIG_MODVERSIONS): " + ", ".join(no_modv) + ".")
    if unknown:
        notes.append(f"No audit data ({NONE}): " + ", ".join(unknown) + ".")
    if notes:
        out.append(doc.P(" ".join(notes)))
    return out


def audit_diff(base, other):
    """Inline text: what changed in each audit count from base to another arm."""
    parts = []
    for key, what in AUDIT_KEYS:
        b, bnames = _audit_count(base, key)
        o, onames = _audit_count(other, key)
        if not isinstance(b, int) or not isinstance(o, int):
            continue
        if b == o:
            continue
        part = [f"{what} {b:,} → {o:,}"]
        gone = [n for n in bnames if n not in onames]
        new = [n for n in onames if n not in bnames]
        if gone:
            part += [" (fixed: "] + case_names([{"case": x} for x in gone]) + [")"]
        if new:
            part += [" (new: "] + case_names([{"case": x} for x in new]) + [")"]
        parts += (["; "] if parts else []) + part
    return parts or ["the same counts as base."]


KEY = "arms"
TITLE = "Modversions completeness audit"


def blocks(data, report):
    return audit_blocks(report)
