# SPDX-License-Identifier: GPL-2.0
"""The base's kernel generations (gens.tsv) and the distributor's string
policies (policies.tsv): one reader each, and which kernels each generation
boots, for Python and (through the CLI below) for the shell. The paths and
the other tables are core/tables.py's.

    python3 -m core.generations gens            the generations GENS names (checked)
    python3 -m core.generations kernels ABI     one line per generation kernel (GENS)
                                                   to build: GEN PATCH KID STRING
                                                   (STRING "-": the arm's own);
                          kernels --release        the same for a release string
                                                   (STRING: the CONFIG_LOCALVERSION)

A malformed line is one TableError naming FILE:LINE; the CLI prints it on
stderr and exits 1.
"""
import json
import os
import sys

from core.tables import (TableError, _unique, build_dir, gens_tsv, policies_tsv, read_tsv,
                         run_cli, symbols)

# What a generation may declare it breaks (gens.tsv's optional "breaks"
# column): "rebuilt" = even a module rebuilt from unchanged source against
# it misbehaves (a semantic change with no header change); "layout" = a
# structure the module loader reads from every module (struct module, or
# what it parses out of the module's sections: kernel_param, kernel_symbol,
# exception tables ...) changes layout, so every module built for an older
# generation is incompatible, whatever it imports.
BREAKS = ("rebuilt", "layout")
# What a generation may declare it costs (gens.tsv's optional "cost"
# column): "full" = its patch touches a header nearly every object
# includes, so each arm rebuilds the whole kernel for it (and again to go
# back to G0). Such a generation runs only when GENS names it (or GENS=all).
COSTS = ("full",)
ALL_GENS = "all"


def gens(path=None):
    """The generations: [{gen, patch, changes, removes, note, breaks, cost}] (lists)."""
    path = path or gens_tsv()
    rows = read_tsv(path, ["gen", "patch", "changes", "removes", "note", "breaks", "cost"],
                    optional=2, keep_line=True)
    for g in rows:
        g["changes"], g["removes"] = symbols(g["changes"]), symbols(g["removes"])
        g["breaks"] = symbols(g["breaks"])
        bad = [b for b in g["breaks"] if b not in BREAKS]
        if bad:
            raise TableError(f"{path}:{g['line']}: breaks: unknown {', '.join(bad)} "
                             f"(known: {', '.join(BREAKS)})")
        if g["cost"] not in COSTS + ("-",):
            raise TableError(f"{path}:{g['line']}: cost: unknown {g['cost']} "
                             f"(known: -, {', '.join(COSTS)})")
        del g["line"]
    return _unique(path, rows, "gen", "generations")


def wanted_gens():
    """The generations GENS names (the environment: the one way it arrives,
    from make or the caller), as select_gens() reads it."""
    return select_gens(gens(), os.environ.get("GENS", "").split())


def breaks_old_module(gen, imports):
    """Is a module built for G0 that imports these symbols incompatible with gen?"""
    return "layout" in gen["breaks"] or bool(set(imports) & set(gen["changes"]))


def declares_change(gen):
    """Does gen's declaration say some module built for G0 is incompatible?"""
    return bool(gen["changes"]) or "layout" in gen["breaks"]


def select_gens(all_gens, wanted):
    """The generations named in wanted; when empty, all but those of cost
    "full"; "all": every one. TableError on an unknown one."""
    if list(wanted) == [ALL_GENS]:
        return list(all_gens)
    known = [g["gen"] for g in all_gens]
    bad = [g for g in wanted if g not in known]
    if bad:
        raise TableError(f"GENS: unknown generation(s) {' '.join(bad)} "
                         f"(known: {' '.join(known)}, or {ALL_GENS})")
    if not wanted:
        return [g for g in all_gens if g["cost"] == "-"]
    return [g for g in all_gens if g["gen"] in wanted]


# A policy's rule: does the distributor bump the string for generation g?
# "detect:NAME" rules ask detector NAME (detect/, its results in
# B/detect/detectors.json, written by `make detect` before the string arms
# build their generations); "changes" reads the declaration: the oracle.
RULES = {
    "never": lambda g: False,
    "always": lambda g: True,
    "changes": declares_change,
}
DETECT_RULE = "detect:"
ORACLE_RULES = ("changes",)


def detectors_json():
    return os.path.join(build_dir(), "detect", "detectors.json")


_DETECTED = {}


