"""A key's new view is drawn with the cyclic collector held off (elotui.tui.collector): a full collection at a
10^6-verdict store took ~85 ms, and one key in ten to thirty met one inside its redraw. The collector is back on
once the screen has been refreshed, and stays off if someone else had switched it off."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from elotui.rating.leaderboard import Leaderboard
from elotui.tui.app import ElotuiApp
from elotui.tui.widgets.leaderboard_table import LeaderboardTable
from tests.tui.conftest import SIZE, press_and_settle, settle


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


async def test_a_key_draws_its_view_with_the_collector_off_then_switches_it_back_on(
    crafted_app: ElotuiApp, collector_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    show = LeaderboardTable.show

    def watched(
        self: LeaderboardTable,
        board: Leaderboard,
        labels: dict[str, str],
        shifts: dict[str, int] | None = None,
        *,
        pending: bool = False,
    ) -> None:
        seen.append(gc.isenabled())
        show(self, board, labels, shifts, pending=pending)

    monkeypatch.setattr(LeaderboardTable, "show", watched)
    app = crafted_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in ("1", "m", "5"):
            seen.clear()
            await press_and_settle(pilot, key)
            assert seen and seen[0] is False  # the view the key asked for, drawn with the collector off
            assert gc.isenabled()  # and back on once the screen was refreshed
        assert app.query_one(LeaderboardTable).order() == ["A", "C", "B"]


async def test_the_hold_does_not_switch_on_a_collector_someone_else_switched_off(
    crafted_app: ElotuiApp, collector_on: None
) -> None:
    app = crafted_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        gc.disable()  # e.g. a run's planning thread (elotui.runtime.heap)
        await press_and_settle(pilot, "1", "m")
        assert not gc.isenabled()
        gc.enable()
        await press_and_settle(pilot, "5")
        assert gc.isenabled()


async def test_a_screen_pushed_right_after_the_key_does_not_leave_the_collector_off(
    crafted_app: ElotuiApp, collector_on: None
) -> None:
    """The hold ends after a refresh of the screen that was current at the key: a help screen pushed at once must
    not strand it (the collector off for the rest of the session)."""
    app = crafted_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press_and_settle(pilot, "1", "question_mark")
        assert type(app.screen).__name__ == "HelpScreen" and gc.isenabled()
        await press_and_settle(pilot, "escape", "m", "question_mark", "escape")
        assert gc.isenabled()
