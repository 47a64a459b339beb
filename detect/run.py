# SPDX-License-Identifier: GPL-2.0
"""Run every detector on every generation built and write detectors.json.

    python3 -m detect.run [--build B] [--crc DIR] [--dwarf DIR] [--out FILE] [G...]

--crc: the kernels folder whose <gen>/Module.symvers carry genksyms CRCs
(default B/arms/base/kernels, written by lab/gens.sh); --dwarf: the dwarf
build's kernels (default B/arms/nomodv-dwarf/kernels, detect/build.sh). A
detector whose inputs are not built is left out with the reason (the dwarf
build is its own, heavier target); a detector that fails on inputs that are
there fails the run. Each detector runs as its own process: cpu_s is its
CPU time (user+sys, children included). The result, per detector and
generation: flagged exports, false positives / negatives against gens.tsv's
"changes" (the declaration, which only the oracle reads), the bump and
whether it was needless or missed by the same declaration."""
import argparse
import json
import os
import re
import resource
import subprocess
import sys

from detect import DETECTORS, INPUTS, ORACLE, module_name
from core import generations, tables
from detect.common import DetectError
from detect.dwarf import ENTRY, parse_report

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def judge(res, declared, layout=False):
    """False positives / negatives of one result against the declaration.

    layout: the generation declares "breaks layout", so every module built
    for G0 is incompatible: a bump is needed, and no flagged export is a
    false positive (the changed structure may be behind any of them)."""
    flagged, declared = set(res["flagged"]), set(declared)
    names_exports = bool(flagged) or not res["bump"]
    res["false_positive"] = [] if layout else sorted(flagged - declared)
    # a policy that bumps without naming exports (every-upload) covers all
    res["false_negative"] = sorted(declared - flagged) if names_exports else []
    if res["bump"] and not declared and not layout:
        res["bump_vs_declared"] = "needless"
    elif (declared or layout) and not res["bump"]:
        res["bump_vs_declared"] = "missed"
    else:
        res["bump_vs_declared"] = "agrees"
    return res


def build_cost(dwarf_dir, ref):
    """The dwarf build's CPU seconds against the arm without debug info."""
    def rd(path):
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            return None
    arm = os.path.dirname(dwarf_dir)
    out = {"dir": arm, "g0": rd(os.path.join(arm, "build-clean.json")) or rd(os.path.join(arm, "build.json")),
           "reference": rd(ref) if ref else None, "reference_file": ref, "gens": {}}
    for k in sorted(os.listdir(dwarf_dir)) if os.path.isdir(dwarf_dir) else []:
        b = rd(os.path.join(dwarf_dir, k, "build.json"))
        vm = os.path.join(dwarf_dir, k, "vmlinux")
        if b or os.path.isfile(vm):
            out["gens"][k] = {"cpu_s": b["cpu_s"] if b else None,
                              "vmlinux_mb": round(os.path.getsize(vm) / 2**20, 1) if os.path.isfile(vm) else None}
    return out


# the report lines of a saved abidiff run worth quoting: its summary lines
SUMMARY = re.compile(r"^(Functions|Variables) changes summary")


def _evidence(save, det, gen, names):
    """The abidiff command, its summary and every entry naming one of names
    (with its detail lines), from the saved report; None if not saved."""
    path = os.path.join(save, f"{det}-{gen}.txt")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    keep, inside = [], False
    for ln in lines:
        if ENTRY.match(ln):
            inside = any(n in ln for n in names)
        elif ln and not ln.startswith(" "):
            inside = False
        if inside or ln.startswith(("$ ", "# exit")) or SUMMARY.match(ln):
            keep.append(ln)
    return {"lines": keep[:60], "entries": sorted(parse_report("\n".join(lines)))}


