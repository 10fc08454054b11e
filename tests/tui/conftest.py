"""Fixtures for the TUI tests: the crafted tournament (see crafted.py) and a helper to let workers settle."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from rich.console import Console
from textual.pilot import Pilot

from elotui.store import Store
from elotui.tournament.model import Tournament
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


@asynccontextmanager
async def sample_diagnostics(
    sample: str, tmp_path: Path, size: tuple[int, int] = (80, 24)
) -> AsyncIterator[tuple[Tournament, ElotuiApp, Pilot[object]]]:
    """A sample tournament run to its end, then the app showing its diagnostics pane at `size`."""
    from elotui.run.runner import Runner
    from elotui.tournament.model import load_tournament
    from tests.samples.sample_paths import SAMPLES

    tournament = load_tournament(SAMPLES / sample / "tournament.toml")
    with Store.open_for(tournament, tmp_path / f"{sample}.sqlite") as store:
        assert (await Runner(tournament, store, no_delay=True).run()).state == "finished"
        app = make_app(tournament, store, start_run=False)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await press_and_settle(pilot, "d")
            yield tournament, app, pilot


def shown(renderable: object, width: int) -> str:
    """A widget's content (or any Rich renderable) as the terminal shows it at `width` columns."""
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()
