"""Tables of figures that fit a narrow pane (the diagnostics at 80 columns) without cutting a figure or a word of
a header.

Rich fits a table that is too wide by narrowing its wrapping columns evenly, then every column, cutting what no
longer fits with an ellipsis: at 80 columns the position table's "inconclusive" became "inconclus…", the
self-preference table's interval "[+10.8, +16.0]" became "[+10.8, +1…". `fitted(table)` lets the figure columns
(right-aligned) wrap, so that a figure with a space (an interval) takes two lines and one without stays whole, and
breaks each header of several words into two balanced lines where the table would not fit with one-line headers:
the position table then needs 76 columns instead of 87."""

from __future__ import annotations

import copy
import dataclasses

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table

# as wide as no terminal is: a table measured at this width takes its natural width
_UNBOUNDED = 10_000


def whole_numbers(table: Table) -> Table:
    """The table with its right-aligned (figure) columns free to wrap: where the pane is too narrow for the table,
    their headers then take two lines, and a figure, which has no space to break at, stays whole (no_wrap columns
    were cut instead: "499…" for 499950 units at 80 columns)."""
    for column in table.columns:
        if column.justify == "right":
            column.no_wrap = False
    return table


def two_lines(header: str) -> str:
    """The header broken at the space that leaves its longer line shortest ("first-slot share" -> "first-slot" and
    "share", "95 % by prompt" -> "95 % by" and "prompt"); a header of one word as it is."""
    words = header.split(" ")
    if len(words) < 2:
        return header
    cuts = [(" ".join(words[:i]), " ".join(words[i:])) for i in range(1, len(words))]
    top, bottom = min(cuts, key=lambda cut: max(cell_len(cut[0]), cell_len(cut[1])))
    return f"{top}\n{bottom}"


def stacked(table: Table) -> Table:
    """A copy of the table whose text headers take two lines each (`two_lines`; cells shared, not copied)."""
    out = copy.copy(table)
    out.columns = [
        dataclasses.replace(c, header=two_lines(c.header)) if isinstance(c.header, str) else c
        for c in table.columns
    ]
    return out


class Fitted:
    """A table shown as it is where it fits the width it is given, with its headers on two lines where it does not."""

    def __init__(self, table: Table) -> None:
        self.table = whole_numbers(table)

    def _for(self, console: Console, options: ConsoleOptions) -> Table:
        natural = Measurement.get(console, options.update_width(_UNBOUNDED), self.table).maximum
        return self.table if natural <= options.max_width else stacked(self.table)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self._for(console, options)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self._for(console, options))


def fitted(table: Table) -> Fitted:
    return Fitted(table)
