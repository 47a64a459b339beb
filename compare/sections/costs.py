# SPDX-License-Identifier: GPL-2.0
"""Costs: the lab's build CPU and boots, make bench's numbers, its targets and the lab's own wall times."""
from core import plot, tables

from .. import doc
from .cells import NONE, num


def cost_blocks(report):
    arms = report["arms"]
    out = [doc.H(2, "Costs")]
    bcpu = (arms.get(tables.reference_arm()) or {}).get("build_cpu_s")
    rows = []
    for arm, a in arms.items():
        cpu = a.get("build_cpu_s")
        build = a.get("build") or {}
        source = NONE if not build else ("clean build" if build.get("clean") else "last build")
        ratio = (f"{cpu / bcpu:.2f}×" if isinstance(cpu, (int, float))
                 and isinstance(bcpu, (int, float)) and bcpu else NONE)
        walls = [b.get("wall_s") for b in a["boots"].values()
                 if isinstance(b.get("wall_s"), (int, float))]
        ran = sum(1 for b in a["boots"].values() if b.get("run"))
        rows.append([doc.Bold(arm), num(cpu, 1), source, ratio, f"{ran} of {len(a['boots'])}",
                     num(round(sum(walls), 2)) if walls else NONE])
    out.append(doc.Table(["arm", "lab build CPU s (ccache on)", "measured on", "× base", "boots run",
                          "boot wall s (sum)"], rows, align="lrlrrr"))
    out += bench_blocks(report["costs"].get("bench"))
    load = report["costs"].get("load_ns") or {}
    if load:
        keys = sorted({k for v in load.values() for k in v},
                      key=lambda k: (not k.isdigit(), int(k) if k.isdigit() else 0, k))
        out += [doc.H(3, "Load cost (median ns per finit_module)"),
                doc.Table(["arm/policy"] + keys,
                          [[lab] + [num(v.get(k)) for k in keys] for lab, v in load.items()],
                          align="l" + "r" * len(keys))]
    rows = []
    for arm, a in arms.items():
        for boot, b in a["boots"].items():
            plan = b.get("plan") or {}
            rows.append([arm, boot, num(plan.get("kid")), num(plan.get("policy")),
                         num(b.get("status")), num(b.get("accel")), num(b.get("wall_s")),
                         b.get("run") or "never ran", b.get("detail") or NONE])
    if rows:
        out.append(doc.Details("Every boot", [doc.Table(
            ["arm", "boot", "kernel", "policy", "runner", "accel", "wall s", "console log",
             "results"], rows, align="llllllrll")]))
    return out


def bench_blocks(bench):
    """make bench's numbers (build/report/bench.json), when it ran."""
    if not bench:
        return [doc.P("make bench has not run: the lab build CPU seconds above come from "
                      "builds with ccache and are not a cost comparison.")]
    out = [doc.H(3, f"Measured by make bench ({bench.get('accel', '–')})")]
    rows = []
    for arm, b in (bench.get("build_cpu_s") or {}).items():
        g = ((bench.get("genksyms_cpu_s") or {}).get(arm) or {})
        gs = sum((g.get(k) or {}).get("median") or 0
                 for k in ("genksyms", "gendwarfksyms", "cpp_genksyms", "cpp_asm_exports",
                           "nm_check")) \
            if g.get("applicable") else None
        rows.append([doc.Bold(arm), num(b.get("median")), num(b.get("spread")),
                     len(b.get("runs") or []), num(b.get("mode")),
                     f"{b['ratio_to_base']:.3f}×" if isinstance(b.get("ratio_to_base"), (int, float)) else NONE,
                     num(round(gs, 1)) if gs else NONE])
    if rows:
        out.append(doc.Table(["arm", "clean build CPU s (median)", "spread", "runs", "mode",
                              "× base", "genksyms + symversions CPU s"], rows, align="lrrrlrr"))
    out += tool_blocks(bench)
    load = {a: v for a, v in (bench.get("load_ns") or {}).items() if v}
    if load:
        keys = sorted({k for v in load.values() for k in v}, key=int)
        ratio = bench.get("load_ratio_to_base") or {}
        out.append(doc.Table(["arm"] + [f"N={k}: ms (× base)" for k in keys],
                             [[doc.Bold(a)] + [
                                 f"{v[k] / 1e6:.1f} ({ratio.get(a, {}).get(k, 0):.2f}×)"
                                 if k in v else NONE for k in keys] for a, v in load.items()],
                             align="l" + "r" * len(keys)))
        try:
            svg = plot.svg_load_vs_imports(load)
        except (ValueError, KeyError, TypeError):
            svg = None
        if svg:
            out.append(doc.Figure(svg, "bench.svg", "finit_module time vs imported symbols"))
    out += target_blocks(bench.get("targets") or {})
    out += lab_time_blocks(bench.get("lab") or {})
    return out


