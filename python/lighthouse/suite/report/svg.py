"""The plots of the suite's HTML report, drawn as inline SVG without a plotting
library: grouped bars, a strip plot on a log scale, stacked horizontal bars,
lines over a sequence of runs.

No font metrics are at hand without a browser, so text widths are estimated
generously and labels are shortened (their whole text in a tooltip) or the
margins widened before two texts could overlap.
"""

import html
import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

__all__ = [
    "Bar",
    "Dot",
    "StripRow",
    "grouped_bars",
    "line_chart",
    "stacked_hbars",
    "strip_plot",
    "text_width",
    "tint",
]

FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"
#: Of the font size: wider than the average glyph of a sans-serif font (about
#: 0.5), so that an estimate errs toward room.
CHAR_WIDTH = 0.6
INK = "#222"
GRID = "#e3e3e3"
MUTED = "#666"
#: The widest a plot is drawn: the width of the report's page.
MAX_WIDTH = 1040


def text_width(text: str, size: float) -> float:
    """The estimated width in pixels of `text` at font size `size`."""
    return len(text) * size * CHAR_WIDTH


def fit(text: str, width: float, size: float) -> str:
    """`text`, shortened with an ellipsis to at most `width` pixels."""
    if text_width(text, size) <= width:
        return text
    keep = max(1, int(width / (size * CHAR_WIDTH)) - 1)
    return text[:keep].rstrip() + "…"


def tint(color: str, amount: float) -> str:
    """`color` (#rrggbb) mixed with white: 0 keeps it, 1 is white."""
    channels = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (255 - c) * amount):02x}" for c in channels)


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


class _Canvas:
    """SVG elements collected in drawing order, every text escaped."""

    def __init__(self, width: float, height: float, label: str):
        self.width, self.height, self.label = width, height, label
        self.items: List[str] = []

    def add(
        self, tag: str, attributes: Dict[str, object], text: str = "", title: Optional[str] = None
    ) -> None:
        attrs = "".join(
            f' {key.replace("_", "-")}="{html.escape(str(value))}"'
            for key, value in attributes.items()
            if value is not None
        )
        inner = (f"<title>{html.escape(title)}</title>" if title else "") + html.escape(text)
        self.items.append(f"<{tag}{attrs}>{inner}</{tag}>" if inner else f"<{tag}{attrs}/>")

    def rect(self, x, y, width, height, fill, title=None, **attributes) -> None:
        self.add(
            "rect",
            {
                "x": _number(x),
                "y": _number(y),
                "width": _number(max(width, 0)),
                "height": _number(max(height, 0)),
                "fill": fill,
                **attributes,
            },
            title=title,
        )

    def line(self, x1, y1, x2, y2, stroke=INK, **attributes) -> None:
        self.add(
            "line",
            {
                "x1": _number(x1),
                "y1": _number(y1),
                "x2": _number(x2),
                "y2": _number(y2),
                "stroke": stroke,
                **attributes,
            },
        )

    def text(self, x, y, text, size=12, anchor="start", fill=INK, title=None, **attributes) -> None:
        self.add(
            "text",
            {
                "x": _number(x),
                "y": _number(y),
                "font_size": size,
                "text_anchor": anchor,
                "fill": fill,
                **attributes,
            },
            text,
            title,
        )

    def render(self) -> str:
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" role="img" '
            f'aria-label="{html.escape(self.label)}" width="{round(self.width)}" '
            f'height="{round(self.height)}" viewBox="0 0 {round(self.width)} '
            f'{round(self.height)}" font-family="{html.escape(FONT_FAMILY)}">'
            + "".join(self.items)
            + "</svg>"
        )


def _legend_height(entries: Sequence[Tuple[str, str]], width: float, size: float = 12) -> float:
    return _legend(None, entries, 0, 0, width, size)


def _legend(
    canvas: Optional[_Canvas],
    entries: Sequence[Tuple[str, str]],
    x: float,
    y: float,
    width: float,
    size: float = 12,
) -> float:
    """Draws swatches with names from (x, y), wrapped at `width`; returns the
    height taken (only measures when `canvas` is None)."""
    row_height = size + 10
    left, top = x, y
    for name, color in entries:
        entry = 14 + 6 + text_width(name, size) + 18
        if left > x and left + entry > x + width:
            left, top = x, top + row_height
        if canvas:
            canvas.rect(left, top + 2, 14, 14, color, rx=2)
            canvas.text(left + 20, top + 14, name, size)
        left += entry
    return top - y + row_height


