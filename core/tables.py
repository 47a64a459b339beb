# SPDX-License-Identifier: GPL-2.0
"""The lab's data tables, one reader each, for Python and (through the CLI
below) for the shell and the Makefile: workload/arms.tsv, workload/gens/gens.tsv,
workload/gens/policies.tsv, workload/cases.tsv, workload/probe-cases.tsv,
workload/cross-arm.tsv, workload/robust.tsv, and the boot timeouts.

A malformed line is one TableError naming FILE:LINE; the CLI prints it on
stderr and exits 1.

    python3 -m core.tables arms [ready]         the arms, report order (ready:
                                                   those whose series file exists)
    python3 -m core.tables gens [G...]          the generations (checks G...)
    python3 -m core.tables arms string          the arms whose string a policy sets
    python3 -m core.tables string ARM           abi | release | - (arms.tsv)
    python3 -m core.tables kernels ABI [G...]   one line per generation kernel
                                                   to build: GEN PATCH KID STRING
                                                   (STRING "-": the arm's own);
                       kernels --release [G...]    the same for a release string
                                                   (STRING: the CONFIG_LOCALVERSION)
    python3 -m core.tables timeout boot|long    seconds
"""
import json
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOAD = os.path.join(TOP, "workload")
ARMS_TSV = os.path.join(WORKLOAD, "arms.tsv")
GENS_TSV = os.path.join(WORKLOAD, "gens", "gens.tsv")
POLICIES_TSV = os.path.join(WORKLOAD, "gens", "policies.tsv")
CASES_TSV = os.path.join(WORKLOAD, "cases.tsv")
PROBES_TSV = os.path.join(WORKLOAD, "probe-cases.tsv")
CROSS_TSV = os.path.join(WORKLOAD, "cross-arm.tsv")
ROBUST_TSV = os.path.join(WORKLOAD, "robust.tsv")

# Seconds before a guest is killed: an ordinary boot (make's TIMEOUT default),
# and the long ones (the load-cost bench, the sanitizer builds of make robust).
TIMEOUTS = {"boot": 120, "long": 600}
# The generation every module of the release cases is built for.
RELEASE = "G0"


class TableError(ValueError):
    """A data table that cannot be used: the message names FILE:LINE."""


def read_tsv(path, fields, optional=0, keep_line=False):
    """Rows of a tab-separated table as dicts; '#' and blank lines skipped.

    The last `optional` fields may be left out ("-" then)."""
    rows = []
    try:
        f = open(path, encoding="utf-8")
    except OSError as e:
        raise TableError(f"{path}: {e.strerror or e}") from None
    with f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if not len(fields) - optional <= len(cols) <= len(fields):
                want = (f"{len(fields)}" if not optional else
                        f"{len(fields) - optional} to {len(fields)}")
                raise TableError(f"{path}:{lineno}: want {want} tab-separated columns, "
                                 f"got {len(cols)}")
            cols += ["-"] * (len(fields) - len(cols))
            row = dict(zip(fields, cols))
            if keep_line:
                row["line"] = lineno
            rows.append(row)
    return rows


def _unique(path, rows, key, what):
    names = [r[key] for r in rows]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise TableError(f"{path}: duplicate {what}: {', '.join(dup)}")
    return rows


def symbols(value):
    return [] if value == "-" else value.split(",")


# --- arms -------------------------------------------------------------------

def arms(path=ARMS_TSV):
    """The arms, in report order: [{arm, series, string, note}]."""
    rows = _unique(path, read_tsv(path, ["arm", "series", "string", "note"], keep_line=True),
                   "arm", "arms")
    for a in rows:
        if a["string"] not in STRINGS:
            raise TableError(f"{path}:{a['line']}: string: {a['string']} is not one of "
                             f"{', '.join(STRINGS)}")
        del a["line"]
    return rows


def arm_string(arm, path=ARMS_TSV):
    """What the distributor's policy sets on arm: abi, release or "-"."""
    for a in arms(path):
        if a["arm"] == arm:
            return a["string"]
    raise TableError(f"{path}: no arm {arm}")


