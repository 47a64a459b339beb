#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The results paragraph of a series' cover letter, rendered from the lab's
own report (build/report/report.json), so the cover never quotes a number
the lab did not measure.

usage: python3 -m lab.cover_results ARM            print the block
       python3 -m lab.cover_results ARM --write    put it into series-ARM/0000-cover-letter.patch
       python3 -m lab.cover_results ARM --rewrite  the same, dropping lines this report lacks
       python3 -m lab.cover_results ARM --check    fail if a line the report can render differs
The block sits between the two marker lines below. --write replaces every
line the report renders and keeps, naming each on stderr, the lines of runs
this report did not make (generations not run, make valid, cross, fuzz,
detect, history): a cover is refreshed by the runs that were redone, and
never loses the others' numbers; --rewrite keeps nothing. --check ignores lines
for generations the report does not have (make test runs fewer of them), a
robustness line for another corpus size, and make bench's timings (which
change on every run; --write after make bench refreshes them).
"""
import json
import os
import re
import sys

from core import tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()
BEGIN = "--- modvlab results (python3 -m lab.cover_results, from the report's report.json) ---"
END = "--- end of modvlab results ---"


def labels_for(arm, report):
    """The arm's verdict columns: one per distributor policy it ran, else the arm."""
    pols = [l for l in report["verdicts"] if l.startswith(arm + "/")]
    return pols or [arm]


def outcome_word(c):
    o = c["outcome"]
    return o.replace("refused:", "refused (") + ")" if o.startswith("refused:") else o


