# SPDX-License-Identifier: GPL-2.0
"""The data side of lab/bench.sh: records of single measurements, and
build/report/bench.json (+ bench.svg) from all of them.

    python3 -m lab.bench sizes ARM            bench .ko sizes of ARM, JSON on stdout
    python3 -m lab.bench run ARM N MODE IDENT SCRATCH WAITED LA0 LA1
                                    one build run's record, JSON on stdout
    python3 -m lab.bench reusable ARM IDENT   exit 0 if ARM has bench runs of IDENT
    python3 -m lab.bench report [--quick] ARM...
                                    write build/report/bench.json and bench.svg;
                                    exit 1 (saying what) unless every arm has
                                    every number, all positive

Inputs, under build/bench/: load/ARM/sizes.json, load/ARM/rK.{log,json,plan.json}
(the bench boots), runs/ARM/rK.json and runs/ARM+dwarf5/rK.json (the clean
builds, without and with debug info), compare-warm.{json,
steps.tsv}; build/steps.tsv; build/lab-times.tsv if the Makefile records one
(TARGET<tab>WALL_S<tab>DATE<tab>KIND<tab>RC lines written by lab/timed.sh;
KIND cold|fresh|warm: what the run started from).
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys

from core import ktap, plot, tables
from core.elf import section_sizes as sections

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()
BB = os.path.join(B, "bench")
ARMS = os.path.join(B, "arms")
ARM_ORDER = tables.arm_names()
NS = [int(n) for n in os.environ.get("BENCH_NS", "16 256 1024 4096").split()]
# the targets (issue 7)
KEEP_SPEEDUP_4096 = 10.0
KEEP_LOSS_16 = 0.10
WARM_COMPARE_S = 180
COLD_COMPARE_S = 45 * 60



def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return None




def imports(path):
    out = subprocess.run(["nm", "-u", path], capture_output=True, text=True, check=True).stdout
    return len([l for l in out.splitlines() if l.strip()])


# --- sizes ------------------------------------------------------------------

def cmd_sizes(arm):
    rec = {k: {} for k in ("consumer_ko_bytes", "versions_bytes", "versions_entries",
                           "consumer_undefined_symbols", "provider_ko_bytes",
                           "provider_kcrctab_bytes", "provider_ksymtab_bytes")}
    for n in NS:
        d = os.path.join(ARMS, arm, "mods", "bench", str(n))
        cons, prov = (os.path.join(d, f"bench_{w}_{n}.ko") for w in ("consumer", "provider"))
        if not (os.path.isfile(cons) and os.path.isfile(prov)):
            continue
        cs, ps = sections(cons), sections(prov)
        k = str(n)
        rec["consumer_ko_bytes"][k] = os.path.getsize(cons)
        rec["versions_bytes"][k] = cs.get("__versions", 0)
        rec["versions_entries"][k] = cs.get("__versions", 0) // 64
        rec["consumer_undefined_symbols"][k] = imports(cons)
        rec["provider_ko_bytes"][k] = os.path.getsize(prov)
        rec["provider_kcrctab_bytes"][k] = ps.get("__kcrctab", 0) + ps.get("__kcrctab_gpl", 0)
        rec["provider_ksymtab_bytes"][k] = ps.get("__ksymtab", 0) + ps.get("__ksymtab_gpl", 0)
    json.dump(rec, sys.stdout, indent=1)
    print()


# --- one build run ------------------------------------------------------------

def cmd_run(arm, n, mode, ident, scratch, waited, la0, la1):
    cpu = load_json(os.path.join(scratch, "cputime.json")) or {}
    nm = load_json(os.path.join(scratch, "nm-check.json")) or {}
    acct = {}
    with open(os.path.join(scratch, "acct.log")) as f:
        for line in f:
            tag, user, sys_ = line.split()
            a = acct.setdefault(tag, {"calls": 0, "user_s": 0.0, "sys_s": 0.0})
            a["calls"] += 1
            a["user_s"] += int(user) / 1e6
            a["sys_s"] += int(sys_) / 1e6
    for a in acct.values():
        a["cpu_s"] = round(a["user_s"] + a["sys_s"], 3)
        a["user_s"], a["sys_s"] = round(a["user_s"], 3), round(a["sys_s"], 3)
    with open(os.path.join(scratch, "nm-check.list")) as f:
        nm_objects = sum(1 for _ in f)
    symver_objects = 0
    for root, _, files in os.walk(scratch):
        for name in files:
            if name.endswith(".o.cmd"):
                with open(os.path.join(root, name), errors="replace") as f:
                    symver_objects += "\n#SYMVER " in f.read()
    with open(os.path.join(scratch, ".config")) as f:
        config = f.read()
    modv = "CONFIG_MODVERSIONS=y\n" in config
    tool = ("none" if not modv else "gendwarfksyms" if "CONFIG_GENDWARFKSYMS=y\n" in config
            else "genksyms")
    rec = {"arm": arm, "run": int(n), "mode": mode, "identity": ident,
           "commit": subprocess.run(["git", "-C", os.path.join(ARMS, arm.split("+")[0], "src"),
                                     "rev-parse",
                                     "HEAD"], capture_output=True, text=True).stdout.strip(),
           "targets": "vmlinux modules", "ccache": mode != "clean",
           "cpu_s": cpu.get("cpu_s"), "user_s": cpu.get("user_s"), "sys_s": cpu.get("sys_s"),
           "wall_s": cpu.get("wall_s"), "rc": cpu.get("rc"),
           "waited_for_other_builds_s": int(waited), "loadavg_before": float(la0),
           "loadavg_after": float(la1), "modversions": modv, "tool": tool,
           "debug_info": "CONFIG_DEBUG_INFO=y\n" in config,
           "symversions": {
               "genksyms": acct.get("genksyms"), "gendwarfksyms": acct.get("gendwarfksyms"),
               "cpp_genksyms": acct.get("cpp-genksyms"),
               "cpp_asm_exports": acct.get("cpp-asm-exports"),
               "nm_check": {"objects": nm_objects, "cpu_s": nm.get("cpu_s") if nm_objects else 0.0},
               "objects_with_symver": symver_objects}}
    parts = [acct.get(k, {}).get("cpu_s", 0.0)
             for k in ("genksyms", "gendwarfksyms", "cpp-genksyms", "cpp-asm-exports")]
    rec["symversions"]["total_cpu_s"] = round(sum(parts) + (rec["symversions"]["nm_check"]["cpu_s"] or 0), 3)
    json.dump(rec, sys.stdout, indent=1)
    print()


def runs_of(arm):
    out = []
    for p in sorted(glob.glob(os.path.join(BB, "runs", arm, "r*.json"))):
        r = load_json(p)
        if isinstance(r, dict) and r.get("rc") == 0 and (r.get("cpu_s") or 0) > 0:
            out.append(r)
    return out


def cmd_reusable(arm, ident):
    runs = runs_of(arm)
    return 0 if runs and all(r.get("identity") == ident for r in runs) else 1


# --- the report ----------------------------------------------------------------

def stats(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    med = statistics.median(values)
    return {"runs": values, "median": round(med, 2), "min": min(values), "max": max(values),
            "spread": round(max(values) - min(values), 2),
            "spread_pct": round(100 * (max(values) - min(values)) / med, 1) if med else None}


def build_costs(arms, quick):
    out, gk = {}, {}
    for arm in arms:
        runs = runs_of(arm)
        s = stats([r["cpu_s"] for r in runs])
        if s is None:
            out[arm] = None
            gk[arm] = None
            continue
        modes = sorted({r["mode"] for r in runs})
        s.update(wall_s_median=round(statistics.median(r["wall_s"] for r in runs), 1),
                 user_s_median=round(statistics.median(r["user_s"] for r in runs), 1),
                 sys_s_median=round(statistics.median(r["sys_s"] for r in runs), 1),
                 mode=",".join(modes), identity=runs[-1].get("identity"),
                 contended=any(r.get("waited_for_other_builds_s", 0) >= 1800 or
                               max(r.get("loadavg_before", 0), r.get("loadavg_after", 0)) > 4
                               for r in runs),
                 loadavg=[[r.get("loadavg_before"), r.get("loadavg_after")] for r in runs])
        if "ccache" in modes:
            s["note"] = ("quick mode: ccache ON (warm), not a build cost; "
                         "run `make bench` for the clean, ccache-off numbers")
        out[arm] = s
        if not all(r.get("modversions") for r in runs):
            gk[arm] = {"applicable": False, "note": "no CONFIG_MODVERSIONS: no genksyms, no symversions step"}
            continue
        sv = [r["symversions"] for r in runs]

        def part(key, sv=sv):
            return stats([(x.get(key) or {}).get("cpu_s", 0.0) for x in sv])

        g = {"applicable": True,
             "genksyms": part("genksyms"), "gendwarfksyms": part("gendwarfksyms"),
             "cpp_genksyms": part("cpp_genksyms"),
             "cpp_asm_exports": part("cpp_asm_exports"), "nm_check": part("nm_check"),
             "total": stats([x["total_cpu_s"] for x in sv]),
             "genksyms_calls": (sv[-1].get("genksyms") or {}).get("calls", 0),
             "objects_with_symver": sv[-1].get("objects_with_symver"),
             "nm_check_objects": sv[-1]["nm_check"]["objects"],
             "method": "genksyms and the preprocessor runs feeding it (-D__GENKSYMS__; the .S "
                       "export pre-pass) ran under workload/bench/acct (wait4 rusage per process) "
                       "inside the measured builds; the per-object `nm | grep -q __ksymtab` check "
                       "rerun on the same objects afterwards. Not included: modpost's CRC "
                       "handling and the shell/sed glue of the pipeline."}
        if g["total"] and s["median"]:
            g["share_of_build_pct"] = round(100 * g["total"]["median"] / s["median"], 1)
        gk[arm] = g
    base = out.get("base") or {}
    for arm, s in out.items():
        if s is not None:
            # only like with like: a ccache-on (quick) run is no cost to compare
            same = base.get("median") and base.get("mode") == s["mode"]
            s["ratio_to_base"] = round(s["median"] / base["median"], 3) if same else None
    return out, gk


def tool_costs(names):
    """What a versioning tool costs, from the clean builds of the arms and of
    their +dwarf5 builds (lab/bench.sh's tools phase): per build, its tool
    (none, genksyms, gendwarfksyms, read from its .config), whether it had
    debug info, the CPU s median, and the ratio to the build without
    modversions with the same debug info (the tool's marginal cost)."""
    rows = {}
    for name in names:
        runs = [r for r in runs_of(name) if r.get("mode") == "clean"]
        s = stats([r["cpu_s"] for r in runs])
        if s is None or "tool" not in runs[-1]:
            continue
        sv = [r["symversions"] for r in runs]
        rows[name] = {"tool": runs[-1]["tool"], "debug_info": runs[-1].get("debug_info", False),
                      "cpu_s": s, "tool_cpu_s": stats([x.get("total_cpu_s", 0.0) for x in sv])
                      if runs[-1]["tool"] != "none" else None}
    for name, r in rows.items():
        none = [o for o in rows.values() if o["tool"] == "none" and o["debug_info"] == r["debug_info"]]
        r["ratio_to_none"] = (round(r["cpu_s"]["median"] / none[0]["cpu_s"]["median"], 3)
                              if none and none[0]["cpu_s"]["median"] else None)
    return rows


def load_costs(arms):
    """{arm: {N: median over rounds}}, the rounds, the accel, problems."""
    load, rounds, accels, problems, walls, clocks, unsorted = {}, {}, set(), [], {}, {}, {}
    for arm in arms:
        per_n = {}
        for plan_path in sorted(glob.glob(os.path.join(BB, "load", arm, "r*.plan.json"))):
            r = os.path.basename(plan_path).split(".")[0]
            meta = load_json(os.path.join(BB, "load", arm, r + ".json")) or {}
            accels.add(meta.get("accel"))
            walls.setdefault(arm, []).append(meta.get("wall_s"))
            plan = load_json(plan_path)
            lpath = os.path.join(BB, "load", arm, r + ".log")
            run = ktap.parse(ktap.read_log(lpath), boot_status=meta.get("status"))
            if run.status is not ktap.Status.OK:
                problems.append(f"{arm} bench {r}: {run.status.value} ({run.detail}; {lpath})")
            with open(lpath, errors="replace") as f:
                cs = re.findall(r"clocksource: Switched to clocksource (\S+)", f.read())
            clocks.setdefault(arm, []).append(cs[-1] if cs else None)
            if not cs or cs[-1] != "tsc":
                problems.append(f"{arm} bench {r}: guest clocksource {cs[-1] if cs else '?'}, "
                                f"not tsc: its times are in jiffies steps ({lpath})")
            by_name = {a.name: a.result for a in run.attempts.values() if a.result}
            for c in plan["cases"]:
                res = by_name.get(c["case"])
                if res is None or res.token != "loaded" or not res.ns:
                    why = "no result" if res is None else f"{res.token} errno={res.errno}"
                    problems.append(f"{arm} bench {r}: {c['case']}: {why} ({lpath})")
                    continue
                key = str(c["imports"]) if "imports" in c else f"{c['imports_unsorted']}-unsorted"
                per_n.setdefault(key, []).append({"ns": res.ns, "repeat": res.repeat, "round": r})
        per_n = dict(sorted(per_n.items(), key=lambda kv: (int(kv[0].split("-")[0]), kv[0])))
        rounds[arm] = {"ns": {n: [x["ns"] for x in v] for n, v in per_n.items()},
                       "repeat": {n: v[0]["repeat"] for n, v in per_n.items()}}
        med = {n: int(statistics.median(v)) for n, v in rounds[arm]["ns"].items()}
        load[arm] = {n: v for n, v in med.items() if n.isdigit()}
        unsorted[arm] = {n.split("-")[0]: v for n, v in med.items() if not n.isdigit()}
        rounds[arm]["clocksource"] = clocks.get(arm, [])
    return load, unsorted, rounds, sorted(a for a in accels if a), problems, walls


def lab_costs():
    lab = {"make_compare_warm_s": None, "make_compare_fresh_s": None,
           "make_compare_cold_s": None, "make_test_s": None}
    warm = load_json(os.path.join(BB, "compare-warm.json"))
    if warm:
        lab["make_compare_warm_s"] = warm["wall_s"]
        lab["make_compare_warm_rc"] = warm["rc"]
        lab["make_compare_warm_date"] = warm.get("date")
        st = steps_table(os.path.join(BB, "compare-warm.steps.tsv"))
        lab["make_compare_warm_steps"] = st
        # warm means nothing to rebuild: a patch series applied, a config
        # made, or a generation rebuilt says an input had changed
        rebuilt = {t: n for t, n in ((st or {}).get("by_tag") or {}).items()
                   if t in ("AM", "CONFIG", "GEN")}
        lab["make_compare_warm_was_warm"] = None if st is None else not rebuilt
        if rebuilt:
            lab["make_compare_warm_rebuilt_s"] = rebuilt
    # wall times the Makefile may record (see the module docstring)
    times = os.path.join(B, "lab-times.tsv")
    if os.path.isfile(times):
        with open(times) as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) < 4:
                    continue
                target, wall, date, kind = cols[:4]
                if kind not in ("cold", "fresh", "warm"):
                    continue
                # the last run of each kind counts
                for key in {"compare": [f"make_compare_{kind}_s"],
                            "test": ["make_test_s", f"make_test_{kind}_s"]}.get(target, []):
                    if not (key == "make_compare_warm_s" and warm):
                        lab[key] = float(wall)
                        lab[key[:-2] + "_date"] = date
                        lab[key[:-2] + "_rc"] = int(cols[4]) if len(cols) > 4 \
                            and cols[4].lstrip("-").isdigit() else None
    lab["steps_tsv_all"] = steps_table(os.path.join(B, "steps.tsv"))
    lab["note"] = ("make_compare_warm_s: a `make compare` run by make bench right after the "
                   "Makefile's own (so nothing changed); cold (empty build/ and ccache), fresh "
                   "(empty build/, warm ccache) and make test: the last such run lab/timed.sh "
                   "recorded in build/lab-times.tsv. Step times are whole seconds (kbuild-style "
                   "lines of lab/common.sh's done_step).")
    return lab


def steps_table(path):
    """steps.tsv lines -> {"by_tag": {TAG: seconds}, "top": [[tag, what, s]...], "total_s"}."""
    if not os.path.isfile(path):
        return None
    rows = []
    with open(path) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) == 3 and cols[2].lstrip("-").isdigit():
                rows.append((cols[0], cols[1], int(cols[2])))
    by_tag = {}
    for tag, _, s in rows:
        by_tag[tag] = by_tag.get(tag, 0) + s
    return {"steps": len(rows), "total_s": sum(s for _, _, s in rows),
            "by_tag": dict(sorted(by_tag.items(), key=lambda kv: -kv[1])),
            "top": [list(r) for r in sorted(rows, key=lambda r: -r[2])[:10]]}


