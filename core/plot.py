# SPDX-License-Identifier: GPL-2.0
"""Plots for the report, as inline SVG strings, with the standard library only.

svg_load_vs_imports(load_ns): module load time vs the number of imported
symbols, one line per arm, both axes logarithmic (the quadratic lookup of
base is then a line of slope 2, a linear cost one of slope 1).
"""
import math
from xml.sax.saxutils import escape, quoteattr

# fixed colours for the lab's arms, then a cycle for any other
ARM_COLOURS = {"nomodv": "#7f7f7f", "base": "#1f77b4", "keep": "#2ca02c", "remove": "#ff7f0e"}
OTHER_COLOURS = ["#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]

W, H = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 78, 150, 36, 56     # plot margins (legend on the right)


def _points(series):
    """{N: ns} with N and ns positive numbers -> sorted [(N, ns)]; others dropped."""
    pts = []
    for k, v in series.items():
        try:
            n, t = float(k), float(v)
        except (TypeError, ValueError):
            continue
        if n > 0 and t > 0 and math.isfinite(n) and math.isfinite(t):
            pts.append((n, t))
    return sorted(pts)


def _decades(lo, hi):
    """Powers of ten covering [lo, hi] (at least one decade)."""
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    return a, max(b, a + 1)


def _fmt_ms(ms):
    if ms >= 1:
        return f"{ms:g}"
    return f"{ms:.{-math.floor(math.log10(ms))}f}"


def _frame(title, pw, ph):
    """The opening of a plot: the svg element, its title and the plot box."""
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
            f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
            f"<title>{escape(title)}</title>",
            f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#000"/>',
            f'<text x="{LEFT + pw / 2:.1f}" y="{TOP - 14}" text-anchor="middle" '
            f'font-size="14">{escape(title)}</text>']


