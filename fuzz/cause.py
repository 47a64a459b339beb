# SPDX-License-Identifier: GPL-2.0
"""What a minimized crashing input changed in its seed module: ELF structure
the loader parses, or only module content a compiler could have produced.

A crash whose minimized input changes nothing but code bytes (an SHF_EXECINSTR
section's contents), .data/.rodata bytes (which only the module's own code and
constructors read), a symbol's value inside its section, relocation addends, a
relocation made R_X86_64_NONE (nothing applied, as if the entry were not
there), a relocation section's type made one the loader ignores or its target
a section the loader does not allocate (none of it applied, as if the
section were not there), a relocation's symbol for another
symbol of the table, the null symbol included (whose value is 0: the
addend is then written as it is), or its offset for another one inside a
section of code or data (which only change where a pointer or call in the
module's code or data goes, or what it holds), a symbol's section for another
allocated section of the module holding its value (the module then defines
that symbol itself) or a symbol's st_other (visibility, which the loader
never reads) is the module's content misbehaving: the same file could come
out of a compiler or assembler (.section, .reloc) from other source, so no
loader check of the file can refuse it. Anything else (a header, a symbol,
a relocation's offset out of its section, its type, a symbol outside the
table, a section the loader reads, a truncation) is the loader's to check."""
import os
import sys

from core.elf import SHT, Elf, ElfError

SHF_EXECINSTR = 4
RELA = 24                       # sizeof(Elf64_Rela): r_offset, r_info, r_addend
RELA_TYPE = range(8, 12)        # ELF64_R_TYPE(r_info)
RELA_SYMBOL = range(12, 16)     # ELF64_R_SYM(r_info), little-endian
RELA_ADDEND = range(16, 24)
SYM = 24                        # sizeof(Elf64_Sym)
SYM_OTHER = 5
SYM_SHNDX = range(6, 8)         # st_shndx: the section it is defined in
SYM_VALUE = range(8, 16)        # st_value: an offset in the symbol's section
SHF_ALLOC = 2
# data only the module's own code reads (the loader parses other sections:
# __ksymtab, __param, __versions, .modinfo, struct module, __jump_table, ...)
# (.ref.data: __refdata, data modpost lets reference init code; __tracepoints:
# the module's struct tracepoint objects, which the loader never looks up:
# the tracepoint and trace-event code reach them through the pointers the
# module gives it, as it does an object in .data a module registers)
DATA = (".data", ".rodata", ".bss", ".ref.data", "__tracepoints")
RELA_OFFSET = range(0, 8)       # r_offset: where in the target section it writes
# the widest value an x86_64 relocation writes (R_X86_64_64)
RELA_WIDTH = 8
# the section types the loader acts on in a section it does not allocate (the
# symbol table it finds by type, the relocations it applies): any other one,
# unknown types included, it only bounds against the file
USED = (SHT["SYMTAB"], SHT["RELA"], 9)       # 9: SHT_REL
NAMES = (("code", "code"), ("data", "data"), ("addend", "relocation addend"),
         ("dropped", "relocation dropped (R_X86_64_NONE)"),
         ("section dropped", "relocation section dropped (its type one the loader ignores)"),
         ("retargeted", "relocation section dropped (aimed at a section not allocated)"),
         ("offset", "relocation offset"),
         ("symbol", "relocation symbol"), ("value", "symbol value"),
         ("section", "symbol section"), ("other", "symbol visibility"))