def render(arm, report):
    """{key: line}; key = the text before the first ':' (stable across runs)."""
    lines = {}
    arms = report["arms"]
    base = arms.get("base", {})
    me = arms.get(arm, {})
    cols = ["base"] + labels_for(arm, report)

    def add(key, text):
        lines[key] = f"{key}: {text}"

    # kernel updates: what each mechanism did with the module built for G0
    by = {}
    for c in report["cases"]:
        if c.get("kind") == "update":
            lab = c["arm"] + (f"/{c['policy']}" if c.get("policy") else "")
            by.setdefault((c["gen"], c["probe"]), {})[lab] = c
    needless = {}
    for (gen, probe), cells in sorted(by.items()):
        if not all(col in cells for col in cols):
            continue
        first = cells[cols[0]]
        if first["expected"] == "compatible":
            # bystanders: one count per generation and column, not a line each
            for col in cols:
                if cells[col]["verdict"] == "needless-refusal":
                    needless.setdefault(gen, {}).setdefault(col, 0)
                    needless[gen][col] += 1
            continue
        what = ", ".join(f"{col} {outcome_word(cells[col])}"
                         + ("" if cells[col]["verdict"].startswith("correct") else
                            " [" + cells[col]["verdict"].upper() + "]")
                         for col in cols)
        add(f"  {gen} {probe} ({first['expected']})", what)
    for gen, per in sorted(needless.items()):
        add(f"  {gen} compatible modules kept out",
            ", ".join(f"{col} {per.get(col, 0)}" for col in cols))
    # the release: the foundation cases where some column was wrong
    rel = {}
    for c in report["cases"]:
        if c.get("kind") in ("release", "cross") and not c.get("probe"):
            rel.setdefault(c["case"], {})[c["arm"]] = c
    g0cols = ["base", arm]
    for case, cells in rel.items():
        if not all(col in cells for col in g0cols) or all(
                cells[col]["verdict"] in ("correct-load",) for col in g0cols):
            continue
        what = ", ".join(f"{col} {outcome_word(cells[col])}"
                         + ("" if cells[col]["verdict"].startswith("correct") else
                            " [" + cells[col]["verdict"].upper() + "]") for col in g0cols)
        add(f"  release, {case} ({cells['base']['expected']})", what)
    # verdict totals, over the generations this report has
    gens = sorted({c["gen"] for c in report["cases"]
                   if c.get("kind") in ("release", "cross", "update", "rebuilt")})
    for lab in ["base"] + labels_for(arm, report):
        v = report["verdicts"].get(lab)
        if v:
            add(f"  verdicts {lab} over {' '.join(gens)}", f"{v['correct-load']} correct loads, "
                f"{v['correct-refusal']} correct refusals, {v['needless-refusal']} needless "
                f"refusals, {v['unsafe-load']} unsafe loads")
    # sizes and the audit
    if me.get("vmlinux") and base.get("vmlinux"):
        d = {k: me["vmlinux"][k] - base["vmlinux"][k] for k in ("text", "data", "bss")}
        add("  vmlinux vs base", f"text {d['text']:+d}, data {d['data']:+d}, bss {d['bss']:+d} bytes")
    bloat = me.get("bloat_vs_base")
    if bloat:
        add("  bloat-o-meter base..arm", f"{bloat['summary']}; {bloat['total']}")
    if me.get("bzimage_bytes") and base.get("bzimage_bytes"):
        add("  bzImage vs base", f"{me['bzimage_bytes'] - base['bzimage_bytes']:+d} bytes")
    if me.get("kcrctab_bytes") is not None and base.get("kcrctab_bytes") is not None:
        add("  __kcrctab", f"{base['kcrctab_bytes']} bytes in base, {me['kcrctab_bytes']} here")
    w, wb = me.get("workload") or {}, base.get("workload") or {}
    if w and wb:
        add("  workload __versions", f"{wb['versions_bytes']} bytes in base, {w['versions_bytes']} here "
            f"({wb['modules']} modules)")
    a, ab = me.get("audit"), base.get("audit")
    if a and ab:
        z = lambda x: x["vmlinux_zero_crc"]["count"] + x["workload_zero_crc"]["count"]
        add("  exports without a CRC", f"{z(ab)} in base, {z(a)} here "
            f"(modpost messages: {ab['workload_missing_crc_msgs']} in base, "
            f"{a['workload_missing_crc_msgs']} here)")
    # robustness (make robust or make test's reduced corpus): the key names
    # the corpus size, so a reduced run never checks a full run's line
    rob = report.get("robustness") or {}
    rcols = [c for c in ("base", arm) if c in rob]
    if len(rcols) == 2:
        n = rob[arm]["inputs"]
        add(f"  robustness, {n} crafted inputs", ", ".join(
            f"{c} {rob[c]['as_declared']} as declared, {rob[c]['oops']} crashed the kernel"
            for c in rcols))
    # make bench (full runs only): re-measured numbers, see --check
    bench = (report.get("costs") or {}).get("bench") or {}
    if bench.get("mode") == "full":
        bc = bench.get("build_cpu_s") or {}
        if bc.get("base") and bc.get(arm):
            add("  clean build CPU s, make bench", f"base {bc['base']['median']:.0f}, "
                f"{arm} {bc[arm]['median']:.0f} ({bc[arm]['median'] / bc['base']['median']:.2f}x)")
        ld = bench.get("load_ns") or {}
        if ld.get("base") and ld.get(arm):
            ns = sorted(set(ld["base"]) & set(ld[arm]), key=int)
            if ns:
                add("  finit_module ms, make bench", "; ".join(
                    f"N={n} base {ld['base'][n] / 1e6:.1f}, {arm} {ld[arm][n] / 1e6:.1f}"
                    for n in (ns[0], ns[-1])))
    # the ABI detectors on the lab's generations (make detect): which declared
    # change each misses, and the release a CRC-only gate would let through
    dets = (report.get("detectors") or {}).get("detectors") or {}
    for det in sorted(d for d in dets if d != "declared"):
        missed = sorted({f"{g} {n}" for g, r in dets[det].items() for n in r["false_negative"]})
        needless = sorted(g for g, r in dets[det].items() if r.get("bump_vs_declared") == "needless")
        gens = " ".join(sorted(dets[det], key=lambda g: int(g[1:]) if g[1:].isdigit() else 0))
        add(f"  detector {det} over {gens}", f"misses {', '.join(missed) or 'nothing declared'}; "
            f"needless bumps {', '.join(needless) or 'none'}")
    # Debian's own uploads (make history): how many modules of one upload
    # load into the next without a rebuild, per policy (the host matrix over
    # every module), then what forced loads of the booted sample's refusals said
    hist = report.get("history") or {}
    ups = hist.get("updates") or []
    for u in ups:
        if not u.get("consecutive"):
            continue
        surv = u.get("survive") or {}
        add(f"  Debian {u['from']} -> {u['to']}", f"{u['crc_changed']} export CRCs changed"
            + (", module_layout changed" if u.get("module_layout_changed") else "")
            + "; load without rebuild: " + ", ".join(
                f"{p} {v['modules']}/{v['of']}" for p, v in surv.items()))
    tot = {}
    for u in ups:
        for pol, r in (u.get("refusals") or {}).items():
            t = tot.setdefault(pol, {"needless": 0, "needed": 0, "unknown": 0})
            for k in t:
                t[k] += r.get(k, 0)
    sampled = max((u.get("sampled") or 0 for u in ups), default=0)
    if tot and sampled:
        add(f"  Debian refusals forced, {sampled} sampled modules x {len(ups)} updates",
            "; ".join(f"{pol} {t['needless']} needless, {t['needed']} needed, "
                      f"{t['unknown']} unknown" for pol, t in tot.items() if sum(t.values()))
            or "no sampled module was refused")
    # make valid: real in-tree modules, per architecture and set
    for name, run in sorted((report.get("valid") or {}).items()):
        if "error" in run or arm not in run.get("arms", {}):
            continue
        ref, a = run["reference"], run["arms"][arm]
        r = run["arms"][ref]
        fails = [f["module"] for f in run["failures"] if f["arm"] == arm]
        cc = name[len(f"{run['arch']}-{run['set']}"):].lstrip("-")    # VALID_CC's
        add(f"  valid modules, {run['arch']} set {run['set']}" + (f" ({cc})" if cc else ""),
            f"{r['built']} built; {ref} loads {r['loaded']}, {arm} {a['loaded']}; "
            f"{arm} refuses {len(fails)} that {ref} loads"
            + (f" ({', '.join(fails[:5])})" if fails else ""))
    # make cross: the arm's tree cross-built
    cross = [c for c in ((report.get("cross") or {}).get("rows") or []) if c["tree"] == arm]
    if cross:
        add("  cross-built", ", ".join(f"{c['arch']} {c['result']}" for c in cross)
            + f"; missing-CRC messages {sum(int(c['missing_crc'] or 0) for c in cross)}")
    # make fuzz: loader crashes, the arm beside the reference
    fz = (report.get("fuzzing") or {}).get("arms") or {}
    # and make fuzz FUZZ_VALID's real-module seeds, where that ran (every
    # architecture's: ARM-valid, ARM-valid.ARCH)
    valid = sorted(w for w in fz if w.partition("-valid")[0] in ("base", arm) and "-valid" in w)
    for who in ["base", arm] + valid:
        f = fz.get(who)
        if f and "error" not in f:
            add(f"  fuzz seed {report['fuzzing'].get('seed')}, {who}",
                f"{f['inputs']} inputs, {f['crashes']} loader crashes, "
                f"{f.get('module_code_crashes') or 0} in module content")
    s = me.get("series")
    if s:
        add("  series diffstat", f"{s['patches']} patches, {s['files']} files, "
            f"+{s['added']} -{s['removed']} lines")
    return lines


