# SPDX-License-Identifier: GPL-2.0
"""The comparison of bases: every base's own report (build/BASE/report/
report.json, written by `make compare BASE=...`) side by side, in
build/bases/bases.{json,md,html}. Nothing here runs a build or a boot: each
cell is a cell of a base's report, and a base without a report is named as
such (the command to make it) and left out.

    python3 -m compare bases [--top DIR] [--out DIR] [BASE...]
"""
import json
import os

from core import tables

from . import doc
from .sections.cells import C, NONE

VERDICT_COLS = [("correct-load", "correct loads"), ("correct-refusal", "correct refusals"),
                ("needless-refusal", "needless refusals"), ("unsafe-load", "unsafe loads"),
                ("lab-error", "lab errors"), ("no-verdict", "no verdict")]
MARK = {"correct-load": "✓", "correct-refusal": "✓", "needless-refusal": "✗ NEEDLESS",
        "unsafe-load": "✗ UNSAFE", "lab-error": "✗ LAB-ERROR", "no-verdict": "·"}


def load_reports(top, names):
    """{base: report} for the bases that have one, and [(base, why)] for the others."""
    have, missing = {}, []
    for name in names:
        path = os.path.join(top, "build", name, "report", "report.json")
        try:
            with open(path, encoding="utf-8") as f:
                rep = json.load(f)
        except OSError:
            missing.append((name, f"no {os.path.relpath(path, top)} (make compare BASE={name})"))
            continue
        except ValueError as e:
            missing.append((name, f"{os.path.relpath(path, top)}: not JSON ({e})"))
            continue
        bench = os.path.join(top, "build", name, "report", "bench.json")
        if os.path.isfile(bench):
            try:
                with open(bench, encoding="utf-8") as f:
                    rep.setdefault("costs", {})["bench"] = json.load(f)
            except ValueError:
                pass
        have[name] = rep
    return have, missing


def provenance(reps):
    rows = []
    for b, r in reps.items():
        p = r.get("provenance") or {}
        skipped = p.get("arms_skipped") or {}
        code = lambda k: C(p[k]) if p.get(k) else NONE     # noqa: E731
        rows.append([doc.Bold(b), code("package"), code("tree"),
                     ", ".join(r.get("arms") or []) or NONE,
                     "; ".join(f"{a}: {w}" for a, w in sorted(skipped.items())) or NONE,
                     code("modvlab_commit"), p.get("date", NONE)])
    return [doc.H(2, "The bases"),
            doc.Table(["base", "package", "tree", "arms run", "arms not run (why)", "lab commit",
                       "date"], rows)]


def verdicts(reps):
    labels = []
    for r in reps.values():
        for lab in r.get("verdicts") or {}:
            if lab not in labels:
                labels.append(lab)
    rows = []
    for lab in labels:
        row = [doc.Bold(lab)]
        for b, r in reps.items():
            v = (r.get("verdicts") or {}).get(lab)
            row.append(NONE if v is None else
                       " / ".join(str(v.get(k, 0)) for k, _ in VERDICT_COLS[:5]))
        rows.append(row)
    return [doc.H(2, "Verdicts per arm and policy"),
            doc.P("Each cell: " + " / ".join(n for _, n in VERDICT_COLS[:5])
                  + ", over every case that arm ran on that base (– : not run there)."),
            doc.Table(["arm/policy"] + list(reps), rows, align="l" + "r" * len(reps))]


def _update_cells(rep):
    """{(gen, probe user): {label: (outcome, verdict)}} of a report's update cases
    (the module built for G0 loaded into generation gen)."""
    out = {}
    for c in rep.get("cases") or []:
        if c.get("kind") != "update":
            continue
        label = c["arm"] + (f"/{c['policy']}" if c.get("policy") else "")
        out.setdefault((c["gen"], c.get("probe") or c["case"]), {})[label] = (
            c.get("outcome", "not-run"), c.get("verdict", "no-verdict"), c.get("expected"))
    return out


