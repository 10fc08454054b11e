"""The leaderboard as a DataTable: rank, contestant, rating, interval, gap to the next rank with its
expected win probability, the order confidence (gap and order confidence marked "?" when the order of the two is
not established: `LeaderboardRow.order_uncertain`), band (the word, coloured from the theme, when the gap interval
lies in one band; else the range it spans, in italics), W/L/D, games, win rate. With disconnected comparisons the
rank reads group.rank.

The columns fit the terminal's width (`fit_columns`): rank, contestant, rating, interval, Δ, order and band always
stay (at 80 columns the contestant keeps at least MIN_CONTESTANT characters, cut with an ellipsis); P(win), W/L/D,
win rate and games are added, in that order, while they fit.

Comparing the style-controlled and the raw board (elotui.tui.style_view), the rank reads `3▲2`: third here, two
places higher than in the other view (`▼1` one lower, `2 =` the same). The rank column is then as wide as the largest
rank and change need (ranks and changes of two digits: 5), and the contestant keeps at least
MIN_CONTESTANT_COMPARED."""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from elotui.rating.labels import band_text, gap_text, interval_text, order_text, rating_text
from elotui.rating.leaderboard import Leaderboard, LeaderboardRow
from elotui.tui.colours import band_colour
from elotui.tui.sanitize import one_line
from elotui.tui.style_view import shift_text
from elotui.tui.widgets.gap_detail import GapFlip, gap_line, marked_gap, next_rows

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
# Shown at every width, in COLUMNS' order; the others are added in this order while they fit.
REQUIRED = ("#", "contestant", "rating", "interval", "Δ next", "order", "band")
OPTIONAL = ("P(win)", "W/L/D", "win rate", "games")
PENDING = ("interval", "order", "band")  # what a point fit has not yet: "…" until its bootstrap rounds come
MIN_CONTESTANT = 16  # the contestant's column never narrower: 15 characters and an ellipsis
MIN_CONTESTANT_COMPARED = 15  # with rank changes of two digits at 80 columns: 14 characters and an ellipsis
RANK_WIDTH = 3
MAX_CONTESTANT = 40
CELL_PADDING = 2  # DataTable's blank on each side of a cell, both sides together
SCROLLBAR = 2  # room kept for the vertical scrollbar of a long board


def fit_columns(
    available: int, longest_name: int, rank_width: int = RANK_WIDTH, counts: dict[str, int] | None = None
) -> list[tuple[str, int]]:
    """The columns shown in `available` terminal columns, with their widths, for contestants whose longest label
    has `longest_name` characters: the required ones (the contestant's as wide as its longest label, at most
    MAX_CONTESTANT, narrowed to what is left but never below MIN_CONTESTANT), then each optional one that fits.
    `rank_width`: the rank column's (wider with rank changes: `rank_column_width`); `counts`: the W/L/D and games
    columns' widths where their numbers need more than COLUMNS gives (`count_widths`)."""
    widths = dict(COLUMNS) | {"#": rank_width}
    widths |= {name: max(widths[name], width) for name, width in (counts or {}).items()}
    fixed = sum(widths[n] + CELL_PADDING for n in REQUIRED if n != "contestant") + CELL_PADDING
    name = min(longest_name, MAX_CONTESTANT)
    least = MIN_CONTESTANT if rank_width <= RANK_WIDTH else MIN_CONTESTANT_COMPARED
    name = max(min(name, available - fixed), min(name, least))
    shown, used = set(REQUIRED), fixed + name
    for column in OPTIONAL:
        if used + widths[column] + CELL_PADDING <= available:
            shown.add(column)
            used += widths[column] + CELL_PADDING
    return [(n, name if n == "contestant" else widths[n]) for n, _ in COLUMNS if n in shown]


def count_widths(board: Leaderboard) -> dict[str, int]:
    """The widths the board's W/L/D and games need (a 10^6-battle import: `240874/108933/51010`, 20 characters)."""
    rows = board.rows
    return {
        "W/L/D": max((len(f"{r.wins}/{r.losses}/{r.draws}") for r in rows), default=0),
        "games": max((len(str(r.games)) for r in rows), default=0),
    }


def rank_column_width(contestants: int, compared: bool) -> int:
    """The rank column's width: `12` alone, or with its change from the other view, `12▲10` (fixed for a number of
    contestants, so that the columns never jump as the ranks change)."""
    digits = len(str(max(contestants, 1)))
    return max(RANK_WIDTH, 2 * digits + 1) if compared else RANK_WIDTH


