#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The robustness corpus: bad module files derived from a good one by small ELF edits.

Each line of workload/robust.tsv names an input and the recipe that makes it
(the `make` column); this tool applies the recipes to the good module built
for an arm (build/arms/ARM/mods/main/mod-asm-user.ko) and writes
build/arms/ARM/mods/corpus/<input>.ko. Only the host runs this; the files are
loaded in QEMU guests only (plan/robust.py).

Recipes (`recipe` or `recipe:argument`):

  copy                      the good module, unchanged
  shdr:SEC:k=v,...          set fields of section SEC's header: type (NOBITS,
                            PROGBITS or a number), flags, offset, size; a value
                            is an expression of numbers, `eof` (file size),
                            `size`, `offset` and `flags` (the section's own),
                            `offset(SEC2)` and `size(SEC2)` (another's),
                            with + and -
  rela:SEC:N:k=v,...        set fields of entry N of relocation section SEC
                            (offset, info, addend), same expressions, with
                            `offset`, `info`, `addend` the entry's own
  ehdr:k=v,...              set ELF header fields (e_shoff, e_shnum, ...),
                            same expressions; applied to the finished file
  truncate:N|half           keep the first N bytes (or half) of the file
  empty                     a zero-length file
  bytes:TEXT                a file of exactly these bytes (\\xNN escapes)
  file:PATH                 a saved file, PATH relative to workload/ (a
                            finding of make fuzz: workload/fuzz/NAME.ko); {arm}
                            in PATH is the arm's robust.tsv column
  flip:SEC                  flip the low bit of the first byte of section SEC
  versions-crc-flip:SYM     flip the low bit of SYM's CRC in __versions
  versions-unterminated:SYM fill the rest of SYM's 56-byte name with 'X': no NUL
  versions-dup:SYM,FIRST    a second SYM entry with a flipped CRC, after the
                            real one (FIRST=good) or before it (FIRST=bad)
  modinfo-drop:TAG          remove TAG=... from .modinfo
  modinfo-unterminated      the last byte of .modinfo (a NUL) becomes 'X'
  modinfo-unterminated-eof  the same, with .modinfo moved to the end of the
                            file and the file padded so it ends on a page
                            boundary: a read past the section is a read past
                            the kernel's copy of the file
  modinfo-empty-eof         .modinfo emptied (size 0) and placed at the very
                            end of a file padded to a page boundary
  vermagic:TEMPLATE         vermagic= becomes TEMPLATE: {release} and {rest}
                            (the words after the release) of the good
                            module's vermagic, {X*N} for N copies of X, \\xNN
  vermagic-toggle-modversions   drop "modversions " from vermagic if there,
                            else add it

A recipe name ending in `?` (`shdr?:.orc_unwind:size=size-6`) applies only
where the arm's good module has the section its argument names: a section
only some configurations emit (.orc_unwind needs CONFIG_UNWINDER_ORC, which
the KASAN variants have and the lab's arms do not). Elsewhere the input is
not made and not run on that arm, and the report says so; without the `?` a
missing section is an error, so a misspelt name cannot go quiet.

The __versions recipes need a __versions section; a module built without
modversions (nomodv, remove) gets one first, as modpost writes it: one
64-byte entry per undefined symbol, then module_layout, CRCs from the arm's
Module.symvers (0 where it has none). Such a kernel ignores it; the input then
shows that the loader does, and that the generic ELF checks still run.

usage: python3 -m core.corpus ARM [--tsv FILE] [--good SET/MODULE] [--out DIR] [--only NAME...]
       python3 -m core.corpus --apply RECIPE IN.ko OUT.ko [--symvers FILE]
"""
import argparse
import codecs
import os
import re
import struct
import sys

from . import elf, tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()
ARMS = os.path.join(B, "arms")

TSV = tables.ROBUST_TSV
GOOD = "main/mod-asm-user"
# the arms robust.tsv holds to an outcome (its header line names them)
ARM_COLUMNS = tuple(tables.robust_columns(TSV))

VERSION_ENTRY = 64          # struct modversion_info: 8-byte CRC + 56-byte name
VERSION_NAME = 56
PAGE = 4096


# one error for a file the reader rejects and a recipe that cannot be applied
CorpusError = elf.ElfError


class NotApplicable(CorpusError):
    """An optional recipe (`name?:SEC...`) on a module without SEC."""
Elf = elf.Elf
SHT, EHDR, EHDR_FIELDS, RELA = elf.SHT, elf.EHDR, elf.EHDR_FIELDS, elf.RELA
SHF_ALLOC = elf.SHF_ALLOC


# --- helpers ----------------------------------------------------------------

def expr(text, names):
    """Value of "eof+0x1000", "size-32", "0xffffffffffffffc0" (mod 2**64)."""
    total, sign = 0, 1
    for tok in re.findall(r"[+-]|[^+-]+", text.replace(" ", "")):
        if tok in "+-":
            sign = 1 if tok == "+" else -1
            continue
        if tok in names:
            val = names[tok]
        elif re.fullmatch(r"\d+[KMG]", tok):
            val = int(tok[:-1]) << {"K": 10, "M": 20, "G": 30}[tok[-1]]
        else:
            try:
                val = int(tok, 0)
            except ValueError:
                raise CorpusError(f"bad value '{tok}' in '{text}'") from None
        total += sign * val
    return total % (1 << 64)


def unescape(text):
    """\\xNN, \\n ... in a recipe argument -> bytes (latin-1 for the rest)."""
    return codecs.escape_decode(text.encode("latin-1"))[0]


def keyvals(arg):
    out = {}
    for item in arg.split(","):
        k, eq, v = item.partition("=")
        if not eq:
            raise CorpusError(f"want key=value, got '{item}'")
        out[k.strip()] = v.strip()
    return out


def read_symvers(path):
    crcs = {}
    if path and os.path.isfile(path):
        with open(path) as f:
            for line in f:
                cols = line.split("\t")
                if len(cols) >= 2:
                    crcs[cols[1]] = int(cols[0], 16)
    return crcs


def modinfo_strings(elf):
    i = elf.section(".modinfo")
    return i, elf.content(i).split(b"\0")


def set_modinfo(elf, strings):
    i = elf.section(".modinfo")
    blob = b"\0".join(s for s in strings if s) + b"\0"
    elf.set_content(i, blob)


def vermagic(elf):
    _, strings = modinfo_strings(elf)
    for s in strings:
        if s.startswith(b"vermagic="):
            return s[len(b"vermagic="):]
    raise CorpusError("the module has no vermagic")


def set_vermagic(elf, value):
    _, strings = modinfo_strings(elf)
    if not any(s.startswith(b"vermagic=") for s in strings):
        raise CorpusError("the module has no vermagic")
    set_modinfo(elf, [b"vermagic=" + value if s.startswith(b"vermagic=") else s
                      for s in strings])


def versions(elf, ctx):
    """(index, entries) of __versions, grafting one onto a module without it."""
    i = elf.index("__versions")
    if i is None:
        crcs = read_symvers(ctx.get("symvers"))
        names = [n for n in elf.undefined_symbols() if n != "module_layout"]
        names.append("module_layout")
        blob = b"".join(struct.pack("<Q", crcs.get(n, 0))
                        + n.encode()[:VERSION_NAME - 1].ljust(VERSION_NAME, b"\0")
                        for n in names)
        i = elf.add_section("__versions", blob, SHT["PROGBITS"], SHF_ALLOC, 32)
    blob = elf.content(i)
    return i, [blob[o:o + VERSION_ENTRY] for o in range(0, len(blob), VERSION_ENTRY)]


def entry_name(entry):
    return entry[8:].split(b"\0", 1)[0].decode("latin-1")


def find_entry(entries, sym):
    for n, e in enumerate(entries):
        if entry_name(e) == sym:
            return n
    raise CorpusError(f"__versions has no entry for {sym}")


def flip_crc(entry):
    crc, = struct.unpack_from("<Q", entry)
    return struct.pack("<Q", crc ^ 1) + entry[8:]


# --- the recipes ------------------------------------------------------------
# Each takes (data of the good module, argument, context) and returns the
# bytes of the input.

def r_copy(data, arg, ctx):
    return data


def r_shdr(data, arg, ctx):
    sec, _, kv = arg.partition(":")
    elf = Elf(data)
    if sec == "__versions":
        versions(elf, ctx)      # grafted if the module has none
    s = elf.shdrs[elf.section(sec)]
    for k, v in keyvals(kv).items():
        if k not in ("type", "flags", "offset", "size", "addralign", "link", "info"):
            raise CorpusError(f"shdr: unknown field {k}")
        if k == "type" and v in SHT:
            s[k] = SHT[v]
        else:
            names = {"eof": len(elf.data), "size": s["size"], "offset": s["offset"],
                     "flags": s["flags"]}
            # another section's place: offset(.modinfo), size(.modinfo)
            for i, o in enumerate(elf.shdrs):
                names[f"offset({elf.name(i)})"] = o["offset"]
                names[f"size({elf.name(i)})"] = o["size"]
            s[k] = expr(v, names)
    return elf.to_bytes()


def r_rela(data, arg, ctx):
    sec, n, kv = (arg.split(":", 2) + ["", ""])[:3]
    elf = Elf(data)
    s = elf.shdrs[elf.section(sec)]
    if s["type"] != SHT["RELA"]:
        raise CorpusError(f"rela: {sec} is not an SHT_RELA section")
    try:
        n = int(n, 0)
    except ValueError:
        raise CorpusError(f"rela: entry number '{n}' is not a number") from None
    if not 0 <= n < s["size"] // RELA.size:
        raise CorpusError(f"rela: {sec} has no entry {n}")
    at = s["offset"] + n * RELA.size
    r = dict(zip(("offset", "info", "addend"), RELA.unpack_from(elf.data, at)))
    for k, v in keyvals(kv).items():
        if k not in r:
            raise CorpusError(f"rela: unknown field {k}")
        r[k] = expr(v, dict(r))
    r["addend"] = (r["addend"] + 2**63) % 2**64 - 2**63     # expr() works mod 2**64
    RELA.pack_into(elf.data, at, r["offset"], r["info"], r["addend"])
    return elf.to_bytes()


def r_ehdr(data, arg, ctx):
    elf = Elf(data)
    out = bytearray(elf.to_bytes())
    h = dict(elf.ehdr)
    for k, v in keyvals(arg).items():
        if k not in h or k == "e_ident":
            raise CorpusError(f"ehdr: unknown field {k}")
        h[k] = expr(v, {"eof": len(out)})
    EHDR.pack_into(out, 0, *(h[k] for k in EHDR_FIELDS))
    return bytes(out)


def r_truncate(data, arg, ctx):
    n = len(data) // 2 if arg == "half" else int(arg, 0)
    return data[:n]


def r_empty(data, arg, ctx):
    return b""


def r_bytes(data, arg, ctx):
    return unescape(arg)


def r_file(data, arg, ctx):
    col = column(ctx.get("arm") or "") or ""
    path = os.path.join(TOP, "workload", arg.replace("{arm}", col))
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise CorpusError(f"file: cannot read {path}: {e.strerror}") from None


def r_flip(data, arg, ctx):
    elf = Elf(data)
    i = elf.section(arg)
    blob = bytearray(elf.content(i))
    if not blob:
        raise CorpusError(f"{arg} has no bytes to flip")
    blob[0] ^= 1
    elf.set_content(i, bytes(blob))
    return elf.to_bytes()


def r_versions_crc_flip(data, arg, ctx):
    elf = Elf(data)
    i, entries = versions(elf, ctx)
    n = find_entry(entries, arg)
    entries[n] = flip_crc(entries[n])
    elf.set_content(i, b"".join(entries))
    return elf.to_bytes()


def r_versions_unterminated(data, arg, ctx):
    elf = Elf(data)
    i, entries = versions(elf, ctx)
    n = find_entry(entries, arg)
    name = arg.encode()
    entries[n] = entries[n][:8] + name + b"X" * (VERSION_NAME - len(name))
    elf.set_content(i, b"".join(entries))
    return elf.to_bytes()


def r_versions_dup(data, arg, ctx):
    sym, _, first = arg.partition(",")
    if first not in ("good", "bad"):
        raise CorpusError("versions-dup: want SYM,good or SYM,bad")
    elf = Elf(data)
    i, entries = versions(elf, ctx)
    n = find_entry(entries, sym)
    bad = flip_crc(entries[n])
    entries.insert(n + 1 if first == "good" else n, bad)
    elf.set_content(i, b"".join(entries))       # grows: moved to the end
    return elf.to_bytes()


def r_modinfo_drop(data, arg, ctx):
    elf = Elf(data)
    _, strings = modinfo_strings(elf)
    tag = arg.encode() + b"="
    if not any(s.startswith(tag) for s in strings):
        raise CorpusError(f"the module has no {arg} in .modinfo")
    set_modinfo(elf, [s for s in strings if not s.startswith(tag)])
    return elf.to_bytes()


def _unterminated(data, end_at):
    elf = Elf(data)
    i = elf.section(".modinfo")
    blob = elf.content(i)
    if not blob or blob[-1] != 0:
        raise CorpusError(".modinfo does not end with a NUL")
    # the last string is the one left open; it is vermagic in modpost's order
    elf.set_content(i, blob[:-1] + b"X", end_at=end_at)
    return elf.to_bytes()


def r_modinfo_unterminated(data, arg, ctx):
    return _unterminated(data, None)


def r_modinfo_unterminated_eof(data, arg, ctx):
    return _unterminated(data, PAGE)


def r_modinfo_empty_eof(data, arg, ctx):
    elf = Elf(data)
    elf.set_content(elf.section(".modinfo"), b"", end_at=PAGE)
    return elf.to_bytes()


def r_vermagic(data, arg, ctx):
    elf = Elf(data)
    good = vermagic(elf)
    release, _, rest = good.partition(b" ")
    out = b""
    for lit, field in re.findall(r"([^{]*)(\{[^}]*\}|$)", arg):
        out += unescape(lit)
        if field:
            key = field[1:-1]
            if key == "release":
                out += release
            elif key == "rest":
                out += rest
            elif "*" in key:
                what, _, n = key.rpartition("*")
                out += unescape(what) * int(n)
            else:
                raise CorpusError(f"vermagic: unknown field {field}")
    set_vermagic(elf, out)
    return elf.to_bytes()


def r_vermagic_toggle_modversions(data, arg, ctx):
    elf = Elf(data)
    good = vermagic(elf)
    if b"modversions " in good:
        new = good.replace(b"modversions ", b"", 1)
    else:       # where the kernel's vermagic.h puts it: after mod_unload
        words = good.split(b" ")
        at = words.index(b"mod_unload") + 1 if b"mod_unload" in words else len(words) - 1
        new = b" ".join(words[:at] + [b"modversions"] + words[at:])
    set_vermagic(elf, new)
    return elf.to_bytes()


RECIPES = {
    "copy": r_copy,
    "shdr": r_shdr,
    "rela": r_rela,
    "ehdr": r_ehdr,
    "truncate": r_truncate,
    "empty": r_empty,
    "bytes": r_bytes,
    "file": r_file,
    "flip": r_flip,
    "versions-crc-flip": r_versions_crc_flip,
    "versions-unterminated": r_versions_unterminated,
    "versions-dup": r_versions_dup,
    "modinfo-drop": r_modinfo_drop,
    "modinfo-unterminated": r_modinfo_unterminated,
    "modinfo-unterminated-eof": r_modinfo_unterminated_eof,
    "modinfo-empty-eof": r_modinfo_empty_eof,
    "vermagic": r_vermagic,
    "vermagic-toggle-modversions": r_vermagic_toggle_modversions,
}


def needed_section(recipe):
    """The section an optional recipe ("name?:SEC...") needs, else None."""
    name, _, arg = recipe.partition(":")
    return arg.split(":", 1)[0] if name.endswith("?") else None


def apply(recipe, data, ctx=None):
    """The bytes of one input: recipe ("name" or "name:arg") applied to data."""
    name, _, arg = recipe.partition(":")
    name = name[:-1] if name.endswith("?") else name
    if name not in RECIPES:
        raise CorpusError(f"unknown recipe '{name}'")
    sec = needed_section(recipe)
    if sec and Elf(bytes(data)).index(sec) is None:
        raise NotApplicable(f"the module has no {sec} section")
    return RECIPES[name](bytes(data), arg, ctx or {})


# --- the corpus of an arm ---------------------------------------------------

def read_tsv(path=TSV):
    """The rows of robust.tsv as dicts (core/tables.py reads it), with "line"."""
    try:
        return tables.robust(path)
    except tables.TableError as e:
        raise CorpusError(str(e)) from None


def column(arm):
    """The robust.tsv column an arm is held to: its own, or ARM's for ARM-VARIANT."""
    if arm in ARM_COLUMNS:
        return arm
    base = arm.split("-", 1)[0]
    return base if base in ARM_COLUMNS else None


def arm_context(arm):
    adir = os.path.join(ARMS, arm)
    symvers = os.path.join(adir, "kernels", "G0", "Module.symvers")
    if not os.path.isfile(symvers):
        symvers = os.path.join(adir, "obj", "Module.symvers")
    return {"arm": arm, "symvers": symvers}


def input_path(arm, name):
    return os.path.join(ARMS, arm, "mods", "corpus", name + ".ko")


def generate(arm, tsv=TSV, good=GOOD, out=None, only=None):
    """Write every input of robust.tsv for an arm; returns {input: path}.

    A recipe of the form `input:NAME` reuses another input's file (a forced
    load of a mismatching module, for instance). An input declared `-` for
    the arm is not made (its recipe may need what only other arms' modules
    have). An optional recipe whose section the module lacks maps to None
    (not applicable on this arm), as does an input reusing it. Raises
    CorpusError if the good module is missing or a recipe does not apply.
    """
    src = os.path.join(ARMS, arm, "mods", good + ".ko")
    if not os.path.isfile(src):
        raise CorpusError(f"no good module for {arm}: {src} (make {arm})")
    with open(src, "rb") as f:
        data = f.read()
    out = out or os.path.join(ARMS, arm, "mods", "corpus")
    os.makedirs(out, exist_ok=True)
    ctx = arm_context(arm)
    col = column(arm)
    rows = [r for r in read_tsv(tsv) if not col or r[col] != "-"]
    made = {}
    for r in rows:
        if only and r["input"] not in only:
            continue
        if r["make"].startswith("input:"):
            continue
        path = os.path.join(out, r["input"] + ".ko")
        try:
            blob = apply(r["make"], data, ctx)
        except NotApplicable:
            if os.path.exists(path):
                os.unlink(path)     # no stale file may stand in for it
            made[r["input"]] = None
            continue
        except CorpusError as e:
            raise CorpusError(f"{r['input']} ({r['make']}): {e}") from None
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
        made[r["input"]] = path
    for r in rows:
        if (only and r["input"] not in only) or not r["make"].startswith("input:"):
            continue
        ref = r["make"].split(":", 1)[1]
        if ref not in made:
            raise CorpusError(f"{r['input']}: refers to {ref}, which is not made")
        made[r["input"]] = made[ref]
    return made


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("arm", nargs="?", help="the arm whose good module the corpus derives from")
    ap.add_argument("--tsv", default=TSV)
    ap.add_argument("--good", default=GOOD, help=f"SET/MODULE under mods/ (default {GOOD})")
    ap.add_argument("--out", help="output folder (default build/arms/ARM/mods/corpus)")
    ap.add_argument("--only", nargs="*", help="only these inputs")
    ap.add_argument("--apply", nargs=3, metavar=("RECIPE", "IN", "OUT"),
                    help="apply one recipe to one file")
    ap.add_argument("--symvers", help="with --apply: Module.symvers for a grafted __versions")
    args = ap.parse_args(argv)
    try:
        if args.apply:
            recipe, src, dst = args.apply
            with open(src, "rb") as f:
                blob = apply(recipe, f.read(), {"symvers": args.symvers})
            with open(dst, "wb") as f:
                f.write(blob)
            return 0
        if not args.arm:
            ap.error("an ARM (or --apply) is required")
        made = generate(args.arm, args.tsv, args.good, args.out, args.only)
    except (CorpusError, OSError) as e:
        print(f"corpus: error: {e}", file=sys.stderr)
        return 1
    files = [p for p in made.values() if p]
    na = sorted(k for k, p in made.items() if not p)
    print(f"corpus: {args.arm}: {len(files)} inputs in "
          f"{os.path.relpath(os.path.dirname(files[0]), TOP) if files else '-'}"
          + (f"; not applicable to its module: {' '.join(na)}" if na else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
