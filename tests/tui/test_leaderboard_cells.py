"""`LeaderboardTable` draws its body cells itself (without Rich's Padding/Styled/Text rendering). Here every cell
it draws is compared, segment by segment (text, style and mouse metadata), with what Textual's DataTable draws
for the same cell: the crafted tournament's board at both widths, and cells of every shape (justified left and
right, styled, coloured, too long, wide characters, blank), with and without the cursor and the mouse over them."""

from __future__ import annotations

import itertools

import pytest
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from elotui.tui.app import ElotuiApp
from elotui.tui.widgets.leaderboard_table import LeaderboardTable
from tests.tui.conftest import settle


def drawn(table: LeaderboardTable, row: int, column: int, cursor: bool, hover: bool) -> tuple[object, object]:
    """(the table's drawing, DataTable's drawing) of one cell, each from an empty cache."""
    width = table.ordered_columns[column].get_render_width(table)
    base = table.rich_style
    table._cell_render_cache.clear()
    ours = table._render_cell(row, column, base, width, cursor, hover)
    table._cell_render_cache.clear()
    theirs = DataTable._render_cell(table, row, column, base, width, cursor, hover)
    return ours, theirs


def fast_cells(table: LeaderboardTable) -> int:
    """How many body cells the table draws itself (the rest are drawn by DataTable)."""
    count = 0
    for row, column in itertools.product(range(table.row_count), range(len(table.columns))):
        table._cell_render_cache.clear()
        width = table.ordered_columns[column].get_render_width(table)
        count += table._cell_lines(row, column, table.rich_style, width, False, False) is not None
    return count


def assert_same_drawing(table: LeaderboardTable) -> None:
    for row, column in itertools.product(range(table.row_count), range(len(table.columns))):
        for cursor, hover in itertools.product((False, True), repeat=2):
            ours, theirs = drawn(table, row, column, cursor, hover)
            assert ours == theirs, (row, column, cursor, hover)


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [(80, 24), (140, 45)])
async def test_the_board_is_drawn_as_datatable_draws_it(
    crafted_app: ElotuiApp, size: tuple[int, int]
) -> None:
    async with crafted_app.run_test(size=size) as pilot:
        await settle(pilot)
        table = crafted_app.query_one(LeaderboardTable)
        assert table.row_count >= 3
        assert fast_cells(table) == table.row_count * len(table.columns)  # every cell of the board
        assert_same_drawing(table)
        await pilot.press("1")  # another threshold: other numbers, a band in italics or colour
        await settle(pilot)
        assert_same_drawing(table)


SHAPES = [
    Text("12", justify="right"),
    Text("1234", justify="right", style="bold"),
    Text("—"),
    Text("≥ 1,234", justify="right"),
    Text("strong", style="italic"),
    Text("moderate", style=Style(color="red", bgcolor="blue")),
    Text("practically tied", style="#ff8800 on #000000"),
    Text("a name that is far too long for its column of the leaderboard", justify="left"),
    Text("1234567890123", justify="right"),
    Text("模型甲", justify="right"),
    Text("  leading", justify="right"),
    Text("trailing  "),
    Text(""),
    Text("centred", justify="center"),
    Text("x", justify="full"),
    Text.assemble(("two", "bold"), " styles"),
    Text("e\u0301te"),  # a combining accent
]


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield LeaderboardTable()


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [(80, 24), (140, 45)])
async def test_cells_of_every_shape_are_drawn_as_datatable_draws_them(size: tuple[int, int]) -> None:
    app = TableApp()
    async with app.run_test(size=size) as pilot:
        table = app.query_one(LeaderboardTable)
        columns = len(table.columns)
        for start in range(len(SHAPES)):  # every shape in every column
            table.add_row(*(SHAPES[(start + c) % len(SHAPES)].copy() for c in range(columns)))
        await pilot.pause()
        assert 0 < fast_cells(table) < table.row_count * columns  # both paths are exercised
        assert_same_drawing(table)


@pytest.mark.asyncio
async def test_the_cell_drawing_follows_the_rows_that_move(crafted_app: ElotuiApp) -> None:
    """A cell's drawing carries its row and column (Textual's mouse metadata): after a key reorders the board,
    the same position is drawn with its new contestant and the metadata of its position."""
    async with crafted_app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        table = crafted_app.query_one(LeaderboardTable)
        before = table.order()
        await pilot.press("1")
        await settle(pilot)
        assert table.order() != before
        for row in range(table.row_count):
            width = table.ordered_columns[1].get_render_width(table)
            line = table._render_cell(row, 1, table.rich_style, width)[0]
            assert "".join(s.text for s in line).strip().startswith(table.order()[row])
            assert all(s.style is not None and s.style.meta == {"row": row, "column": 1} for s in line)
            assert isinstance(line[0], Segment)
