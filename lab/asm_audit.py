#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Audit every architecture's .S exports against the prototypes genksyms sees.

With CONFIG_MODVERSIONS, a symbol exported from a .S file gets a CRC only if
the architecture selects HAVE_ASM_MODVERSIONS (so cmd_gensymtypes_S runs) and
its <asm/asm-prototypes.h>, with what it includes, declares the symbol. Keep
0002 makes a missing CRC a build error, so every such hole breaks that arch's
MODVERSIONS build.

This is a static approximation of what kbuild does, per architecture variant
(sparc32 and sparc64 share arch/sparc but not their .S files or headers):
  - which .S files are built: the directory's Makefile, its obj-/lib-
    $(CONFIG_...) lines and ifeq/ifdef blocks, evaluated for the variant;
  - what each exports: a small preprocessor (#if/#ifdef with the variant's
    known macros, unknown conditions take both branches; #define and
    function-like macros with ## expanded; "local" #includes inlined), then
    EXPORT_SYMBOL*() as kbuild's grep for ___EXPORT_SYMBOL would find it;
  - what genksyms sees: <asm/asm-prototypes.h> and every header it reaches,
    preprocessed the same way; a name counts as declared if it appears as an
    identifier outside comments, strings (inline asm) and directives.
The cross builds (make cross) are the proof; this says where to look.

usage: python3 -m lab.asm_audit [--list] TREE [ARCH...]   (exit 1 if any hole)
"""
import itertools
import os
import re
import sys

from core import tables

EXPORT = re.compile(r"\bEXPORT_(?:DATA_)?SYMBOL(?:_GPL|_NS|_NS_GPL|_KASAN|_NOKASAN)?\s*\(\s*(\w+)")
IDENT = re.compile(r"\b[A-Za-z_]\w*\b")

def variants():
    """{arch/ folder: [(variant, bits, defined, undefined)]}: the lines of
    lab/arches.tsv with a word size (bits), grouped by their arch/ folder:
    an arch/ directory that builds two kernels differing in .S files and
    headers, with the macros known defined and known undefined in each. Any
    other arch/ folder is one variant, named after it, with nothing known."""
    out = {}
    for a in sorted(tables.arches(), key=lambda a: a["name"]):
        if a["bits"] != "-":
            out.setdefault(a["srcarch"], []).append(
                (a["name"], a["bits"], set(a["defines"]), set(a["undefines"])))
    return out


GENERIC = ("", {"__KERNEL__"}, set())
# Every CONFIG_ option the variant does not fix is taken as n, then as y
# (in the known-defined or known-undefined set), for the .S files, the
# Makefiles and the headers alike: a hole in either is reported. Taking
# both branches of such an #if instead would see a declaration that only
# some configs reach (sparc32's empty_zero_page, reached through
# <linux/kasan.h> only) and miss the hole.
ALL_CONFIG = "CONFIG_*"
# The holes that all-n/all-y reports but no real config has, each checked
# by hand (variant, symbol, why); tests set REVIEWED instead.
REVIEWED_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "asm-audit-reviewed.tsv")
REVIEWED = None


def die(msg):
    print(f"asm-exports-audit: {msg}", file=sys.stderr)
    sys.exit(2)


def read(p):
    with open(p, errors="replace") as fh:
        return fh.read()


def strip_c(text, strings=True):
    """Comments (and string/char literals) out, continuations joined."""
    text = text.replace("\\\n", " ")
    pat = r'/\*.*?\*/|//[^\n]*' + (r'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'' if strings else "")
    return re.sub(pat, " ", text, flags=re.S)


class Cond:
    """Tri-state #if evaluation: True, False or None (unknown: take both)."""

    def __init__(self, true, false, macros):
        self.true, self.false, self.macros = true, false, macros

    def defined(self, name):
        if name in self.true or name in self.macros:
            return 1
        if name in self.false:
            return 0
        return self.config(name)

    def config(self, name):
        """An option the variant does not fix: as the mode says (ALL_CONFIG)."""
        if name.startswith("CONFIG_"):
            if ALL_CONFIG in self.true:
                return 1
            if ALL_CONFIG in self.false:
                return 0
        return None

    def value(self, name):
        if name in self.true:
            return 1
        if name in self.false:
            return 0
        if self.config(name) is not None and name not in self.macros:
            return self.config(name)
        bodies = self.macros.get(name)
        if bodies and len(set(bodies)) == 1 and re.fullmatch(r"\s*\(?\s*\d+[uUlL]*\s*\)?\s*", bodies[0] or "0"):
            return int(re.sub(r"[^\d]", "", bodies[0]) or "0")
        return None

    def eval(self, expr):
        unknown = {}

        def dfn(m):
            v = self.defined(m.group(1))
            if v is None:
                unknown.setdefault(m.group(1), f"_u{len(unknown)}")
                return unknown[m.group(1)]
            return str(v)
        e = re.sub(r"\bdefined\s*\(\s*(\w+)\s*\)|\bdefined\s+(\w+)", lambda m: dfn(
            re.match(r"(\w+)", m.group(1) or m.group(2))), expr)
        e = re.sub(r"\b(?:IS_ENABLED|IS_BUILTIN|IS_REACHABLE|IS_MODULE)\s*\(\s*(\w+)\s*\)",
                   lambda m: dfn(m), e)

        def ident(m):
            name = m.group(0)
            if name.startswith("_u") and name in unknown.values():
                return name
            v = self.value(name)
            if v is None:
                unknown.setdefault(name, f"_u{len(unknown)}")
                return unknown[name]
            return str(v)
        e = re.sub(r"\b[A-Za-z_]\w*\b", ident, e)
        e = re.sub(r"(\d+)[uUlL]+\b", r"\1", e)
        e = e.replace("&&", " and ").replace("||", " or ")
        e = re.sub(r"!(?!=)", " not ", e)
        names = sorted(set(unknown.values()))
        if len(names) > 6:
            return None
        results = set()
        for vals in itertools.product((0, 1), repeat=len(names)):
            try:
                results.add(bool(eval(e, {"__builtins__": {}}, dict(zip(names, vals)))))
            except Exception:
                return None
        return results.pop() if len(results) == 1 else None


class Cpp:
    """Just enough of a C preprocessor for the audit (see the module doc)."""

    def __init__(self, true, false, resolve):
        self.true, self.false, self.resolve = set(true), set(false), resolve
        self.macros = {}   # name -> [body, ...] (every definition seen)
        self.funcs = {}    # name -> [(params, body), ...]
        self.seen = set()

    def run(self, path, follow_angle, depth=0):
        """Returns the text outside directives, of this file and its includes."""
        if depth > 40:
            return ""
        out = []
        stack = []  # (taking this branch: True/False/None, some branch taken)
        cond = Cond(self.true, self.false, self.macros)
        text = strip_c(read(path), strings=False)
        for line in text.split("\n"):
            live = all(s[0] is not False for s in stack)
            d = re.match(r"\s*#\s*(\w+)\s*(.*)", line)
            if not d:
                if live:
                    out.append(line)
                continue
            kw, rest = d.group(1), d.group(2).strip()
            if kw in ("if", "ifdef", "ifndef"):
                if kw == "if":
                    v = cond.eval(rest)
                else:
                    n = cond.defined(rest.split()[0] if rest else "")
                    v = None if n is None else bool(n) == (kw == "ifdef")
                stack.append([v, v is True])
            elif kw == "elif" and stack:
                s = stack[-1]
                v = False if s[1] else cond.eval(rest)
                s[0], s[1] = v, s[1] or v is True
            elif kw == "else" and stack:
                s = stack[-1]
                s[0] = False if s[1] else (None if s[0] is None else not s[0])
                s[1] = True
            elif kw == "endif" and stack:
                stack.pop()
            elif not live:
                continue
            elif kw == "define":
                m = re.match(r"(\w+)(\(([^)]*)\))?\s*(.*)", rest)
                if m and m.group(2):
                    params = [p.strip() for p in m.group(3).split(",") if p.strip()]
                    self.funcs.setdefault(m.group(1), []).append((params, m.group(4)))
                elif m:
                    self.macros.setdefault(m.group(1), []).append(m.group(4))
            elif kw == "undef":
                n = rest.split()[0] if rest else ""
                if all(s[0] is True for s in stack):
                    self.macros.pop(n, None)
                    self.funcs.pop(n, None)
            elif kw == "include":
                m = re.match(r'([<"])([^>"]+)[>"]', rest)
                if not m or (m.group(1) == "<" and not follow_angle):
                    continue
                p = self.resolve(m.group(2), path, m.group(1) == '"')
                if p and p not in self.seen:
                    if follow_angle:
                        self.seen.add(p)
                    out.append(self.run(p, follow_angle, depth + 1))
        return "\n".join(out)

    def expand(self, text, rounds=40):
        """Expands the macros seen in text; a name with several definitions
        (both branches of an unknown #if) gives one line per definition."""
        lines = text.split("\n")
        for _ in range(rounds):
            new = []
            changed = False
            for line in lines:
                res = self._expand_line(line)
                changed |= res != [line]
                new.extend(res)
            lines = new
            if not changed or len(lines) > 200000:
                break
        return "\n".join(lines)

    def _expand_line(self, line):
        for name, bodies in self.macros.items():
            if re.search(r"\b%s\b" % re.escape(name), line) and not any(
                    re.search(r"\b%s\b" % re.escape(name), b) for b in bodies):
                return [re.sub(r"\b%s\b" % re.escape(name), lambda _, b=b: b, line)
                        for b in sorted(set(bodies))[:8]]
        for name, defs in self.funcs.items():
            m = re.search(r"\b%s\s*\(" % re.escape(name), line)
            if not m:
                continue
            args, end = self._args(line, m.end())
            if args is None:
                continue
            outs = []
            for params, body in defs[:8]:
                b = body
                for p, a in zip(params, args):
                    # an argument is expanded first, unless it is pasted
                    if not re.search(r"##\s*%s\b|\b%s\s*##" % (p, p), body):
                        a = self._expand_arg(a)
                    b = re.sub(r"\b%s\b" % re.escape(p), lambda _, a=a: a.strip(), b)
                b = re.sub(r"\s*##\s*", "", b)
                outs.append(line[:m.start()] + " " + b.replace(";", ";\n") + " " + line[end:])
            return [x for o in outs for x in o.split("\n")]
        return [line]

    def _expand_arg(self, a, depth=0):
        for _ in range(20):
            res = self._expand_line(a) if depth < 8 else [a]
            if res == [a]:
                return a
            a = " ".join(res) if len(res) > 1 and ";" in a else res[0]
        return a

    @staticmethod
    def _args(line, i):
        depth, cur, args = 1, "", []
        while i < len(line):
            c = line[i]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    return args + [cur], i + 1
            elif c == "," and depth == 1:
                args.append(cur)
                cur = ""
                i += 1
                continue
            cur += c
            i += 1
        return None, i


def resolver(tree, arch):
    inc = [os.path.join(tree, "arch", arch, "include"),
           os.path.join(tree, "arch", arch, "include", "uapi"),
           os.path.join(tree, "include"),
           os.path.join(tree, "include", "uapi")]

    def resolve(name, here, quoted):
        cands = [os.path.join(os.path.dirname(here), name)] if quoted else []
        cands += [os.path.join(d, name) for d in inc]
        if name.startswith("asm/"):  # generic-y wrappers live in generated/
            cands.append(os.path.join(tree, "include", "asm-generic", name[4:]))
        return next((os.path.normpath(c) for c in cands if os.path.isfile(c)), None)
    return resolve


def make_text(d, bits):
    text = ""
    for mk in ("Makefile", "Kbuild"):
        if os.path.isfile(os.path.join(d, mk)):
            text += read(os.path.join(d, mk)).replace("\\\n", " ") + "\n"
    return text.replace("$(BITS)", bits) if bits else text


def mentioned(text, pattern, true, false, depth=0):
    """Is pattern (a regex for an object or a subdir) named in a Makefile's
    text where the variant may build it? True, False or None (not named).
    A list variable (obj64-y) counts where it is itself used."""
    cond = Cond(true, false, {})
    stack, found, built = [], False, False
    for line in text.split("\n"):
        line = line.split("#")[0]
        m = re.match(r"\s*(ifeq|ifneq|ifdef|ifndef|else|endif)\b(.*)", line)
        if m:
            kw, rest = m.group(1), m.group(2)
            if kw in ("ifdef", "ifndef"):
                v = cond.defined(rest.strip())
                stack.append(None if v is None else bool(v) == (kw == "ifdef"))
            elif kw in ("ifeq", "ifneq"):
                c = re.search(r"\$\((CONFIG_\w+)\)\s*,\s*y\b|\by\s*,\s*\$\((CONFIG_\w+)\)", rest)
                v = cond.defined(c.group(1) or c.group(2)) if c else None
                stack.append(None if v is None else bool(v) == (kw == "ifeq"))
            elif kw == "else" and stack:
                stack[-1] = None if stack[-1] is None else not stack[-1]
            elif kw == "endif" and stack:
                stack.pop()
            continue
        if not re.search(pattern, line):
            continue
        found = True
        if any(st is False for st in stack):
            continue
        if any(cond.defined(c) == 0 for c in re.findall(r"\$\((CONFIG_\w+)\)", line)):
            continue
        var = re.match(r"\s*(\w+)-(?:y|objs|\$\(CONFIG_\w+\))\s*[:+]?=", line)
        if var and var.group(1) not in ("obj", "lib", "extra", "always", "head", "targets") and depth < 3:
            used = mentioned(text, r"\$\(%s-y\)" % re.escape(var.group(1)), true, false, depth + 1)
            if used is False:
                continue
        built = True
    return built if found else None


def makefile_built(tree, arch, path, bits, true, false):
    """Is path (a .S) built for this variant? None: no Makefile names it."""
    d, f = os.path.split(path)
    stem = f[:-2]
    r = mentioned(make_text(d, bits), r"(?<![\w/.-])%s\.o\b" % re.escape(stem), true, false)
    if r is None and bits and re.search(r"_?(32|64)$", stem) and not stem.endswith(bits):
        # named through $(BITS) (head_$(BITS).o), for the other variant
        raw = make_text(d, "")
        if re.search(re.escape(re.sub(r"(32|64)$", "", stem)) + r"\$\(BITS\)\.o", raw):
            return False
    # the directories above it must be built too (obj-$(CONFIG_X) += dir/)
    top = os.path.join(tree, "arch", arch)
    while r is not False and os.path.dirname(d) != os.path.dirname(top) and d != top:
        parent, name = os.path.split(d)
        up = mentioned(make_text(parent, bits), r"(?<![\w.-])%s/" % re.escape(name), true, false)
        if up is False:
            return False
        d = parent
    return r


def arch_exports(tree, arch, bits, true, false):
    """{symbol: first .S file exporting it} for one variant of arch/ARCH."""
    resolve = resolver(tree, arch)
    files = []
    for root, _, names in os.walk(os.path.join(tree, "arch", arch)):
        files += [os.path.join(root, f) for f in sorted(names) if f.endswith(".S")]
    included = set()
    for p in files:
        for inc in re.findall(r'^\s*#\s*include\s*"([^"]+\.S)"', read(p), re.M):
            included.add(os.path.normpath(os.path.join(os.path.dirname(p), inc)))
    out = {}
    for p in sorted(files):
        if "EXPORT_" not in read(p) and not any(
                os.path.normpath(os.path.join(os.path.dirname(p), i)) in files
                for i in re.findall(r'^\s*#\s*include\s*"([^"]+\.S)"', read(p), re.M)):
            continue
        built = makefile_built(tree, arch, p, bits, true, false)
        if built is False or (built is None and p in included):
            continue
        cpp = Cpp(true | {"__ASSEMBLY__", "__KERNEL__"}, false, resolve)
        text = cpp.expand(cpp.run(p, follow_angle=False))
        for sym in EXPORT.findall(text):
            out.setdefault(sym, os.path.relpath(p, tree))
    return out


def declared_names(tree, arch, true, false):
    """Identifiers genksyms sees from <asm/asm-prototypes.h>; None if absent."""
    resolve = resolver(tree, arch)
    start = resolve("asm/asm-prototypes.h", "", False)
    if not start:
        return None
    cpp = Cpp(true | {"__KERNEL__", "__GENKSYMS__"}, false | {"__ASSEMBLY__"}, resolve)
    cpp.seen.add(start)
    text = cpp.run(start, follow_angle=True)
    k = resolve("linux/kernel.h", "", False)
    if k and k not in cpp.seen:
        cpp.seen.add(k)
        text = cpp.run(k, follow_angle=True) + "\n" + text
    return set(IDENT.findall(strip_c(text)))


def has_asm_modversions(tree, arch):
    kc = os.path.join(tree, "arch", arch, "Kconfig")
    return re.search(r"^\s*select\s+HAVE_ASM_MODVERSIONS\b", read(kc), re.M) is not None


def arch_options(tree, arch, true):
    """Options a kernel of this variant always has: arch/ARCH's "def_bool y"
    ones (CONFIG_ARM64...), and what those and the variant's own options
    select, unconditionally or if an option already known (PPC64)."""
    text = "".join(read(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(tree, "arch", arch))
                   for f in fs if f.startswith("Kconfig"))
    blocks = {}
    for m in re.finditer(r"^(?:menu)?config (\w+)\n((?:[ \t]+.*\n|\n)*)", text, re.M):
        blocks.setdefault("CONFIG_" + m.group(1), []).append(m.group(2))
    out = set(true)
    for name, bodies in blocks.items():
        if any(re.search(r"^\s*def_bool y\s*$", b, re.M) and not re.search(r"^\s*depends on", b, re.M)
               for b in bodies):
            out.add(name)
    for _ in range(4):
        for name in list(out):
            for body in blocks.get(name, []):
                for sel, cond in re.findall(r"^\s*select (\w+)(?:\s+if\s+(\w+))?\s*$", body, re.M):
                    if not cond or "CONFIG_" + cond in out:
                        out.add("CONFIG_" + sel)
    return out


def reviewed(path):
    """{(variant, symbol)}: holes a person checked and found not to be one."""
    out = set()
    if os.path.isfile(path):
        for line in read(path).splitlines():
            if line.strip() and not line.startswith("#"):
                f = line.split("\t")
                if len(f) < 3:
                    die(f"{path}: want variant, symbol, reason: {line!r}")
                out.add((f[0], f[1]))
    return out


def audit(tree, arch):
    """[(variant, exports, asm_modversions, [(symbol, file) missing])]"""
    rows = []
    asm_mv = has_asm_modversions(tree, arch)
    for name, bits, true, false in variants().get(arch, [(arch, "", *GENERIC[1:])]):
        own = "CONFIG_" + {"powerpc": "PPC", "um": "UML"}.get(arch, arch.upper())
        true = arch_options(tree, arch, set(true) | {own}) - set(false)
        exports, missing = {}, {}
        for t, f in ((set(true), set(false) | {ALL_CONFIG}), (set(true) | {ALL_CONFIG}, set(false))):
            ex = arch_exports(tree, arch, bits, t, f)
            names = (declared_names(tree, arch, t, f) or set()) if asm_mv else set()
            for sym, path in ex.items():
                exports.setdefault(sym, path)
                if sym not in names:
                    missing.setdefault(sym, path)
        ok = REVIEWED if REVIEWED is not None else reviewed(REVIEWED_FILE)
        rows.append((name, len(exports), asm_mv,
                     sorted(m for m in missing.items() if (name, m[0]) not in ok)))
    return rows


def main(argv):
    full = "--list" in argv
    argv = [a for a in argv if a != "--list"]
    if not argv or not os.path.isfile(os.path.join(argv[0], "Makefile")):
        die("usage: python3 -m lab.asm_audit [--list] TREE [ARCH...] (TREE: a kernel source tree)")
    tree = argv[0]
    arches = argv[1:] or sorted(a for a in os.listdir(os.path.join(tree, "arch"))
                                if os.path.isfile(os.path.join(tree, "arch", a, "Kconfig")))
    holes = 0
    print("arch\tS_exports\tasm_modversions\tundeclared\texamples")
    for arch in arches:
        if not os.path.isfile(os.path.join(tree, "arch", arch, "Kconfig")):
            die(f"no arch/{arch}/Kconfig in {tree}")
        for name, n, asm_mv, missing in audit(tree, arch):
            holes += len(missing)
            syms = [s for s, _ in missing]
            print(f"{name}\t{n}\t{'yes' if asm_mv else 'no'}\t{len(missing)}\t"
                  + " ".join(syms[:8]) + (" ..." if len(syms) > 8 else ""))
            if full:
                for s, f in missing:
                    print(f"\t{s}\t{f}")
    sys.stdout.flush()
    print(f"{holes} .S exports without a prototype genksyms would see", file=sys.stderr)
    return 1 if holes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
