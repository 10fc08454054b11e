"""The TUI's category scope on the vicuna80 sample (its prompts have categories): the board it shows equals
`elotui export --category`'s, and the export file's name says the scope."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Select

from elotui.cli import main
from elotui.session import TournamentSession
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from tests.samples.sample_paths import SAMPLES
from tests.tui.conftest import SIZE, settle

TOURNAMENT = SAMPLES / "vicuna80" / "tournament.toml"


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("vicuna80-scopes") / "store.sqlite"
    assert main(["run", str(TOURNAMENT), "--headless", "--no-delay", "--store", str(path)]) == 0
    return path


async def test_category_scope_shows_the_category_leaderboard(
    store_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    tournament = load_tournament(TOURNAMENT)
    assert "math" in tournament.categories.values()
    with Store.open_for(tournament, store_path) as store:
        want = TournamentSession(tournament, store).leaderboard(category="math")
        app = make_app(tournament, store, start_run=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            select = app.query_one("#scope-category", Select)
            select.value = "math"
            await settle(pilot, rounds=5)
            assert app.scope.category == "math"
            assert app.board is not None
            assert app.board.ratings() == want.ratings()
            assert app.board.counts == want.counts
            await pilot.press("e")
            await pilot.pause()
    (written,) = tmp_path.glob("*.csv")
    assert written.name.endswith("-t0.5-elo-category-math.csv")
