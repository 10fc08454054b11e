"""Snapshot tests (pytest-textual-snapshot) of the main screens and of each bundled theme, on the crafted
tournament: fixed size, no clocks on screen (a stored tournament: no run, no rate, no ETA), ties sorted by name.
Update with `pytest tests/tui --snapshot-update` after checking the new SVGs by eye."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from elotui.tui.launch import make_app
from tests.tui.conftest import SIZE, settle
from tests.tui.crafted import crafted


def keys(*presses: str) -> Callable[[Pilot[object]], object]:
    async def run_before(pilot: Pilot[object]) -> None:
        await settle(pilot)
        for key in presses:
            await pilot.press(key)
            await settle(pilot)
        pilot.app.screen.set_focus(None)  # no focus highlight that depends on timing
        await pilot.pause()

    return run_before


@pytest.fixture
def app_for(tmp_path: Path):  # type: ignore[no-untyped-def]
    stores = []

    def build(theme: str | None = None):  # type: ignore[no-untyped-def]
        tournament, store = crafted(tmp_path)
        stores.append(store)
        return make_app(tournament, store, start_run=False, theme=theme)

    yield build
    for store in stores:
        store.close()


def test_leaderboard(snap_compare, app_for) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(), terminal_size=SIZE, run_before=keys())


def test_leaderboard_threshold_1_bradley_terry(snap_compare, app_for) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(), terminal_size=SIZE, run_before=keys("1", "m"))


def test_pair(snap_compare, app_for) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(), terminal_size=SIZE, run_before=keys("v", "down", "up"))


def test_diagnostics(snap_compare, app_for) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(), terminal_size=SIZE, run_before=keys("d"))


@pytest.mark.parametrize("theme", ["elotui-dark", "elotui-light", "elotui-contrast"])
def test_theme(snap_compare, app_for, theme: str) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(theme), terminal_size=SIZE, run_before=keys("v", "down", "up"))