def block(lines):
    return "\n".join([BEGIN, *lines.values(), END])


def run_dependent(key):
    """A line that exists only where its run was made (a generation, make
    valid, cross, fuzz, detect, history, a corpus size)."""
    return re.match(r"  (G\d|verdicts |robustness, |detector |Debian |valid modules, |cross-built"
                    r"|fuzz )", key) is not None


def merge(old_lines, lines):
    """The block --write puts in: the report's lines, in the old block's
    order where it had them, and the old block's run-dependent lines the
    report does not render. Returns ({key: line}, [kept keys])."""
    out, kept = {}, []
    for l in old_lines:
        k = l.split(":", 1)[0]
        if k in lines:
            out[k] = lines[k]
        elif run_dependent(k):
            out[k] = l
            kept.append(k)
    for k, l in lines.items():
        out.setdefault(k, l)
    # a new line goes after the old ones of its kind (G13's after G9's)
    rank = {}
    for k in [l.split(":", 1)[0] for l in old_lines] + list(lines):
        rank.setdefault(kind(k), len(rank))
    return dict(sorted(out.items(), key=lambda kv: rank[kind(kv[0])])), kept


def kind(key):
    """What a results line is about, whatever its generation or run: a
    generation's probe line by its verdict class, any other by its first word."""
    m = re.match(r"  G\d+ (?:probe-\S+ )?(.*)", key)
    return "G " + m.group(1) if m else (key.split() or [key])[0]


def main(argv):
    if not argv or argv[0] not in ("keep", "remove") or len(argv) > 2:
        sys.exit(__doc__)
    arm, mode = argv[0], argv[1] if len(argv) > 1 else None
    path = os.path.join(B, "report", "report.json")
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"cover-results: {path}: {getattr(e, 'strerror', None) or e} (make compare first)")
    if arm not in report["arms"]:
        sys.exit(f"cover-results: the report has no arm {arm}")
    lines = render(arm, report)
    cover = os.path.join(tables.series_dir(arm), "0000-cover-letter.patch")
    if mode is None:
        print(block(lines))
        return 0
    with open(cover) as f:
        text = f.read()
    m = re.search(re.escape(BEGIN) + r"\n(.*?)\n" + re.escape(END), text, re.S)
    if mode in ("--write", "--rewrite"):
        if m and mode == "--write":
            lines, kept = merge(m.group(1).splitlines(), lines)
            for k in kept:
                print(f"cover-results: kept from the cover (this report did not run it):{k}",
                      file=sys.stderr)
        new = block(lines)
        if m:
            text = text[:m.start()] + new + text[m.end():]
        elif "*** RESULTS" in text:
            text = re.sub(r"\*\*\* RESULTS[^\n]*\*\*\*", lambda _: new, text)
        else:
            sys.exit(f"cover-results: {cover} has no results block or placeholder")
        with open(cover, "w") as f:
            f.write(text)
        return 0
    if mode == "--check":
        if not m:
            sys.exit(f"cover-results: {cover} has no results block")
        have = {l.split(":", 1)[0]: l for l in m.group(1).splitlines()}
        # make bench's timings differ on every run: --write refreshes them
        remeasured = lambda k: k.endswith(", make bench")
        # a run-dependent line (a generation, a corpus size, make detect,
        # history, valid, cross, fuzz) may be absent on either side
        bad = [f"cover: {have.get(k, '(missing)')}\n  lab: {l}" for k, l in lines.items()
               if have.get(k) != l and not remeasured(k)
               and (k in have or not run_dependent(k))]
        if bad:
            print("cover letter results differ from the lab's report "
                  f"(run python3 -m lab.cover_results {arm} --write):\n" + "\n".join(bad))
            return 1
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
