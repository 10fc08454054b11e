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

    def build(theme: str | None = None, labels: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
        tournament, store = crafted(tmp_path, labels)
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


# Three terminal sizes: at 80x24 the leaderboard keeps rank, contestant (cut with an ellipsis), rating, interval, Δ,
# order and band, and shows the selected row's other figures under the table; 100x30 adds P(win); 160x45 every column.
LABELS = {"A": "Claude 3 Haiku (2024-03-07)", "C": "Mixtral 8x7B Instruct"}
SIZES = [(80, 24), (100, 30), (160, 45)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_leaderboard_at(snap_compare, app_for, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(labels=LABELS), terminal_size=size, run_before=keys())


def test_pairs_at_80x24(snap_compare, app_for) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(labels=LABELS), terminal_size=(80, 24), run_before=keys("v", "down", "up"))


def test_help_at_80x24(snap_compare, app_for) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(labels=LABELS), terminal_size=(80, 24), run_before=keys("question_mark"))
