"""Charts drawn with Unicode blocks (Textual has no plotting widget): a head-to-head heat grid, a histogram, and
ratings over the course of the run as one sparkline per contestant."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rich.console import RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from elotui.tui.colours import blend, theme_colour
from elotui.tui.sanitize import one_line
from elotui.vocab import ranked_names

SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float], low: float, high: float) -> str:
    if not values:
        return ""
    span = high - low
    out = []
    for v in values:
        level = 0 if span <= 0 or not math.isfinite(v) else round((v - low) / span * (len(SPARKS) - 1))
        out.append(SPARKS[min(max(level, 0), len(SPARKS) - 1)])
    return "".join(out)


def histogram_bins(values: Sequence[float], low: float, high: float, bins: int) -> list[int]:
    counts = [0] * bins
    width = (high - low) / bins
    for v in values:
        if v is None or not math.isfinite(v):
            continue
        i = int((v - low) / width)
        counts[min(max(i, 0), bins - 1)] += 1
    return counts


def head_to_head_table(h2h: dict[str, Any], low: str, mid: str, high: str) -> Table:
    """The heat grid: row contestant's share against the column contestant, coloured from `low` (0 %) through
    `mid` to `high` (100 %). Each column's width is given, as Rich would measure it (its widest cell or header),
    so Rich measures no cell and `laid_out` can lay the grid out as one Text."""
    names: list[str] = h2h.get("contestants", [])
    wins: list[list[float]] = h2h.get("wins", [])
    ties: list[list[float]] = h2h.get("ties", [])
    rows: list[list[Text]] = []
    for i, name in enumerate(names):
        cells: list[Text] = [Text(one_line(name, 16))]
        for j in range(len(names)):
            if i == j:
                cells.append(Text("  —  "))
                continue
            w, l_, t = wins[i][j], wins[j][i], ties[i][j]
            n = w + l_ + t
            if not n:
                cells.append(Text("  ·  "))
                continue
            share = (w + t / 2) / n
            colour = blend(low, mid, share * 2) if share < 0.5 else blend(mid, high, share * 2 - 1)
            cells.append(Text(f" {100 * share:3.0f}% ", style=f"bold #ffffff on {colour}"))
        rows.append(cells)
    headers = [Text("row vs col"), *(Text(one_line(name, 9)) for name in names)]
    table = Table(box=None, show_edge=False, pad_edge=False, header_style="bold")
    for c, header in enumerate(headers):
        width = max([header.cell_len, *(row[c].cell_len for row in rows)])
        table.add_column(header, justify="left" if c == 0 else "center", no_wrap=True, width=width)
    for cells in rows:
        table.add_row(*cells)
    return table


class HeadToHeadGrid(Static):
    """Row contestant's share of the decisive-or-tied verdicts against the column contestant (ties half)."""

    def show(self, h2h: dict[str, Any]) -> None:
        colours = (theme_colour(self.app, v) for v in ("heat-low", "heat-mid", "heat-high"))
        self.update(laid_out(head_to_head_table(h2h, *colours)))


def laid_out(table: Table) -> Text:
    """`table` (no box, no edge padding, cells padded by one space each side, every column's width given, cells of
    one line) as one Text, character for character and style for style as Rich renders the table. Textual shows
    a Text as its own Content, far faster than it has Rich render a table: a 100 x 100 grid held the event loop
    ~1 s as a table, ~0.3 s as a Text."""
    columns = table.columns
    header = table.header_style
    rows: list[tuple[RenderableType, ...]] = [tuple(c.header for c in columns)]
    rows += zip(*(c.cells for c in columns), strict=True)
    out = Text()
    for r, cells in enumerate(rows):
        line = Text(style=(Style.parse(header) if isinstance(header, str) else header) if r == 0 else "")
        for c, (column, cell) in enumerate(zip(columns, cells, strict=True)):
            piece = cell.copy() if isinstance(cell, Text) else Text(str(cell))
            width = column.width or piece.cell_len
            if column.justify == "center":  # as Rich centres a line: trailing space dropped, then padded
                piece.rstrip()
                piece.pad_left((width - piece.cell_len) // 2)
            piece.pad_right(width - piece.cell_len)
            line.append(" " if c else "")
            line.append_text(piece)
            line.append(" " if c < len(columns) - 1 else "")
        out.append_text(line)
        if r < len(rows) - 1:
            out.append("\n")
    return out


class Histogram(Static):
    def show(
        self,
        values: Sequence[float],
        *,
        low: float = -1.0,
        high: float = 1.0,
        bins: int = 10,
        width: int = 40,
        footer: Text | None = None,
    ) -> None:
        counts = histogram_bins(values, low, high, bins)
        top = max(counts) if counts else 0
        step = (high - low) / bins
        text = Text()
        for i, c in enumerate(counts):
            lo = low + i * step
            bar = "█" * (round(c / top * width) if top else 0)
            text.append(f"{lo:+.1f}…{lo + step:+.1f} │", style="dim")
            text.append(bar, style=theme_colour(self.app, "band-strong"))
            text.append(f" {c}\n")
        missing = sum(1 for v in values if v is None or not math.isfinite(v))
        if missing:
            text.append(f"({missing} prompt(s) without a defined τ)\n", style="dim")
        if footer is not None:
            text.append_text(footer)
        self.update(text)


class RatingChart(Static):
    """Ratings after each share of the verdicts, one sparkline per contestant on a common scale."""

    def show(self, trajectory: dict[str, Any]) -> None:
        ratings: dict[str, list[float]] = trajectory.get("ratings", {})
        done: list[int] = trajectory.get("done", [])
        text = Text()
        series = [v for vs in ratings.values() for v in vs]
        if not series or not done:
            self.update(Text("no verdicts yet", style="dim"))
            return
        low, high = min(series), max(series)
        order = ranked_names({c: values[-1] for c, values in ratings.items()})
        text.append(
            f"scale {low:.0f} (▁) … {high:.0f} (█); after {done[0]} … {done[-1]} verdicts "
            "(in plan order, then as they arrive)\n",
            style="dim",
        )
        for c in order:
            vs = ratings[c]
            text.append(f"{one_line(c, 18):<18} ")
            text.append(sparkline(vs, low, high), style=theme_colour(self.app, "verdict-first"))
            text.append(f"  {vs[0]:.0f} → {vs[-1]:.0f}\n")
        self.update(text)