def crc_misses(result, save):
    """The G4 question: per generation, the declared changes the crc detector
    missed, the detectors that caught them, and the abidiff evidence (the
    report's ABI detectors section shows it as it is)."""
    # what the CRCs miss: declared changes the crc detector did not flag
    crc = result["detectors"].get("crc", {})
    missed = {g: r["false_negative"] for g, r in crc.items() if r["false_negative"]}
    gate = {}
    for g, names in missed.items():
        caught = {d: sorted(set(r[g]["flagged"]) & set(names))
                  for d, r in result["detectors"].items()
                  if d != ORACLE and g in r and r[g]["flagged"]}
        caught = {d: n for d, n in caught.items() if n}
        gate[g] = {"crc_missed": names, "caught_by": caught,
                   "evidence": {d: _evidence(save, d, g, names)
                                for d in caught if d.startswith("dwarf")}}
        for d in ("dwarf", "dwarf-kmi"):
            if d in result["detectors"] and d not in caught:
                gate[g]["evidence"][d] = _evidence(save, d, g, names)
    return gate


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m detect.run", description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=tables.build_dir())
    ap.add_argument("--crc")
    ap.add_argument("--dwarf")
    ap.add_argument("--ref", help="build.json of the arm without debug info "
                    "(default B/arms/nomodv/build-clean.json)")
    ap.add_argument("--out")
    ap.add_argument("--only", help="comma-separated detectors (default: all)")
    a = ap.parse_args(argv)
    dirs = {"crc": a.crc or os.path.join(a.build, "arms", tables.reference_arm(), "kernels"),
            "dwarf": a.dwarf or os.path.join(a.build, "arms", "nomodv-dwarf", "kernels")}
    out_path = a.out or os.path.join(a.build, "detect", "detectors.json")
    save = os.path.join(os.path.dirname(out_path), "abidiff")
    os.makedirs(save, exist_ok=True)
    dets = a.only.split(",") if a.only else DETECTORS
    bad = [d for d in dets if d not in DETECTORS]
    if bad:
        raise DetectError(f"unknown detector(s) {' '.join(bad)} (known: {' '.join(DETECTORS)})")
    gens = generations.wanted_gens()
    result = {"detectors": {}, "skipped": {}, "inputs": dirs,
              "declared": {g["gen"]: g["changes"] for g in gens}}
    for det in dets:
        src = INPUTS.get(det)
        kdir = dirs[src] if src else None
        if kdir and not os.path.isfile(os.path.join(kdir, "G0", "Module.symvers")):
            result["skipped"][det] = f"{kdir}/G0 not built"
            continue
        per = {}
        for g in gens:
            gn = os.path.join(kdir, g["gen"]) if kdir else "-"
            if kdir and not os.path.isdir(gn):
                continue  # that generation not built (GENS)
            os.environ["MODVLAB_DETECT_SAVE"] = os.path.join(save, f"{det}-{g['gen']}.txt")
            before = _children_cpu()
            p = subprocess.run([sys.executable, "-m", module_name(det),
                                os.path.join(kdir, "G0") if kdir else "-", gn, g["gen"]],
                               cwd=TOP, capture_output=True, text=True, check=False)
            cpu = _children_cpu() - before
            if p.returncode != 0:
                msg = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
                raise DetectError(f"{det} {g['gen']}: {msg}")
            res = judge(json.loads(p.stdout), g["changes"], "layout" in g["breaks"])
            res["cpu_s"] = round(cpu, 2)
            per[g["gen"]] = res
            print(f"  DETECT {det} {g['gen']}: {','.join(res['flagged']) or '-'}"
                  f"{' (bump)' if res['bump'] else ''} {cpu:.1f}s", flush=True)
        result["detectors"][det] = per
    os.environ.pop("MODVLAB_DETECT_SAVE", None)
    result["crc_misses"] = crc_misses(result, save)
    if "dwarf" in INPUTS.values():
        result["extra_build"] = build_cost(
            dirs["dwarf"], a.ref or os.path.join(a.build, "arms", "nomodv", "build-clean.json"))
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    os.replace(tmp, out_path)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (DetectError, tables.TableError) as e:
        print(f"modvlab: detect: {e}", file=sys.stderr)
        sys.exit(1)
