# SPDX-License-Identifier: GPL-2.0
"""make fuzz --valid SET: seeds from make valid's real modules instead of the
workload's, so the mutations reach every table a real module carries.

The same seeds, in the same order, for every arm (a (seed, index) input is
then the same mutation of each arm's own build of one module): modules that
need no other module (the fuzz guest loads one file) and that every arm of
the valid run loaded, picked greedily for the ELF features
(valid/features.py) not yet covered, then the smallest to fill up. The
health check is the smallest of them that also unloaded cleanly everywhere.
"""
import json
import os


def pick(valid, n):
    """(seed module names, health module name) from a valid.json dict."""
    arms = valid["arms"]
    ok = [m for m in valid["modules"]
          if not valid["needs"].get(m)
          and all(a["results"].get(m, {}).get("outcome") == "loaded" for a in arms.values())]
    if not ok:
        raise ValueError("no module of the valid run loads on its own in every arm")
    size = valid.get("sizes", {})
    order = sorted(ok, key=lambda m: (size.get(m, 0), m))
    chosen, covered = [], set()
    while len(chosen) < n:
        best = max((m for m in order if m not in chosen),
                   key=lambda m: len(set(valid["modules"][m]) - covered), default=None)
        if best is None or not set(valid["modules"][best]) - covered:
            break
        chosen.append(best)
        covered |= set(valid["modules"][best])
    chosen += [m for m in order if m not in chosen][:n - len(chosen)]
    clean = [m for m in order
             if all(a["results"][m].get("unload") == "0" for a in arms.values())]
    if not clean:
        raise ValueError("no module of the valid run unloads cleanly in every arm")
    return chosen, clean[0]


def paths(vdir, arm, n):
    """([seed .ko paths], health .ko path) of ARM's build in the valid run VDIR."""
    with open(os.path.join(vdir, "valid.json")) as f:
        valid = json.load(f)
    if arm not in valid["arms"]:
        raise FileNotFoundError(f"arm {arm} is not in {vdir}/valid.json (make valid)")
    obj = os.path.join(vdir, "arms", arm, "obj")
    seeds, health = pick(valid, n)
    return [os.path.join(obj, valid["paths"][m]) for m in seeds], \
        os.path.join(obj, valid["paths"][health])
