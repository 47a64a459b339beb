# SPDX-License-Identifier: GPL-2.0
"""Across Debian's lines: every line make history ran (history/lines.py's
select output, each line's OUT folder), the mechanism each upload's kernel ran
(its config), each line's summary, and the upgrades a user really makes from
one line to the next (the newest upload of a line -> the oldest of the next
one): what the next kernel's loader does with every in-tree module of the
previous one (host prediction from vermagic and CRCs, as that loader checks
them), each policy's verdict, and a booted sample that tests the prediction.

    python3 -m history.across ROOT LINES.tsv SAMPLE.tsv   -> ROOT/lines.json
LINES.tsv: name pattern suites apt kbuild uploads OUT (history/lines.sh writes it).
"""
import json
import os
import pathlib
import sys

from core import plot, tables
from history import boot, mechanism
from history.matrix import churn, predict, upload_facts, upload_paths
from history.modfacts import FactsError, read_symvers


def read_lines(path):
    out = []
    for ln in pathlib.Path(path).read_text().splitlines():
        if not ln.strip() or ln.startswith("#"):
            continue
        name, pattern, suites, apt, kbuild, ups, od = ln.split("\t")
        out.append({"name": name, "pattern": pattern, "suites": suites.split(","), "apt": apt,
                    "kbuild": kbuild, "uploads": [tables.upload_id(x) for x in ups.split()], "out": od})
    return out


def upload_row(ln, n):
    root = upload_paths(ln["out"], n, ln["pattern"])["root"]
    return {"abiname": tables.fill(ln["pattern"], n), "line": ln["name"],
            "fetched": (root / ".done").exists(),
            "mechanism": mechanism.of_upload(root) if (root / ".done").exists() else None}


def cross(a, b, sample):
    """The upgrade from line a's newest upload to line b's oldest one."""
    fa, tb = a["uploads"][-1], b["uploads"][0]
    facts = upload_facts(a["out"], fa, a["pattern"])
    sv = read_symvers(upload_paths(b["out"], tb, b["pattern"])["symvers"])
    magics = {m["vermagic"] for m in upload_facts(b["out"], tb, b["pattern"]).values()}
    if len(magics) != 1:
        raise FactsError(f"{b['pattern']} {tb}: modules disagree about vermagic")
    to_magic = magics.pop()
    verdicts = predict(facts, sv, to_magic)
    reasons = {}
    for v in verdicts.values():
        if v != "loaded":
            r = v[len("refused:"):] if v.startswith("refused:") else v
            r = "dependency" if r.startswith("dependency:") else r   # crc-mismatch:SYMBOL stays
            reasons[r] = reasons.get(r, 0) + 1
    sa = read_symvers(upload_paths(a["out"], fa, a["pattern"])["symvers"])
    ch = churn(sa, sv)
    loaded = sum(1 for v in verdicts.values() if v == "loaded")
    n = len(verdicts)
    res = {"from": tables.fill(a["pattern"], fa), "to": tables.fill(b["pattern"], tb),
           "from_line": a["name"], "to_line": b["name"], "of": n, "loaded": loaded,
           "refused_by": reasons, **ch,
           "survive": {"per-upload": 0, "bump-on-crc-change":
                       0 if ch["crc_changed"] or ch["removed"] else n,
                       "never-bump": n, "what the kernel did": loaded}}
    # the booted sample: the to-kernel with the from-upload's copies
    cases, pred = [], {}
    root = upload_paths(a["out"], fa, a["pattern"])["root"]
    for mod, check in sample:
        if mod not in facts:
            continue
        ko = str(root / facts[mod]["path"])
        deps = [str(root / facts[d]["path"]) for d in boot.dep_order(mod, facts)]
        cases.append((mod, "-", ko, deps, check))
        pred[mod] = verdicts[mod]
    if cases:
        os.environ["HIST_ABINAME"] = b["pattern"]     # the to-kernel's paths
        got = boot.boot_all(b["out"], tb, f"from-{a['name']}", cases, {})
        res["sample"] = [{"module": m, "predicted": pred[m], "observed": got[m]["outcome"],
                          "check": got[m]["check"],
                          "agree": (pred[m] == "loaded") == (got[m]["outcome"] == "loaded")}
                         for m in pred]
    return res


def strip(data):
    """Debian's transition: every upload run, in upgrade order, by mechanism."""
    return plot.svg_strip([(u["abiname"], (u.get("mechanism") or {}).get("label") or "not fetched")
                           for u in data.get("uploads") or []],
                          "What each Debian upload's kernel checks on a module load")


def main(argv):
    if len(argv) != 4:
        print("usage: python3 -m history.across ROOT LINES.tsv SAMPLE.tsv", file=sys.stderr)
        return 2
    root, lines_path, sample_path = pathlib.Path(argv[1]), argv[2], argv[3]
    try:
        lines = read_lines(lines_path)
        sample = boot.read_sample(sample_path)
    except (OSError, ValueError) as e:
        print(f"history: {e}", file=sys.stderr)
        return 1
    res = {"lines": [], "uploads": [], "upgrades": []}
    rc = 0
    for ln in lines:
        h = pathlib.Path(ln["out"]) / "history.json"
        res["lines"].append({k: ln[k] for k in ("name", "pattern", "suites", "apt", "out")}
                            | {"uploads": [tables.fill(ln["pattern"], n)
                                           for n in ln["uploads"]],
                               "history": str(h) if h.exists() else None})
        res["uploads"] += [upload_row(ln, n) for n in ln["uploads"]]
    fetched = [ln for ln in lines if ln["uploads"]]
    for a, b in zip(fetched, fetched[1:]):
        try:
            up = cross(a, b, sample)
        except (FactsError, OSError) as e:
            print(f"history: {a['name']} -> {b['name']}: {e}", file=sys.stderr)
            rc = 1
            continue
        bad = [c for c in up.get("sample", []) if not c["agree"]]
        for c in bad:
            print(f"history: {up['from']} {c['module']} into {up['to']}: host predicted "
                  f"{c['predicted']}, the boot said {c['observed']}", file=sys.stderr)
            rc = 1
        print(f"history: {up['from']} -> {up['to']}: {up['loaded']}/{up['of']} load "
              f"({', '.join(f'{k} {v}' for k, v in sorted(up['refused_by'].items())) or 'none refused'})"
              f"; sample {sum(1 for c in up.get('sample', []) if c['agree'])}/"
              f"{len(up.get('sample', []))} as predicted", file=sys.stderr)
        res["upgrades"].append(up)
    (root / "lines.json").write_text(json.dumps(res, indent=1))
    try:
        (root / "lines.svg").write_text(strip(res))
    except ValueError:
        pass
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
