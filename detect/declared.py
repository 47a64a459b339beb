# SPDX-License-Identifier: GPL-2.0
"""The oracle (today's diligent): the exports gens.tsv declares changed.
Not a tool a distributor has: the lab's own ground truth, shown as the upper
bound the real detectors are measured against."""
from detect.common import DetectError, cli
from core import generations


def detect(g0, gn, gen=None):
    if gen is None:
        raise DetectError("declared: needs the generation (its gens.tsv line)")
    return {"bump": generations.declares_change(gen), "flagged": sorted(gen["changes"]),
            "oracle": True}


if __name__ == "__main__":
    cli(detect)
