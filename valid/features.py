# SPDX-License-Identifier: GPL-2.0
"""What a module file carries that a loader parses: one host-side scan of its
section headers and .modinfo (core/elf.read_sections, any class and byte
order), so the report can say which tables the valid set exercised.

    python3 -m valid.features FILE.ko...     -> one line per module
"""
import sys

from core.elf import ElfError, read_sections

SHT_REL, SHT_RELA = 9, 4

# (key, what a reader sees, sections any of which marks it); order = the report's
FEATURES = [
    ("params", "module parameters (__param)", ("__param",)),
    ("jump_labels", "static keys / jump labels (__jump_table)", ("__jump_table",)),
    ("tracepoints", "tracepoints and trace events (__tracepoints_ptrs, _ftrace_events)",
     ("__tracepoints_ptrs", "_ftrace_events", "__tracepoints")),
    ("ex_table", "exception tables (__ex_table)", ("__ex_table",)),
    ("bug_table", "bug tables (__bug_table)", ("__bug_table",)),
    ("static_calls", "static calls (.static_call_sites)", (".static_call_sites",)),
    ("alternatives", "alternatives (.altinstructions)", (".altinstructions",)),
    ("orc", "ORC unwind tables (.orc_unwind)", (".orc_unwind",)),
    ("ftrace", "ftrace call sites (__mcount_loc, __patchable_function_entries)",
     ("__mcount_loc", "__patchable_function_entries")),
    ("btf", "BTF (.BTF)", (".BTF",)),
    ("kprobes", "kprobe blacklist (_kprobe_blacklist)", ("_kprobe_blacklist",)),
    ("exports", "exports (__ksymtab, __ksymtab_gpl)", ("__ksymtab", "__ksymtab_gpl")),
    ("versions", "symbol versions (__versions)", ("__versions",)),
    ("percpu", "per-CPU data (.data..percpu)", (".data..percpu",)),
    ("ro_after_init", "read-only after init (.data..ro_after_init)", (".data..ro_after_init",)),
    ("init_array", "constructors (.init_array, .ctors)", (".init_array", ".ctors")),
    ("retpolines", "objtool call/return sites (.retpoline_sites, .return_sites, .call_sites)",
     (".retpoline_sites", ".return_sites", ".call_sites")),
    ("ibt", "IBT/CFI seal lists (.ibt_endbr_seal, .cfi_sites)", (".ibt_endbr_seal", ".cfi_sites")),
    ("klp_rela", "livepatch relocation sections (.klp.rela.*)", ()),
]
TITLES = {k: t for k, t, _ in FEATURES}
# from .modinfo and the build's Module.symvers, not from section names
EXTRA = [("livepatch", "livepatch modules (.modinfo livepatch=Y)"),
         ("import_ns", "namespace imports (.modinfo import_ns=)"),
         ("export_ns", "namespaced exports (Module.symvers)"),
         ("rel", "REL relocations (SHT_REL)"),
         ("rela", "RELA relocations (SHT_RELA)")]
TITLES.update(EXTRA)


def scan(path):
    """{features: [key], modinfo: {tag: [values]}, name, depends, softdep} of a .ko;
    ElfError/OSError for a file that is not one."""
    with open(path, "rb") as f:
        secs = read_sections(f.read())
    names = {n for n, *_ in secs}
    have = [k for k, _, sects in FEATURES if any(s in names for s in sects)]
    if any(n.startswith(".klp.rela.") for n in names):
        have.append("klp_rela")
    info = {}
    for n, _t, _f, body in secs:
        if n == ".modinfo":
            for item in body.split(b"\0"):
                k, sep, v = item.decode("latin-1").partition("=")
                if sep:
                    info.setdefault(k, []).append(v)
    if info.get("livepatch") == ["Y"]:
        have.append("livepatch")
    if info.get("import_ns"):
        have.append("import_ns")
    types = {t for _, t, *_ in secs}
    have += [k for k, t in (("rel", SHT_REL), ("rela", SHT_RELA)) if t in types]
    return {"features": have, "modinfo": info}


def namespaced_exporters(symvers):
    """The module paths (as Module.symvers names them) with a namespaced export."""
    out = set()
    try:
        with open(symvers, encoding="latin-1") as f:
            for line in f:
                p = line.rstrip("\n").split("\t")
                if len(p) >= 5 and p[4] and p[2] != "vmlinux":
                    out.add(p[2])
    except OSError:
        pass
    return out


def main(argv):
    rc = 0
    for p in argv[1:]:
        try:
            print(p, " ".join(scan(p)["features"]))
        except (OSError, ElfError) as e:
            print(f"valid: {p}: {e}", file=sys.stderr)
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
