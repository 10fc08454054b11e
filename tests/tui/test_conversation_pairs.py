"""The pairs pane shows a conversation turn by turn: each user turn and each contestant's answer, in order."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest
import tomli_w
from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import DataTable, Static

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


def detail_texts(app: App[object]) -> list[str]:
    """The pair detail's texts, top to bottom (the parts displayed)."""
    detail = app.query_one("#pair-detail", Widget)

    def displayed(w: Widget) -> bool:
        while w is not detail:
            if not w.display:
                return False
            w = cast(Widget, w.parent)
        return True

    return [str(w.render()) for w in detail.query(Static) if displayed(w)]


async def open_pair(app: App[object], pilot: Pilot[object], prompt: str) -> PairsPane:
    """The pairs pane with the first pair of `prompt` open."""
    await pilot.press("v")
    await settle(pilot)
    pane = app.query_one(PairsPane)
    table = app.query_one("#pairs-table", DataTable)
    table.focus()
    row = next(i for i, s in enumerate(pane.shown_pairs) if s.prompt == prompt)
    table.move_cursor(row=row)
    await settle(pilot)
    return pane


async def test_the_pairs_pane_shows_the_conversation_turn_by_turn(judged: Path) -> None:
    t = load_tournament(judged)
    with Store(judged.parent / "s.sqlite") as store:
        app = make_app(t, store, start_run=False)
        async with app.run_test(size=(160, 60)) as pilot:
            await settle(pilot)
            pane = await open_pair(app, pilot, "111")
            a, b = pane.selected().a, pane.selected().b  # type: ignore[union-attr]
            texts = detail_texts(app)
    shown = "\n".join(texts)
    assert "a conversation of 2 turns (the last judged)" in texts[0]
    parts = [
        "── user, turn 1 ──\nWhat is 17 * 23?",
        f"── {a}, turn 1 ──\n{ANSWERS[a][111][0]}",
        f"── {b}, turn 1 ──\n{ANSWERS[b][111][0]}",
        "── user, turn 2 (judged) ──\nAnd 17 * 24?",
        f"{a}, turn 2 (judged)\n{ANSWERS[a][111][1]}",
        f"{b}, turn 2 (judged)\n{ANSWERS[b][111][1]}",
    ]
    at = [shown.find(p) for p in parts]
    assert -1 not in at, [p for p, i in zip(parts, at, strict=True) if i < 0]
    assert at == sorted(at)
    assert shown.count("What is 17 * 23?") == 1  # each user turn once, above both answers


HOSTILE_TURN = "Ignore [bold red]this[/] \x1b[2J\x1b]0;pwned\x07 please"
HOSTILE_ANSWER = "[link=http://evil]click[/link] \x1b[31mred"


@pytest.fixture
def hostile_conversation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """One inline two-turn prompt whose first user turn and first answer hold markup and escape sequences."""
    data = {
        "tournament": {"name": "hostile turns"},
        "contestants": [{"id": "a"}, {"id": "b"}],
        "prompts": [
            {
                "id": "p1",
                "text": "Second question?",
                "earlier_turns": [HOSTILE_TURN],
                "earlier_answers": {"a": [HOSTILE_ANSWER], "b": ["b's first answer"]},
                "responses": {"a": "a's last answer", "b": "b's last answer"},
            },
            {"id": "p2", "text": "A single question.", "responses": {"a": "a alone", "b": "b alone"}},
        ],
        "judges": [
            {"id": "sim", "provider": "simulated", "simulation": {"qualities": {"a": 1100.0, "b": 1000.0}}}
        ],
    }
    path = tmp_path / "hostile.toml"
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    assert main(["run", str(path), "--headless", "--store", str(tmp_path / "h.sqlite")]) == 0
    return path


async def test_hostile_turns_are_shown_literally_and_a_single_turn_prompt_has_no_turns(
    hostile_conversation: Path, tmp_path: Path
) -> None:
    t = load_tournament(hostile_conversation)
    with Store(tmp_path / "h.sqlite") as store:
        app = make_app(t, store, start_run=False)
        async with app.run_test(size=(160, 60)) as pilot:
            await settle(pilot)
            await open_pair(app, pilot, "p1")
            conversation = "\n".join(detail_texts(app))
            table = app.query_one("#pairs-table", DataTable)
            table.move_cursor(row=1)
            await settle(pilot)
            single = "\n".join(detail_texts(app))
    assert "Ignore [bold red]this[/]" in conversation and "[link=http://evil]click[/link]" in conversation
    assert "\x1b" not in conversation and "\x07" not in conversation
    assert (
        conversation.index("user, turn 1") < conversation.index("a, turn 1") < conversation.index("b, turn 1")
    )
    assert conversation.index("b's first answer") < conversation.index("user, turn 2 (judged)")
    assert "A single question." in single and "user, turn" not in single and "(judged)" not in single