def catches(reps):
    """What each versioning mechanism does with the module built for G0, per
    generation: the arms without a distributor policy (the loader alone
    decides: genksyms, gendwarfksyms, the series), every base side by side."""
    cells, cols = {}, []
    for b, r in reps.items():
        for key, by in _update_cells(r).items():
            for label, v in by.items():
                if "/" in label:
                    continue        # a distributor policy: the Verdicts table has it
                col = f"{b}: {label}"
                if col not in cols:
                    cols.append(col)
                cells.setdefault(key, {})[col] = v
    if not cells:
        return []
    gens = {}
    for r in reps.values():
        gens.update(r.get("generations") or {})
    rows = []
    for (g, probe) in sorted(cells, key=lambda k: (int(k[0][1:]) if k[0][1:].isdigit() else 0, k[1])):
        by = cells[(g, probe)]
        exp = next((v[2] for v in by.values() if v[2]), NONE)
        rows.append([doc.Bold(g), C(probe), exp] + [
            f"{by[c][0]} {MARK.get(by[c][1], '')}".strip() if c in by else NONE for c in cols])
    notes = [f"{g}: {v.get('note', '')}" for g, v in sorted(
        gens.items(), key=lambda kv: int(kv[0][1:]) if kv[0][1:].isdigit() else 0)]
    return [doc.H(2, "What each mechanism does with the module built for G0"),
            doc.P("One row per generation and probe user; the columns are the arms whose loader "
                  "alone decides (no distributor string policy), per base. ✓ right, ✗ wrong "
                  "(NEEDLESS: a compatible module kept out; UNSAFE: an incompatible one let in)."),
            doc.Table(["gen", "probe user", "expected"] + cols, rows),
            doc.UL(notes)]


def release(reps):
    """The foundation cases on the release kernel (G0), per base and arm."""
    cells, cols = {}, []
    for b, r in reps.items():
        for c in r.get("cases") or []:
            if c.get("kind") != "release" or c.get("policy"):
                continue
            col = f"{b}: {c['arm']}"
            if col not in cols:
                cols.append(col)
            cells.setdefault(c["case"], {})[col] = (c.get("outcome", "not-run"),
                                                    c.get("verdict", "no-verdict"))
    if not cells:
        return []
    rows = [[C(case)] + [f"{by[c][0]} {MARK.get(by[c][1], '')}".strip() if c in by else NONE
                         for c in cols] for case, by in cells.items()]
    return [doc.H(2, "The release kernel (G0): foundation cases"),
            doc.Table(["case"] + cols, rows)]


def costs(reps):
    rows, tool_rows = [], []
    for b, r in reps.items():
        for arm, a in (r.get("arms") or {}).items() if isinstance(r.get("arms"), dict) else ():
            bj = a.get("build") or {}
            rows.append([doc.Bold(b), doc.Bold(arm), "clean" if bj.get("clean") else "incremental",
                         a.get("build_cpu_s", NONE), a.get("exports", NONE),
                         a.get("unversioned_exports", NONE), a.get("kcrctab_bytes", NONE)])
        bench = (r.get("costs") or {}).get("bench") or {}
        for name, t in (bench.get("tool_cpu_s") or {}).items():
            tool_rows.append([doc.Bold(b), doc.Bold(name), t.get("tool", NONE),
                              "DWARF" if t.get("debug_info") else "none",
                              (t.get("cpu_s") or {}).get("median", NONE),
                              f"{t['ratio_to_none']:.3f}×" if isinstance(t.get("ratio_to_none"),
                                                                         (int, float)) else NONE])
    out = [doc.H(2, "Build cost")]
    if tool_rows:
        out += [doc.P("make bench's clean builds (ccache off), × none at the same debug info:"),
                doc.Table(["base", "build", "tool", "debug info", "CPU s (median)", "× none"],
                          tool_rows, align="llllrr")]
    else:
        out.append(doc.P("make bench has run on no base: the numbers below are the lab's own "
                         "builds (ccache on where warm), not a cost comparison."))
    out.append(doc.Table(["base", "arm", "lab build", "CPU s", "exports", "without a CRC",
                          "__kcrctab bytes"], rows, align="lllrrrr"))
    return out


def _loader_sigs(rep):
    """{arm: [signature]} of a base's fuzz run, loader crashes only (a fault
    in the module's own code is module content, the same on every kernel)."""
    fz = rep.get("fuzzing") or {}
    arms = fz.get("arms") if isinstance(fz.get("arms"), dict) else {}
    return {arm: [s for s in (a.get("signatures") or []) if not s.get("in_module")]
            for arm, a in arms.items() if "error" not in a}


def _sig_name(s):
    return f"{s.get('title', '?')} in {s.get('function') or '?'}"


