"""The diagnostics pane's per-prompt reference table: hidden without any `reference_ranking`, shown with one."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from textual.widgets import Label, Static

from elotui.tournament.model import load_tournament
from elotui.tui.app import ElotuiApp
from elotui.tui.launch import make_app
from elotui.tui.screens.diagnostics import prompt_reference_table
from tests.tui.conftest import SIZE, press_and_settle, settle
from tests.tui.crafted import filled_store, write_tournament


def rendered(renderable: object) -> str:
    console = Console(width=120, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_table_is_none_without_references() -> None:
    assert prompt_reference_table({"per_prompt_reference": None}) is None
    assert prompt_reference_table({}) is None


async def test_hidden_without_references(crafted_app: ElotuiApp) -> None:
    async with crafted_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press_and_settle(pilot, "d")
        assert crafted_app.query_one("#diag-reference", Static).display
        assert not crafted_app.query_one("#diag-prompt-reference-title", Label).display
        assert not crafted_app.query_one("#diag-prompt-reference", Static).display


async def test_shown_with_references(tmp_path: Path) -> None:
    path = write_tournament(tmp_path / "crafted")
    text = path.read_text(encoding="utf-8")
    text = text.replace('id = "p1"\n', 'id = "p1"\nreference_ranking = ["A", "C", "B"]\n')
    text = text.replace('id = "p2"\n', 'id = "p2"\nreference_ranking = ["B", "C", "A"]\n')
    path.write_text(text, encoding="utf-8")
    tournament = load_tournament(path)
    with filled_store(tournament, tmp_path / "crafted.sqlite") as store:
        app = make_app(tournament, store, start_run=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await press_and_settle(pilot, "d")
            assert app.query_one("#diag-prompt-reference-title", Label).display
            static = app.query_one("#diag-prompt-reference", Static)
            assert static.display
            shown = rendered(static.content)
    # p1: win rates A 8/12, C 8/12, B 2/12 vs A > C > B: τ-b = 2 / sqrt(2 · 3) = 0.82;
    # p2 (C-B by j3 invalid): A 8/12, C 7/11, B 2/11 vs B > C > A: exactly reversed, τ = -1
    lines = [line.split() for line in shown.splitlines()]
    assert "τ over 2 prompts: mean -0.09, median -0.09, min -1.00, max 0.82" in shown
    assert lines[1][:2] == ["prompt", "contestants"]
    assert lines[2][:3] == ["p1", "3", "0.82"] and lines[3][:3] == ["p2", "3", "-1.00"]
