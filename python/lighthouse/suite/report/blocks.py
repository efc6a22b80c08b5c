"""Documents of headings, paragraphs, tables, and parts only an HTML page
shows (plots, collapsed details), rendered as plain text, Markdown or one
self-contained HTML page: the suite's report and comparison are written once
as blocks and read in any of the three, with the same numbers.
"""

import html
import re
import textwrap
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple, Union

__all__ = [
    "Block",
    "Cell",
    "Details",
    "Facts",
    "Figure",
    "Heading",
    "Paragraph",
    "Raw",
    "Table",
    "format_count",
    "format_ms",
    "format_percent",
    "format_ratio",
    "to_html",
    "to_markdown",
    "to_text",
]

#: Text lines are at most this wide.
TEXT_WIDTH = 100


@dataclass
class Cell:
    """A table cell: its text, a `note` after it (smaller in HTML), CSS
    classes of the cell and of the note ("good", "bad", "muted", "nowrap";
    HTML only), a compiler's color for a swatch, and in HTML where its text
    links to and the anchor links to it lead to."""

    text: str
    note: str = ""
    style: str = ""
    color: Optional[str] = None
    note_style: str = ""
    link: Optional[str] = None
    anchor: Optional[str] = None


@dataclass
class Table:
    """Rows of cells under a row of headers, and footer rows (totals, means)."""

    headers: List[Cell]
    rows: List[List[Cell]]
    numeric: Sequence[int] = ()  # Right-aligned columns.
    footer: List[List[Cell]] = field(default_factory=list)  # Below a rule.
    short_headers: Optional[List[str]] = None  # For the text renderer,
    short_key: str = ""  # with what they stand for.
    # The text renderer puts the last column under each row, indented, so
    # that long texts (messages, examples) need not be cut.
    detail_below: bool = False


@dataclass
class Heading:
    """A heading of level 1 to 3; in HTML with a compiler's color swatch and
    an anchor the page's links lead to."""

    level: int
    text: str
    color: Optional[str] = None
    anchor: Optional[str] = None


@dataclass
class Paragraph:
    text: str


@dataclass
class Facts:
    """Name and value pairs: a run's metadata."""

    items: List[Tuple[str, str]]


@dataclass
class Figure:
    """An SVG plot: HTML only."""

    svg: str
    caption: str


@dataclass
class Details:
    """Collapsed in HTML; text and Markdown give `fallback` instead."""

    summary: str
    blocks: list
    fallback: str = ""


@dataclass
class Raw:
    """HTML only."""

    html: str


Block = Union[Heading, Paragraph, Facts, Table, Figure, Details, Raw]


# ---------------------------------------------------------------------------
# Number formats


def format_count(n: int) -> str:
    """1,234."""
    return f"{n:,}"


def format_percent(value: Optional[float]) -> str:
    """12.3%; "-" for None (a rate of nothing)."""
    return "-" if value is None else f"{100 * value:.1f}%"


def format_ratio(value: Optional[float]) -> str:
    """1.23x, with two significant digits below 0.1x."""
    if value is None:
        return "-"
    return f"{value:.2g}x" if value < 0.1 else f"{value:.2f}x" if value < 100 else f"{value:.0f}x"


def format_ms(seconds: Optional[float]) -> str:
    """`seconds` in milliseconds, to three significant digits (all digits
    from 100 ms up)."""
    if seconds is None:
        return "-"
    ms = seconds * 1000
    return (
        f"{ms:,.0f}"
        if ms >= 100
        else f"{ms:.1f}"
        if ms >= 10
        else f"{ms:.2f}"
        if ms >= 1
        else f"{ms:.3g}"
    )


# ---------------------------------------------------------------------------
# Text


def _ascii(text: str) -> str:
    return text.encode("ascii", "replace").decode()


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 3)] + "..."


#: Text columns are not shrunk below this many characters.
_MIN_TEXT_COLUMN = 16


