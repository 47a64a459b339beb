#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run a command and record its CPU seconds (user+sys of all children) as JSON.

usage: cputime.py OUT.json -- command [args...]
The exit status is the command's; the JSON is written either way.
"""
import json
import resource
import subprocess
import sys
import time


def main(argv):
    if len(argv) < 3 or argv[1] != "--":
        sys.exit("usage: cputime.py OUT.json -- command [args...]")
    out, cmd = argv[0], argv[2:]
    t0 = time.monotonic()
    rc = subprocess.call(cmd)
    wall = time.monotonic() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    rec = {"cmd": cmd, "rc": rc, "wall_s": round(wall, 2),
           "user_s": round(ru.ru_utime, 2), "sys_s": round(ru.ru_stime, 2),
           "cpu_s": round(ru.ru_utime + ru.ru_stime, 2)}
    with open(out, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
