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


def blocks(data, report):
    return [doc.H(1, TITLE), provenance_line(report)]
