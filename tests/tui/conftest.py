"""Fixtures for the TUI tests: the crafted tournament (see crafted.py) and a helper to let workers settle."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from elotui.config import Tournament
from elotui.store import Store
from elotui.tui.app import ElotuiApp
from elotui.tui.launch import make_app
from tests.tui.crafted import crafted

SIZE = (140, 45)


@pytest.fixture
def crafted_tournament(tmp_path: Path) -> tuple[Tournament, Store]:
    tournament, store = crafted(tmp_path)
    yield tournament, store
    store.close()


@pytest.fixture
def crafted_app(crafted_tournament: tuple[Tournament, Store]) -> ElotuiApp:
    """The app on the crafted tournament, without starting a run."""
    tournament, store = crafted_tournament
    return make_app(tournament, store, start_run=False)


async def settle(pilot: Pilot[object], rounds: int = 3) -> None:
    """Let the ranking / loading workers finish and their messages be handled."""
    for _ in range(rounds):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def press_and_settle(pilot: Pilot[object], *keys: str) -> None:
    """Press `keys`, then let the workers they start finish."""
    await pilot.press(*keys)
    await settle(pilot)
