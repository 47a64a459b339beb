# SPDX-License-Identifier: GPL-2.0
"""modvlab fuzz: the host side of make fuzz (run, guest, snapshot, results,
signature, cause, minimize); the C mutator and guest driver are in guest/fuzz/."""
