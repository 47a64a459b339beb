# SPDX-License-Identifier: GPL-2.0
"""make fuzz's results file after the runs: crash counts, what every arm did
with each signature's input (from the boots' console logs), and
--reclassify, which re-reads saved logs with today's rules."""
import glob
import json
import os

from core import tables

from . import cause, minimize, signature
from .guest import Boot, crashes_of, read_boot

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()


def count_crashes(res):
    """An arm's loader crashes and module-content crashes, from its signatures."""
    sigs = res.get("signatures", [])
    res["crashes"] = sum(s["count"] for s in sigs if not s["in_module"])
    res["module_code_crashes"] = sum(s["count"] for s in sigs if s["in_module"])


def content_of_finding(arm, s, arms_dir):
    """"content: ..." when a saved minimized input changes only module content."""
    inp = s.get("input") or ""
    inp = inp if os.path.isabs(inp) else os.path.join(B, inp)
    seed = os.path.join(arms_dir, arm, "mods", "main", s.get("seed_module") or "?")
    if "-valid" in arm:     # make fuzz FUZZ_VALID: the seed is make valid's build
        base, _, tag = arm.partition("-valid")
        arch = tag[1:] or tables.arches()[0]["name"]
        hits = glob.glob(os.path.join(B, "valid", f"{arch}-*", "arms", base, "obj",
                                      "**", s.get("seed_module") or "?"), recursive=True)
        seed = hits[0] if hits else seed
    try:
        with open(seed, "rb") as f:
            a = f.read()
        with open(inp, "rb") as f:
            b = f.read()
    except OSError:
        return None
    if a == b:
        return cause.CARRIED
    what = cause.content_only(a, b, minimize.changed(a, b))
    return f"content: {what}" if what else None


def restores_of(out, arm, boots):
    """How many of an arm's fuzz runs 1..boots restored its saved guest."""
    n = 0
    for i in range(1, boots + 1):
        try:
            with open(os.path.join(out, "boots", "arms", arm, "boot", f"fuzz-{i}.cmd")) as f:
                n += "-incoming" in f.read()
        except OSError:
            pass
    return n


def outcomes(out, arm, boots):
    """{input: "loaded" | "refused" | "crash in FUNCTION"} of an arm's fuzz
    runs 1..boots, from their console logs."""
    res = {}
    for i in range(1, boots + 1):
        b = read_boot(os.path.join(out, "boots", "arms", arm, "boot", f"fuzz-{i}.log"))
        if not b:
            continue
        crashes = crashes_of(b)
        for n in b.started:
            res[n] = "loaded" if n in b.loaded else "refused"
        for n, lines in crashes.items():
            sig = signature.signature(lines)
            res[n] = f"crash in {sig[1]}" if sig else "crash"
    return res


def cross_outcomes(results, out):
    """Each signature's first input, as every other arm of the results fared
    with it: the same (seed, index), the same mutations of that arm's build
    of the seed module. A crash of the pristine kernel that the series refuse shows
    here as fixed."""
    seen = {arm: outcomes(out, arm, a["boots"]) for arm, a in results["arms"].items()
            if "error" not in a and a.get("boots")}
    # an input is the same mutation only among arms of one seed set: the
    # workload's (ARM, ARM-kasan) or make valid's of one architecture
    # (ARM-valid, ARM-valid.ARCH)
    family = lambda a: a.partition("-valid")[2] if "-valid" in a else None     # noqa: E731
    for arm, a in results["arms"].items():
        for s in a.get("signatures", []):
            s["elsewhere"] = {other: o[s["index"]] for other, o in seen.items()
                              if other != arm and family(other) == family(arm)
                              and s["index"] in o}


def reclassify(jpath, arms_dir):
    """Re-read each signature's first input from the saved console logs with
    today's signature.py (its module-content rules)."""
    with open(jpath) as f:
        results = json.load(f)
    for arm, a in results["arms"].items():
        lines = {}
        for p in glob.glob(os.path.join(os.path.dirname(jpath), "boots", "arms", arm, "boot",
                                        "fuzz-*.log")):
            lines.update(crashes_of(read_boot(p) or Boot([])))
        if "restores" not in a and "boots" in a:
            # results of a runner that did not count them: from its boots' commands
            a["restores"] = restores_of(os.path.dirname(jpath), arm, a["boots"])
        for s in a.get("signatures", []):
            sig = signature.signature(lines.get(s["index"], []))
            if sig:
                s["title"], s["function"], s["in_module"] = sig
            else:
                s["function"], s["in_module"] = signature.content(s["function"], s.get("in_module"))
            if not s["in_module"]:
                s["in_module"] = content_of_finding(arm, s, arms_dir)
            if not s["in_module"] and s.get("split"):
                s["in_module"] = s["split"]["in_module"]      # a boot showed it (run.split_test)
        count_crashes(a)
    cross_outcomes(results, os.path.dirname(jpath))
    with open(jpath, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    return 0