def _linear_ticks(maximum: float, count: int = 5) -> List[float]:
    """Round ticks from 0 to at least `maximum`."""
    if maximum <= 0:
        return [0.0, 1.0]
    raw = maximum / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    return [step * i for i in range(int(math.ceil(maximum / step - 1e-9)) + 1)]


def _log_ticks(low: float, high: float) -> List[float]:
    """Ticks between `low` and `high` on a log scale: 1-2-5 in each decade,
    or finer steps when the range spans too little for three of those."""
    for mantissas in ((1,), (1, 2, 5), (1, 1.5, 2, 3, 5, 7)):
        ticks = [
            m * 10**e
            for e in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1)
            for m in mantissas
        ]
        ticks = [t for t in ticks if low <= t * (1 + 1e-9) and t <= high * (1 + 1e-9)]
        if len(ticks) >= 4:
            return ticks
    return ticks


def _y_axis(canvas: _Canvas, ticks, y, tick_format, label: str, span, plot) -> None:
    """A y axis's grid lines across `span` (left, right), at `ticks` placed
    by `y`, their values, and its title along the plot (top, height)."""
    left, right = span
    top, height = plot
    for tick in ticks:
        canvas.line(left, y(tick), right, y(tick), GRID)
        canvas.text(left - 6, y(tick) + 4, tick_format(tick), 11, "end", MUTED)
    middle = top + height / 2
    canvas.text(16, middle, label, 12, "middle", transform=f"rotate(-90 16 {_number(middle)})")


def _ratio_label(value: float) -> str:
    return f"{value:g}x" if value >= 0.01 else f"{value:.0e}x"


@dataclass
class Bar:
    """A bar of `grouped_bars`: its `value` drawn light, the part `inner` of
    it solid, `label` above it and `tooltip` on hovering."""

    value: float
    inner: float
    label: str
    tooltip: str


def grouped_bars(
    groups: Sequence[str],
    series: Sequence[str],
    colors: Dict[str, str],
    bars: Dict[Tuple[str, str], Bar],
    y_label: str,
    maximum: float,
    tick_format,
    key: Sequence[Tuple[str, str]],
) -> str:
    """Bars of each series side by side within each group.

    Args:
      groups: the groups along the x axis, in order.
      series: the series of each group, in order (a missing bar leaves a gap).
      colors: the color of each series.
      bars: the bar of (group, series).
      y_label: the y axis's title.
      maximum: the top of the y axis.
      tick_format: formats a y tick value.
      key: extra legend entries (text, color) saying how to read a bar.
    """
    present = [s for s in series if any((g, s) in bars for g in groups)]
    bar_count = len(groups) * len(present)
    left, right, label_size = 64, 16, 10
    # Each group takes its bars and a gap of one and a half bars.
    units = max(1.0, bar_count + 1.5 * len(groups))
    bar_width = max(8.0, min(40.0, (MAX_WIDTH - left - right) / units))
    width = max(480.0, left + right + units * bar_width)
    legend = [(s, colors[s]) for s in present] + list(key)
    top = 12 + _legend_height(legend, width - left - right) + 18
    plot_height, bottom = 240, 44
    canvas = _Canvas(width, top + plot_height + bottom, y_label)
    _legend(canvas, legend, left, 12, width - left - right)
    y0 = top + plot_height

    def y(value):
        return y0 - plot_height * min(value, maximum) / maximum

    _y_axis(
        canvas,
        _linear_ticks(maximum, 4),
        y,
        tick_format,
        y_label,
        (left, width - right),
        (top, plot_height),
    )
    # Labels above bars only when they fit in a bar's width.
    show_labels = bar_width >= text_width("100%", label_size) + 2
    x = left + 0.75 * bar_width
    for group in groups:
        group_left = x
        for name in present:
            bar = bars.get((group, name))
            if bar is not None:
                color = colors[name]
                canvas.rect(
                    x + 1,
                    y(bar.value),
                    bar_width - 2,
                    y0 - y(bar.value),
                    tint(color, 0.6),
                    bar.tooltip,
                )
                canvas.rect(
                    x + 1, y(bar.inner), bar_width - 2, y0 - y(bar.inner), color, bar.tooltip
                )
                if show_labels:
                    canvas.text(
                        x + bar_width / 2, y(bar.value) - 4, bar.label, label_size, "middle"
                    )
            x += bar_width
        group_width = x - group_left
        canvas.text(
            group_left + group_width / 2,
            y0 + 18,
            fit(group, group_width + bar_width, 12),
            12,
            "middle",
            title=group,
        )
        x += 1.5 * bar_width
    canvas.line(left, y0, width - right, y0, INK)
    return canvas.render()


