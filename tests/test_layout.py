# SPDX-License-Identifier: GPL-2.0
"""The Python side's layout: every room is a package run with python3 -m; no
import cycle among the lab's modules; a package imports only its own modules
and those of a lower floor (core is the ground, compare the report on top);
no sys.path edit outside tests; every report section has the interface
compare/sections/__init__.py describes."""
import ast
import pathlib
import unittest

TOP = pathlib.Path(__file__).resolve().parent.parent
# package -> floor: a module may import its own package and lower floors only
FLOORS = {"core": 1,
          "plan": 2, "detect": 2, "history": 2, "fuzz": 2, "lab": 2, "qemu": 2,
          # valid reuses history's modprobe order and outcome reading
          "valid": 3, "compare": 3}
PACKAGES = tuple(FLOORS)


def module_name(path):
    rel = path.relative_to(TOP).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path, name):
    """The lab modules a file imports (relative imports resolved)."""
    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for n in ast.walk(ast.parse(path.read_text())):
        if isinstance(n, ast.Import):
            out |= {a.name for a in n.names}
        elif isinstance(n, ast.ImportFrom):
            base = n.module or ""
            if n.level:
                up = pkg.split(".")[:len(pkg.split(".")) - n.level + 1]
                base = ".".join(up + ([n.module] if n.module else []))
            out.add(base)
            out |= {f"{base}.{a.name}" for a in n.names}
    return out


def graph():
    files = [p for pkg in PACKAGES for p in (TOP / pkg).rglob("*.py")]
    mods = {module_name(p): p for p in files}
    g = {}
    for name, path in mods.items():
        g[name] = sorted(m for m in imports(path, name) if m in mods and m != name)
    return g


def cycle(g):
    """One import cycle as a list of modules, or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in g[m]:
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        state[m] = 2
        stack.pop()
        return None
    for m in g:
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


class TestLayout(unittest.TestCase):
    def test_no_import_cycle(self):
        g = graph()
        self.assertIn("compare.sections.verdicts", g)
        self.assertIsNone(cycle(g))

    def test_every_python_file_is_in_a_package(self):
        loose = [str(p.relative_to(TOP)) for p in TOP.rglob("*.py")
                 if p.relative_to(TOP).parts[0] not in PACKAGES + ("tests", "build")
                 # workload/bench/gen.py: a stdlib-only generator of module sources
                 and p.relative_to(TOP).parts[0] != "workload"]
        self.assertEqual(loose, [])
        for pkg in PACKAGES:
            self.assertTrue((TOP / pkg / "__init__.py").is_file(), pkg)

    def test_floors(self):
        bad = [f"{m} -> {n}" for m, deps in graph().items() for n in deps
               if n.split(".")[0] != m.split(".")[0]
               and FLOORS[n.split(".")[0]] >= FLOORS[m.split(".")[0]]]
        self.assertEqual(bad, [])

    def test_the_floor_check_finds_a_cross_import(self):
        g = {"plan.x": ["detect.y"], "detect.y": []}
        bad = [f"{m} -> {n}" for m, deps in g.items() for n in deps
               if FLOORS[n.split(".")[0]] >= FLOORS[m.split(".")[0]]]
        self.assertEqual(bad, ["plan.x -> detect.y"])

    def test_no_sys_path_edit_outside_tests(self):
        edits = [f"{p.relative_to(TOP)}:{i}" for pkg in PACKAGES for p in (TOP / pkg).rglob("*.py")
                 for i, line in enumerate(p.read_text().splitlines(), 1)
                 if "sys.path." in line]
        self.assertEqual(edits, [])

    def test_the_check_finds_a_cycle(self):
        self.assertEqual(cycle({"a": ["b"], "b": ["c"], "c": ["a"]}), ["a", "b", "c", "a"])

    def test_sections_have_the_interface(self):
        from compare import sections
        files = {p.stem for p in (TOP / "compare" / "sections").glob("*.py")}
        self.assertEqual(files - set(sections.ORDER), {"__init__", "cells"})
        for s in sections.SECTIONS:
            self.assertIsInstance(s.KEY, str, s.__name__)
            self.assertIsInstance(s.TITLE, str, s.__name__)
            self.assertTrue(callable(s.blocks), s.__name__)


if __name__ == "__main__":
    unittest.main()