def contestant_label(contestant: str, label: str | None) -> str:
    """`id (label)`, the label only when it differs; at most 40 characters."""
    shown = one_line(contestant) + (f" ({one_line(label)})" if label and label != contestant else "")
    return one_line(shown, 40)


def _rank_text(row: LeaderboardRow, grouped: bool) -> str:
    return "—" if row.rank is None else f"{row.group}.{row.rank}" if grouped else str(row.rank)


# The right-justified columns' texts, from a row (and whether ranks read group.rank).
RIGHT_TEXT: dict[str, Callable[[LeaderboardRow, bool], str]] = {
    "#": _rank_text,
    "interval": lambda row, _: interval_text(row),
    "Δ next": lambda row, _: gap_text(row),  # "+12?": the order of the two is not established
    "P(win)": lambda row, _: "—" if row.win_prob_vs_next is None else f"{100 * row.win_prob_vs_next:.0f}%",
    "order": lambda row, _: order_text(row),
    "W/L/D": lambda row, _: f"{row.wins}/{row.losses}/{row.draws}",
    "games": lambda row, _: str(row.games),
    "win rate": lambda row, _: "—" if row.win_rate is None else f"{100 * row.win_rate:.1f}%",
}


def one_line_segments(cell: Text, width: int, pad: int, console: Console) -> list[Segment] | None:
    """The segments Rich gives a cell of one line, `pad` blanks each side, before the table's styles: None
    unless the cell is printable one-style text, without blanks at its ends, that fits (as every leaderboard
    cell does). Left: text, fill, edges unstyled; right: fill and text in the text's style."""
    text, room = cell.plain, width - 2 * pad
    fits = 0 < len(text) <= room and len(text) == cell_len(text) and pad > 0
    if not (fits and text.isprintable() and text.strip() == text and not cell.spans):
        return None
    blank, style, edge = Style.null(), console.get_style(cell.style), " " * pad
    if cell.justify == "right":
        return [Segment(edge, blank), Segment(" " * (room - len(text)) + text, style), Segment(edge, blank)]
    if cell.justify not in (None, "left"):
        return None
    fill = [Segment(" " * (room - len(text)), blank)] if len(text) < room else []
    return [Segment(edge, blank), Segment(text, style), *fill, Segment(edge, blank)]


