"""The TUI's turn scope (`[data] turn = [1, "conversation"]`): offered only when several turns are judged, and the
board it shows equals `elotui export --turn N` (ratings to 1e-6, same order)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from textual.widgets import Select

from elotui.cli import main
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from elotui.tui.palette import palette_commands
from tests.tui.conftest import SIZE, settle
from tests.tui.mt_bench_turns import tournament_file


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two-turn MT-bench tournament, judged (store t.sqlite beside it)."""
    path = tournament_file(tmp_path_factory.mktemp("mt-turns"))
    assert (
        main(["run", str(path), "--headless", "--no-delay", "--store", str(path.with_suffix(".sqlite"))]) == 0
    )
    return path


def exported(path: Path, capsys: pytest.CaptureFixture[str], *options: str) -> list[tuple[str, float]]:
    """(contestant, rating) in the order `elotui export` writes them."""
    capsys.readouterr()
    assert main(["export", str(path), "--store", str(path.with_suffix(".sqlite")), *options]) == 0
    rows = csv.DictReader(io.StringIO(capsys.readouterr().out))
    return [(r["contestant"], float(r["rating"])) for r in rows]


async def test_the_turn_scope_shows_export_turns_leaderboard(
    judged: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    want = {n: exported(judged, capsys, "--turn", str(n)) for n in (1, 2)}
    everything = exported(judged, capsys)
    assert want[1] != want[2]  # the turns rank differently: a board that ignored the scope would fail
    tournament = load_tournament(judged)
    with Store.open_for(tournament, judged.with_suffix(".sqlite")) as store:
        app = make_app(tournament, store, start_run=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            select = app.query_one("#scope-turn", Select)
            for n in (2, 1):
                select.value = str(n)
                await settle(pilot, rounds=5)
                assert app.scope.turn == n and f"turn {n}" in app.scope.describe()
                assert app.board is not None
                shown = [(r.contestant, r.rating) for r in app.board.rows]
                assert [c for c, _ in shown] == [c for c, _ in want[n]]
                assert [r for _, r in shown] == pytest.approx([r for _, r in want[n]], abs=1e-6)
            await pilot.press("e")
            await pilot.pause()
            select.value = Select.NULL  # all turns again: the whole tournament's board
            await settle(pilot, rounds=5)
            assert app.scope.turn is None
            assert app.board is not None
            assert [r.contestant for r in app.board.rows] == [c for c, _ in everything]
            assert [r.rating for r in app.board.rows] == pytest.approx([r for _, r in everything], abs=1e-6)
    (written,) = tmp_path.glob("*.csv")
    assert written.name.endswith("-turn-1.csv")
    rows = list(csv.DictReader(written.open(encoding="utf-8")))
    assert [r["contestant"] for r in rows] == [c for c, _ in want[1]]


async def test_the_palette_sets_a_turn_scope_and_the_selector_follows(judged: Path) -> None:
    tournament = load_tournament(judged)
    with Store.open_for(tournament, judged.with_suffix(".sqlite")) as store:
        app = make_app(tournament, store, start_run=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            commands = {title: run for title, _, run in palette_commands(app)}
            assert {"Scope: all turns", "Scope: turn 1", "Scope: turn 2"} <= set(commands)
            commands["Scope: turn 2"]()
            await settle(pilot, rounds=5)
            assert app.scope.turn == 2
            assert app.query_one("#scope-turn", Select).value == "2"
            commands["Scope: all turns"]()
            await settle(pilot)
            assert app.scope.turn is None and app.query_one("#scope-turn", Select).value == Select.NULL


async def test_a_tournament_of_one_turn_offers_no_turn_scope(tmp_path: Path) -> None:
    path = tournament_file(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace('[1, "conversation"]', "2"), encoding="utf-8")
    tournament = load_tournament(path)
    with Store.open_for(tournament, tmp_path / "s.sqlite") as store:
        app = make_app(tournament, store, start_run=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert not app.query("#scope-turn")
            assert not [t for t, _, _ in palette_commands(app) if "turn" in t]


async def test_the_pairs_panes_turn_filter_keeps_that_turns_pairs(judged: Path) -> None:
    from elotui.session import TournamentSession
    from elotui.tui.screens.pairs import PairsPane

    tournament = load_tournament(judged)
    with Store.open_for(tournament, judged.with_suffix(".sqlite")) as store:
        turn_two = set(TournamentSession(tournament, store).scope_prompts(turn=2) or ())
        app = make_app(tournament, store, start_run=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("v")
            await settle(pilot)
            pane = app.query_one(PairsPane)
            every = len(pane.shown_pairs)
            app.query_one("#f-turn", Select).value = "2"
            await settle(pilot)
            kept = {s.prompt for s in pane.shown_pairs}
            assert kept == turn_two and len(pane.shown_pairs) == every // 2 == 36
            assert "turn 2" in pane._describe()
            app.query_one("#f-turn", Select).value = Select.NULL
            await settle(pilot)
            assert len(pane.shown_pairs) == every


async def test_drop_to_flip_under_a_turn_scope_is_the_turns_export(
    judged: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The board's drop_to_flip counts the games of the scope's turn only: equal to `export --turn N --format json`
    (the whole tournament's counts differ, so a count taken over every turn would fail)."""
    import itertools
    import json

    from elotui.tui.widgets.leaderboard_table import LeaderboardTable

    def flips(*options: str) -> dict[tuple[str, str], object]:
        capsys.readouterr()
        args = ["export", str(judged), "--store", str(judged.with_suffix(".sqlite")), "--format", "json"]
        assert main([*args, *options, "-o", "-"]) == 0
        rows = json.loads(capsys.readouterr().out)["rows"]
        return {(u["contestant"], lo["contestant"]): u["drop_to_flip"] for u, lo in itertools.pairwise(rows)}

    want, everything = flips("--turn", "2"), flips()
    assert want != everything
    tournament = load_tournament(judged)
    with Store.open_for(tournament, judged.with_suffix(".sqlite")) as store:
        app = make_app(tournament, store, start_run=False)
        async with app.run_test(size=(160, 45)) as pilot:
            await settle(pilot)
            app.query_one("#scope-turn", Select).value = "2"
            await settle(pilot, rounds=10)
            shown = {pair: f.drop for pair, f in app.query_one(LeaderboardTable).flips().items()}
            assert shown == want


def test_diagnose_style_coefficients_under_a_turn_are_the_turns(
    judged: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`diagnose --turn N --style-control` fits the turn's games, as `export --turn N --style-control` does."""
    import json

    store = ["--store", str(judged.with_suffix(".sqlite")), "--style-control", "--format", "json"]

    def coefficients(command: str, *options: str) -> object:
        capsys.readouterr()
        assert main([command, str(judged), *store, *options]) == 0
        doc = json.loads(capsys.readouterr().out)
        return (doc["settings"] if command == "export" else doc)["style_control"]["coefficients"]

    want = coefficients("export", "--turn", "2")
    assert want != coefficients("export")
    assert coefficients("diagnose", "--turn", "2") == want