def tool_blocks(bench):
    """What a versioning tool costs against none, without and with debug info
    (bench.json's tool_cpu_s: lab/bench.sh's tools phase)."""
    tools = bench.get("tool_cpu_s") or {}
    if not tools:
        return []
    rows = []
    for name, r in sorted(tools.items(), key=lambda kv: (kv[1].get("debug_info", False),
                                                         kv[1].get("tool") != "none", kv[0])):
        c, t = r.get("cpu_s") or {}, r.get("tool_cpu_s") or {}
        rows.append([doc.Bold(name), r.get("tool", NONE), "DWARF" if r.get("debug_info") else "none",
                     num(c.get("median")), len(c.get("runs") or []),
                     f"{r['ratio_to_none']:.3f}×" if isinstance(r.get("ratio_to_none"), (int, float))
                     else NONE, num(t.get("median")) if t else NONE])
    return [doc.P("What the versioning tool costs, as a distributor pays it: clean builds "
                  "(ccache off) of each arm and of each with DWARF 5 debug info added, in the same "
                  "rounds; × none is against the build without modversions with the same debug info."),
            doc.Table(["build", "tool", "debug info", "clean build CPU s (median)", "runs",
                       "× none", "symversions steps CPU s"], rows, align="lllrrrr")]


def _target_value(t):
    for k, unit in (("value_s", " s"), ("value_pct", " %"), ("value", "×")):
        if isinstance(t.get(k), (int, float)):
            pre = "≥ " if t.get("bound") == "lower" else ""
            return f"{pre}{t[k]:g}{unit}"
    return NONE


def target_blocks(targets):
    """Issue 7's targets: met or missed, and by how much, from bench.json."""
    rows = []
    for name, t in targets.items():
        if "target" not in t:
            continue
        met = {True: "met", False: "**missed**", None: "not measured"}[t.get("met")]
        rows.append([name.replace("_", " "), _target_value(t), t["target"], met,
                     " ".join(x for x in (t.get("what"), t.get("note")) if x) or NONE])
    if not rows:
        return []
    return [doc.H(3, "Targets"), doc.Table(["what", "measured", "target", "", "how, and why"],
                                           rows, align="lrrll")]


def lab_time_blocks(lab):
    """The lab's own wall times (lab/timed.sh, make bench's warm compare)."""
    names = [("make_compare_cold_s", "make compare, cold (empty build/ and ccache)"),
             ("make_compare_fresh_s", "make compare, fresh clone (warm ccache)"),
             ("make_compare_warm_s", "make compare, warm (nothing changed)"),
             ("make_test_s", "make test (last run)")]
    rows = [[label, f"{lab[k]:.0f}", lab.get(k[:-2] + "_date") or NONE]
            for k, label in names if isinstance(lab.get(k), (int, float))]
    out = [doc.H(3, "The lab itself")]
    if not rows:
        return out + [doc.P("No wall times recorded yet (lab/timed.sh writes "
                            "build/lab-times.tsv on every make compare and make test).")]
    out.append(doc.Table(["run", "wall s", "when"], rows, align="lrl"))
    st = lab.get("make_compare_warm_steps") or lab.get("steps_tsv_all") or {}
    top = st.get("top") or []
    if top:
        out.append(doc.Details("Where the time goes (slowest steps, build/steps.tsv)", [doc.Table(
            ["step", "what", "s"], [[a, b, c] for a, b, c in top[:12]], align="llr")]))
    return out


KEY = "costs"
TITLE = "Costs"


def blocks(data, report):
    return cost_blocks(report)
