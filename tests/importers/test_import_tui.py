"""An imported MT-bench tournament opens in the TUI: the leaderboard ranks its contestants, and the pairs pane shows
each game's judgment (the files' g1_judgment / g2_judgment) under its verdict."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from elotui.cli import main
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from elotui.tui.screens.pairs import PairsPane
from tests.importers.fixtures import mt_bench_records, write_jsonl
from tests.tui.conftest import settle, shown

ROWS = mt_bench_records(questions=(81, 82))


@pytest.fixture
def imported(tmp_path: Path) -> Path:
    """The MT-bench files imported and replayed (store s.sqlite beside them)."""
    src = write_jsonl(tmp_path / "gpt-4_pair.jsonl", ROWS)
    assert main(["import", "mt-bench", str(src), "-o", str(tmp_path / "t")]) == 0
    toml = tmp_path / "t" / "tournament.toml"
    assert main(["run", str(toml), "--headless", "--store", str(tmp_path / "s.sqlite")]) == 0
    return toml


async def test_pairs_pane_shows_the_imported_judgments(imported: Path, tmp_path: Path) -> None:
    rows = ROWS
    store_path = tmp_path / "s.sqlite"
    t = load_tournament(imported)
    with Store(store_path) as store:
        app = make_app(t, store, start_run=False)
        async with app.run_test(size=(160, 60)) as pilot:
            await settle(pilot)
            await pilot.press("v")
            await settle(pilot)
            pane = app.query_one(PairsPane)
            table = app.query_one("#pairs-table", DataTable)
            table.focus()
            row = next(i for i, s in enumerate(pane.shown_pairs) if s.prompt == "81-t1")
            table.move_cursor(row=row)
            await settle(pilot)
            pair = pane.shown_pairs[row]
            record = next(
                r
                for r in rows
                if (r["question_id"], r["turn"]) == (81, 1)
                and {r["model_1"], r["model_2"]} == {pair.a, pair.b}
            )
            verdicts = "".join(shown(w.render(), 150) for w in app.query("#verdicts > *"))
            assert record["g1_judgment"] in verdicts and record["g2_judgment"] in verdicts
