# SPDX-License-Identifier: GPL-2.0
"""The fuzzing section: make fuzz's structured mutation fuzzer of the module
loader (fuzz/run.py), from build/fuzz/fuzz.json: inputs and speed per arm,
distinct crash signatures, each with its minimized input and the arms it hits."""
import json

from .. import doc

KEY = "fuzzing"
TITLE = "Fuzzing"


def load(build, report):
    """fuzz.json as report.json's "fuzzing": {seed, arms: {arm: {inputs, crashes,
    inputs_per_s, signatures: [{title, input, ...}]}}}; None before make fuzz."""
    try:
        with open(build / "fuzz" / "fuzz.json") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    arms = {}
    for arm, a in data.get("arms", {}).items():
        if "error" in a:
            arms[arm] = {"error": a["error"]}
            continue
        arms[arm] = {k: a.get(k) for k in ("inputs", "crashes", "module_code_crashes",
                                           "inputs_per_s", "inputs_per_s_wall", "boots",
                                           "restores")}
        arms[arm]["signatures"] = [
            {k: s.get(k) for k in ("title", "function", "in_module", "input", "index",
                                   "seed_module", "changed_bytes", "count", "inputs",
                                   "robust_line", "elsewhere")}
            for s in a.get("signatures", [])]
    return {"seed": data.get("seed"), "inputs_per_arm": data.get("inputs_per_arm"),
            "jobs": data.get("jobs"), "arms": arms}


def blocks(data, report):
    out = [doc.H(2, TITLE)]
    arms = data["arms"]
    out.append(doc.P(
        f"make fuzz, seed {data['seed']}: each input is a good workload module with one to five "
        "structured mutations (ELF header, section headers, symbols, string tables, "
        "relocations, __versions, .modinfo, struct module, bytes, truncation), loaded with "
        "init_module(2) in a TCG guest; (seed, index) regenerates it exactly. A crash is any "
        "kernel bug report (Oops, BUG, WARNING, KASAN, UBSAN, panic) or a guest that stopped. "
        "Inputs/s is measured in the guest (boots excluded; with boots, and with "
        f"{data.get('jobs') or 1} guest(s) at a time on this machine, in brackets); every oops "
        "costs a run of the guest: a restore of the arm's guest saved after one boot "
        "(fuzz/snapshot.py; the restores column), or a boot. Counted "
        "apart as module content: a fault in the module's own code (its init ran with a "
        "corrupted body) and the kernel's warnings about the code it patches at sites the "
        "module's own well-formed relocations name (ftrace, alternatives, return thunks): "
        "a module built that way does the same, and no check of the ELF file can tell."))
    rows = []
    for arm, a in arms.items():
        if "error" in a:
            rows.append([doc.Bold(arm), "error", "", "", "", "", "", a["error"]])
            continue
        rows.append([doc.Bold(arm), a["inputs"], a.get("boots") or "", a.get("restores") or 0,
                     # no guest reached a timing line (100 inputs) before it crashed
                     f"{a['inputs_per_s'] or '-'} ({a['inputs_per_s_wall']})",
                     a["crashes"], a.get("module_code_crashes") or 0,
                     len([s for s in a["signatures"] if not s.get("in_module")])])
    out.append(doc.Table(["arm", "inputs", "runs", "restores", "inputs/s", "crashes",
                          "module content", "loader signatures"], rows, align="lrrrrrrr"))
    sigs = {}
    for arm, a in arms.items():
        for s in a.get("signatures", []):
            k = (s["title"], s["function"], bool(s.get("in_module")))
            sigs.setdefault(k, {"arms": [], "first": s})["arms"].append(f"{arm} ({s['count']})")
    if sigs:
        out.append(doc.P("Distinct signatures (first splat line, faulting function); the "
                         "minimized input is the fewest changed bytes from its seed module "
                         "that still crash; build/fuzz/robust-lines.tsv has a ready "
                         "workload/robust.tsv line for each. Elsewhere: what the other arms "
                         "did with the same input (seed, index: the same mutations of their "
                         "own build of the seed module, whose offsets and sizes differ), "
                         "so a pristine crash that the series refuse reads 'refused' there."))
        out.append(doc.Table(
            ["signature", "function", "arms (inputs)", "minimized input", "changed bytes",
             "elsewhere (same input)"],
            [[t + (" (module content)" if m else ""), doc.Code(f), ", ".join(v["arms"]),
              doc.Code(v["first"]["input"] or "?"), v["first"]["changed_bytes"],
              elsewhere(v["first"], v["arms"])]
             for (t, f, m), v in sigs.items()], align="llllll"))
    else:
        out.append(doc.P("No crash on any arm."))
    return out


def elsewhere(sig, hit):
    """"keep refused, remove refused" for the arms not already among `hit`."""
    names = {a.split(" ", 1)[0] for a in hit}
    return ", ".join(f"{arm} {what}" for arm, what in (sig.get("elsewhere") or {}).items()
                     if arm not in names) or "-"
