# SPDX-License-Identifier: GPL-2.0
"""make valid's boots: each arm's kernel booted with every module its own
build made (lab/valid.sh), each loaded with its dependencies first (as
modprobe would: depends=, then softdep pre:), checked by its own init, and
unloaded; one guest per arm, crash-resumed (a boot that dies keeps the module
it was loading, the rest boot again). Reuses qemu/initramfs.sh, qemu/boot.sh,
the lab's guest loader and core/ktap.py.

Pass rule: a module the reference arm (workload/arms.tsv) loads must load in
every other arm; each one that does not is a failure with the kernel's words.

    python3 -m valid.boot V ARM...     V = build/BASE/valid/ARCH-SET
        -> V/arms/ARM/valid.json per arm, V/valid.json (what the report reads)
"""
import json
import os
import pathlib
import subprocess
import sys

from core import ktap, tables
from core.resume import boot_until_done
from core.elf import ElfError
from history.boot import dep_order, outcome
from history.mechanism import read_config
from history.modfacts import modname, softdep_pre
from valid import features

TOP = pathlib.Path(__file__).resolve().parent.parent
SKIP_TSV = TOP / "valid/skip.tsv"


def read_skip(path=SKIP_TSV):
    """{module: why} of the modules built but never loaded (valid/skip.tsv)."""
    rows = tables.read_tsv(str(path), ["module", "why"], keep_line=True)
    for r in rows:
        if not r["module"] or not r["why"]:
            raise ValueError(f"{path}:{r['line']}: want 'module<TAB>why'")
    return {modname(r["module"]): r["why"] for r in rows}


def arm_modules(adir):
    """{name: {path, depends, softdep, aliases, features}} of every .ko under
    ARM/obj; a file that is not a module is a ValueError naming it."""
    obj = pathlib.Path(adir) / "obj"
    ns = features.namespaced_exporters(obj / "Module.symvers")
    out = {}
    for p in sorted(obj.rglob("*.ko")):
        try:
            s = features.scan(p)
        except (OSError, ElfError) as e:
            raise ValueError(f"{p}: {e}") from None
        info = s["modinfo"]
        name = modname((info.get("name") or [p.stem])[0])
        rel = str(p.relative_to(obj))
        feats = s["features"] + (["export_ns"] if rel[:-3] in ns else [])
        out[name] = {"path": rel, "features": feats,
                     "depends": [modname(d) for d in ",".join(info.get("depends", [])).split(",") if d],
                     "softdep": [w for sd in info.get("softdep", []) for w in softdep_pre(sd)],
                     "aliases": info.get("alias", [])}
    return out


def guest(rel):
    return f"/m/v/{rel}"


def run_boot(vdir, arm, boot, cases, mods):
    """One boot of ARM with cases [module name] -> ktap.Run."""
    adir = pathlib.Path(vdir) / "arms" / arm
    d = adir / "boot"
    d.mkdir(parents=True, exist_ok=True)
    files, lines = {}, []
    for name in cases:
        deps = dep_order(name, mods)
        for x in deps + [name]:
            files[guest(mods[x]["path"])] = str(adir / "obj" / mods[x]["path"])
        lines.append(f"{name}|-|1|{guest(mods[name]['path'])}|"
                     + ",".join(guest(mods[x]["path"]) for x in deps))
    (d / f"{boot}.plan").write_text(
        f"# modvlab plan: valid modules, arm {arm}, boot {boot}\n" + "\n".join(lines) + "\n")
    (d / f"{boot}.files").write_text("".join(f"{g}\t{os.path.abspath(h)}\n"
                                             for g, h in files.items()))
    # the lab's memory (qemu/boot.sh) unless VALID_MEM says otherwise: QEMU's
    # Malta puts memory past 256 MB where a 64-bit kernel loses its initrd
    env = dict(os.environ, B=str(pathlib.Path(vdir).resolve()),
               MEM=os.environ.get("VALID_MEM", "256M"),
               TIMEOUT=str(int(os.environ.get("VALID_TIMEOUT", 0)) or 90 + 4 * len(cases)))
    subprocess.run(["sh", str(TOP / "qemu/initramfs.sh"), arm, boot], env=env, check=True)
    subprocess.run(["sh", str(TOP / "qemu/boot.sh"), arm, boot], env=env)
    try:
        status = json.loads((d / f"{boot}.json").read_text()).get("status")
    except (OSError, ValueError):
        status = None
    return ktap.parse(ktap.read_log(d / f"{boot}.log"), status)


def boot_arm(vdir, arm, names, mods):
    """Boot ARM until every module has an outcome -> ({name: result}, boots)."""
    def result(att, run):
        res, _check, dmesg = outcome(att)
        if res == "crashed" and run.status == ktap.Status.TIMEOUT:
            res = "timeout"
        return {"outcome": res, "dmesg": dmesg[-4:],
                "unload": att.result.kv.get("unload") if att.result else None}
    return boot_until_done(list(names), lambda boot, todo: run_boot(vdir, arm, boot, todo, mods),
                           lambda name: name, result, "valid", {"dmesg": [], "unload": None})


def reason(r):
    """The kernel's words for an outcome: its last log line, else the outcome."""
    return (r.get("dmesg") or [r["outcome"]])[-1]


def compiler(config):
    """The compiler a build was configured with, in its own words
    (CONFIG_CC_VERSION_TEXT), None if the configuration is unreadable."""
    try:
        return read_config(config).get("CC_VERSION_TEXT")
    except OSError:
        return None


