"""The leaderboard as a DataTable: rank, contestant, rating (a bound: ≥/≤), interval, gap to the next rank with its
expected win probability, the order confidence, band (the word, coloured from the theme, when the gap interval
lies in one band; else the range it spans, in italics), W/L/D, games, win rate. With disconnected comparisons the
rank reads group.rank."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import RowDoesNotExist

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
    def __init__(self, contestant_width: int = 24, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._contestant_width = contestant_width
        self._compact: bool | None = None
        self._last: tuple[Leaderboard, dict[str, str]] | None = None

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
        """Replace the rows (keeps the cursor on the same contestant)."""
        labels = labels or {}
        self._last = (board, labels)
        selected: str | None = None
        if self.row_count and 0 <= self.cursor_row < self.row_count:
            selected = str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)
        self.clear()
        grouped = len({r.group for r in board.rows if r.group is not None}) > 1
        for row in board.rows:
            self.add_row(*self._cells(row, labels, grouped), key=row.contestant)
        if selected is not None:
            try:
                self.move_cursor(row=self.get_row_index(selected), animate=False)
            except RowDoesNotExist:  # the contestant is gone from this scope
                self.move_cursor(row=0, animate=False)

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
        return [str(key.value) for key in self.rows]
