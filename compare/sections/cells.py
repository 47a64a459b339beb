# SPDX-License-Identifier: GPL-2.0
"""What the sections share: the verdict marks, number formats and the
outcome matrix (a table whose cells are cases, coloured by their worst
verdict)."""
from .. import doc
from ..model import label


MARKS = {"correct-load": "✓", "correct-refusal": "✓", "needless-refusal": "✗ NEEDLESS",
         "unsafe-load": "✗ UNSAFE", "lab-error": "✗ LAB-ERROR", "no-verdict": "· no verdict"}


# A cell holding several cases is coloured by its worst verdict.
SEVERITY = ["unsafe-load", "lab-error", "needless-refusal", "no-verdict", "correct-refusal",
            "correct-load"]


LEGEND = ("✓ right; ✗ UNSAFE = an incompatible module got in; ✗ NEEDLESS = a compatible "
          "module was kept out; ✗ LAB-ERROR = the lab misbehaved (a compatible module failed "
          "its self-test or crashed the kernel); · no verdict = not run, timed out, setup "
          "failed; – = no such case in that column. The kernel's reason for each cell is in "
          "Reasons (and the cell's tooltip in report.html).")


NONE = "–"


C = doc.Code


def num(v, digits=None):
    if v is None or isinstance(v, bool):
        return NONE
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float) and digits is not None:
        return f"{v:,.{digits}f}"
    return str(v)


def delta(v, base, is_base=False):
    """"1,000 (+10)": a value and its difference to base's (none on base's own row)."""
    s = num(v)
    if is_base or not isinstance(v, (int, float)) or not isinstance(base, (int, float)) \
            or isinstance(v, bool) or isinstance(base, bool):
        return s
    d = v - base
    if d == 0:
        return s + " (±0)"
    return s + (f" ({d:+,})" if isinstance(d, int) else f" ({d:+,.1f})")


def plural(n, what):
    """"1 case", "2 cases"."""
    return f"{n} {what}" + ("" if n == 1 else "s")


def flow(c):
    return f"{c.get('built_for') or '?'} → {c.get('loaded_into') or '?'}"


def column_labels(cases):
    out = []
    for c in cases:
        lab = label(c["arm"], c["policy"])
        if lab not in out:
            out.append(lab)
    return out


def report_columns(report):
    return column_labels(report["cases"])


def worst(verdicts):
    return min(verdicts, key=lambda v: SEVERITY.index(v) if v in SEVERITY else len(SEVERITY))


def outcome_cell(cs, show_expected=False):
    """The cell of one or more cases: outcome + mark; coloured by verdict, reason as tooltip."""
    if not cs:
        return doc.Cell([NONE], cls="none")
    lines = []
    for c in cs:
        line = [C(c["outcome"]), " " + MARKS.get(c["verdict"], str(c["verdict"]))]
        if show_expected:
            line.append(f" ({c['expected'] or '?'})")
        lines.append(line)
    title = " | ".join(f"{c['case']}: {c['reason']}" if len(cs) > 1 else str(c["reason"])
                       for c in cs if c.get("reason")) or None
    return doc.Cell(lines, cls=worst([c["verdict"] for c in cs]), title=title)


def matrix(rows, cols, lead_head, align):
    """rows: [(lead cells, {label: [cases]}, expected set)] -> a doc.Table."""
    body = []
    for lead, cells, expected in rows:
        varies = len(expected) > 1
        body.append(lead + [outcome_cell(cells.get(col, []), show_expected=varies)
                            for col in cols])
    return doc.Table(lead_head + cols, body, align=align, cls="matrix")


def expected_text(expected):
    return "varies" if len(expected) > 1 else (next(iter(expected)) or "?")


def case_names(cs):
    out = []
    for i, c in enumerate(cs):
        out += ([", "] if i else []) + [C(c["case"])]
    return out
