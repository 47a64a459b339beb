# SPDX-License-Identifier: GPL-2.0
"""What every detector shares: the CLI wrapper, one-line errors."""
import json
import os
import sys

from core import generations, tables


class DetectError(Exception):
    """Bad input: one line for stderr."""


def need(path):
    if not os.path.isfile(path):
        raise DetectError(f"{path}: missing")
    return path


def gen_record(name):
    """The gens.tsv record of generation name (None: G0 or not given)."""
    for g in generations.gens():
        if g["gen"] == name:
            return g
    raise DetectError(f"{name}: not in workload/gens/gens.tsv")


def cli(detect, argv=None):
    """python3 -m detect.NAME G0_DIR GN_DIR [GEN]: the result as JSON."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (2, 3):
        sys.exit(f"usage: python3 -m {detect.__module__} G0_DIR GN_DIR [GEN]")
    try:
        gen = gen_record(argv[2]) if len(argv) == 3 else None
        out = detect(argv[0], argv[1], gen)
    except (DetectError, tables.TableError) as e:
        print(f"modvlab: detect: {e}", file=sys.stderr)
        sys.exit(1)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")