def targets(load, unsorted, rounds, build, lab):
    """The issue's targets, each with its value and whether it is met.

    keep's gain at the largest N is given three ways: the whole finit_module
    (base/keep), the version lookup alone (each arm minus the nomodv floor,
    the same load without any version check; bounded by the rounds' noise
    when keep is within it), and the same-kernel A/B (keep's loader on the
    same consumer with __versions unsorted, i.e. its linear fallback).
    """
    t = {}
    base, keep, floor = (load.get(a) or {} for a in ("base", "keep", "nomodv"))
    big, small = str(max(NS)), str(min(NS))
    if base.get(big) and keep.get(big):
        sp = base[big] / keep[big]
        t[f"keep_speedup_at_{big}"] = {
            "value": round(sp, 2), "target": f">= {KEEP_SPEEDUP_4096:g}x", "met": sp >= KEEP_SPEEDUP_4096,
            "what": "whole finit_module time, base / keep"}
        if floor.get(big):
            spread = [max(v) - min(v) for a in ("keep", "nomodv")
                      for v in [((rounds.get(a) or {}).get("ns") or {}).get(big) or []] if len(v) > 1]
            noise = max(spread) if spread else None
            lb, lk = base[big] - floor[big], keep[big] - floor[big]
            rec = {"base_lookup_ns": lb, "keep_lookup_ns": lk, "noise_ns": noise,
                   "target": f">= {KEEP_SPEEDUP_4096:g}x",
                   "what": "version lookup alone: (arm - nomodv) at the same N; nomodv is the "
                           "same load without any version check"}
            if noise is not None and lk <= noise:
                v = lb / max(noise, 1)
                rec.update(value=round(v, 1), bound="lower",
                           note="keep is within the rounds' noise of the nomodv floor: "
                                "the ratio is at least base's lookup over that noise")
            elif lk > 0:
                v = lb / lk
                rec.update(value=round(v, 1), bound=None)
            else:
                v = None
                rec.update(value=None, note="keep at or below the floor and no noise estimate")
            rec["met"] = None if v is None else v >= KEEP_SPEEDUP_4096
            t[f"keep_lookup_speedup_at_{big}"] = rec
    for arm in ("keep", "base"):
        u, s_ = (unsorted.get(arm) or {}).get(big), (load.get(arm) or {}).get(big)
        if u and s_:
            t[f"{arm}_unsorted_over_sorted_at_{big}"] = {
                "value": round(u / s_, 2),
                "what": "same kernel, same consumer, __versions reversed / as built"
                        + (" (keep: linear fallback / bsearch)" if arm == "keep" else
                           " (base: linear either way: a control, expect ~1)")}
    if base.get(small) and keep.get(small):
        d = keep[small] / base[small] - 1
        t[f"keep_vs_base_at_{small}"] = {"value_pct": round(100 * d, 1),
                                          "target": f"<= +{100 * KEEP_LOSS_16:g}%",
                                          "met": d <= KEEP_LOSS_16,
                                          "what": "whole finit_module time, keep / base - 1"}
    w = lab.get("make_compare_warm_s")
    t["make_compare_warm"] = {"value_s": w, "target": f"< {WARM_COMPARE_S} s",
                              "met": None if w is None else w < WARM_COMPARE_S}
    if lab.get("make_compare_warm_was_warm") is False:
        t["make_compare_warm"].update(
            met=None, note="not a warm run: it rebuilt " + ", ".join(
                f"{k} {v} s" for k, v in lab["make_compare_warm_rebuilt_s"].items())
            + " (an input had changed); rerun `lab/bench.sh --only=lab`")
    c = lab.get("make_compare_cold_s")
    t["make_compare_cold"] = {"value_s": c, "target": f"< {COLD_COMPARE_S} s",
                              "met": None if c is None else c < COLD_COMPARE_S}
    if c is None:
        fr = lab.get("make_compare_fresh_s")
        t["make_compare_cold"]["note"] = (
            "no cold run recorded (empty build/ and ccache: "
            "CCACHE_DIR=$(mktemp -d) make compare in a clean clone)"
            + (f"; a fresh clone with warm ccache took {fr:.0f} s" if fr else ""))
    return t


