# SPDX-License-Identifier: GPL-2.0
"""lab/asm_audit.py finds a .S export genksyms has no prototype for."""
import importlib.util
import io
import os
import tempfile
import unittest
from contextlib import redirect_stdout, redirect_stderr

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from lab import asm_audit as audit

audit.REVIEWED = set()   # the scratch trees, not lab/asm-audit-reviewed.tsv


def tree(d, kconfig, proto):
    files = {
        "Makefile": "",
        "arch/foo/Kconfig": kconfig,
        "arch/foo/lib/a.S": "ENTRY(foo_add)\nEXPORT_SYMBOL(foo_add)\nEXPORT_SYMBOL_GPL(foo_sub)\n",
        "arch/foo/include/asm/asm-prototypes.h": '#include <asm/foo.h>\n',
        "arch/foo/include/asm/foo.h": proto,
    }
    for p, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(d, p)) or d, exist_ok=True)
        with open(os.path.join(d, p), "w") as f:
            f.write(text)
    return d


class AuditTest(unittest.TestCase):
    def run_audit(self, kconfig, proto):
        with tempfile.TemporaryDirectory() as d:
            out = io.StringIO()
            with redirect_stdout(out), redirect_stderr(io.StringIO()):
                rc = audit.main([tree(d, kconfig, proto), "foo"])
            return rc, out.getvalue()

    def test_hole_found(self):
        rc, out = self.run_audit("config FOO\n\tselect HAVE_ASM_MODVERSIONS\n",
                                 "int foo_add(int a, int b);\n")
        self.assertEqual(rc, 1)
        self.assertIn("foo\t2\tyes\t1\tfoo_sub", out)

    def test_all_declared(self):
        rc, out = self.run_audit("config FOO\n\tselect HAVE_ASM_MODVERSIONS\n",
                                 "int foo_add(int a, int b);\nint foo_sub(int a, int b);\n")
        self.assertEqual(rc, 0)

    def test_no_asm_modversions_every_export_is_a_hole(self):
        rc, out = self.run_audit("config FOO\n\tbool\n",
                                 "int foo_add(int a, int b);\nint foo_sub(int a, int b);\n")
        self.assertEqual(rc, 1)
        self.assertIn("foo\t2\tno\t2", out)


def write(d, files):
    for p, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(d, p)), exist_ok=True)
        with open(os.path.join(d, p), "w") as f:
            f.write(text)
    return d


SPARC = {
    "Makefile": "",
    "arch/sparc/Kconfig": "config SPARC\n\tselect HAVE_ASM_MODVERSIONS\n",
    "arch/sparc/lib/Makefile": "lib-$(CONFIG_SPARC32) += locks.o\nlib-$(CONFIG_SPARC64) += atomic_64.o\n"
                               "lib-y += checksum_$(BITS).o\n",
    "arch/sparc/lib/locks.S": "EXPORT_SYMBOL(___rw_read_enter)\n",
    "arch/sparc/lib/atomic_64.S": "#define ATOMIC_OP(op) \\\nENTRY(arch_atomic_##op) \\\n"
                                  "EXPORT_SYMBOL(arch_atomic_##op);\nATOMIC_OP(add)\nATOMIC_OP(sub)\n",
    "arch/sparc/lib/checksum_32.S": "#define FUNC_NAME csum32\nEXPORT_SYMBOL(FUNC_NAME)\n",
    "arch/sparc/lib/checksum_64.S": "#define FUNC_NAME csum64\nEXPORT_SYMBOL(FUNC_NAME)\n",
    "arch/sparc/include/asm/asm-prototypes.h": "#include <asm/spinlock.h>\n"
        "void arch_atomic_add(int i, void *v);\nvoid arch_atomic_sub(int i, void *v);\n"
        "#ifdef CONFIG_SPARC64\nvoid csum64(void);\n#else\nvoid csum32(void);\n#endif\n",
    # named only in an inline asm string: genksyms sees no declaration
    "arch/sparc/include/asm/spinlock.h": "static inline void rl(void)\n"
        "{\n\tasm volatile(\"call ___rw_read_enter\");\n}\n",
}