def _text_table(table: Table, width: int = TEXT_WIDTH) -> List[str]:
    """The table in aligned columns two spaces apart, its text columns
    shortened (the rightmost first, to no less than `_MIN_TEXT_COLUMN`) to fit
    `width`; if it still does not, its columns split into several tables,
    each with the first column."""
    headers = table.short_headers or [h.text for h in table.headers]
    body = [
        [_ascii(" ".join(filter(None, (c.text, c.note)))) for c in row]
        for row in table.rows + table.footer
    ]
    details = [""] * len(body)
    if table.detail_below:
        headers, details, body = headers[:-1], [row[-1] for row in body], [row[:-1] for row in body]
    widths = [max(len(row[i]) for row in [headers] + body) for i in range(len(headers))]
    # The rightmost text columns (examples, messages) give way before the
    # first ones (names, causes).
    for column in reversed(range(len(widths))):
        excess = sum(widths) + 2 * (len(widths) - 1) - width
        if excess > 0 and column not in table.numeric:
            widths[column] = max(min(widths[column], _MIN_TEXT_COLUMN), widths[column] - excess)
    chunks, chunk = [], []
    for column in range(1, len(widths)):
        if chunk and widths[0] + sum(widths[i] + 2 for i in chunk + [column]) > width:
            chunks.append(chunk)
            chunk = []
        chunk.append(column)
    chunks.append(chunk)
    lines: List[str] = []
    for chunk in chunks:
        columns = [0] + chunk

        def line(cells: Sequence[str]) -> str:
            return "  ".join(
                _clip(cells[i], widths[i]).rjust(widths[i])
                if i in table.numeric
                else _clip(cells[i], widths[i]).ljust(widths[i])
                for i in columns
            ).rstrip()

        if lines:
            lines.append("")
        lines.append(line(headers))
        lines.append("  ".join("-" * widths[i] for i in columns))
        for index, row in enumerate(body):
            if index == len(table.rows) and table.rows:
                lines.append("  ".join("-" * widths[i] for i in columns))
            lines.append(line(row))
            if chunk is chunks[0]:
                lines += textwrap.wrap(
                    details[index], width, initial_indent=" " * 6, subsequent_indent=" " * 8
                )
    return lines