def svg_load_vs_imports(load_ns, title="Module load time vs imported symbols"):
    """load_ns: {arm: {N: median ns}} (N as str or int) -> an <svg> document string.

    Raises ValueError when there is nothing to draw: no arm, or no positive
    (N, ns) pair in any arm.
    """
    if not isinstance(load_ns, dict) or not load_ns:
        raise ValueError("svg_load_vs_imports: no load times to plot (empty input)")
    series = {str(arm): _points(v if isinstance(v, dict) else {}) for arm, v in load_ns.items()}
    series = {arm: pts for arm, pts in series.items() if pts}
    if not series:
        raise ValueError("svg_load_vs_imports: no positive load time in any arm")
    xs = [n for pts in series.values() for n, _ in pts]
    ys = [t / 1e6 for pts in series.values() for _, t in pts]    # ms
    x0, x1 = math.log2(min(xs)), math.log2(max(xs))
    if x1 - x0 < 1:
        x0, x1 = x0 - 0.5, x1 + 0.5
    d0, d1 = _decades(min(ys), max(ys))
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def px(n):
        return LEFT + (math.log2(n) - x0) / (x1 - x0) * pw

    def py(ms):
        return TOP + ph - (math.log10(ms) - d0) / (d1 - d0) * ph

    out = _frame(title, pw, ph)
    # x ticks: the Ns measured
    for n in sorted(set(xs)):
        x = px(n)
        out.append(f'<line x1="{x:.1f}" y1="{TOP + ph}" x2="{x:.1f}" y2="{TOP + ph + 5}" stroke="#000"/>')
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + ph}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{TOP + ph + 19}" text-anchor="middle">{n:g}</text>')
    # y ticks: decades of milliseconds
    for d in range(d0, d1 + 1):
        y = py(10.0 ** d)
        out.append(f'<line x1="{LEFT - 5}" y1="{y:.1f}" x2="{LEFT}" y2="{y:.1f}" stroke="#000"/>')
        if d0 < d < d1:
            out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{_fmt_ms(10.0 ** d)}</text>')
    out.append(f'<text x="{LEFT + pw / 2:.1f}" y="{H - 14}" text-anchor="middle">'
               "imported symbols N (log scale)</text>")
    out.append(f'<text transform="translate(18 {TOP + ph / 2:.1f}) rotate(-90)" '
               'text-anchor="middle">median finit_module time, ms (log scale)</text>')
    # one polyline (and its markers) per arm, then the legend
    others = iter(OTHER_COLOURS * (len(series) // len(OTHER_COLOURS) + 1))
    for i, (arm, pts) in enumerate(series.items()):
        colour = ARM_COLOURS.get(arm) or next(others)
        coords = " ".join(f"{px(n):.1f},{py(t / 1e6):.1f}" for n, t in pts)
        out.append(f'<polyline class="arm" data-arm={quoteattr(arm)} points="{coords}" '
                   f'fill="none" stroke="{colour}" stroke-width="2"/>')
        for n, t in pts:
            out.append(f'<circle cx="{px(n):.1f}" cy="{py(t / 1e6):.1f}" r="3" fill="{colour}">'
                       f"<title>{escape(arm)}: N={n:g}, {t / 1e6:.3f} ms</title></circle>")
        ly = TOP + 10 + 20 * i
        lx = LEFT + pw + 16
        out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 24}" y2="{ly}" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{lx + 30}" y="{ly + 4}">{escape(arm)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def svg_share_lines(series, xlabels, title, ylabel):
    """series: {name: [share 0..1 per x label]} -> an <svg> of one line per name
    over categorical x labels (in order), y from 0 to 100 %.

    Raises ValueError when there is nothing to draw."""
    if not xlabels or not series:
        raise ValueError("svg_share_lines: nothing to plot")
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def px(i):
        return LEFT + (0.5 if len(xlabels) == 1 else i / (len(xlabels) - 1)) * pw

    def py(s):
        return TOP + ph - s * ph

    out = _frame(title, pw, ph)
    for i, lab in enumerate(xlabels):
        x = px(i)
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + ph}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{TOP + ph + 19}" text-anchor="middle">{escape(str(lab))}</text>')
    for pct in range(0, 101, 25):
        y = py(pct / 100)
        out.append(f'<line x1="{LEFT - 5}" y1="{y:.1f}" x2="{LEFT}" y2="{y:.1f}" stroke="#000"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{pct} %</text>')
    out.append(f'<text transform="translate(18 {TOP + ph / 2:.1f}) rotate(-90)" '
               f'text-anchor="middle">{escape(ylabel)}</text>')
    colours = iter(OTHER_COLOURS * (len(series) // len(OTHER_COLOURS) + 1))
    for k, (name, ys) in enumerate(series.items()):
        colour = next(colours)
        pts = [(px(i), py(s)) for i, s in enumerate(ys) if s is not None]
        # a small vertical offset per line, so equal lines stay visible
        pts = [(x, y - 2 * k) for x, y in pts]
        out.append(f'<polyline class="policy" data-policy={quoteattr(name)} points="'
                   + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
                   + f'" fill="none" stroke="{colour}" stroke-width="2"/>')
        for (x, y), s in zip(pts, [s for s in ys if s is not None]):
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}">'
                       f"<title>{escape(name)}: {100 * s:.1f} %</title></circle>")
        ly, lx = TOP + 10 + 20 * k, LEFT + pw + 16
        out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 24}" y2="{ly}" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{lx + 30}" y="{ly + 4}">{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def svg_strip(cells, title):
    """cells: [(label, kind)] in order -> an <svg> strip of one box per label,
    coloured by its kind (a legend names each kind): what each upload ran.

    Raises ValueError when there is nothing to draw."""
    if not cells:
        raise ValueError("svg_strip: nothing to plot")
    kinds = list(dict.fromkeys(k for _, k in cells))
    colour = {k: OTHER_COLOURS[i % len(OTHER_COLOURS)] for i, k in enumerate(kinds)}
    bw = max(14.0, min(60.0, (W - 40) / len(cells)))
    width = max(W, 40 + bw * len(cells))
    height = 120 + 20 * len(kinds)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
           f'viewBox="0 0 {width:.0f} {height}" font-family="sans-serif" font-size="11">',
           f"<title>{escape(title)}</title>",
           f'<text x="20" y="20" font-size="14">{escape(title)}</text>']
    for i, (label, kind) in enumerate(cells):
        x = 20 + i * bw
        out.append(f'<rect class="upload" data-kind={quoteattr(kind)} x="{x:.1f}" y="34" '
                   f'width="{bw - 2:.1f}" height="28" fill="{colour[kind]}">'
                   f"<title>{escape(label)}: {escape(kind)}</title></rect>")
        out.append(f'<text transform="translate({x + bw / 2:.1f} 70) rotate(45)" '
                   f'font-size="9">{escape(label)}</text>')
    for j, kind in enumerate(kinds):
        y = 110 + 20 * j
        out.append(f'<rect x="20" y="{y - 10}" width="14" height="12" fill="{colour[kind]}"/>')
        out.append(f'<text x="40" y="{y}">{escape(kind)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