def detected(path=None):
    """{detector: {gen: result}} of detect.run, {} before it ran."""
    path = path or detectors_json()
    if path not in _DETECTED:
        try:
            with open(path, encoding="utf-8") as f:
                _DETECTED[path] = json.load(f).get("detectors") or {}
        except FileNotFoundError:
            _DETECTED[path] = {}
        except (OSError, ValueError) as e:
            raise TableError(f"{path}: {e}") from None
    return _DETECTED[path]


def _known_rule(rule):
    return rule in RULES or (rule.startswith(DETECT_RULE) and len(rule) > len(DETECT_RULE))


def policies(path=None, runnable=True):
    """The string policies: [{policy, rule, note, oracle}]; rule is a key of
    RULES or detect:NAME. runnable: without the detector policies whose
    detector has not run (the dwarf one needs its own build)."""
    path = path or policies_tsv()
    rows = _unique(path, read_tsv(path, ["policy", "rule", "note"], keep_line=True),
                   "policy", "policies")
    for p in rows:
        if not _known_rule(p["rule"]):
            raise TableError(f"{path}:{p['line']}: unknown rule {p['rule']} "
                             f"(known: {', '.join(RULES)}, {DETECT_RULE}NAME)")
        p["oracle"] = p["rule"] in ORACLE_RULES
        del p["line"]
    if runnable:
        have = detected()
        rows = [p for p in rows if not p["rule"].startswith(DETECT_RULE)
                or p["rule"][len(DETECT_RULE):] in have]
    return rows


def bumps(policy, gen):
    rule = policy["rule"]
    if rule.startswith(DETECT_RULE):
        det = rule[len(DETECT_RULE):]
        res = detected().get(det, {}).get(gen["gen"])
        if res is None:
            raise TableError(f"policy {policy['policy']}: detector {det} has no result for "
                             f"{gen['gen']} in {detectors_json()} (run: make detect)")
        return bool(res["bump"])
    return RULES[rule](gen)


def bump_string(kind, abi, g):
    """The string a bumping policy gives generation g: ABI.Gn for an ABI
    string; for the release, the CONFIG_LOCALVERSION that lab/gens.sh sets
    (-Gn: the release becomes G0's release + -Gn)."""
    return f"{abi}.{g}" if kind == "abi" else f"-{g}"


def gen_kernels(gen, abi, pols=None, kind=None):
    """The boots of one generation: [{boot, policy, kid, string, shared_by}].

    An arm without a string (kind "-" or None and no ABI) boots the
    generation once (policy None). With one (kind "abi", or any abi given;
    kind "release"), each policy gets a string; the kernel is keyed by the
    string, so policies giving the same string share it and its boot: kid
    and boot G<n> when the string is the arm's own (not bumped), else
    G<n>-<first policy that bumps it>; shared_by: the other policies whose
    cases reuse that boot's outcome (on the first policy's boot entry)."""
    g = gen["gen"]
    if kind is None or kind == "-" or (kind == "abi" and not abi):
        kind = "abi" if abi else None
    if not kind:
        return [{"boot": g, "policy": None, "kid": g, "string": None, "shared_by": []}]
    out, first = [], {}
    for p in (policies() if pols is None else pols):
        string = bump_string(kind, abi, g) if bumps(p, gen) else None
        if string in first:
            first[string]["shared_by"].append(p["policy"])
            continue
        kid = g if string is None else f"{g}-{p['policy']}"
        first[string] = {"boot": kid, "policy": p["policy"], "kid": kid, "string": string,
                         "shared_by": []}
        out.append(first[string])
    return out



def main(argv):
    cmd, args = (argv[0], argv[1:]) if argv else (None, [])
    if cmd == "gens" and not args:
        print("\n".join(g["gen"] for g in wanted_gens()))
    elif cmd == "kernels" and len(args) == 1:
        abi, kind = args[0], None
        if abi.startswith("--"):    # --release, --abi=STRING, --none
            kind, _, abi = abi[2:].partition("=")
            kind = {"none": "-"}.get(kind, kind)
        for g in wanted_gens():
            seen = set()
            for k in gen_kernels(g, "" if abi == "-" else abi, kind=kind):
                if k["kid"] not in seen:
                    seen.add(k["kid"])
                    print(g["gen"], g["patch"], k["kid"], k["string"] or "-", sep="\t")
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    run_cli(main)
