# SPDX-License-Identifier: GPL-2.0
"""Plan the robustness boots (kind robust) of an arm (PLANS=robust): the corpus of
workload/robust.tsv on the release kernel G0, each input followed by a health
check (the good module loads and unloads).

Boots:
  robust          a first health check, then every input whose expectation on
                  this arm is an ordinary refusal or load, each followed by its
                  health check
  robust-<input>  one boot per input that is expected to oops, to set taint F,
                  or that is run with m/v (forced), so that the others still run
                  and a taint bit read back is that input's own

env ROBUST_INPUTS="a b": only these inputs (make test runs a reduced corpus).

The corpus is (re)made first from the arm's good module (core/corpus.py),
so it always derives from the module the arm last built. An arm called
ARM-VARIANT (the sanitizer builds of lab/robust.sh, e.g. base-kasan) is held
to ARM's column; an input declared `-` for the arm is neither made nor run.
Each case record carries kind=robust, input, role (input|health), declared
(the expectation), for compare/robust.py; its `expected` is the declaration,
so it never enters the compatibility verdicts.
"""
import os
import shutil
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from core import corpus

HEALTH = "main/mod-asm-user"
column = corpus.column


def isolated(row, declared):
    return declared == "oops" or declared.endswith("+F") or any(c in row["flags"] for c in "mv")


def add_boots(p, arm, tsv=corpus.TSV):
    col = column(arm)
    if col is None:
        # an arm robust.tsv's header does not name (one a later base added):
        # nothing declares what its loader does, so nothing can be judged
        print(f"plan.robust: {arm}: {os.path.relpath(tsv, TOP)} declares no outcomes for it "
              "(no column): the corpus is not run there", file=sys.stderr)
        return
    rows = corpus.read_tsv(tsv)
    only = os.environ.get("ROBUST_INPUTS", "").split()
    unknown = sorted(set(only) - {r["input"] for r in rows})
    if unknown:
        sys.exit(f"plan.robust: ROBUST_INPUTS: unknown input(s) {' '.join(unknown)} "
                 f"(see {os.path.relpath(tsv, TOP)})")
    if only:
        rows = [r for r in rows if r["input"] in only]
    adir = os.path.join(corpus.ARMS, arm)
    try:
        files = corpus.generate(arm, tsv)
    except corpus.CorpusError as e:
        # no stale corpus may stand in for one that could not be made
        shutil.rmtree(os.path.join(adir, "mods", "corpus"), ignore_errors=True)
        print(f"plan.robust: {arm}: {e}; the robustness cases are not run", file=sys.stderr)
        files = {}
    good = os.path.join(adir, "mods", HEALTH + ".ko")
    missing = lambda name: os.path.join(adir, "mods", "corpus", name + ".ko")

    def rec(case, role, row=None, declared="loaded"):
        r = dict(case=case, kind="robust", role=role, built_by=arm, built_for="G0",
                 flags=row["flags"] if row and role == "input" else "-", deps=[],
                 expected=declared, declared=declared, column=col,
                 input=row["input"] if row else None,
                 make=row["make"] if row else None,
                 note=row["note"] if row and role == "input" else
                 "health check: the good module loads and unloads")
        r["module"] = ("corpus/" + row["input"]) if role == "input" else HEALTH
        return r

    p.boot("robust", "G0", None, loaded_into="robust")
    p.add("robust", rec("health-0", "health"), good)
    for row in rows:
        declared = row.get(col, "?") if col else "?"
        if declared == "-":
            continue
        if row["input"] in files and files[row["input"]] is None:
            # an optional recipe (`name?:SEC`): this arm's module has no SEC
            print(f"plan.robust: {arm}: {row['input']}: not applicable, its module has "
                  f"no {corpus.needed_section(row['make'])} section", file=sys.stderr)
            continue
        boot = "robust"
        if isolated(row, declared):
            boot = "robust-" + row["input"]
            p.boot(boot, "G0", None, loaded_into="robust")
        name = row["input"]
        p.add(boot, rec("robust-" + name, "input", row, declared),
              files.get(name, missing(name)))
        p.add(boot, rec("health-" + name, "health", row), good)