def arm_names(path=ARMS_TSV):
    return [a["arm"] for a in arms(path)]


# --- generations and the distributor policies --------------------------------

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


def gens(path=GENS_TSV):
    """The generations: [{gen, patch, changes, removes, note, breaks, cost}] (lists)."""
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
# What a distributor's string is, per arm (arms.tsv's "string" column):
# abi = CONFIG_MODULE_ABI_VERSION, release = the kernel release (vermagic),
# "-" = none (the CRCs decide; one kernel per generation, no policy).
STRINGS = ("abi", "release", "-")


def detectors_json():
    b = os.environ.get("B") or os.path.join(TOP, "build")
    return os.path.join(b, "detect", "detectors.json")


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


def policies(path=POLICIES_TSV, runnable=True):
    """The string policies: [{policy, rule, note, oracle}]; rule is a key of
    RULES or detect:NAME. runnable: without the detector policies whose
    detector has not run (the dwarf one needs its own build)."""
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


# --- the module cases ---------------------------------------------------------

CASE_FIELDS = ["case", "module", "built_by", "flags", "deps", "expected", "note"]


def cases(path=CASES_TSV):
    """The release cases (workload/cases.tsv); deps as a list."""
    rows = read_tsv(path, CASE_FIELDS)
    for c in rows:
        if c["expected"] not in ("compatible", "incompatible"):
            raise TableError(f"{path}: {c['case']}: expected must be compatible|incompatible")
        c["deps"] = symbols(c["deps"])
    return _unique(path, rows, "case", "case names")


def probes(path=PROBES_TSV):
    """The probe users (workload/probe-cases.tsv): [{case, module, note}]."""
    return _unique(path, read_tsv(path, ["case", "module", "note"]), "case", "probe users")


def cross_arm(path=CROSS_TSV):
    """(built_by, arm) -> (expected, why) from workload/cross-arm.tsv."""
    rows = read_tsv(path, ["built_by", "arm", "expected", "why"])
    return {(r["built_by"], r["arm"]): (r["expected"], r["why"]) for r in rows}


def robust(path=ROBUST_TSV, arm_cols=None):
    """The robustness corpus (workload/robust.tsv): one column per arm."""
    cols = arm_names() if arm_cols is None else list(arm_cols)
    rows = read_tsv(path, ["input", "make", "flags", *cols, "note"], keep_line=True)
    return _unique(path, rows, "input", "inputs")


# --- the command line -----------------------------------------------------------

def main(argv):
    if not argv:
        sys.exit(__doc__)
    cmd, args = argv[0], argv[1:]
    if cmd == "arms" and not args:
        print(" ".join(arm_names()))
    elif cmd == "arms" and args == ["ready"]:
        # the pristine arms always; a series arm once its series file exists
        print(" ".join(a["arm"] for a in arms() if a["series"] == "-"
                       or os.path.isfile(os.path.join(TOP, a["series"], "series"))))
    elif cmd == "gens":
        print("\n".join(g["gen"] for g in select_gens(gens(), args)))
    elif cmd == "arms" and args == ["string"]:
        print(" ".join(a["arm"] for a in arms() if a["string"] != "-"))
    elif cmd == "string" and len(args) == 1:
        print(arm_string(args[0]))
    elif cmd == "kernels" and args:
        abi, wanted, kind = args[0], args[1:], None
        if abi.startswith("--"):    # --release, --abi=STRING, --none
            kind, _, abi = abi[2:].partition("=")
            kind = {"none": "-"}.get(kind, kind)
        for g in select_gens(gens(), wanted):
            seen = set()
            for k in gen_kernels(g, "" if abi == "-" else abi, kind=kind):
                if k["kid"] not in seen:
                    seen.add(k["kid"])
                    print(g["gen"], g["patch"], k["kid"], k["string"] or "-", sep="\t")
    elif cmd == "timeout" and len(args) == 1 and args[0] in TIMEOUTS:
        print(TIMEOUTS[args[0]])
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except TableError as e:
        print(f"modvlab: error: {e}", file=sys.stderr)
        sys.exit(1)
