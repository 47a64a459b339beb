# SPDX-License-Identifier: GPL-2.0
"""modvlab core: the readers every other room shares, and nothing else.

tables (the one reader of the data tables: arms, bases, architectures, cases,
generations, ...), elf (the one ELF reader), ktap (console-log parser),
classify (loader messages -> outcomes), plot (SVG), corpus (the bad-module
corpus built from workload/robust.tsv). core imports nothing of the lab's
but itself; every other package may import it.
"""