class LeaderboardTable(DataTable[Text | str]):
    def __init__(self, contestant_width: int = 24, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._contestant_width = contestant_width
        self._columns_shown: list[tuple[str, int]] = []
        self._name_width = MAX_CONTESTANT
        self._count_widths: dict[str, int] = {}  # the W/L/D and games columns' widths (`count_widths`)
        self._last: tuple[Leaderboard, dict[str, str], dict[str, int] | None] | None = None
        self._rank_width = RANK_WIDTH
        self._shifts: dict[str, int] | None = None
        self._pending = False
        self._order: list[str] = []  # the contestant of each row, top to bottom
        self._chosen = False  # a contestant was chosen (a key, a click, a caller): the cursor follows it
        self._drawing: dict[object, Style] | None = None  # styles looked up in the current drawing pass
        self._flips: dict[tuple[str, str], GapFlip] = {}  # each adjacent order's drop_to_flip (gap_detail)
        self._next: dict[str, str] = {}  # each contestant's next row

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> list[list[Segment]]:
        """A body cell as DataTable draws it, without Rich's Padding/Styled/Text machinery (at 1M verdicts,
        that was three quarters of a threshold key's drawing): every leaderboard cell is one line of one-style
        Text that fits its column. Anything else is drawn by DataTable. `tests/tui/test_leaderboard_cells.py`
        holds this equal to DataTable's own drawing, segment by segment."""
        lines = self._cell_lines(row_index, column_index, base_style, width, cursor, hover)
        if lines is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        return lines

    def _cell_lines(
        self, row_index: int, column_index: int, base_style: Style, width: int, cursor: bool, hover: bool
    ) -> list[list[Segment]] | None:
        if row_index < 0 or column_index < 0 or self.fixed_rows or self.fixed_columns:
            return None
        row_key, column_key = (
            self._row_locations.get_key(row_index),
            self._column_locations.get_key(column_index),
        )
        if row_key is None or column_key is None or self.rows[row_key].height != 1:
            return None
        flags = (self._show_hover_cursor, self._update_count, self._pseudo_class_state)
        key = (row_key, column_key, base_style, cursor, hover, *flags)
        if (cached := self._cell_render_cache.get(key)) is not None:
            return cached
        cell = self._get_row_renderables(row_index).cells[column_index]
        segments = (
            one_line_segments(cell, width, self.cell_padding, self.app.console)
            if isinstance(cell, Text)
            else None
        )
        if segments is None:
            return None
        component, post = self._get_styles_to_render_cell(
            False,
            False,
            False,
            hover,
            cursor,
            self.show_cursor,
            self._show_hover_cursor,
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
        )
        pre = base_style + Style.from_meta({"row": row_index, "column": column_index}) + component
        lines = [list(Segment.apply_style(segments, style=pre, post_style=post))]
        self._cell_render_cache[key] = lines
        return lines

    def render_lines(self, crop: Region) -> list[Strip]:
        """One drawing pass. Within it the table's styles cannot change, so its own style and the zebra rows'
        styles are looked up once each: DataTable looks them up for every line, walking the widget's ancestors
        each time (a third of drawing the board's 15 lines at 80x24)."""
        self._drawing = {}
        try:
            return super().render_lines(crop)
        finally:
            self._drawing = None

    @property
    def rich_style(self) -> Style:
        if self._drawing is None:
            return super().rich_style
        if (style := self._drawing.get("table")) is None:
            style = self._drawing["table"] = super().rich_style
        return style

    def _get_row_style(self, row_index: int, base_style: Style) -> Style:
        if self._drawing is None:
            return super()._get_row_style(row_index, base_style)
        key = (row_index == -1, row_index < self.fixed_rows, row_index % 2, base_style)
        if (style := self._drawing.get(key)) is None:
            style = self._drawing[key] = super()._get_row_style(row_index, base_style)
        return style

    # Until a contestant is chosen the cursor stays on the top row (at the start of a run the rows come sorted by
    # name: following the first of them would leave the cursor, and the line under the table, on some contestant
    # nobody chose); from then on it follows the contestant chosen as the ranks change.
    def move_cursor(
        self, *, row: int | None = None, column: int | None = None, animate: bool = False, scroll: bool = True
    ) -> None:
        self._chosen = True
        super().move_cursor(row=row, column=column, animate=animate, scroll=scroll)

    def action_cursor_up(self) -> None:
        self._chosen = True
        super().action_cursor_up()

    def action_cursor_down(self) -> None:
        self._chosen = True
        super().action_cursor_down()

    def action_page_up(self) -> None:
        self._chosen = True
        super().action_page_up()

    def action_page_down(self) -> None:
        self._chosen = True
        super().action_page_down()

    def action_scroll_top(self) -> None:
        self._chosen = True
        super().action_scroll_top()

    def action_scroll_bottom(self) -> None:
        self._chosen = True
        super().action_scroll_bottom()

    async def _on_click(self, event: events.Click) -> None:
        self._chosen = True
        await super()._on_click(event)

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        self._layout()

    def on_resize(self) -> None:
        if self._layout() and self._last is not None:
            self.show(*self._last)

    def _layout(self) -> bool:
        """Columns for the terminal's width; True when they changed."""
        columns = fit_columns(
            self.app.size.width - SCROLLBAR, self._contestant_width, self._rank_width, self._count_widths
        )
        if columns == self._columns_shown:
            return False
        self._columns_shown = columns
        self.clear(columns=True)
        for name, width in columns:
            self.add_column(name, key=name, width=width)
        return True

    def _columns(self) -> list[tuple[str, int]]:
        return self._columns_shown

    def show(
        self,
        board: Leaderboard,
        labels: dict[str, str] | None = None,
        shifts: dict[str, int] | None = None,
        *,
        pending: bool = False,
    ) -> None:
        """Show the board's rows (the cursor stays on the same contestant). Rows are keyed by position: a board
        with as many rows as shown (a threshold or method key, a live update) has its cells replaced in place,
        which the fixed column widths let Textual draw without measuring every cell again (at 100 contestants,
        re-adding the rows cost more than the update itself, in measuring). `shifts`: each contestant's rank change
        from the other view of style control (None: not compared; a contestant left out: no change shown).
        `pending`: a point fit whose bootstrap is still running: interval, order and band read "…"."""
        labels = labels or {}
        self._last = (board, labels, shifts)
        self._shifts, self._pending = shifts, pending
        shown = (
            self._chosen and self.row_count == len(self._order) and 0 <= self.cursor_row < len(self._order)
        )
        selected = self._order[self.cursor_row] if shown else None
        self._widen(board, shifts is not None)
        grouped = len({r.group for r in board.rows if r.group is not None}) > 1
        self._next = next_rows(board)
        names = [name for name, _ in self._columns()]
        self._name_width = dict(self._columns()).get("contestant", MAX_CONTESTANT)
        # only the columns shown are made (a Text costs more than its number's format)
        self._replace([[self._cell(name, row, labels, grouped) for name in names] for row in board.rows])
        self._order = [row.contestant for row in board.rows]
        if selected is not None:
            self.move_cursor(row=self._order.index(selected) if selected in self._order else 0, animate=False)

    def _widen(self, board: Leaderboard, compared: bool) -> None:
        """The rank column's width (wider with rank changes) and the counts' (only ever widening: they never jump
        back and forth as live numbers change), and every column's again where one changed."""
        rank_width = rank_column_width(len(board.rows), compared)
        counts = {k: max(v, self._count_widths.get(k, 0)) for k, v in count_widths(board).items()}
        if rank_width != self._rank_width or counts != self._count_widths:
            self._rank_width, self._count_widths = rank_width, counts
            self._layout()

    def _replace(self, rows: list[list[Text]]) -> None:
        """The rows' cells in place where as many rows are shown (a change of columns clears the rows: `_layout`),
        else new rows. In place, each row's cells are set at once and the table is told of one update, not one
        per cell (DataTable's `update_cell` checks, counts and refreshes every cell: ~4 ms at 100 rows)."""
        if len(rows) != self.row_count:
            self.clear()
            for i, cells in enumerate(rows):
                self.add_row(*cells, key=str(i))
            return
        columns = [column.key for column in self.ordered_columns]
        for i, cells in enumerate(rows):
            self._data[RowKey(str(i))] = dict(zip(columns, cells, strict=True))
        self._update_count += 1
        self.refresh()

    def _cell(self, name: str, row: LeaderboardRow, labels: dict[str, str], grouped: bool) -> Text:
        if name == "contestant":
            return Text(
                one_line(contestant_label(row.contestant, labels.get(row.contestant)), self._name_width)
            )
        if name == "rating":
            return Text(rating_text(row), justify="right", style="bold")
        if self._pending and name in PENDING and (name == "interval" or row.gap_to_next is not None):
            return Text("…", justify="left" if name == "band" else "right", style="dim")
        if name == "#" and self._shifts is not None:
            shift = self._shifts.get(row.contestant)
            return Text(_rank_text(row, grouped) + shift_text(shift), justify="right")
        if name == "Δ next":
            return self._gap_cell(row)
        if name == "band":
            certain = row.band is not None and (row.band_range is None or row.band_certain)
            return Text(band_text(row), style=band_colour(self.app, row.band) if certain else "italic")
        return Text(RIGHT_TEXT[name](row, grouped), justify="right")

    def _gap_cell(self, row: LeaderboardRow) -> Text:
        """The gap to the next row, `!` after it (bold, the theme's warning colour) where the order is fragile."""
        flip = self._flip(row)
        if flip is None or not flip.fragile:
            return Text(gap_text(row), justify="right")
        colour = self.app.current_theme.warning or "yellow"
        return Text(marked_gap(row, flip), justify="right", style=f"bold {colour}")

    def show_flips(self, flips: dict[tuple[str, str], GapFlip], *, redraw: bool = True) -> None:
        """Each adjacent order's drop_to_flip (elotui.tui.widgets.gap_detail): fragile gaps marked `!`
        (`redraw`: the rows shown now; else from the next `show`)."""
        self._flips = flips
        if redraw and self._last is not None:
            board, labels, shifts = self._last
            self.show(board, labels, shifts, pending=self._pending)

    def flips(self) -> dict[tuple[str, str], GapFlip]:
        return dict(self._flips)

    def _flip(self, row: LeaderboardRow) -> GapFlip | None:
        lower = self._next.get(row.contestant)
        return None if lower is None else self._flips.get((row.contestant, lower))

    def row_detail(self) -> Text | None:
        """The selected contestant's figures in the columns left out at this width, then its gap to the next in
        full, with its drop_to_flip (None: no row selected)."""
        if self._last is None or not 0 <= self.cursor_row < len(self._last[0].rows):
            return None
        names = [n for n, _ in self._columns_shown]
        hidden = [n for n, _ in COLUMNS if n not in names]
        board, labels, _ = self._last
        row = board.rows[self.cursor_row]
        text = Text(one_line(contestant_label(row.contestant, labels.get(row.contestant)), MAX_CONTESTANT))
        text.stylize("bold")
        grouped = len({r.group for r in board.rows if r.group is not None}) > 1
        for name in hidden:
            text.append(f" · {name} {RIGHT_TEXT[name](row, grouped)}")
        lower = self._next.get(row.contestant)
        if lower is not None:
            text.append(" · ")
            name = one_line(lower, MAX_CONTESTANT)
            text.append_text(gap_line(row, name, self._flip(row), self._pending, short=bool(hidden)))
        return text

    def order(self) -> list[str]:
        """The contestants from top to bottom (for tests and the help text)."""
        return list(self._order)
