# SPDX-License-Identifier: GPL-2.0
"""What a minimized crashing input changed in its seed module: ELF structure
the loader parses, or only module content a compiler could have produced.

A crash whose minimized input changes nothing but code bytes (an SHF_EXECINSTR
section's contents) or relocation addends (which only move where a pointer in
the module's code or data points) is the module's content misbehaving: the
same file could come out of a compiler from other source, so no loader check
of the file can refuse it. Anything else (a header, a symbol, a relocation's
offset, type or symbol, a section the loader reads, a truncation) is the
loader's to check."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from compare.elf import SHT, Elf, ElfError  # noqa: E402

SHF_EXECINSTR = 4
RELA_ADDEND = range(16, 24)     # r_addend in an Elf64_Rela (24 bytes)


def where(seed, pos):
    """"code", "addend" or None (structure) for byte pos of the seed module."""
    e = Elf(seed)
    shoff = e.ehdr["e_shoff"]
    if pos < 64 or shoff <= pos < shoff + 64 * len(e.shdrs):
        return None
    for s in e.shdrs[1:]:
        if s["type"] == SHT["NOBITS"] or not s["offset"] <= pos < s["offset"] + s["size"]:
            continue
        if s["flags"] & SHF_EXECINSTR:
            return "code"
        if s["type"] == SHT["RELA"] and (pos - s["offset"]) % 24 in RELA_ADDEND:
            return "addend"
        return None
    return None


def content_only(seed, data, positions):
    """"code", "relocation addend" (or both) when every changed byte is module
    content, else None; a truncated or grown input is never content."""
    if len(data) != len(seed) or not positions:
        return None
    try:
        kinds = {where(seed, p) for p in positions}
    except (ElfError, ValueError, IndexError):
        return None
    if None in kinds:
        return None
    return " and ".join(name for k, name in (("code", "code"), ("addend", "relocation addend"))
                        if k in kinds)
