# SPDX-License-Identifier: GPL-2.0
"""A tiny document model and its two renderings, Markdown and self-contained HTML.

report.py builds the report once as a list of blocks; md() and html() render
the same blocks, so report.md and report.html cannot say different things.

Inline text is a str, a Code or Bold (str subclasses), or a list of those.
Blocks: H (heading), P (paragraph), UL (bullet list), Pre (code block),
Table (of Cell or inline), Details (collapsed blocks).
"""
import dataclasses
import html as _html


class Code(str):
    """Inline code: a log line, a symbol, a file name."""


class Bold(str):
    """Inline bold text."""


@dataclasses.dataclass
class H:
    level: int
    text: object


@dataclasses.dataclass
class P:
    text: object


@dataclasses.dataclass
class UL:
    items: list


@dataclasses.dataclass
class Pre:
    text: str


@dataclasses.dataclass
class Cell:
    """A table cell: lines of inline text; cls colours it in HTML, title is its tooltip."""
    lines: list
    cls: str = None
    title: str = None

    @classmethod
    def of(cls, value, **kw):
        return value if isinstance(value, Cell) else cls([value], **kw)


@dataclasses.dataclass
class Table:
    head: list
    rows: list
    align: str = ""                 # one letter per column: "l" or "r" (default "l")
    cls: str = None


@dataclasses.dataclass
class Figure:
    """A picture: inline SVG in HTML, a link to the file in Markdown."""
    svg: str
    href: str
    caption: str


@dataclasses.dataclass
class Details:
    summary: object
    blocks: list


def _parts(inl):
    if isinstance(inl, (list, tuple)):
        return list(inl)
    return [] if inl is None else [inl]


# --- Markdown ---------------------------------------------------------------

def md_inline(inl, cell=False):
    out = []
    for p in _parts(inl):
        if isinstance(p, Code):
            s = "`" + str(p).replace("`", "'") + "`"
        elif isinstance(p, Bold):
            s = f"**{p}**"
        else:
            s = str(p)
        out.append(s)
    s = "".join(out)
    if cell:
        s = s.replace("|", "\\|")
    return s.replace("\n", " ")


def _md_block(b):
    if isinstance(b, H):
        return ["#" * b.level + " " + md_inline(b.text), ""]
    if isinstance(b, P):
        return [md_inline(b.text), ""]
    if isinstance(b, UL):
        return [f"- {md_inline(i)}" for i in b.items] + [""]
    if isinstance(b, Pre):
        fence = "```"
        while fence in b.text:
            fence += "`"
        return [fence, b.text, fence, ""]
    if isinstance(b, Table):
        def row(cells):
            return "| " + " | ".join(
                "<br>".join(md_inline(ln, cell=True) for ln in Cell.of(c).lines) or " "
                for c in cells) + " |"
        align = [("---:" if (b.align[i:i + 1] == "r") else "---") for i in range(len(b.head))]
        return [row(b.head), "|" + "|".join(align) + "|"] + [row(r) for r in b.rows] + [""]
    if isinstance(b, Figure):
        return [f"![{b.caption}]({b.href})", ""]
    if isinstance(b, Details):
        out = [f"<details><summary>{html_inline(b.summary)}</summary>", ""]
        for inner in b.blocks:
            out += _md_block(inner)
        return out + ["</details>", ""]
    raise TypeError(f"not a block: {b!r}")


def md(blocks):
    out = []
    for b in blocks:
        out += _md_block(b)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


# --- HTML -------------------------------------------------------------------

def esc(s, quote=False):
    """Text for HTML element content (quote=True: for an attribute value)."""
    return _html.escape(str(s), quote=quote)


def html_inline(inl):
    out = []
    for p in _parts(inl):
        if isinstance(p, Code):
            out.append(f"<code>{esc(p)}</code>")
        elif isinstance(p, Bold):
            out.append(f"<b>{esc(p)}</b>")
        else:
            out.append(esc(p))
    return "".join(out)


def _html_cell(tag, c, align):
    c = Cell.of(c)
    attrs = []
    classes = [x for x in (c.cls, "num" if align == "r" else None) if x]
    if classes:
        attrs.append(f'class="{esc(" ".join(classes), True)}"')
    if c.title:
        attrs.append(f'title="{esc(c.title, True)}"')
    a = (" " + " ".join(attrs)) if attrs else ""
    return f"<{tag}{a}>" + "<br>".join(html_inline(ln) for ln in c.lines) + f"</{tag}>"


def _html_block(b):
    if isinstance(b, H):
        return [f"<h{b.level}>{html_inline(b.text)}</h{b.level}>"]
    if isinstance(b, P):
        return [f"<p>{html_inline(b.text)}</p>"]
    if isinstance(b, UL):
        return ["<ul>"] + [f"<li>{html_inline(i)}</li>" for i in b.items] + ["</ul>"]
    if isinstance(b, Pre):
        return [f"<pre>{esc(b.text)}</pre>"]
    if isinstance(b, Figure):   # our own SVG (core/plot.py), not log text
        return [f"<figure>{b.svg}<figcaption>{esc(b.caption)}</figcaption></figure>"]
    if isinstance(b, Table):
        al = lambda i: b.align[i:i + 1]
        cls = f' class="{esc(b.cls, True)}"' if b.cls else ""
        out = [f"<table{cls}>", "<thead><tr>"
               + "".join(_html_cell("th", c, al(i)) for i, c in enumerate(b.head))
               + "</tr></thead>", "<tbody>"]
        for r in b.rows:
            out.append("<tr>" + "".join(_html_cell("td", c, al(i)) for i, c in enumerate(r))
                       + "</tr>")
        return out + ["</tbody>", "</table>"]
    if isinstance(b, Details):
        out = [f"<details><summary>{html_inline(b.summary)}</summary>"]
        for inner in b.blocks:
            out += _html_block(inner)
        return out + ["</details>"]
    raise TypeError(f"not a block: {b!r}")


CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em auto;
       max-width: 84em; padding: 0 1em; color: #1b1b1b; background: #fff; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: .15em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: 13px; }
th, td { border: 1px solid #c8c8c8; padding: .2em .5em; vertical-align: top; text-align: left; }
th { background: #f0f0f0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12px ui-monospace, "DejaVu Sans Mono", monospace; background: #f4f4f4;
       padding: 0 .2em; border-radius: 3px; }
td code { background: transparent; padding: 0; }
pre { background: #f6f6f6; border: 1px solid #ddd; padding: .6em; overflow-x: auto;
      font: 12px ui-monospace, "DejaVu Sans Mono", monospace; }
details { margin: .4em 0; }
summary { cursor: pointer; }
td.correct-load, td.correct-refusal { background: #d4f2d4; }
td.unsafe-load { background: #f7c5c5; color: #7a0000; font-weight: 600; }
td.needless-refusal { background: #ffdcab; color: #6b3a00; }
td.lab-error { background: #e8d5f5; }
td.no-verdict, td.none { background: #e6e6e6; color: #555; }
td.bad { background: #f7c5c5; }
td.warn { background: #ffdcab; }
"""


def html(blocks, title):
    body = []
    for b in blocks:
        body += _html_block(b)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")
