"""The diagnostics pane with more columns than the terminal has: at 80x24, the simulated arena's 20 contestants
give a head-to-head grid 175 columns wide, and the position table does not fit either. The grid keeps its width
and is scrolled sideways (its names and shares whole, not squeezed to "m0…"); a table's figures stay whole, its
headers wrapping instead ("499…" was shown for 499950 units)."""

from __future__ import annotations

import re
from pathlib import Path

from textual.containers import HorizontalScroll
from textual.widgets import Static

from elotui.tui.widgets.charts import HeadToHeadGrid
from tests.tui.conftest import sample_diagnostics, shown


async def test_wide_diagnostics_at_80_columns(tmp_path: Path) -> None:
    async with sample_diagnostics("simulated_arena", tmp_path) as (arena, app, pilot):
        scroll = app.query_one("#diag-h2h-scroll", HorizontalScroll)
        grid = app.query_one("#diag-h2h", HeadToHeadGrid)
        assert grid.size.width > 2 * scroll.size.width and scroll.max_scroll_x > 0, grid.size
        lines = shown(grid.content, grid.size.width).splitlines()
        assert [line.split()[0] for line in lines[1:]] == arena.contestant_ids
        assert len(lines[0].split()) == 3 + len(arena.contestant_ids)  # "row vs col" and every name whole
        await pilot.press("tab")  # the grid takes the focus; ctrl+PgDn pages right, ← and → step a column
        assert app.focused is scroll, app.focused
        await pilot.press("ctrl+pagedown")
        await pilot.wait_for_scheduled_animations()
        assert scroll.scroll_x == min(scroll.size.width, scroll.max_scroll_x)
        await pilot.press("left")
        await pilot.wait_for_scheduled_animations()
        assert scroll.scroll_x == min(scroll.size.width, scroll.max_scroll_x) - 1
        position = app.query_one("#diag-position", Static)
        table = shown(position.content, position.size.width)
    assert not re.search(r"\d…", table), table
    units = {int(n) for n in re.findall(r"(?<![\d.])\d{3,}(?![\d.%])", table)}
    # each judge's mirrored units (190 pairs x 10 prompts), and all five judges'
    assert units == {1900, 9500}, table
