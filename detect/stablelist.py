# SPDX-License-Identifier: GPL-2.0
"""Detector stablelist: RHEL's kABI stablelist: only the exports listed in
detect/stablelist.txt (those promised to out-of-tree modules) count,
compared by genksyms CRC, G0 against Gn."""
import os

from detect import crc
from detect.common import DetectError, cli

LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stablelist.txt")


def read_list(path=LIST):
    """The listed symbols: one a line, # comments."""
    try:
        with open(path, encoding="utf-8") as f:
            names = [ln.split("#")[0].strip() for ln in f]
    except OSError as e:
        raise DetectError(f"{path}: {e.strerror}") from None
    names = [n for n in names if n]
    if not names:
        raise DetectError(f"{path}: no symbols")
    return set(names)


def detect(g0, gn, gen=None, path=LIST):
    only = read_list(path)
    out = crc.detect(g0, gn, gen, only=only)
    out["listed"] = len(only)
    return out


if __name__ == "__main__":
    cli(detect)
