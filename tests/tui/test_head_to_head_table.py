"""The head-to-head grid (elotui.tui.widgets.charts): its table gives Rich each column's width (so Rich measures
no cell of a 100 x 100 grid), and those widths are the ones Rich would measure: the table renders exactly as the
same table left for Rich to measure. The grid is shown as that table laid out as one Text (`laid_out`), which
renders as the table does, in Rich and on screen in Textual."""

from __future__ import annotations

import copy
import random

import pytest
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from textual.app import App, ComposeResult
from textual.containers import HorizontalScroll
from textual.geometry import Region
from textual.widgets import Static

from elotui.tui.widgets.charts import head_to_head_table, laid_out

NAMES = [
    "gpt-4",
    "claude-3-opus-20240229",
    "模型甲",
    "🦙 llama-3-70b",
    "a",
    "vicuna-13b-v1.5",
    "ｗｉｄｅ名前",
]


def _h2h(rng: random.Random, n: int) -> dict[str, object]:
    names = rng.sample(NAMES, n)
    wins = [[0.0 if i == j else float(rng.choice([0, 0, 1, 3, 17])) for j in range(n)] for i in range(n)]
    ties = [[0.0 if i == j else float(rng.choice([0, 1, 2])) for j in range(n)] for i in range(n)]
    for i in range(n):
        for j in range(i):
            ties[i][j] = ties[j][i]  # ties are counted for both sides
    return {"contestants": names, "wins": wins, "ties": ties}


def _console() -> Console:
    return Console(width=500, color_system="truecolor", legacy_windows=False)


def _rendered(table: Table) -> list[object]:
    return list(_console().render(table))


@pytest.mark.parametrize("seed", range(12))
def test_the_grid_renders_as_rich_would_measure_it(seed: int) -> None:
    rng = random.Random(seed)
    table = head_to_head_table(_h2h(rng, rng.randint(1, len(NAMES))), "#ff0000", "#808080", "#00ff00")
    measured = copy.deepcopy(table)
    for column in measured.columns:
        column.width = None
    assert all(c.width for c in table.columns)
    assert _rendered(table) == _rendered(measured)


def _lines(renderable: object) -> list[list[Segment]]:
    """Each line's characters and their styles (no style = the null style), in runs of one style."""
    lines = _console().render_lines(renderable, pad=False)  # type: ignore[arg-type]
    return [list(Segment.simplify(Segment(s.text, s.style or Style()) for s in line)) for line in lines]


@pytest.mark.parametrize("seed", range(12))
def test_the_grid_as_one_text_is_the_table_character_for_character(seed: int) -> None:
    rng = random.Random(seed)
    table = head_to_head_table(_h2h(rng, rng.randint(1, len(NAMES))), "#ff0000", "#808080", "#00ff00")
    assert _lines(laid_out(table)) == _lines(table)


class _Grid(App[None]):
    def compose(self) -> ComposeResult:
        with HorizontalScroll():
            yield Static(id="grid")


def _screen_cells(grid: Static) -> list[list[tuple[str, object]]]:
    """The widget's rendered characters and their styles (Textual's mouse metadata left out)."""
    strips = grid.render_lines(Region(0, 0, *grid.size))
    return [
        [(ch, s.style and s.style.clear_meta_and_links()) for s in strip for ch in s.text] for strip in strips
    ]


async def test_the_grid_as_one_text_looks_the_same_on_screen() -> None:
    """Through Textual (a Text becomes Textual's Content; a Table is rendered by Rich): the same characters in
    the same styles, cell for cell."""
    table = head_to_head_table(_h2h(random.Random(3), len(NAMES)), "#ff0000", "#808080", "#00ff00")
    app = _Grid()
    async with app.run_test(size=(140, 12)) as pilot:
        grid = app.query_one("#grid", Static)
        grid.styles.width = "auto"
        grid.update(table)
        await pilot.pause()
        as_table = _screen_cells(grid)
        grid.update(laid_out(table))
        await pilot.pause()
        as_text = _screen_cells(grid)
    assert "".join(ch for ch, _ in as_table[0]).startswith("row vs col")
    assert as_text == as_table
