# SPDX-License-Identifier: GPL-2.0
"""Report sections: one module per section (KEY, TITLE, load, blocks)."""