def across(reps):
    """Each base's loader signatures replayed on every other base, by input:
    the fuzzer names an input by (seed, index), so another base's run with the
    same seed made the same mutations of its own build of the same seed module
    (offsets and sizes differ; the recipe is the same). For each signature:
    how many of its inputs crashed the other base's same arm, and how."""
    rows, tally = [], {}
    for b, r in reps.items():
        fz = r.get("fuzzing") or {}
        for arm, sigs in _loader_sigs(r).items():
            for s in sigs:
                idx = set(s.get("inputs") or [s.get("index")]) - {None}
                for ob, orep in reps.items():
                    ofz = orep.get("fuzzing") or {}
                    if ob == b or ofz.get("seed") != fz.get("seed"):
                        continue
                    oarm = ((ofz.get("arms") or {}).get(arm)) or {}
                    if not oarm or "error" in oarm:
                        continue
                    ran = {i for i in idx if i < (oarm.get("inputs") or 0)}
                    hit = {}
                    for os_ in oarm.get("signatures") or []:
                        n = len(ran & set(os_.get("inputs") or []))
                        if n:
                            what = ("module content: " if os_.get("in_module") else "") \
                                + (os_.get("function") or "?")
                            hit[what] = hit.get(what, 0) + n
                    crashed = sum(hit.values())
                    loader = sum(n for w, n in hit.items() if not w.startswith("module content"))
                    t = tally.setdefault((b, arm, ob), [0, 0, 0])
                    t[0] += 1
                    t[1] += bool(ran)
                    t[2] += bool(loader)
                    rows.append([doc.Bold(b), doc.Bold(arm), C(_sig_name(s)[:110]),
                                 str(len(idx)), doc.Bold(ob), str(len(ran)),
                                 str(crashed) if crashed else "0",
                                 "; ".join(f"{w} ({n})" for w, n in sorted(hit.items()))
                                 or (NONE if not ran else "no crash")])
    if not rows:
        return []
    return [doc.H(3, "The fuzzer's loader crashes on the other bases"),
            doc.P("The same inputs, by (seed, index), on each other base's arm of the same "
                  "name: each is the same mutations of that base's own build of the seed "
                  "module (the recipe is the same; offsets and sizes differ). 'ran' counts "
                  "the signature's inputs within that base's run; 'crashed' those that "
                  "crashed it there, with the function."),
            doc.P("; ".join(
                f"{b} {arm}'s {n} loader signatures on {ob}: {r} with an input run there, "
                f"{c} of them crashing {ob}'s loader too"
                for (b, arm, ob), (n, r, c) in tally.items()) + "."),
            doc.Table(["base", "arm", "signature", "inputs", "on base", "ran", "crashed",
                       "how"], rows, align="lllrlrrl")]


def findings(reps):
    """Loader crashes per base: the robustness corpus and the fuzzer's findings."""
    rows = []
    for b, r in reps.items():
        for c in r.get("cases") or []:
            if c.get("outcome") == "crashed":
                rows.append([doc.Bold(b), doc.Bold(c["arm"]), C(c["case"]), "1",
                             C(c.get("reason", ""))])
        for arm, sigs in _loader_sigs(r).items():
            for s in sigs:
                rows.append([doc.Bold(b), doc.Bold(arm),
                             C(f"make fuzz: {os.path.basename(s.get('input') or '?')}"),
                             str(s.get("count") or 1), C(_sig_name(s)[:160])])
    if not rows:
        return [doc.H(2, "Loader crashes"),
                doc.P("No case crashed a kernel on any base reported here.")]
    return [doc.H(2, "Loader crashes"),
            doc.P("The robustness corpus' crashes (one input each) and the fuzzer's loader "
                  "signatures (their inputs; module content left out) per base."),
            doc.Table(["base", "arm", "case or finding", "inputs", "first line"], rows,
                      align="lllrl")] + across(reps)


def render(top, names=None, out=None):
    names = names or [b["base"] for b in tables.bases()]
    reps, missing = load_reports(top, names)
    if not reps:
        raise FileNotFoundError("no base has a report: " + "; ".join(w for _, w in missing))
    blocks = [doc.H(1, "modvlab: the bases side by side")]
    if missing:
        blocks.append(doc.P(["Not reported: "] + [
            x for i, (b, w) in enumerate(missing) for x in ([", "] if i else []) + [doc.Bold(b), f" ({w})"]]))
    blocks += (provenance(reps) + verdicts(reps) + catches(reps) + release(reps) + costs(reps)
               + findings(reps))
    out = out or os.path.join(top, "build", "bases")
    os.makedirs(out, exist_ok=True)
    summary = {"bases": list(reps), "not_reported": dict(missing),
               "verdicts": {b: r.get("verdicts") for b, r in reps.items()},
               "updates": {b: {f"{g}/{p}": v for (g, p), v in _update_cells(r).items()}
                           for b, r in reps.items()}}
    paths = []
    for name, text in (("bases.json", json.dumps(summary, indent=1) + "\n"),
                       ("bases.md", doc.md(blocks)),
                       ("bases.html", doc.html(blocks, "modvlab: the bases side by side"))):
        p = os.path.join(out, name)
        with open(p + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(p + ".tmp", p)
        paths.append(p)
    return reps, missing, paths
