# SPDX-License-Identifier: GPL-2.0
"""Policy every-upload (Debian since August 2025, Ubuntu): every build that is
uploaded bumps the string, the respin included; it names no export."""
from detect.common import cli


def detect(g0, gn, gen=None):
    return {"bump": True, "flagged": []}


if __name__ == "__main__":
    cli(detect)
