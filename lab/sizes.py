#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Measure one arm's sizes into build/arms/ARM/sizes.json: vmlinux sections,
bzImage, exports (and those with no CRC), __kcrctab bytes, workload .ko bytes
and their __versions bytes. Uses binutils' size and core/elf.py.

usage: sizes.py ARM
"""
import glob
import json
import os
import re
import subprocess
import sys

from core import tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()

from core.elf import section_sizes as sections  # the one ELF reader

WORKLOAD_SETS = ("main", "apart", "v2", "noproto", "probe")


def size_bd(path):
    # berkeley format: text data bss dec hex filename
    out = subprocess.run(["size", path], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    text, data, bss = (int(x) for x in out[1].split()[:3])
    return {"text": text, "data": data, "bss": bss}


def symvers(path):
    exports = unversioned = 0
    with open(path) as f:
        for line in f:
            cols = line.split("\t")
            if len(cols) >= 3 and cols[2] == "vmlinux":
                exports += 1
                if int(cols[0], 16) == 0:
                    unversioned += 1
    return exports, unversioned


# modpost's words for an export or import without a CRC, before and after
# series-keep ("version generation failed", "has no CRC!" / "has no CRC:")
MISSING_CRC_RE = re.compile(r"version generation failed|has no CRC")


def missing_crc_lines(path, section=None):
    """modpost's missing-CRC messages in a log; with section, only between
    the "== section" marker workload/build.sh writes and the next one."""
    if not os.path.isfile(path):
        return None
    n, inside = 0, section is None
    with open(path, errors="replace") as f:
        for line in f:
            if section is not None and line.startswith("== "):
                inside = line.split()[1].rstrip(":") == section
            elif inside and MISSING_CRC_RE.search(line):
                n += 1
    return n


def zero_crcs(path):
    """Exports dumped with CRC 0 (no CRC): their count and the first names."""
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        names = [l.split("\t")[1] for l in f if l.startswith("0x00000000\t")]
    return {"count": len(names), "names": names[:20]}


def series_stats(src, arm):
    """The arm's series as a diffstat against the pristine tree."""
    def git(*args):
        return subprocess.run(["git", "-C", src, *args], capture_output=True,
                              text=True, check=True).stdout
    try:
        patches = len(git("rev-list", "pristine..arm/" + arm).split())
        added = removed = files = 0
        for line in git("diff", "--numstat", "pristine", "arm/" + arm).splitlines():
            a, r, _ = line.split("\t", 2)
            files += 1
            if a != "-":
                added, removed = added + int(a), removed + int(r)
    except (subprocess.CalledProcessError, ValueError):
        return None
    return {"patches": patches, "files": files, "added": added, "removed": removed}


def bloat_vs_base(arm, vmlinux):
    """The tree's scripts/bloat-o-meter, base's vmlinux against this arm's."""
    ref = tables.reference_arm()
    base = os.path.join(B, "arms", ref, "kernels", "G0", "vmlinux")
    tool = os.path.join(B, "linux", "scripts", "bloat-o-meter")
    if arm == ref or not os.path.isfile(base):
        return None
    r = subprocess.run([tool, base, vmlinux], capture_output=True, text=True)
    if r.returncode:
        return None
    lines = r.stdout.splitlines()
    return {"summary": lines[0] if lines else "", "total": lines[-1] if lines else "",
            "top": lines[2:12]}


def modversions(obj):
    with open(os.path.join(obj, ".config")) as f:
        return "CONFIG_MODVERSIONS=y\n" in f.read()


def main(argv):
    if len(argv) != 1:
        sys.exit("usage: sizes.py ARM")
    arm = argv[0]
    adir = os.path.join(B, "arms", arm)
    obj = os.path.join(adir, "obj")
    g0 = os.path.join(adir, "kernels", "G0")     # the release, as arm.sh kept it
    vmlinux = os.path.join(g0, "vmlinux")
    if not os.path.isfile(vmlinux):
        sys.exit(f"sizes: {arm} is not built ({vmlinux} missing)")
    secs = sections(vmlinux)
    exports, unversioned = symvers(os.path.join(g0, "Module.symvers"))
    rec = {
        "vmlinux": size_bd(vmlinux),
        "bzimage_bytes": os.path.getsize(os.path.join(g0, tables.image_name())),
        "exports": exports,
        "unversioned_exports": unversioned,
        "kcrctab_bytes": secs.get("__kcrctab", 0) + secs.get("__kcrctab_gpl", 0),
        "ksymtab_bytes": secs.get("__ksymtab", 0) + secs.get("__ksymtab_gpl", 0),
        "modules": {},
        "series": series_stats(os.path.join(adir, "src"), arm),
        "bloat_vs_base": bloat_vs_base(arm, vmlinux),
        # completeness audit: exports without a CRC, and modpost's messages
        # about them (kernel build log, the workload's main M= build)
        "audit": None if not modversions(obj) else {
            "vmlinux_zero_crc": zero_crcs(os.path.join(g0, "Module.symvers")),
            "workload_zero_crc": zero_crcs(os.path.join(adir, "mods", "main", "Module.symvers")),
            "kernel_missing_crc_msgs": missing_crc_lines(os.path.join(adir, "logs", "build-clean.log")),
            "workload_missing_crc_msgs": missing_crc_lines(os.path.join(adir, "logs", "modules.log"), "main"),
        },
    }
    # the sets workload/build.sh makes (the corpus and bench sets have their
    # own reports and are not all valid ELF)
    for ko in sorted(k for st in WORKLOAD_SETS
                     for k in glob.glob(os.path.join(adir, "mods", st, "*.ko"))):
        name = os.path.relpath(ko, os.path.join(adir, "mods"))[:-3]
        s = sections(ko)
        rec["modules"][name] = {"ko_bytes": os.path.getsize(ko),
                                "versions_bytes": s.get("__versions", 0)}
    with open(os.path.join(adir, "sizes.json"), "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
