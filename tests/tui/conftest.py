"""Fixtures for the TUI tests: the crafted tournament (see crafted.py) and a helper to let workers settle."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from elotui.config import Tournament
from elotui.store import Store
from tests.tui.crafted import crafted

SIZE = (140, 45)


@pytest.fixture
def crafted_tournament(tmp_path: Path) -> tuple[Tournament, Store]:
    tournament, store = crafted(tmp_path)
    yield tournament, store
    store.close()


async def settle(pilot: Pilot[object], rounds: int = 3) -> None:
    """Let the ranking / loading workers finish and their messages be handled."""
    for _ in range(rounds):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