@dataclass
class Dot:
    """A point of a strip plot, with the tooltip it shows on hovering."""

    value: float
    tooltip: str


@dataclass
class StripRow:
    """A row of a strip plot: its points, and a summary value (drawn as a
    black bar) with its text at the right."""

    label: str
    color: str
    dots: List[Dot] = field(default_factory=list)
    summary: Optional[float] = None
    summary_text: str = ""


def strip_plot(
    rows: Sequence[StripRow], x_label: str, reference: float, reference_label: str
) -> str:
    """Points per row along a log-scale x axis, a dashed line at `reference`.

    Points are spread over the row's height by a fixed low-discrepancy
    sequence (no randomness: the same results draw the same plot).
    """
    values = [d.value for row in rows for d in row.dots if d.value > 0] + [reference]
    low, high = min(values) / 1.15, max(values) * 1.15
    # At least a factor of 1.5 on each side of the reference, for its ticks.
    low, high = min(low, reference / 1.5), max(high, reference * 1.5)
    size, row_height = 12, 34
    left = 16 + min(200.0, max(text_width(r.label, size) for r in rows))
    right = 16 + max(text_width(r.summary_text, 11) for r in rows)
    width = MAX_WIDTH
    top, bottom = 28, 52
    canvas = _Canvas(width, top + row_height * len(rows) + bottom, x_label)
    plot_right = width - right
    span = math.log(high) - math.log(low)

    def x(value):
        return left + (plot_right - left) * (math.log(value) - math.log(low)) / span

    y_end = top + row_height * len(rows)
    # Every other row shaded, under the grid.
    for index in range(1, len(rows), 2):
        canvas.rect(left, top + row_height * index, plot_right - left, row_height, "#f4f4f4")
    for tick in _log_ticks(low, high):
        canvas.line(x(tick), top, x(tick), y_end, GRID)
        canvas.text(x(tick), y_end + 16, _ratio_label(tick), 11, "middle", MUTED)
    canvas.text((left + plot_right) / 2, y_end + 40, x_label, 12, "middle")
    for index, row in enumerate(rows):
        middle = top + row_height * (index + 0.5)
        canvas.text(
            left - 8, middle + 4, fit(row.label, left - 16, size), size, "end", title=row.label
        )
        for number, dot in enumerate(row.dots):
            # The golden ratio's fractional multiples: evenly spread offsets.
            offset = ((number * 0.6180339887) % 1.0 - 0.5) * (row_height - 12)
            canvas.add(
                "circle",
                {
                    "cx": _number(x(dot.value)),
                    "cy": _number(middle + offset),
                    "r": 3,
                    "fill": row.color,
                    "fill_opacity": 0.55,
                },
                title=dot.tooltip,
            )
        if row.summary is not None:
            canvas.rect(
                x(row.summary) - 1.5,
                middle - row_height / 2 + 3,
                3,
                row_height - 6,
                INK,
                row.summary_text,
            )
        canvas.text(plot_right + 8, middle + 4, row.summary_text, 11, "start", INK)
    canvas.line(x(reference), top - 4, x(reference), y_end, INK, stroke_dasharray="4 3")
    canvas.text(x(reference), top - 10, reference_label, 11, "middle")
    canvas.line(left, y_end, plot_right, y_end, INK)
    return canvas.render()


