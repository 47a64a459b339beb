# SPDX-License-Identifier: GPL-2.0
"""Code size per arm against base: vmlinux, bzImage, exports, the workload, the series."""
from core import tables

from .. import doc
from ..load import VMLINUX_KEYS, WORKLOAD_SET
from .cells import C, NONE, delta, num


def size_blocks(report):
    arms = report["arms"]
    ref = tables.reference_arm()
    base = arms.get(ref)
    out = [doc.H(2, "Code size vs base")]
    b = base or {}
    bv, bw, bs = b.get("vmlinux") or {}, b.get("workload") or {}, b.get("series") or {}
    rows = []
    for arm, a in arms.items():
        is_base = arm == ref
        v, w, s = a.get("vmlinux") or {}, a.get("workload") or {}, a.get("series") or {}
        built = {True: "yes", False: "FAILED", None: NONE}[a.get("built")]
        rows.append([doc.Bold(arm), built]
                    + [delta(v.get(k), bv.get(k), is_base) for k in VMLINUX_KEYS]
                    + [delta(a.get(k), b.get(k), is_base)
                       for k in ("bzimage_bytes", "exports", "unversioned_exports",
                                 "kcrctab_bytes")]
                    + [delta(w.get(k), bw.get(k), is_base) for k in ("ko_bytes", "versions_bytes")]
                    + [num(s.get("patches")), num(s.get("files")),
                       NONE if s.get("added") is None else f"+{num(s['added'])}",
                       NONE if s.get("removed") is None else f"-{num(s['removed'])}"])
    out.append(doc.Table(["arm", "built", "vmlinux text", "data", "bss", "bzImage",
                          "exports", "unversioned exports", C("__kcrctab"), "workload .ko",
                          ["workload ", C("__versions")], "patches", "files", "added", "removed"],
                         rows, align="llrrrrrrrrrrrrr", cls="sizes"))
    counts = {arm: (a.get("workload") or {}).get("modules") for arm, a in arms.items()}
    known = {n for n in counts.values() if n is not None}
    if len(known) == 1 and None not in counts.values():
        wtext = f"{known.pop()} modules in every arm"
    else:
        wtext = "modules per arm: " + ", ".join(f"{arm} {num(n)}" for arm, n in counts.items())
    out.append(doc.P(
        "Bytes. " + ("(±n) is the difference to base. " if base else "No base arm: no "
                     "differences. ")
        + f"Workload = the sum over the {WORKLOAD_SET}* modules ({wtext}); series = the "
        "arm's patches against the pristine tree (diffstat: files, lines added, removed); "
        f"{NONE} = not measured."))
    bloat_lines, measured = [], False
    for arm, a in arms.items():
        if arm == ref:
            continue
        bl = a.get("bloat_vs_base")
        if isinstance(bl, dict):
            measured = True
            bloat_lines += [f"{arm}:", f"  {bl.get('summary') or NONE}",
                            f"  {bl.get('total') or NONE}"]
        else:
            bloat_lines += [f"{arm}:", f"  {NONE}"]
    if base and bloat_lines and not measured:
        out.append(doc.P(["The tree's ", C("scripts/bloat-o-meter"), f": {NONE} (not measured "
                          "for any arm)."]))
    elif base and bloat_lines:
        out.append(doc.P(["The tree's ", C("scripts/bloat-o-meter"), ", base's vmlinux → "
                          "the arm's:"]))
        out.append(doc.Pre("\n".join(bloat_lines)))
        tops = [(arm, a["bloat_vs_base"].get("top")) for arm, a in arms.items()
                if isinstance(a.get("bloat_vs_base"), dict) and a["bloat_vs_base"].get("top")]
        if tops:
            out.append(doc.Details("bloat-o-meter: the largest changes per arm",
                                   [doc.Pre("\n".join(f"{arm}:\n" + "\n".join(
                                       f"  {ln}" for ln in top) for arm, top in tops))]))
    mods = sorted({m for a in arms.values() for m in (a.get("modules") or {})})
    if mods:
        rows = []
        for m in mods:
            cells = [C(m)]
            for a in arms.values():
                info = (a.get("modules") or {}).get(m) or {}
                cells.append(f"{num(info.get('ko_bytes'))} / {num(info.get('versions_bytes'))}")
            rows.append(cells)
        out.append(doc.Details(["Every module: .ko bytes / ", C("__versions"),
                                " bytes per arm"],
                               [doc.Table(["module"] + list(arms), rows,
                                          align="l" + "r" * len(arms))]))
    return out


KEY = "arms"
TITLE = "Code size vs base"


def blocks(data, report):
    return size_blocks(report)
