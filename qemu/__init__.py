# SPDX-License-Identifier: GPL-2.0
"""modvlab qemu: the host side of a boot (resume records what a resumed boot adds)."""