def where(seed, data, pos):
    """"code", "addend", "symbol", "other" or None (structure) for byte pos."""
    e = Elf(seed)
    shoff = e.ehdr["e_shoff"]
    if shoff <= pos < shoff + 64 * len(e.shdrs) and (pos - shoff) % 64 in range(44, 48):
        # sh_info of a relocation section made another section that is not
        # allocated: apply_relocations() skips it (as it does a real
        # module's .rela.debug_*), so nothing of it is applied, as without it
        s = e.shdrs[(pos - shoff) // 64]
        hdr = pos - (pos - shoff) % 64
        new = int.from_bytes(data[hdr + 44:hdr + 48], "little")
        retargeted = (s["type"] in (SHT["RELA"], 9) and 0 < new < len(e.shdrs)
                      and not e.shdrs[new]["flags"] & SHF_ALLOC)
        return "retargeted" if retargeted else None
    if shoff <= pos < shoff + 64 * len(e.shdrs) and (pos - shoff) % 64 in range(4, 8):
        # sh_type of a relocation section the loader does not allocate, made
        # one it ignores there: nothing of it is applied, as without it
        s = e.shdrs[(pos - shoff) // 64]
        hdr = pos - (pos - shoff) % 64
        new = int.from_bytes(data[hdr + 4:hdr + 8], "little")
        dropped = s["type"] in (SHT["RELA"], 9) and not s["flags"] & SHF_ALLOC and new not in USED
        return "section dropped" if dropped else None
    if pos < 64 or shoff <= pos < shoff + 64 * len(e.shdrs):
        return None
    for s in e.shdrs[1:]:
        if s["type"] == SHT["NOBITS"] or not s["offset"] <= pos < s["offset"] + s["size"]:
            continue
        rel = (pos - s["offset"]) % RELA
        if s["flags"] & SHF_EXECINSTR:
            return "code"
        if s["type"] == SHT["RELA"] and rel in RELA_ADDEND:
            return "addend"
        if s["type"] == SHT["RELA"] and rel in RELA_TYPE:
            # made R_X86_64_NONE (0): the loader applies nothing, the same as a
            # file without that entry, whose code holds the addend's bytes as
            # they are: code a compiler could emit (another type: structure)
            entry = pos - rel
            return "dropped" if int.from_bytes(data[entry + 8:entry + 12], "little") == 0 else None
        if s["type"] == SHT["RELA"] and rel in RELA_SYMBOL and s["link"] < len(e.shdrs):
            entry = pos - rel
            nsyms = e.shdrs[s["link"]]["size"] // SYM
            new = int.from_bytes(data[entry + 12:entry + 16], "little")
            return "symbol" if 0 <= new < nsyms else None
        if s["type"] == SHT["RELA"] and rel in RELA_OFFSET and 0 < s["info"] < len(e.shdrs):
            # still inside its target section, and that section code or data:
            # the value lands elsewhere in it, the old place keeps its bytes
            entry = pos - rel
            t = e.shdrs[s["info"]]
            new = int.from_bytes(data[entry:entry + 8], "little")
            tname = e.name(s["info"])
            content = t["flags"] & SHF_EXECINSTR or any(
                tname == d or tname.startswith(d + ".") for d in DATA)
            return "offset" if content and new + RELA_WIDTH <= t["size"] else None
        if s["type"] == SHT["SYMTAB"] and (pos - s["offset"]) % SYM == SYM_OTHER:
            return "other"
        if s["type"] == SHT["SYMTAB"] and (pos - s["offset"]) % SYM in SYM_SHNDX:
            # defined (or moved) into an allocated section of the module, its
            # value inside: the module defines that symbol itself, which a
            # compiler does for any name (calls to it then run module code)
            entry = pos - (pos - s["offset"]) % SYM
            shndx = int.from_bytes(data[entry + 6:entry + 8], "little")
            value = int.from_bytes(data[entry + 8:entry + 16], "little")
            inside = (0 < shndx < len(e.shdrs) and e.shdrs[shndx]["flags"] & SHF_ALLOC
                      and value <= e.shdrs[shndx]["size"])
            return "section" if inside else None
        if s["type"] == SHT["SYMTAB"] and (pos - s["offset"]) % SYM in SYM_VALUE:
            # still inside its section (the loader checks that): a relocation
            # to it then points elsewhere in that section, as with an addend
            entry = pos - (pos - s["offset"]) % SYM
            shndx = int.from_bytes(seed[entry + 6:entry + 8], "little")
            value = int.from_bytes(data[entry + 8:entry + 16], "little")
            inside = 0 < shndx < len(e.shdrs) and value <= e.shdrs[shndx]["size"]
            return "value" if inside else None
        name = e.name(e.shdrs.index(s))
        if s["type"] == SHT["PROGBITS"] and any(name == d or name.startswith(d + ".")
                                                for d in DATA):
            return "data"
        return None
    return None


# a minimized input that is its seed, unmodified: the seed loads on its own in
# every arm, so what crashed was left behind by an earlier input of the guest
# (a module whose corrupted exit left a kprobe or a notifier registered)
CARRIED = "carried: the unmodified seed crashed after an earlier input of its guest"


def content_only(seed, data, positions):
    """What kinds of module content the changed bytes are ("code", "relocation
    addend and relocation symbol", ...), or None if any is structure; a
    truncated or grown input is never content."""
    if len(data) != len(seed) or not positions:
        return None
    try:
        kinds = {where(seed, data, p) for p in positions}
    except (ElfError, ValueError, IndexError):
        return None
    if None in kinds:
        return None
    return " and ".join(name for k, name in NAMES if k in kinds)
