# SPDX-License-Identifier: GPL-2.0
"""The report's sections, in reading order: one module each, rendered once
into doc blocks that compare/doc.py writes as report.md and report.html.

A section module has
    KEY = "<name>"              its key in report.json
    TITLE = "Human title"
    def load(build, report)     optional: reads its own saved results under
                                build/ and returns report[KEY]; None when the
                                run that makes them has not happened (the
                                section is then left out)
    def blocks(data, report)    the section as doc blocks; data = report[KEY]
Adding a section: a module here and its name in ORDER.
"""
import importlib

from .. import doc

ORDER = ["header", "verdicts", "updates", "release", "sanity", "other", "sizes",
         "detectors", "audit", "cross", "robustness", "fuzzing", "valid", "history", "lines", "costs",
         "reasons"]
SECTIONS = [importlib.import_module(f"{__name__}.{name}") for name in ORDER]


def load_all(build, report):
    """Each section's own results into report[KEY] (those with a load())."""
    for s in SECTIONS:
        if hasattr(s, "load"):
            data = s.load(build, report)
            if data is not None:
                report[s.KEY] = data


def build_doc(report):
    """The report as doc blocks, in reading order: verdicts first."""
    out = []
    for s in SECTIONS:
        if hasattr(s, "load") and report.get(s.KEY) is None:
            continue    # its run has not happened
        out += s.blocks(report.get(s.KEY), report)
    return out


def render_md(report):
    return doc.md(build_doc(report))


def render_html(report):
    tree = report["provenance"].get("tree")
    return doc.html(build_doc(report), "modvlab report" + (f" ({tree})" if tree else ""))
