# SPDX-License-Identifier: GPL-2.0
"""modvlab lab: host plumbing. The shell steps (tree, arm, gens, run, ...) and
the Python ones, run as `python3 -m lab.NAME`: sizes, bench (make bench's
data side), cputime, asm_audit (make asm-audit), cover_results."""
