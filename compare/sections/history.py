# SPDX-License-Identifier: GPL-2.0
"""Real updates: Debian's own kernel uploads of the base, their in-tree modules
and real DKMS modules, and what each versioning policy does with them (make
history)."""
import json

from core import tables
from history.summary import svg

from .. import doc
from .cells import NONE, num

KEY = "history"
TITLE = "Real updates: Debian's uploads"


def line_of(data):
    """(base, ABI name of upload n, upload order of an ABI name) of the
    history line the file was made from (a file without: the selected base)."""
    b = tables.base()
    pattern = data.get("abiname") or b["abiname"]

    def number(abi):
        n = tables.upload_of(pattern, abi)
        return (-1,) if n is None else tables.upload_key(n)
    return data.get("base") or b["base"], lambda n: tables.fill(pattern, n), number


def load(build, report):
    try:
        with open(build / "history" / "history.json") as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def blocks(data, report):
    base, name, number = line_of(data)
    out = [doc.H(2, f"Real updates: Debian's {base} uploads")]
    ups = data.get("uploads") or []
    out.append(doc.P(f"{len(ups)} uploads the archive serves: "
                     + ", ".join(f"{u['abiname']} ({u['version']}, {num(u.get('modules'))} modules)"
                                 for u in ups)
                     + ". Host prediction: every __versions entry (module_layout included) of the "
                     "from-upload's module and its from-upload dependencies against the "
                     "to-upload's Module.symvers."))
    cons = [u for u in data.get("updates") or [] if u.get("consecutive")]
    pols = list((data.get("policies") or {}).keys())
    rows = []
    for u in cons:
        s = u["survive"]
        rows.append([f"{u['from']} → {u['to']}", num(u["crc_changed"]), num(u["added"]),
                     num(u["removed"]), "changed" if u["module_layout_changed"] else "same"]
                    + [f"{num(s[p]['modules'])}/{num(s[p]['of'])}" for p in pols]
                    + [num(s["never-bump"].get("unsafe")),
                       f"{u['agree']}/{u['sampled']}",
                       f"{u['forced']['needless']}/{u['forced']['needed']}/{u['forced']['unknown']}"])
    out.append(doc.Table(["update", "CRCs changed", "exports added", "removed", "module_layout"]
                         + [f"survive: {p}" for p in pols]
                         + ["never-bump: unsafe loads", "boot = host", "forced: needless/needed/unknown"],
                         rows, align="lrrrl" + "r" * (len(pols) + 3)))
    out.append(doc.UL([[doc.Bold(p), ": " + d] for p, d in (data.get("policies") or {}).items()]))
    try:
        out.append(doc.Figure(svg(data), "../history/history.svg",
                              "share of the first upload's modules still loadable, per policy"))
    except (ValueError, KeyError, IndexError):
        pass
    tot = {p: {"needless": 0, "needed": 0, "unknown": 0} for p in pols}
    for u in data.get("updates") or []:
        for p in pols:
            for k in tot[p]:
                tot[p][k] += (u.get("refusals") or {}).get(p, {}).get(k, 0)
    out.append(doc.Table(["policy", "sampled refusals (every upload pair)", "needless (works when forced)",
                          "needed (fails forced)", "unknown (no self-check)"],
                         [[doc.Bold(p), num(sum(t.values())), num(t["needless"]),
                           num(t["needed"]), num(t["unknown"])] for p, t in tot.items()],
                         align="lrrrr"))
    out += estimate_table(data.get("estimates"))
    sample = data.get("sample") or []
    if sample:
        out.append(doc.Details(f"The booted sample ({len(sample)} loads)", [doc.Table(
            ["from", "to", "module", "class", "own copy (control)", "host predicted", "boot",
             "check", "forced", "forced check", "forced: last kernel line"],
            [[name(c["from"]), name(c["to"]), doc.Code(c["module"]), c.get("class") or NONE,
              c.get("control") or NONE, c["predicted"],
              c["observed"], c.get("check") or NONE, c.get("forced") or NONE,
              c.get("forced_check") or NONE,
              doc.Code(c["forced_reason"]) if c.get("forced") and c.get("forced_reason") else NONE]
             for c in sample])]))
    dk = data.get("dkms") or []
    if dk:
        later = sorted({k for d in dk for k in d["outcomes"]}, key=number)
        out.append(doc.H(3, "Out-of-tree (DKMS) modules"))
        out.append(doc.Table(["module", "package", "built for", "build", "on its own kernel"]
                             + later,
                             [[doc.Code(d["module"]), d["package"], d["built_for"],
                               d.get("build", "ok"), own(d)]
                              + [d["outcomes"].get(k, NONE) for k in later]
                              for d in dk]))
        out += dkms_updates(data.get("dkms_updates"))
    return out


def own(d):
    """A build on the kernel it was built for: loaded, or the lab's or the
    module's fault (then none of its loads counts for a policy)."""
    if d.get("build", "ok") != "ok":
        return NONE
    bad = d.get("own_kernel")
    return f"{bad['verdict']}: {bad['why']}" if bad else d["outcomes"].get(d["built_for"], NONE)


def dkms_updates(du):
    """Which out-of-tree modules each upload breaks, per policy."""
    if not du or not du.get("updates"):
        return []
    pols = list(du["updates"][0]["policies"])
    rows = [[f"{u['from']} → {u['to']}", num(u["modules"])]
            + [" / ".join(num(u["policies"][p][k]) for k in
                          ("no longer builds", "rebuild", "keeps", "unsafe")) for p in pols]
            for u in du["updates"]]
    try:
        from history.summary import dkms_svg
        fig = [doc.Figure(dkms_svg({"dkms_updates": du}), "../history/dkms.svg",
                          "share of out-of-tree modules each upload forces to rebuild, per policy")]
    except (ValueError, KeyError):
        fig = []
    out = fig + [doc.P("Each upload and the out-of-tree modules built for the upload before it, per "
                 "policy: no longer builds (the source fails against the new headers: no "
                 "versioning helps) / rebuild forced (the old build is refused) / the old build "
                 "keeps loading / of those, loads the booted kernel's modversions refused."),
           doc.Table(["update", "modules"] + pols, rows, align="lr" + "r" * len(pols))]
    if du.get("excluded"):
        out.append(doc.P("Out of every policy's numbers (did not load into their own kernel): "
                         + "; ".join(f"{x['module']} built for {x['built_for']}: "
                                     f"{x['verdict']} ({x['why']})" for x in du["excluded"])))
    return out


def estimate_table(est):
    """Per class of module, the share of each policy's refusals that were
    needless (the module worked when forced), with its 95% interval."""
    if not est:
        return []
    pols = [p for p in est if est[p]]
    classes = sorted({c for p in pols for c in est[p]})
    if not classes:
        return []

    def cell(k):
        if not k:
            return NONE
        n = k["needless"] + k["needed"]
        if not n:
            return f"– ({k['unknown']} unknown)"
        lo, hi = k["interval"]
        return (f"{k['needless']}/{n} = {100 * k['share']:.0f}% [{100 * lo:.0f}–{100 * hi:.0f}%]"
                + (f", {k['unknown']} unknown" if k["unknown"] else ""))
    return [doc.P("Needless refusals per class of module: of the sampled modules each policy "
                  "refuses, how many worked when forced (needless/judged, 95% Wilson interval); "
                  "unknown: the to-kernel's own copy does not pass its check in the guest, or "
                  "the module has none: in no estimate."),
            doc.Table(["class"] + pols, [[c] + [cell(est[p].get(c)) for p in pols]
                                         for c in classes], align="l" + "r" * len(pols))]

