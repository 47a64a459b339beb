# SPDX-License-Identifier: GPL-2.0
"""The kernel's reason for every case, per arm and policy."""
from .. import doc
from ..model import label
from .cells import C, flow, plural, report_columns


def reason_blocks(report):
    cases, out = report["cases"], [doc.H(2, "Reasons")]
    for lab in report_columns(report):
        mine = [c for c in cases if label(c["arm"], c["policy"]) == lab]
        items = []
        for c in mine:
            extra = [f"boot {c['boot']}" if c.get("boot") else None,
                     f"errno {c['errno']}" if c.get("errno") not in (None, "0") else None,
                     f"taint +{c['taint_new']}" if c.get("taint_new") else None,
                     c.get("log")]
            extra = ", ".join(e for e in extra if e)
            why = C(c["reason"]) if c.get("reason") else "no kernel message"
            items.append([C(c["case"]), f" {flow(c)}, {c['expected']}: ", C(c["outcome"]),
                          f" → {c['verdict']}. ", why] + ([f" ({extra})"] if extra else []))
        out.append(doc.Details([doc.Bold(lab), f": the kernel's reason for each of "
                                               f"{plural(len(mine), 'case')}"], [doc.UL(items)]))
    return out


KEY = "cases"
TITLE = "Reasons"


def blocks(data, report):
    return reason_blocks(report)
