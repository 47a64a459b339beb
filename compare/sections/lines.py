# SPDX-License-Identifier: GPL-2.0
"""Debian's kernel lines (make history, history/lines.json): every line the
archive serves, the mechanism each upload's kernel ran (its own config), and
the upgrades from one line to the next, per policy."""
import json

from history.across import strip

from .. import doc
from .cells import NONE, num

KEY = "lines"
TITLE = "Debian's kernel lines"


def load(build, report):
    try:
        with open(build.parent / "history" / "lines.json") as f:
            return json.load(f)
    except (FileNotFoundError, NotADirectoryError):
        return None


def blocks(data, report):
    out = [doc.H(2, TITLE)]
    ups = data.get("uploads") or []
    rows = []
    for ln in data.get("lines") or []:
        mine = [u for u in ups if u["line"] == ln["name"]]
        mechs = {}
        for u in mine:
            m = (u.get("mechanism") or {}).get("label") or "not fetched"
            mechs.setdefault(m, []).append(u["abiname"])
        rows.append([doc.Code(ln["name"]), ", ".join(ln["suites"]), num(len(ln["uploads"])),
                     "; ".join(f"{m}: {', '.join(a)}" for m, a in mechs.items()) or NONE])
    out.append(doc.P("Every line the archive serves (discovered from its package lists), "
                     "and what each upload's kernel checks on a module load, read from the "
                     "config file its image ships. Where modversions is off, the kernel "
                     "release in vermagic is the only check: the per-upload string policy."))
    out.append(doc.Table(["line", "suites", "uploads run", "mechanism per upload"], rows,
                         align="llrl"))
    try:
        out.append(doc.Figure(strip(data), "../../history/lines.svg",
                              "Debian's uploads, coloured by the mechanism each kernel ran"))
    except ValueError:
        pass
    ug = data.get("upgrades") or []
    if ug:
        pols = list(ug[0]["survive"])
        out.append(doc.H(3, "Upgrades across lines"))
        out.append(doc.P("A user's upgrade from a line's newest upload to the next line's "
                         "oldest: every in-tree module of the old kernel against the new "
                         "kernel's loader (host prediction from vermagic and CRCs, as that "
                         "loader checks them), what each policy would let load, and a booted "
                         "sample that tests the prediction."))
        out.append(doc.Table(
            ["upgrade", "modules", "CRCs changed", "exports removed", "module_layout",
             "refused by (kernel)"] + [f"load: {p}" for p in pols] + ["sample = host"],
            [[f"{u['from']} → {u['to']}", num(u["of"]), num(u["crc_changed"]), num(u["removed"]),
              "changed" if u["module_layout_changed"] else "same",
              ", ".join(f"{k} {num(v)}" for k, v in sorted(u["refused_by"].items())) or NONE]
             + [num(u["survive"][p]) for p in pols]
             + [f"{sum(1 for c in u.get('sample', []) if c['agree'])}/{len(u.get('sample', []))}"]
             for u in ug], align="lrrrll" + "r" * (len(pols) + 1)))
    return out

