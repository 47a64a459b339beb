# SPDX-License-Identifier: GPL-2.0
"""Policy never (today's lax): the string is never bumped; flags nothing."""
from detect.common import cli


def detect(g0, gn, gen=None):
    return {"bump": False, "flagged": []}


if __name__ == "__main__":
    cli(detect)
