# SPDX-License-Identifier: GPL-2.0
"""The valid modules section: make valid's real in-tree modules (lab/valid.sh,
valid/boot.py), from build/valid/ARCH-SET/valid.json: per architecture and
arm, modules built, loaded, refused; every module a series refuses that the
reference arm loads, with the kernel's words; per ELF feature how many of the
modules carried it, so a reader sees what the run covered."""
import json

from .. import doc

KEY = "valid"
TITLE = "Valid modules"


def build_cell(a):
    """A clean build's CPU seconds; an incremental one (lab/valid.sh starts
    from the arm's own objects when it can) is not a cost."""
    if a.get("build_cpu_s") is not None:
        return a["build_cpu_s"]
    frm = a.get("build_from")
    return f"- (incremental on {frm}'s build)" if frm and frm != "clean" else "-"


def load(build, report):
    """{"ARCH-SET": valid.json} of every make valid run of this base; None before any."""
    runs = {}
    for p in sorted((build / "valid").glob("*/valid.json")):
        try:
            runs[p.parent.name] = json.loads(p.read_text())
        except (OSError, ValueError) as e:
            runs[p.parent.name] = {"error": f"{p}: {e}"}
    return runs or None


def blocks(data, report):
    out = [doc.H(2, TITLE), doc.P(
        "make valid: a module set of real in-tree modules (valid/SET.config) built into the "
        "reference arm and each series arm from one tree and config, every module loaded in a "
        "TCG guest with its dependencies first (depends=, softdep pre:) and unloaded, one guest "
        "per arm (resumed after a crash). A module's own init decides part of its outcome (a "
        "driver without its device, a self-test): what counts is that a series loads every "
        "module the reference arm loads.")]
    for name, run in data.items():
        if "error" in run:
            out.append(doc.P(f"{name}: {run['error']}"))
            continue
        ref = run["reference"]
        cc = f", {run['compiler']}" if run.get("compiler") else ""
        out.append(doc.H(3, f"{run['arch']}, set {run['set']}{cc}"))
        rows = []
        for arm, a in run["arms"].items():
            fails = sum(1 for f in run["failures"] if f["arm"] == arm)
            rows.append([doc.Bold(arm), a["built"], a["booted"], a["loaded"], a["refused"],
                         a["crashed"], a["not_reached"],
                         "reference" if arm == ref else fails, a["boots"],
                         build_cell(a)])
        out.append(doc.Table(["arm", "modules built", "booted", "loaded", "refused",
                              "crashed", "not reached", f"refused, {ref} loads", "boots",
                              "clean build CPU s"], rows, align="lrrrrrrrrr"))
        if run["failures"]:
            out.append(doc.Table(["arm", "module", "outcome", "the kernel's words"],
                                 [[f["arm"], doc.Code(f["module"]), f["outcome"], f["reason"]]
                                  for f in run["failures"]], align="llll"))
        else:
            out.append(doc.P(f"No module that {ref} loads was refused by "
                             f"{', '.join(a for a in run['arms'] if a != ref) or 'another arm'}."))
        refused = {m: r for m, r in run["arms"][ref]["results"].items()
                   if r["outcome"] != "loaded"}
        if refused:
            out.append(doc.Details(
                f"{len(refused)} module(s) {ref} itself does not load (their own init, or no "
                "device), and what each arm did",
                [doc.Table(["module"] + list(run["arms"]),
                           [[doc.Code(m)] + [cell(run["arms"][a]["results"].get(m))
                                             for a in run["arms"]]
                            for m in sorted(refused)], align="l" * (1 + len(run["arms"])))]))
        if run.get("extra_loads"):
            out.append(doc.P("Loaded by a series arm, not by the reference: " + ", ".join(
                f"{e['module']} ({e['arm']}; {ref}: {e['reference']})" for e in run["extra_loads"])))
        extra = run.get("extra") or {}
        if extra:
            pkgs = list(dict.fromkeys(p for a in extra.values() for p in a))
            out.append(doc.P("Modules from elsewhere, built with M= against each arm's own build "
                             "and loaded with the in-tree ones (the pass rule covers them): "
                             "the -dkms packages of the base's suite, a user's MODULES=DIR."))
            rows = []
            for p in pkgs:
                cells = [extra_cell(extra[arm].get(p)) for arm in extra]
                # an arm that fared as the first one says so, not the same words again
                rows.append([next((a[p]["source"] for a in extra.values() if p in a), p)]
                            + cells[:1] + [f"as {list(extra)[0]}" if c == cells[0] else c
                                           for c in cells[1:]])
            out.append(doc.Table(["source"] + list(extra), rows, align="l" * (1 + len(extra))))
        titles = run.get("feature_titles", {})
        n = len(run.get("modules", {}))
        out.append(doc.Table(["what the modules carry", f"modules (of {n})"],
                             [[titles.get(k, k), v] for k, v in run["features"].items()],
                             align="lr"))
        missing = sorted({o for v in run.get("not_taken", {}).values() for o in v})
        if missing:
            out.append(doc.P(f"Asked by valid/{run['set']}.config, not in this tree's "
                             f"configuration (absent on base {run['base']}, or hidden): "
                             + ", ".join(missing)))
        if run.get("skipped"):
            out.append(doc.P("Built, never loaded (valid/skip.tsv): " + "; ".join(
                f"{m}: {w}" for m, w in run["skipped"].items())))
    return out


def cell(r):
    if not r:
        return "-"
    if r["outcome"] == "loaded" or r["reason"] == r["outcome"]:
        return r["outcome"]     # no kernel line said more
    return f"{r['outcome']}: {r['reason']}"


def extra_cell(e):
    """One package against one arm: its modules, or why it did not build."""
    if not e:
        return "-"
    if e["status"] != "built":
        return e["status"]
    return ", ".join(m.rsplit("/", 1)[-1][:-3] for m in e["modules"])
