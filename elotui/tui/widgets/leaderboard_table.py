"""The leaderboard as a DataTable: rank, contestant, rating, interval, gap to the next rank with its expected win
probability, band (the word, coloured from the theme), W/L/D, games, win rate."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import RowDoesNotExist

from elotui.rating.leaderboard import Leaderboard
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
    ("band", 16),
    ("W/L/D", 13),
    ("games", 6),
    ("win rate", 8),
)


def contestant_label(contestant: str, label: str | None) -> str:
    """`id (label)`, the label only when it differs; at most 40 characters."""
    shown = one_line(contestant) + (f" ({one_line(label)})" if label and label != contestant else "")
    return one_line(shown, 40)


class LeaderboardTable(DataTable[Text | str]):
    def __init__(self, contestant_width: int = 24, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._contestant_width = contestant_width

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        for name, width in COLUMNS:
            self.add_column(name, key=name, width=width or self._contestant_width)

    def show(self, board: Leaderboard, labels: dict[str, str] | None = None) -> None:
        """Replace the rows (keeps the cursor on the same contestant)."""
        labels = labels or {}
        selected: str | None = None
        if self.row_count and 0 <= self.cursor_row < self.row_count:
            selected = str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)
        self.clear()
        for row in board.rows:
            name = labels.get(row.contestant)
            shown = contestant_label(row.contestant, name)
            gap = "—" if row.gap_to_next is None else f"{row.gap_to_next:+.0f}"
            prob = "—" if row.win_prob_vs_next is None else f"{100 * row.win_prob_vs_next:.0f}%"
            band = Text(row.band or "—", style=band_colour(self.app, row.band) if row.band else "")
            rate = "—" if row.win_rate is None else f"{100 * row.win_rate:.1f}%"
            self.add_row(
                Text(str(row.rank), justify="right"),
                Text(shown),
                Text(f"{row.rating:.0f}", justify="right", style="bold"),
                Text(f"{row.ci_low:.0f}–{row.ci_high:.0f}", justify="right"),
                Text(gap, justify="right"),
                Text(prob, justify="right"),
                band,
                Text(f"{row.wins}/{row.losses}/{row.draws}", justify="right"),
                Text(str(row.games), justify="right"),
                Text(rate, justify="right"),
                key=row.contestant,
            )
        if selected is not None:
            try:
                self.move_cursor(row=self.get_row_index(selected), animate=False)
            except RowDoesNotExist:  # the contestant is gone from this scope
                self.move_cursor(row=0, animate=False)

    def order(self) -> list[str]:
        """The contestants from top to bottom (for tests and the help text)."""
        return [str(key.value) for key in self.rows]