def summarize(vdir, arms, per_arm, mods_by_arm, skip):
    """V/valid.json: per arm counts and results, the failures against the
    reference arm, the ELF features of the reference arm's modules."""
    vdir = pathlib.Path(vdir)
    ref = tables.reference_arm() if tables.reference_arm() in arms else arms[0]
    setf = vdir / "set"    # lab/valid.sh's; the folder's name has VALID_CC's too
    out = {"arch": tables.arch()["name"],
           "set": setf.read_text().strip() if setf.exists() else vdir.name.split("-", 1)[-1],
           "compiler": compiler(vdir / "arms" / ref / "obj" / ".config"),
           "base": tables.base()["base"], "reference": ref, "arms": {}, "failures": [],
           "extra_loads": [], "not_taken": {}, "features": {},
           # the skip table's modules this set built
           "skipped": {m: w for m, w in skip.items() if m in mods_by_arm[ref]},
           "feature_titles": features.TITLES}
    for arm in arms:
        res = per_arm[arm]["results"]
        try:      # a clean build's (lab/valid.sh keeps it), not the last one's
            cpu = json.loads((vdir / "arms" / arm / "build-clean.json").read_text()).get("cpu_s")
        except (OSError, ValueError):
            cpu = None
        try:      # lab/valid.sh's: "clean", or the arm whose objects it started from
            build_from = (vdir / "arms" / arm / "build.from").read_text().strip() or None
        except OSError:
            build_from = None
        try:      # valid/extra.py's: the packages built against this arm
            out.setdefault("extra", {})[arm] = json.loads(
                (vdir / "arms" / arm / "extra.json").read_text())
        except (OSError, ValueError):
            pass
        nt = vdir / f"not-taken.{arm}"
        out["not_taken"][arm] = nt.read_text().split() if nt.exists() else []
        loaded = sum(1 for r in res.values() if r["outcome"] == "loaded")
        out["arms"][arm] = {
            "built": len(mods_by_arm[arm]), "booted": len(res), "loaded": loaded,
            "refused": sum(1 for r in res.values() if r["outcome"].startswith(("refused", "setup"))),
            "crashed": sum(1 for r in res.values() if r["outcome"] in ("crashed", "timeout")),
            "not_reached": sum(1 for r in res.values() if r["outcome"] == "not-reached"),
            "boots": per_arm[arm]["boots"], "build_cpu_s": cpu, "build_from": build_from,
            "results": {m: {"outcome": r["outcome"], "reason": reason(r), "unload": r["unload"]}
                        for m, r in sorted(res.items())}}
    refres = per_arm[ref]["results"]
    for arm in arms:
        if arm == ref:
            continue
        res = per_arm[arm]["results"]
        for m in sorted(set(refres) | set(res)):
            a, b = refres.get(m), res.get(m)
            if a and a["outcome"] == "loaded" and (not b or b["outcome"] != "loaded"):
                out["failures"].append({"arm": arm, "module": m,
                                        "outcome": b["outcome"] if b else "not-built",
                                        "reason": reason(b) if b else "the arm did not build it"})
            elif b and b["outcome"] == "loaded" and (not a or a["outcome"] != "loaded"):
                out["extra_loads"].append({"arm": arm, "module": m,
                                           "reference": a["outcome"] if a else "not-built"})
    mods = mods_by_arm[ref]
    for key in features.TITLES:
        out["features"][key] = sum(1 for m in mods.values() if key in m["features"])
    out["modules"] = {m: v["features"] for m, v in sorted(mods.items())}
    # where each module is in every arm's obj/, and what it needs first
    # (make fuzz --valid picks its seeds from these)
    out["paths"] = {m: v["path"] for m, v in sorted(mods.items())}
    obj = vdir / "arms" / ref / "obj"
    out["sizes"] = {m: (obj / v["path"]).stat().st_size if (obj / v["path"]).exists() else 0
                    for m, v in sorted(mods.items())}
    out["needs"] = {m: dep_order(m, mods) for m in sorted(mods)}
    (vdir / "valid.json").write_text(json.dumps(out, indent=1))
    return out


def main(argv):
    if len(argv) < 3:
        print("usage: python3 -m valid.boot V ARM...", file=sys.stderr)
        return 2
    vdir, arms = argv[1], argv[2:]
    try:
        skip = read_skip()
        mods_by_arm = {a: arm_modules(pathlib.Path(vdir) / "arms" / a) for a in arms}
    except (OSError, ValueError) as e:
        print(f"valid: {e}", file=sys.stderr)
        return 1
    per_arm = {}
    for arm in arms:
        mods = mods_by_arm[arm]
        if not mods:
            print(f"valid: arm {arm} built no module (see {vdir}/arms/{arm}/logs/build.log)",
                  file=sys.stderr)
            return 1
        names = [m for m in sorted(mods) if m not in skip]
        print(f"  VALID  {arm}: {len(names)} modules in one guest", file=sys.stderr)
        results, boots = boot_arm(vdir, arm, names, mods)
        per_arm[arm] = {"results": results, "boots": boots}
        (pathlib.Path(vdir) / "arms" / arm / "valid.json").write_text(json.dumps(per_arm[arm], indent=1))
        n_ok = sum(1 for r in results.values() if r["outcome"] == "loaded")
        print(f"  VALID  {arm}: {n_ok} of {len(results)} loaded, {boots} boot(s)", file=sys.stderr)
    out = summarize(vdir, arms, per_arm, mods_by_arm, skip)
    for f in out["failures"]:
        print(f"valid: {f['arm']} refused {f['module']}, which {out['reference']} loads: "
              f"{f['outcome']}: {f['reason']}", file=sys.stderr)
    print(f"  VALID  {len(out['failures'])} module(s) a series refused that "
          f"{out['reference']} loads", file=sys.stderr)
    return 1 if out["failures"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
