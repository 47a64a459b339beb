#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Audit every architecture's .S exports against the prototypes genksyms sees.

With CONFIG_MODVERSIONS, a symbol exported from a .S file gets a CRC only if
the architecture selects HAVE_ASM_MODVERSIONS (so cmd_gensymtypes_S runs) and
its <asm/asm-prototypes.h>, with what it includes, declares the symbol. Keep
0002 makes a missing CRC a build error, so every such hole breaks that arch's
MODVERSIONS build. This is a static, text-level approximation of genksyms'
preprocessing: the header graph is followed through #include lines (not
#if), and a symbol counts as declared if its name appears as an identifier in
any header reached. It is a guide for the cross builds (make cross), which
are the proof.

usage: asm-exports-audit.py TREE [ARCH...]   (exit 1 if any hole is found)
"""
import os
import re
import sys

EXPORT = re.compile(r"^\s*EXPORT_SYMBOL(?:_GPL|_NS|_NS_GPL)?\s*\(\s*(\w+)", re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def die(msg):
    print(f"asm-exports-audit: {msg}", file=sys.stderr)
    sys.exit(2)


def arch_exports(tree, arch):
    """{symbol: first .S file exporting it} under arch/ARCH."""
    out = {}
    for root, _, files in os.walk(os.path.join(tree, "arch", arch)):
        for f in sorted(files):
            if f.endswith(".S"):
                p = os.path.join(root, f)
                with open(p, errors="replace") as fh:
                    for m in EXPORT.finditer(fh.read()):
                        out.setdefault(m.group(1), os.path.relpath(p, tree))
    return out


def resolve(tree, arch, name, here):
    cands = [os.path.join(os.path.dirname(here), name)] if here else []
    if name.startswith("asm/"):
        cands += [os.path.join(tree, "arch", arch, "include", name),
                  os.path.join(tree, "arch", arch, "include", "generated", name),
                  os.path.join(tree, "include", "asm-generic", name[4:])]
    elif name.startswith("uapi/"):
        cands += [os.path.join(tree, "include", name)]
    else:
        cands += [os.path.join(tree, "include", name),
                  os.path.join(tree, "arch", arch, "include", name),
                  os.path.join(tree, "include", "uapi", name),
                  os.path.join(tree, "arch", arch, "include", "uapi", name)]
    return next((c for c in cands if os.path.isfile(c)), None)


def declared_names(tree, arch):
    """Identifiers in <asm/asm-prototypes.h> and every header it reaches."""
    start = resolve(tree, arch, "asm/asm-prototypes.h", None)
    if not start:
        return None
    seen, todo, names = set(), [start], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        with open(p, errors="replace") as fh:
            text = fh.read()
        names.update(re.findall(r"\b\w+\b", text))
        for inc in INCLUDE.findall(text):
            r = resolve(tree, arch, inc, p)
            if r:
                todo.append(r)
    return names


def has_asm_modversions(tree, arch):
    kc = os.path.join(tree, "arch", arch, "Kconfig")
    with open(kc, errors="replace") as fh:
        return re.search(r"^\s*select\s+HAVE_ASM_MODVERSIONS\b", fh.read(), re.M) is not None


def main(argv):
    if not argv or not os.path.isfile(os.path.join(argv[0], "Makefile")):
        die("usage: asm-exports-audit.py TREE [ARCH...] (TREE: a kernel source tree)")
    tree = argv[0]
    arches = argv[1:] or sorted(a for a in os.listdir(os.path.join(tree, "arch"))
                                if os.path.isfile(os.path.join(tree, "arch", a, "Kconfig")))
    holes = 0
    print("arch\tS_exports\tasm_modversions\tundeclared\texamples")
    for arch in arches:
        if not os.path.isdir(os.path.join(tree, "arch", arch)):
            die(f"no arch/{arch} in {tree}")
        exports = arch_exports(tree, arch)
        names = declared_names(tree, arch) or set()
        asm_mv = has_asm_modversions(tree, arch)
        missing = sorted(exports) if not asm_mv else sorted(s for s in exports if s not in names)
        holes += len(missing)
        print(f"{arch}\t{len(exports)}\t{'yes' if asm_mv else 'no'}\t{len(missing)}\t"
              + " ".join(missing[:8]) + (" ..." if len(missing) > 8 else ""))
    print(f"{holes} .S exports without a prototype genksyms would see", file=sys.stderr)
    return 1 if holes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
