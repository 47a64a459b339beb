# SPDX-License-Identifier: GPL-2.0
"""What the loader's modversions check reads, from files: a module's __versions
and .modinfo (via the lab's one ELF reader, core/elf.py) and a Module.symvers."""
import struct

from core.elf import Elf, ElfError

VERSION = struct.Struct("<Q56s")     # struct modversion_info: 8-byte CRC, 56-byte name


class FactsError(Exception):
    """A module or Module.symvers this reader cannot make sense of."""


def modname(name):
    """The kernel's name of a module: '-' and '_' are one character to the
    loader and to modprobe, and modpost writes depends= from file names
    (dm-mod) while .modinfo's name= is KBUILD_MODNAME (dm_mod)."""
    return name.replace("-", "_")


def module_facts(path):
    """{versions: {symbol: crc}, depends: [name], vermagic: str, name: str} of a .ko.

    The one place that touches ELF: everything else works on these dicts."""
    try:
        with open(path, "rb") as f:
            elf = Elf(f.read())
        vi, mi = elf.index("__versions"), elf.index(".modinfo")
        raw = elf.content(vi) if vi is not None else b""
        info = elf.content(mi) if mi is not None else b""
    except (OSError, ElfError, ValueError, IndexError) as e:
        raise FactsError(f"{path}: {e}") from None
    if len(raw) % VERSION.size:
        raise FactsError(f"{path}: __versions is {len(raw)} bytes, not a multiple of 64")
    versions = {}
    for off in range(0, len(raw), VERSION.size):
        crc, name = VERSION.unpack_from(raw, off)
        versions[name.split(b"\0", 1)[0].decode("latin-1")] = crc & 0xffffffff
    tags, aliases = {}, []
    for item in info.split(b"\0"):
        k, sep, v = item.decode("latin-1").partition("=")
        if sep:
            tags.setdefault(k, v)
            if k == "alias":
                aliases.append(v)
    return {"versions": versions, "vermagic": tags.get("vermagic", ""),
            "name": modname(tags.get("name", "")),
            "depends": [modname(d) for d in tags.get("depends", "").split(",") if d],
            "softdep": softdep_pre(tags.get("softdep", "")), "aliases": aliases}


def softdep_pre(text):
    """The "pre:" names of a softdep= tag ("pre: crc32c post: x" -> ["crc32c"]):
    what modprobe loads before the module (its init may look them up)."""
    out, pre = [], False
    for w in text.split():
        if w.endswith(":"):
            pre = w == "pre:"
        elif pre:
            out.append(w)
    return out


def read_symvers(path):
    """Module.symvers -> {symbol: (crc, exporter)}; a malformed line is an error."""
    out = {}
    with open(path, encoding="latin-1") as f:
        for no, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 4:
                raise FactsError(f"{path}:{no}: not a Module.symvers line")
            try:
                out[parts[1]] = (int(parts[0], 16), parts[2])
            except ValueError:
                raise FactsError(f"{path}:{no}: bad CRC {parts[0]!r}") from None
    return out
