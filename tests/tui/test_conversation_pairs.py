"""The pairs pane shows a conversation turn by turn: each user turn and each contestant's answer, in order."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from elotui.cli import main
from elotui.session import TournamentSession
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from elotui.tui.screens.pairs import PairsPane
from tests.run.test_references_and_conversations import ANSWERS, mt_bench, tournament
from tests.tui.conftest import settle


def test_shown_response_is_the_whole_conversation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mt_bench(tmp_path)
    path = tournament(tmp_path, data='turn = "conversation"')
    t = load_tournament(path)
    with Store(tmp_path / "s.sqlite") as store:
        shown = TournamentSession(t, store).shown_response("111", "fluent")
    assert shown is not None
    parts = [
        "── user, turn 1 ──\nWhat is 17 * 23?",
        f"── fluent, turn 1 ──\n{ANSWERS['fluent'][111][0]}",
        "── user, turn 2 ──\nAnd 17 * 24?",
        f"── fluent, turn 2 ──\n{ANSWERS['fluent'][111][1]}",
    ]
    assert [shown.index(p) for p in parts] == sorted(shown.index(p) for p in parts)
    single = load_tournament(tournament(tmp_path))  # turn 1 alone: the answer as it is
    with Store(tmp_path / "s1.sqlite") as store:
        assert TournamentSession(single, store).shown_response("111", "fluent") == ANSWERS["fluent"][111][0]


@pytest.fixture
def judged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A conversation tournament in MT-bench's files, judged (store s.sqlite beside it)."""
    mt_bench(tmp_path)
    path = tournament(tmp_path, data='turn = "conversation"')
    assert main(["run", str(path), "--headless", "--store", str(tmp_path / "s.sqlite")]) == 0
    return path


async def test_the_pairs_pane_shows_each_turn_of_both_conversations(judged: Path) -> None:
    t = load_tournament(judged)
    with Store(judged.parent / "s.sqlite") as store:
        app = make_app(t, store, start_run=False)
        async with app.run_test(size=(160, 60)) as pilot:
            await settle(pilot)
            await pilot.press("v")
            await settle(pilot)
            pane = app.query_one(PairsPane)
            table = app.query_one("#pairs-table", DataTable)
            table.focus()
            row = next(i for i, s in enumerate(pane.shown_pairs) if s.prompt == "111")
            table.move_cursor(row=row)
            await settle(pilot)
            shown = {who: str(app.query_one(f"#resp-{who}").render()) for who in ("a", "b")}
            summary = pane.shown_pairs[row]
            for slot, who in (("a", summary.a), ("b", summary.b)):
                text = shown[slot]
                for piece in ("What is 17 * 23?", ANSWERS[who][111][0], "And 17 * 24?", ANSWERS[who][111][1]):
                    assert piece in text, (slot, piece)
                order = [text.index(p) for p in ("What is 17 * 23?", ANSWERS[who][111][0], "And 17 * 24?")]
                assert order == sorted(order)
