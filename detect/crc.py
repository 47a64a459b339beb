# SPDX-License-Identifier: GPL-2.0
"""Detector crc: genksyms CRCs of every export, G0 against Gn (Module.symvers
of the base arm), as SUSE's kabi.pl and Debian's buildcheck.py (until 2025)
do: bump when an export's CRC changed or it is gone."""
import os

from detect import symvers
from detect.common import DetectError, cli


def detect(g0, gn, gen=None, only=None):
    old = symvers.parse(os.path.join(g0, "Module.symvers"))
    new = symvers.parse(os.path.join(gn, "Module.symvers"))
    if not any(old.values()):
        raise DetectError(f"{g0}/Module.symvers: every CRC is 0 "
                          "(a build without CONFIG_MODVERSIONS)")
    flagged = symvers.crc_changes(old, new, only)
    return {"bump": bool(flagged), "flagged": flagged, "exports": len(old)}


if __name__ == "__main__":
    cli(detect)
