# SPDX-License-Identifier: GPL-2.0
"""lab/asm-exports-audit.py finds a .S export genksyms has no prototype for."""
import importlib.util
import io
import os
import tempfile
import unittest
from contextlib import redirect_stdout, redirect_stderr

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("audit", os.path.join(TOP, "lab", "asm-exports-audit.py"))
audit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(audit)


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


if __name__ == "__main__":
    unittest.main()
