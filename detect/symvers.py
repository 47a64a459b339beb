# SPDX-License-Identifier: GPL-2.0
"""Module.symvers: the export list (and genksyms CRCs) of one kernel build.

Each line: CRC <tab> symbol <tab> module <tab> EXPORT_SYMBOL[_GPL] <tab>
[namespace]; without CONFIG_MODVERSIONS every CRC is 0x00000000."""
import re

from detect.common import DetectError, need

LINE = re.compile(r"^0x([0-9a-fA-F]{1,8})\t(\S+)\t(\S+)\t(EXPORT_SYMBOL\w*)\t?(\S*)$")


def parse(path):
    """{symbol: crc (int)}; DetectError naming the first bad line."""
    out = {}
    with open(need(path), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            m = LINE.match(line)
            if not m:
                raise DetectError(f"{path}:{n}: not a Module.symvers line")
            out[m.group(2)] = int(m.group(1), 16)
    if not out:
        raise DetectError(f"{path}: no exports")
    return out


def crc_changes(old, new, only=None):
    """The exports of old whose CRC differs in new, or that new lacks (an
    added export breaks no module built against old); only: restrict to
    these names. Sorted."""
    return sorted(s for s, crc in old.items()
                  if (only is None or s in only) and new.get(s) != crc)