def cmd_report(arms, quick):
    arms = [a for a in ARM_ORDER if a in arms] + sorted(set(arms) - set(ARM_ORDER))
    load, unsorted, rounds, accels, problems, walls = load_costs(arms)
    build, gk = build_costs(arms, quick)
    sizes = {a: load_json(os.path.join(BB, "load", a, "sizes.json")) for a in arms}
    lab = lab_costs() if not quick else {"note": "quick mode: the lab timings are not measured"}
    base = load.get("base") or {}
    ratio = {a: {n: round(v / base[n], 3) for n, v in load[a].items() if base.get(n)}
             for a in arms if base}
    rep = {"mode": "quick" if quick else "full", "arms": arms,
           "accel": ",".join(accels) or None,
           "build_cpu_s": build, "genksyms_cpu_s": gk,
           "load_ns": load, "load_ratio_to_base": ratio,
           "load_unsorted_ns": {a: v for a, v in unsorted.items() if v},
           "load_rounds_ns": rounds,
           "load_boot_wall_s": walls,
           "load_method": "in the guest, clock_gettime(CLOCK_MONOTONIC) around finit_module of the "
                          "consumer (provider loaded first), load+unload `repeat` times, median; "
                          "then the median over the rounds (one boot per arm per round, arms "
                          "interleaved). Under TCG absolute times are inflated; compare ratios.",
           "sizes": sizes, "lab": lab}
    variants = sorted(os.path.basename(d) for d in glob.glob(os.path.join(BB, "runs", "*+*"))
                      if os.path.basename(d).split("+")[0] in arms)
    rep["tool_cpu_s"] = tool_costs(arms + variants) if not quick else {}
    rep["tool_method"] = ("clean `vmlinux modules` builds, ccache off, interleaved in the same "
                          "rounds as build_cpu_s; ARM+dwarf5 is ARM's config plus "
                          "qemu/config/debuginfo.config; tool_cpu_s is the symversions steps' "
                          "CPU s (genksyms and the preprocessor runs feeding it; gendwarfksyms; "
                          "each wrapped in workload/bench/acct); "
                          "ratio_to_none: against the build without modversions with the same "
                          "debug info")
    rep["targets"] = targets(load, unsorted, rounds, build, lab)
    rep["problems"] = problems + completeness(rep, arms)
    out = os.path.join(B, "report")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "bench.json.tmp"), "w") as f:
        json.dump(rep, f, indent=1)
        f.write("\n")
    os.replace(os.path.join(out, "bench.json.tmp"), os.path.join(out, "bench.json"))
    try:
        svg = plot.svg_load_vs_imports({a: v for a, v in load.items() if v})
        with open(os.path.join(out, "bench.svg"), "w") as f:
            f.write(svg)
    except ValueError:
        pass
    summary(rep)
    for p in rep["problems"]:
        print(f"modvlab: bench: {p}", file=sys.stderr)
    return 1 if rep["problems"] else 0


