# SPDX-License-Identifier: GPL-2.0
"""Cases of other boots (e.g. the load-cost bench), as the release table."""
from .release import release_blocks


KEY = "cases"
TITLE = "Other cases"


def blocks(data, report):
    return release_blocks(report, "other")