def to_text(blocks: Sequence[Block]) -> str:
    """The blocks as plain ASCII text, at most `TEXT_WIDTH` columns wide but
    for very long words; parts for HTML only left out."""
    lines: List[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            text = _ascii(block.text)
            underline = {1: "=", 2: "-"}.get(block.level)
            lines += ["", text] + ([underline * len(text)] if underline else [])
        elif isinstance(block, Paragraph):
            lines += textwrap.wrap(_ascii(block.text), TEXT_WIDTH)
        elif isinstance(block, Facts):
            lines += [
                _clip(_ascii(f"  {name + ':':12} {value}"), TEXT_WIDTH)
                for name, value in block.items
            ]
        elif isinstance(block, Table):
            lines += _text_table(block)
            if block.short_key:
                lines += textwrap.wrap(block.short_key, TEXT_WIDTH)
        elif isinstance(block, Details) and block.fallback:
            lines += textwrap.wrap(_ascii(block.fallback), TEXT_WIDTH)
    return "\n".join(lines).lstrip("\n") + "\n"


# ---------------------------------------------------------------------------
# Markdown


def _md(text: str) -> str:
    # What would format, link, open an HTML tag or end a table cell; a ">"
    # only quotes at the start of a line, never in a cell.
    return re.sub(r"([\\`*_|<\[\]])", r"\\\1", text.replace("\n", " "))


def to_markdown(blocks: Sequence[Block]) -> str:
    """The blocks as GitHub-flavored Markdown; parts for HTML only left out."""
    lines: List[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            lines += ["#" * block.level + " " + _md(block.text), ""]
        elif isinstance(block, Paragraph):
            lines += [_md(block.text), ""]
        elif isinstance(block, Facts):
            lines += [f"- **{name}**: {_md(value)}" for name, value in block.items] + [""]
        elif isinstance(block, Table):
            cells = [_md(h.text) for h in block.headers]
            lines.append("| " + " | ".join(cells) + " |")
            lines.append(
                "|"
                + "|".join("---:" if i in block.numeric else "---" for i in range(len(cells)))
                + "|"
            )
            for index, row in enumerate(block.rows + block.footer):
                strong = "**" if index >= len(block.rows) else ""
                lines.append(
                    "| "
                    + " | ".join(
                        strong + _md(" ".join(filter(None, (c.text, c.note)))) + strong
                        if c.text or c.note
                        else ""
                        for c in row
                    )
                    + " |"
                )
            lines.append("")
        elif isinstance(block, Details) and block.fallback:
            lines += [_md(block.fallback), ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# HTML

_STYLE = """
body { margin: 0; background: #f4f5f7; color: #222;
  font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; }
main { max-width: 1080px; margin: 0 auto; padding: 20px 28px 60px; background: #fff; }
h1 { font-size: 24px; margin: 8px 0 12px; }
h2 { font-size: 19px; margin: 36px 0 8px; padding-bottom: 4px; border-bottom: 2px solid #ddd; }
h3 { font-size: 15px; margin: 24px 0 6px; }
p { margin: 6px 0 10px; color: #444; max-width: 860px; }
nav { margin: 0 0 12px; }
nav a { margin-right: 16px; color: #0b5cad; text-decoration: none; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 18px; margin: 6px 0; }
dl.facts dt { color: #666; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
table.data { border-collapse: collapse; margin: 6px 0 16px; font-variant-numeric: tabular-nums; }
table.data th, table.data td { padding: 4px 10px; border-bottom: 1px solid #eee;
  text-align: left; vertical-align: top; }
table.data th { background: #f1f2f4; border-bottom: 1px solid #c8c8c8; font-weight: 600; }
table.data tbody tr:hover { background: #f7f9fc; }
table.data .num { text-align: right; white-space: nowrap; }
table.data small { display: inline-block; min-width: 3.4em; margin-left: 6px;
  font-size: 12px; color: #777; font-weight: normal; text-align: right; }
table.data th small { min-width: 0; }
table.data tfoot td { font-weight: 600; }
table.data tfoot tr:first-child td { border-top: 2px solid #999; }
/* The report's list of failures with their messages. */
table.failures td { font-size: 13px; }
table.failures pre { max-width: 640px; }
.good, table.data small.good { color: #1a7f37; }
.bad, table.data small.bad { color: #c62828; }
.nowrap { white-space: nowrap; }
.muted { color: #999; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px;
  margin-right: 6px; }
figure { margin: 12px 0 18px; overflow-x: auto; }
figcaption { font-weight: 600; margin-bottom: 4px; }
svg { max-width: 100%; height: auto; }
details { margin: 6px 0 12px; }
summary { cursor: pointer; color: #0b5cad; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; font-size: 12px;
  max-height: 18em; overflow: auto; }
"""


def _html_cell(tag: str, cell: Cell, numeric: bool) -> str:
    classes = " ".join(filter(None, ("num" if numeric else "", cell.style)))
    attribute = f' class="{classes}"' if classes else ""
    if cell.anchor:
        attribute += f' id="{html.escape(cell.anchor)}"'
    swatch = f'<span class="swatch" style="background:{cell.color}"></span>' if cell.color else ""
    note_class = f' class="{cell.note_style}"' if cell.note_style else ""
    note = f"<small{note_class}>{html.escape(cell.note)}</small>" if cell.note else ""
    text = html.escape(cell.text)
    if cell.link:
        text = f'<a href="{html.escape(cell.link)}">{text}</a>'
    return f"<{tag}{attribute}>{swatch}{text}{note}</{tag}>"


def _html_table(table: Table) -> str:
    def row(cells: Sequence[Cell], tag: str) -> str:
        return (
            "<tr>"
            + "".join(_html_cell(tag, c, i in table.numeric) for i, c in enumerate(cells))
            + "</tr>"
        )

    parts = ['<table class="data"><thead>', row(table.headers, "th"), "</thead>"]
    if table.rows:
        parts += ["<tbody>"] + [row(r, "td") for r in table.rows] + ["</tbody>"]
    if table.footer:
        parts += ["<tfoot>"] + [row(r, "td") for r in table.footer] + ["</tfoot>"]
    return "".join(parts) + "</table>"


def _html_block(block: Block) -> str:
    if isinstance(block, Heading):
        anchor = f' id="{block.anchor}"' if block.anchor else ""
        swatch = (
            f'<span class="swatch" style="background:{block.color}"></span>' if block.color else ""
        )
        return f"<h{block.level}{anchor}>{swatch}{html.escape(block.text)}</h{block.level}>"
    if isinstance(block, Paragraph):
        return f"<p>{html.escape(block.text)}</p>"
    if isinstance(block, Facts):
        return (
            '<dl class="facts">'
            + "".join(
                f"<dt>{html.escape(name)}</dt><dd>{html.escape(value)}</dd>"
                for name, value in block.items
            )
            + "</dl>"
        )
    if isinstance(block, Table):
        return _html_table(block)
    if isinstance(block, Figure):
        return f"<figure><figcaption>{html.escape(block.caption)}</figcaption>{block.svg}</figure>"
    if isinstance(block, Details):
        return (
            f"<details><summary>{html.escape(block.summary)}</summary>"
            + "".join(_html_block(b) for b in block.blocks)
            + "</details>"
        )
    return block.html


def to_html(blocks: Sequence[Block], title: str) -> str:
    """The blocks as one self-contained HTML page: inline CSS, no scripts,
    nothing loaded from elsewhere, and markup that is also well-formed XML.
    Links to the headings with an anchor follow the first heading."""
    nav = "".join(
        f'<a href="#{b.anchor}">{html.escape(b.text)}</a>'
        for b in blocks
        if isinstance(b, Heading) and b.anchor
    )
    parts = [_html_block(b) for b in blocks]
    if parts and nav:
        parts.insert(1, f"<nav>{nav}</nav>")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"/>'
        '<meta name="viewport" content="width=device-width, initial-scale=1"/>'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><main>{''.join(parts)}</main></body></html>\n"
    )
