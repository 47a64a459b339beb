# SPDX-License-Identifier: GPL-2.0
"""The report's title and its provenance line."""
from .. import doc
from .cells import C


# Provenance shown on the report's first line (all of it is in report.json).
PROV_KEYS = ["base", "arch", "package", "tree", "config_sha256", "accel", "gcc", "binutils", "qemu", "modvlab_commit",
             "date"]


def provenance_line(report):
    prov = report["provenance"]
    items = []
    keys = [k for k in PROV_KEYS if k in prov] or list(prov)
    for k in keys:
        v = prov[k]
        if isinstance(v, (str, int, float)) and not isinstance(v, bool):
            v = str(v)
            items += [f"{k} ", C(v[:12] + "…" if k.endswith("sha256") else v), ", "]
    items.append(f"{len(report['arms'])} arms, {len(report['cases'])} cases.")
    return doc.P(["Provenance: "] + items)


KEY = "provenance"
TITLE = "modvlab report"


def skipped_line(report):
    """The arms this base did not run, and why (lab/provenance.sh records
    core.tables' reason at run time)."""
    skipped = report["provenance"].get("arms_skipped") or {}
    if not skipped or not isinstance(skipped, dict):
        return []
    items = ["Arms not run on this base: "]
    for i, (arm, why) in enumerate(sorted(skipped.items())):
        items += [", " if i else "", doc.Bold(arm), f" ({why})"]
    return [doc.P(items + ["."])]


def blocks(data, report):
    return [doc.H(1, TITLE), provenance_line(report)] + skipped_line(report)