class VariantTest(unittest.TestCase):
    def rows(self, files):
        with tempfile.TemporaryDirectory() as d:
            write(d, files)
            return {name: (n, [s for s, _ in miss]) for name, n, _, miss in audit.audit(d, "sparc")}

    def test_inline_asm_mention_is_no_declaration(self):
        rows = self.rows(SPARC)
        self.assertEqual(rows["sparc32"][1], ["___rw_read_enter"])

    def test_variants_build_their_own_files(self):
        rows = self.rows(SPARC)
        # sparc64 builds atomic_64.S (2 exports via ##) and checksum_64.S,
        # not locks.S: nothing missing there
        self.assertEqual(rows["sparc64"], (3, []))
        self.assertEqual(rows["sparc32"][0], 2)

    def test_declared_prototype_closes_the_hole(self):
        files = dict(SPARC)
        files["arch/sparc/include/asm/asm-prototypes.h"] += \
            "#ifdef CONFIG_SPARC32\nvoid ___rw_read_enter(void);\n#endif\n"
        self.assertEqual(self.rows(files)["sparc32"][1], [])

    def test_prototype_for_the_other_variant_does_not_count(self):
        files = dict(SPARC)
        files["arch/sparc/include/asm/asm-prototypes.h"] += \
            "#ifdef CONFIG_SPARC64\nvoid ___rw_read_enter(void);\n#endif\n"
        self.assertEqual(self.rows(files)["sparc32"][1], ["___rw_read_enter"])

    def test_directory_not_built(self):
        files = dict(SPARC)
        files["arch/sparc/Makefile"] = "obj-$(CONFIG_SPARC64) += lib/\n"
        self.assertEqual(self.rows(files)["sparc32"], (0, []))

    def test_reviewed_entry_is_not_a_hole(self):
        audit.REVIEWED = {("sparc32", "___rw_read_enter")}
        try:
            self.assertEqual(self.rows(SPARC)["sparc32"][1], [])
        finally:
            audit.REVIEWED = set()

    def test_declared_only_with_an_option_is_a_hole(self):
        # the export is always built; the declaration needs CONFIG_MCOUNT
        files = dict(SPARC)
        files["arch/sparc/include/asm/asm-prototypes.h"] += \
            "#ifdef CONFIG_MCOUNT\nvoid ___rw_read_enter(void);\n#endif\n"
        self.assertEqual(self.rows(files)["sparc32"][1], ["___rw_read_enter"])

    def test_option_the_arch_selects_is_on(self):
        files = dict(SPARC)
        files["arch/sparc/Kconfig"] += "\tselect SPARC_RWLOCK if SPARC32\n"
        files["arch/sparc/include/asm/asm-prototypes.h"] += \
            "#ifdef CONFIG_SPARC_RWLOCK\nvoid ___rw_read_enter(void);\n#endif\n"
        self.assertEqual(self.rows(files)["sparc32"][1], [])

    def test_main_exit_status(self):
        with tempfile.TemporaryDirectory() as d:
            write(d, SPARC)
            out = io.StringIO()
            with redirect_stdout(out), redirect_stderr(io.StringIO()):
                rc = audit.main(["--list", d, "sparc"])
        self.assertEqual(rc, 1)
        self.assertIn("\t___rw_read_enter\tarch/sparc/lib/locks.S", out.getvalue())

    def test_bad_tree(self):
        with tempfile.TemporaryDirectory() as d, redirect_stderr(io.StringIO()) as err:
            with self.assertRaises(SystemExit) as cm:
                audit.main([d])
        self.assertEqual(cm.exception.code, 2)
        self.assertIn("usage", err.getvalue())


if __name__ == "__main__":
    unittest.main()