def stacked_hbars(
    rows: Sequence[Tuple[str, str, Dict[str, int]]],
    series: Sequence[str],
    colors: Dict[str, str],
    x_label: str,
) -> str:
    """A horizontal bar per row, its parts stacked by series.

    Args:
      rows: (label, tooltip, count per series) from the top down.
      series: the order of the parts within a bar and of the legend.
      colors: the color of each series.
      x_label: the x axis's title.
    """
    present = [s for s in series if any(counts.get(s) for _, _, counts in rows)]
    size, row_height = 11, 22
    width = MAX_WIDTH
    left = 16 + min(520.0, max((text_width(label, size) for label, _, _ in rows), default=0))
    right = 56
    legend = [(s, colors[s]) for s in present]
    top = 12 + _legend_height(legend, width - 32) + 12
    bottom = 48
    canvas = _Canvas(width, top + row_height * len(rows) + bottom, x_label)
    _legend(canvas, legend, 16, 12, width - 32)
    totals = [sum(counts.values()) for _, _, counts in rows]
    ticks = _linear_ticks(max(totals, default=1), 5)
    scale = (width - left - right) / ticks[-1]
    y_end = top + row_height * len(rows)
    for tick in ticks:
        canvas.line(left + tick * scale, top, left + tick * scale, y_end, GRID)
        canvas.text(left + tick * scale, y_end + 16, f"{tick:g}", 11, "middle", MUTED)
    canvas.text((left + width - right) / 2, y_end + 38, x_label, 12, "middle")
    for index, ((label, tooltip, counts), total) in enumerate(zip(rows, totals)):
        y = top + row_height * index
        canvas.text(
            left - 8,
            y + row_height / 2 + 4,
            fit(label, left - 16, size),
            size,
            "end",
            title=tooltip,
        )
        x = left
        for name in present:
            count = counts.get(name, 0)
            if count:
                canvas.rect(
                    x,
                    y + 3,
                    count * scale,
                    row_height - 6,
                    colors[name],
                    f"{name}: {count}\n{tooltip}",
                )
                x += count * scale
        canvas.text(x + 6, y + row_height / 2 + 4, str(total), size, "start")
    canvas.line(left, top, left, y_end, INK)
    return canvas.render()


def line_chart(
    points: Sequence[str],
    lines: Dict[str, Dict[int, float]],
    colors: Dict[str, str],
    y_label: str,
    tick_format,
    log: bool = False,
    reference: Optional[float] = None,
) -> str:
    """A line per series over `points` along the x axis (runs, oldest first).

    Args:
      points: the x axis's labels, in order.
      lines: per series, its value at the index of each point it has (a
        series missing at a point is drawn across it).
      colors: the color of each series.
      y_label: the y axis's title.
      tick_format: formats a y tick value.
      log: a log-scale y axis (ratios), from and to the values' range.
      reference: a dashed horizontal line at this value (1x of a ratio).
    """
    values = [v for line in lines.values() for v in line.values() if not log or v > 0]
    if reference is not None:
        values.append(reference)
    left, right, size = 64, 24, 11
    width = MAX_WIDTH
    legend = [(name, colors[name]) for name in lines]
    top = 12 + _legend_height(legend, width - left - right) + 12
    plot_height, bottom = 220, 56
    canvas = _Canvas(width, top + plot_height + bottom, y_label)
    _legend(canvas, legend, left, 12, width - left - right)
    y0 = top + plot_height
    if log:
        low, high = min(values, default=0.5) / 1.15, max(values, default=2) * 1.15
        ticks = _log_ticks(low, high)
        span = math.log(high) - math.log(low)

        def y(value):
            return y0 - plot_height * (math.log(max(value, low)) - math.log(low)) / span

    else:
        ticks = _linear_ticks(max(values, default=1), 4)

        def y(value):
            return y0 - plot_height * value / ticks[-1]

    _y_axis(canvas, ticks, y, tick_format, y_label, (left, width - right), (top, plot_height))
    step = (width - left - right - 24) / max(1, len(points) - 1)

    def x(index):
        return left + 12 + step * index

    # Labels of every point when they fit, else of every n-th.
    every = max(1, math.ceil(text_width("0000000", size) / step))
    for index, label in enumerate(points):
        if index % every == 0 or index == len(points) - 1:
            canvas.text(
                x(index),
                y0 + 16,
                fit(label, step * every, size),
                size,
                "middle",
                MUTED,
                title=label,
            )
    if reference is not None:
        canvas.line(left, y(reference), width - right, y(reference), INK, stroke_dasharray="4 3")
    for name, line in lines.items():
        drawn = sorted((i, v) for i, v in line.items() if not log or v > 0)
        canvas.add(
            "polyline",
            {
                "points": " ".join(f"{_number(x(i))},{_number(y(v))}" for i, v in drawn),
                "fill": "none",
                "stroke": colors[name],
                "stroke_width": 2,
            },
        )
        for index, value in drawn:
            canvas.add(
                "circle",
                {"cx": _number(x(index)), "cy": _number(y(value)), "r": 3, "fill": colors[name]},
                title=f"{name} at {points[index]}: {tick_format(value)}",
            )
    canvas.line(left, y0, width - right, y0, INK)
    canvas.text((left + width - right) / 2, y0 + 40, "runs, oldest first", 12, "middle")
    return canvas.render()
