# SPDX-License-Identifier: GPL-2.0
"""ABI detectors, as distributors run them on a new kernel build (issue 13).

Each detector is a small module here with detect(g0, gn, gen) -> {"bump":
bool, "flagged": [exports], ...}: g0 and gn are kernel folders holding a
Module.symvers (and, for dwarf, a vmlinux with DWARF); gen is the
generation's gens.tsv record, which only the oracle (declared) reads. Each
also runs alone: python3 -m detect.NAME G0_DIR GN_DIR [GEN].
detect.run runs them all and writes build/detect/detectors.json.
"""
# name -> module, in the report's order; the tool-driven ones first, the
# oracle last
DETECTORS = ["never", "every-upload", "crc", "stablelist", "dwarf", "dwarf-kmi",
             "declared"]
# the one that reads gens.tsv's declaration: the oracle, not evidence
ORACLE = "declared"
# which kernels each detector reads: the base arm's (genksyms CRCs), the
# dwarf build's (vmlinux with DWARF), or none
INPUTS = {"crc": "crc", "stablelist": "crc", "dwarf": "dwarf", "dwarf-kmi": "dwarf"}


def module_name(det):
    return "detect." + det.replace("-", "_")
