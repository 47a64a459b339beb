# SPDX-License-Identifier: GPL-2.0
"""The lab's one ELF reader (and, for the robustness corpus, writer): ELF64
little-endian files as Python sees them, no binutils needed. Used by
core/corpus.py (which edits modules), lab/sizes.py and lab/bench.py
(which measure sections).
"""
import struct

SHT = {"NULL": 0, "PROGBITS": 1, "SYMTAB": 2, "STRTAB": 3, "RELA": 4, "NOBITS": 8}
SHF_ALLOC = 2
EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
EHDR_FIELDS = ["e_ident", "e_type", "e_machine", "e_version", "e_entry", "e_phoff",
               "e_shoff", "e_flags", "e_ehsize", "e_phentsize", "e_phnum", "e_shentsize",
               "e_shnum", "e_shstrndx"]
SHDR = struct.Struct("<IIQQQQIIQQ")
SHDR_FIELDS = ["name", "type", "flags", "addr", "offset", "size", "link", "info",
               "addralign", "entsize"]
SYM = struct.Struct("<IBBHQQ")
RELA = struct.Struct("<QQq")         # Elf64_Rela: r_offset, r_info, r_addend


class ElfError(Exception):
    """A file that is not the ELF64 this reader knows, or a change it cannot make."""


class Elf:
    """An ELF64 relocatable file: the bytes, the header and the section headers.

    Section contents stay where they are in `data`; a section that grows is
    moved to the end of the file, a new section and the section header table
    (when it has to grow) too. to_bytes() writes the headers back.
    """

    def __init__(self, data):
        data = bytes(data)
        if len(data) < EHDR.size or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise ElfError("not an ELF64 little-endian file")
        self.data = bytearray(data)
        self.ehdr = dict(zip(EHDR_FIELDS, EHDR.unpack_from(data, 0)))
        if self.ehdr["e_shentsize"] != SHDR.size:
            raise ElfError("unexpected section header size")
        off = self.ehdr["e_shoff"]
        self.shdrs = [dict(zip(SHDR_FIELDS, SHDR.unpack_from(data, off + i * SHDR.size)))
                      for i in range(self.ehdr["e_shnum"])]
        self._table_moved = False

    # reading
    def shstrtab(self):
        return self.content(self.ehdr["e_shstrndx"])

    def name(self, i):
        tab = self.shstrtab()
        start = self.shdrs[i]["name"]
        return tab[start:tab.index(b"\0", start)].decode("latin-1")

    def index(self, name):
        """The index of the first section named name, or None."""
        return next((i for i in range(1, len(self.shdrs)) if self.name(i) == name), None)

    def section(self, name):
        i = self.index(name)
        if i is None:
            raise ElfError(f"the module has no {name} section")
        return i

    def content(self, i):
        s = self.shdrs[i]
        if s["type"] == SHT["NOBITS"]:
            return b""
        return bytes(self.data[s["offset"]:s["offset"] + s["size"]])

    def undefined_symbols(self):
        """Names of the symbols the module imports, in symbol table order."""
        i = next(i for i, s in enumerate(self.shdrs) if s["type"] == SHT["SYMTAB"])
        sym, strtab = self.content(i), self.content(self.shdrs[i]["link"])
        names = []
        for off in range(SYM.size, len(sym), SYM.size):
            st_name, _, _, shndx, _, _ = SYM.unpack_from(sym, off)
            if shndx == 0 and st_name:
                names.append(strtab[st_name:strtab.index(b"\0", st_name)].decode())
        return names

    # writing
    def _append(self, blob, align=8, end_at=None):
        """Append blob at the end of the file; returns its offset.

        end_at=N pads so that the blob ends on a multiple of N instead.
        """
        pad = (-len(self.data)) % max(align, 1)
        if end_at:
            pad = (-(len(self.data) + len(blob))) % end_at
        self.data += b"\0" * pad
        off = len(self.data)
        self.data += blob
        return off

    def set_content(self, i, blob, end_at=None):
        """Replace a section's bytes: in place if they fit, else moved to the end."""
        s = self.shdrs[i]
        if len(blob) <= s["size"] and not end_at and s["type"] != SHT["NOBITS"]:
            self.data[s["offset"]:s["offset"] + len(blob)] = blob
        else:
            s["offset"] = self._append(blob, s["addralign"] or 1, end_at)
        s["size"] = len(blob)

    def add_section(self, name, blob, sh_type, flags, align):
        """A new section (its name appended to .shstrtab); returns its index."""
        stx = self.ehdr["e_shstrndx"]
        tab = self.shstrtab()
        self.set_content(stx, tab + name.encode() + b"\0")
        self.shdrs.append(dict(name=len(tab), type=sh_type, flags=flags, addr=0,
                               offset=self._append(blob, align), size=len(blob), link=0,
                               info=0, addralign=align, entsize=0))
        self._table_moved = True
        return len(self.shdrs) - 1

    def to_bytes(self):
        if self._table_moved:
            self.ehdr["e_shoff"] = self._append(b"\0" * (SHDR.size * len(self.shdrs)), 8)
            self._table_moved = False
        self.ehdr["e_shnum"] = len(self.shdrs)
        EHDR.pack_into(self.data, 0, *(self.ehdr[k] for k in EHDR_FIELDS))
        for i, s in enumerate(self.shdrs):
            SHDR.pack_into(self.data, self.ehdr["e_shoff"] + i * SHDR.size,
                           *(s[k] for k in SHDR_FIELDS))
        return bytes(self.data)


def read_sections(data):
    """[(name, sh_type, sh_flags, content)] of any ELF file, 32 or 64 bit, either
    byte order (a cross-built module; the Elf class above is ELF64 LE only)."""
    data = bytes(data)
    if len(data) < 52 or data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
        raise ElfError("not an ELF file")
    e = "<" if data[5] == 1 else ">"
    if data[4] == 2:
        shoff, = struct.unpack_from(e + "Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", data, 0x3a)
        shdr = struct.Struct(e + "IIQQQQIIQQ")
    else:
        shoff, = struct.unpack_from(e + "I", data, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", data, 0x2e)
        shdr = struct.Struct(e + "IIIIIIIIII")
    if shentsize != shdr.size or shoff + shnum * shentsize > len(data) or shstrndx >= shnum:
        raise ElfError("section header table out of the file")
    heads = [shdr.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]

    def body(h):
        return b"" if h[1] == SHT["NOBITS"] else data[h[4]:h[4] + h[5]]
    names = body(heads[shstrndx])
    out = []
    for h in heads[1:]:
        end = names.find(b"\0", h[0])
        out.append((names[h[0]:end if end >= 0 else None].decode("latin-1"), h[1], h[2], body(h)))
    return out


def section_sizes(path):
    """{section name: bytes} of an ELF file (sections of the same name summed)."""
    with open(path, "rb") as f:
        e = Elf(f.read())
    out = {}
    for i in range(1, len(e.shdrs)):
        name = e.name(i)
        out[name] = out.get(name, 0) + e.shdrs[i]["size"]
    return out
