#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""After a boot that did not finish (oops, panic, hang, garbage), move the
cases it never reached into a fresh boot, so one bad case costs one case.

The case that was running when the guest died keeps its boot (the report
calls it crashed or timeout); every later case of that boot is planned again
in boot BOOT.rN on the same kernel, recorded in boot/resumes.json (the
planner's plan.json is never rewritten: core/runfiles.py applies the
resumes for every reader). Prints "NEWBOOT KERNEL TIMEOUT" for lab/run.sh,
or nothing when there is nothing left to run.

usage: python3 -m qemu.resume ARM BOOT
"""
import json
import os
import re
import sys

from core import ktap, runfiles, tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()


def next_name(boots, boot):
    m = re.match(r"^(.*)\.r(\d+)$", boot)
    stem, k = (m.group(1), int(m.group(2))) if m else (boot, 0)
    while f"{stem}.r{k + 1}" in boots:
        k += 1
    return f"{stem}.r{k + 1}"


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: python3 -m qemu.resume ARM BOOT")
    arm, boot = argv
    adir = os.path.join(B, "arms", arm)
    bdir = os.path.join(adir, "boot")
    plan = runfiles.read_plan(adir)
    try:
        with open(os.path.join(bdir, boot + ".json")) as f:
            status = json.load(f).get("status")
        run = ktap.parse(ktap.read_log(os.path.join(bdir, boot + ".log")), status)
    except (OSError, ValueError) as e:
        sys.exit(f"resume: {arm} {boot}: cannot read the boot's result: {e}")
    if run.status == ktap.Status.OK:
        return 0
    mine = sorted((c for c in plan["cases"] if c["boot"] == boot), key=lambda c: c["n"])
    done = {a.n for a in run.attempts.values() if a.result}
    left = [c for c in mine if c["n"] not in done]
    if len(left) <= 1:
        return 0            # only the case that was running, or none
    culprit, rest = left[0], left[1:]
    with open(os.path.join(bdir, boot + ".plan")) as f:
        lines = [l for l in f if l.strip() and not l.startswith("#")]
    new = next_name(plan["boots"], boot)
    with open(os.path.join(bdir, new + ".plan"), "w") as f:
        f.write(f"# modvlab plan: arm {arm}, boot {new} (resumes {boot} after {culprit['case']})\n")
        for c in rest:
            f.write(lines[c["n"] - 1])
    with open(os.path.join(bdir, boot + ".files")) as src, \
         open(os.path.join(bdir, new + ".files"), "w") as dst:
        dst.write(src.read())
    runfiles.add_resume(adir, {"boot": new, "from": boot, "after": culprit["case"],
                               "cases": [[c["n"], i] for i, c in enumerate(rest, 1)]})
    b = plan["boots"][boot]
    print(new, b["kernel"], b.get("timeout") or "-")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
