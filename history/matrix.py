# SPDX-License-Identifier: GPL-2.0
"""The host-side matrix: for every ordered pair of uploads (from, to) and every
module of the from-upload, would the to-kernel's modversions check accept it,
loaded with its dependencies from the same from-upload? And the CRC churn of
each update, and what each versioning policy would have done.

    python3 -m history.matrix OUT ABINUM...   -> OUT/matrix.json
"""
import json
import os
import pathlib
import sys

from core import tables
from history.modfacts import FactsError, modname, module_facts, read_symvers


def upload_paths(out, n, line=None):
    """Where upload n of the history line (a pattern; default the one being
    run, tables.history_line()) is unpacked under OUT."""
    root = pathlib.Path(out) / "up" / str(n)
    rel = f"{tables.fill(line or tables.history_line(), n)}-{tables.flavour()}"
    return {"root": root, "mods": root / "lib/modules" / rel / "kernel",
            "symvers": root / "usr/src" / f"linux-headers-{rel}" / "Module.symvers",
            "vmlinuz": root / "boot" / f"vmlinuz-{rel}"}


def upload_facts(out, n, line=None):
    """{module name: facts + path} of one upload, cached in up/N/facts.json."""
    p = upload_paths(out, n, line)
    cache = p["root"] / "facts.json"
    if cache.exists():     # names as module_facts() gives them, also in an older cache
        facts = json.loads(cache.read_text())
        if all("softdep" in v for v in facts.values()):
            return {modname(k): dict(v, depends=[modname(d) for d in v["depends"]])
                    for k, v in facts.items()}
    facts = {}
    for dirpath, _, files in os.walk(p["mods"]):
        for f in files:
            if f.endswith(".ko"):
                path = os.path.join(dirpath, f)
                m = module_facts(path)
                m["path"] = os.path.relpath(path, p["root"])
                facts[m["name"] or modname(f[:-3])] = m
    if not facts:
        raise FactsError(f"upload {n}: no .ko under {p['mods']}")
    cache.write_text(json.dumps(facts))
    return facts


def vermagic_rest(vm):
    """vermagic without the release (the loader skips it when the module has CRCs)."""
    return vm.split(" ", 1)[1] if " " in vm else ""


def has_modversions(magic):
    """Does the kernel whose vermagic this is check symbol versions?"""
    return "modversions" in magic.split()


def own_verdict(m, to_vmlinux, to_magic):
    """'loaded' or 'refused:<reason>' for one module alone against the to-kernel
    whose full vermagic is to_magic, as its loader decides (same_magic()): a
    modversions kernel skips the release of a module that has CRCs and checks
    the CRCs; a kernel without modversions compares the whole string.

    Symbols its from-upload dependencies export always match (they come along);
    only the to-kernel's vmlinux exports are checked, as the loader does."""
    modv = has_modversions(to_magic)
    if modv and m["versions"]:
        if vermagic_rest(m["vermagic"]) != vermagic_rest(to_magic):
            return "refused:vermagic"
    elif m["vermagic"] != to_magic:
        return "refused:vermagic"
    if not modv:
        return "loaded"
    # the loader checks module_layout first (check_modstruct_version)
    for sym, crc in sorted(m["versions"].items(), key=lambda kv: kv[0] != "module_layout"):
        if sym in to_vmlinux and to_vmlinux[sym] != crc:
            return f"refused:crc-mismatch:{sym}"
    return "loaded"


def closure(name, facts):
    """name and every module it depends on, transitively (from the same upload)."""
    seen, todo = [], [name]
    while todo:
        x = todo.pop()
        if x in seen or x not in facts:
            continue
        seen.append(x)
        todo += facts[x]["depends"]
    return seen


def predict(from_facts, to_symvers, to_magic):
    """{module: verdict}: a module loads when it and all its dependencies pass."""
    vml = {s: c for s, (c, owner) in to_symvers.items() if owner == "vmlinux"}
    own = {name: own_verdict(m, vml, to_magic) for name, m in from_facts.items()}
    out = {}
    for name in from_facts:
        bad = [d for d in closure(name, from_facts) if own[d] != "loaded"]
        out[name] = "loaded" if not bad else (
            own[name] if bad[0] == name or own[name] != "loaded" else f"refused:dependency:{bad[0]}")
    return out


def churn(a, b):
    """CRC changes between two Module.symvers: {changed, added, removed, module_layout_changed}."""
    common = a.keys() & b.keys()
    return {"crc_changed": sum(1 for s in common if a[s][0] != b[s][0]),
            "added": len(b.keys() - a.keys()), "removed": len(a.keys() - b.keys()),
            "module_layout_changed": "module_layout" in common
            and a["module_layout"][0] != b["module_layout"][0]}


def main(argv):
    if len(argv) < 3:
        print("usage: python3 -m history.matrix OUT ABINUM...", file=sys.stderr)
        return 2
    out, nums = argv[1], sorted(argv[2:], key=tables.upload_key)
    try:
        facts = {n: upload_facts(out, n) for n in nums}
        symvers = {n: read_symvers(upload_paths(out, n)["symvers"]) for n in nums}
    except (FactsError, OSError) as e:
        print(f"history: {e}", file=sys.stderr)
        return 1
    magic = {}
    for n in nums:
        # the kernel's own vermagic is the one its modules carry
        magics = {m["vermagic"] for m in facts[n].values()}
        if len(magics) != 1:
            print(f"history: upload {n}: modules disagree about vermagic: {sorted(magics)}",
                  file=sys.stderr)
            return 1
        magic[n] = magics.pop()
    pairs = {}
    for i, f in enumerate(nums):
        for t in nums[i + 1:]:
            v = predict(facts[f], symvers[t], magic[t])
            pairs[f"{f}->{t}"] = {"from": f, "to": t, "verdicts": v,
                                  "loaded": sum(1 for x in v.values() if x == "loaded"),
                                  "of": len(v), **churn(symvers[f], symvers[t])}
    consec = {f"{a}->{b}": churn(symvers[a], symvers[b]) for a, b in zip(nums, nums[1:])}
    res = {"uploads": nums, "modules": {n: len(facts[n]) for n in nums},
           "pairs": pairs, "consecutive": consec}
    pathlib.Path(out, "matrix.json").write_text(json.dumps(res))
    for k, p in pairs.items():
        print(f"{k}: {p['loaded']}/{p['of']} load, {p['crc_changed']} CRCs changed, "
              f"+{p['added']} -{p['removed']}, module_layout "
              f"{'changed' if p['module_layout_changed'] else 'same'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