def completeness(rep, arms):
    """What is missing or not positive: every arm, every N, every cost."""
    miss = []
    loaded = any(rep["load_ns"].get(a) for a in arms)
    if not loaded:
        miss.append("no load times at all: the load phase did not run (lab/bench.sh --only=...)")
    for a in arms:
        for n in NS if loaded else ():
            v = (rep["load_ns"].get(a) or {}).get(str(n))
            if not v or v <= 0:
                miss.append(f"{a}: no load time for N={n}")
            sz = rep["sizes"].get(a) or {}
            if not (sz.get("consumer_ko_bytes") or {}).get(str(n)):
                miss.append(f"{a}: no consumer size for N={n}")
        b = rep["build_cpu_s"].get(a)
        if not b or not b["median"] > 0:
            miss.append(f"{a}: no build CPU seconds")
        g = rep["genksyms_cpu_s"].get(a)
        if g and g.get("applicable") and not any(
                ((g.get(t) or {}).get("median") or 0) > 0 for t in ("genksyms", "gendwarfksyms")):
            miss.append(f"{a}: modversions arm without genksyms or gendwarfksyms CPU seconds")
    return miss


def summary(rep):
    print(f"bench ({rep['mode']}, accel {rep['accel']}): build/report/bench.json")
    for a in rep["arms"]:
        b = rep["build_cpu_s"].get(a) or {}
        g = rep["genksyms_cpu_s"].get(a) or {}
        gt = (g.get("total") or {}).get("median")
        ln = rep["load_ns"].get(a) or {}
        print(f"  {a:7s} build {b.get('median', '-')} CPU s (x{b.get('ratio_to_base', '-')})"
              + (f", symversions {gt} s" if gt is not None else "")
              + "; load ms: " + " ".join(f"{n}:{v / 1e6:.2f}" for n, v in ln.items()))
    for name, r in (rep.get("tool_cpu_s") or {}).items():
        print(f"  {name:14s} {r['tool']:13s} debug info {'yes' if r['debug_info'] else 'no '} "
              f"build {r['cpu_s']['median']} CPU s (x{r['ratio_to_none']} of none)")
    for k, v in rep["targets"].items():
        print(f"  target {k}: {v}")


def main(argv):
    if not argv:
        sys.exit(__doc__)
    cmd, args = argv[0], argv[1:]
    if cmd == "sizes" and len(args) == 1:
        return cmd_sizes(*args)
    if cmd == "run" and len(args) == 8:
        return cmd_run(*args)
    if cmd == "reusable" and len(args) == 2:
        return cmd_reusable(*args)
    if cmd == "report":
        quick = "--quick" in args
        return cmd_report([a for a in args if a != "--quick"], quick)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
