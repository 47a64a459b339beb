# SPDX-License-Identifier: GPL-2.0
"""Cross builds: the keep series with MODVERSIONS on other architectures
(make cross, build/cross/cross.tsv), where a .S export without a prototype
genksyms sees is a build error."""
import csv

from .. import doc

KEY = "cross"
TITLE = "Cross builds with MODVERSIONS"
FIELDS = ["arch", "tree", "result", "cpu_s", "missing_crc"]


def load(build, report):
    """{"rows": [{arch, tree, result, cpu_s, missing_crc}]}; None before make cross."""
    try:
        with open(build / "cross" / "cross.tsv", newline="") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
    except FileNotFoundError:
        return None
    if not rows or any(set(FIELDS) - set(r) for r in rows):
        raise ValueError(f"{build / 'cross' / 'cross.tsv'}: want columns {', '.join(FIELDS)}")
    out = []
    for r in rows:
        cpu = None if r["cpu_s"] in ("", "-") else float(r["cpu_s"])
        out.append({"arch": r["arch"], "tree": r["tree"], "result": r["result"],
                    "cpu_s": cpu, "missing_crc": int(r["missing_crc"])})
    return {"rows": out}


def blocks(data, report):
    rows = data["rows"]
    failed = [f"{r['arch']} ({r['tree']})" for r in rows if r["result"] != "pass"]
    head = (f"{len(rows)} builds of tinyconfig + MODULES + MODVERSIONS + one =m module, "
            "cross-compiled with Debian's cross gcc (make cross; lab/arches.tsv). "
            "Missing CRC: modpost's messages for an export or import without one "
            "(a warning in the pristine tree, an error with the keep series). ")
    head += ("Failed: " + ", ".join(failed) + ".") if failed else "All built."
    return [doc.H(2, TITLE), doc.P(head),
            doc.Table(["arch", "tree", "result", "CPU s", "missing CRC"],
                      [[r["arch"], r["tree"], r["result"],
                        "-" if r["cpu_s"] is None else f"{r['cpu_s']:.0f}",
                        str(r["missing_crc"])] for r in rows], align="lllrr")]
