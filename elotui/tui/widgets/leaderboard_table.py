"""The leaderboard as a DataTable: rank, contestant, rating (a bound: ≥/≤), interval, gap to the next rank with its
expected win probability, the order confidence, band (the word, coloured from the theme, when the gap interval
lies in one band; else the range it spans, in italics), W/L/D, games, win rate. With disconnected comparisons the
rank reads group.rank."""

from __future__ import annotations

from typing import Self

from rich.text import Text
from textual.geometry import Region
from textual.widgets import DataTable

from elotui.rating.labels import band_text, interval_text, order_text, rating_text
from elotui.rating.leaderboard import Leaderboard, LeaderboardRow
from elotui.tui.colours import band_colour
from elotui.tui.sanitize import one_line

# Fixed widths: columns never jump as live numbers change (and snapshots do not depend on timing).
COLUMNS = (
    ("#", 3),
    ("contestant", 0),
    ("rating", 6),
    ("interval", 11),
    ("Δ next", 6),
    ("P(win)", 6),
    ("order", 5),
    ("band", 16),
    ("W/L/D", 13),
    ("games", 6),
    ("win rate", 8),
)
# Below COMPACT_BELOW columns of terminal (80x24 over SSH), these collapse first: rank, contestant, rating,
# interval, Δ and band always stay.
COMPACT_DROPS = frozenset({"P(win)", "order", "W/L/D", "games", "win rate"})
COMPACT_BELOW = 110


def contestant_label(contestant: str, label: str | None) -> str:
    """`id (label)`, the label only when it differs; at most 40 characters."""
    shown = one_line(contestant) + (f" ({one_line(label)})" if label and label != contestant else "")
    return one_line(shown, 40)


class LeaderboardTable(DataTable[Text | str]):
    _held = False  # cells being replaced (`show`): their refreshes are one, at the end

    def __init__(self, contestant_width: int = 24, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._contestant_width = contestant_width
        self._compact: bool | None = None
        self._last: tuple[Leaderboard, dict[str, str]] | None = None
        self._order: list[str] = []  # the contestant of each row, top to bottom

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Self:
        if self._held:
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        self._layout()

    def on_resize(self) -> None:
        if self._layout() and self._last is not None:
            self.show(*self._last)

    def _layout(self) -> bool:
        """Columns for the terminal's width; True when they changed."""
        compact = self.app.size.width < COMPACT_BELOW
        if compact == self._compact:
            return False
        self._compact = compact
        self.clear(columns=True)
        for name, width in self._columns():
            self.add_column(name, key=name, width=width or min(self._contestant_width, 20 if compact else 40))
        return True

    def _columns(self) -> list[tuple[str, int]]:
        return [c for c in COLUMNS if not (self._compact and c[0] in COMPACT_DROPS)]

    def show(self, board: Leaderboard, labels: dict[str, str] | None = None) -> None:
        """Show the board's rows (the cursor stays on the same contestant). Rows are keyed by position: a board
        with as many rows as shown (a threshold or method key, a live update) has its cells replaced in place,
        which the fixed column widths let Textual draw without measuring every cell again (at 100 contestants,
        re-adding the rows cost more than the update itself, in measuring)."""
        labels = labels or {}
        self._last = (board, labels)
        shown = self.row_count == len(self._order) and 0 <= self.cursor_row < len(self._order)
        selected = self._order[self.cursor_row] if shown else None
        grouped = len({r.group for r in board.rows if r.group is not None}) > 1
        self._replace([self._cells(row, labels, grouped) for row in board.rows])
        self._order = [row.contestant for row in board.rows]
        if selected is not None:
            self.move_cursor(row=self._order.index(selected) if selected in self._order else 0, animate=False)

    def _replace(self, rows: list[list[Text]]) -> None:
        """The rows' cells in place where as many rows are shown (a change of columns clears the rows: `_layout`),
        else new rows."""
        if len(rows) != self.row_count:
            self.clear()
            for i, cells in enumerate(rows):
                self.add_row(*cells, key=str(i))
            return
        columns = [name for name, _ in self._columns()]
        self._held = True  # one refresh for all the cells, not one each (~20 ms at 100 rows)
        try:
            for i, cells in enumerate(rows):
                for name, cell in zip(columns, cells, strict=True):
                    self.update_cell(str(i), name, cell)
        finally:
            self._held = False
        self.refresh()

    def _cells(self, row: LeaderboardRow, labels: dict[str, str], grouped: bool) -> list[Text]:
        gap = "—" if row.gap_to_next is None else f"{row.gap_to_next:+.0f}"
        prob = "—" if row.win_prob_vs_next is None else f"{100 * row.win_prob_vs_next:.0f}%"
        certain = row.band is not None and (row.band_range is None or row.band_certain)
        band = Text(band_text(row), style=band_colour(self.app, row.band) if certain else "italic")
        rate = "—" if row.win_rate is None else f"{100 * row.win_rate:.1f}%"
        rank = "—" if row.rank is None else f"{row.group}.{row.rank}" if grouped else str(row.rank)
        cells = {
            "#": Text(rank, justify="right"),
            "contestant": Text(contestant_label(row.contestant, labels.get(row.contestant))),
            "rating": Text(rating_text(row), justify="right", style="bold"),
            "interval": Text(interval_text(row), justify="right"),
            "Δ next": Text(gap, justify="right"),
            "P(win)": Text(prob, justify="right"),
            "order": Text(order_text(row), justify="right"),
            "band": band,
            "W/L/D": Text(f"{row.wins}/{row.losses}/{row.draws}", justify="right"),
            "games": Text(str(row.games), justify="right"),
            "win rate": Text(rate, justify="right"),
        }
        return [cells[name] for name, _ in self._columns()]

    def order(self) -> list[str]:
        """The contestants from top to bottom (for tests and the help text)."""
        return list(self._order)
