"""A tournament of more prompts than a selector lists (an arena import has one per battle): the scope selectors list
the first MAX_LISTED, the palette finds any prompt by its id, and a prompt chosen there is listed and shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Select

from elotui.cli import main
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui import palette
from elotui.tui.launch import make_app
from elotui.tui.widgets import choice
from elotui.tui.widgets.choice import ChoiceSelect
from tests.importers.fixtures import arena_battles, write_jsonl
from tests.tui.conftest import SIZE, settle


def test_the_palette_lists_the_prompts_a_query_names_when_there_are_many() -> None:
    few = [f"p{i}" for i in range(5)]
    assert palette.listed_prompts(few, "") == few  # up to MAX_LISTED: every prompt, the matcher ranks them
    many = [f"q{i:05d}" for i in range(3 * choice.MAX_LISTED)]
    assert palette.listed_prompts(many, "") == []
    assert palette.listed_prompts(many, "Scope: prompt Q0123") == [f"q0123{d}" for d in range(10)]
    assert len(palette.listed_prompts(many, "q")) == choice.MAX_LISTED


async def test_a_prompt_beyond_the_listed_ones_is_found_and_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "log.jsonl"
    write_jsonl(log, list(arena_battles(n=40, seed=2)))
    assert main(["import", "arena", str(log), "-o", str(tmp_path / "t")]) == 0
    monkeypatch.setattr(choice, "MAX_LISTED", 5)
    monkeypatch.setattr(palette, "MAX_LISTED", 5)
    tournament = load_tournament(tmp_path / "t" / "tournament.toml")
    last = tournament.prompt_ids[-1]
    with Store.open_for(tournament, None) as store:
        app = make_app(tournament, store, start_run=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            select = app.query_one("#scope-prompt", ChoiceSelect)
            assert select.listed == tournament.prompt_ids[:5]
            assert len(app.query_one("#scope-prompt", Select)._options) == 6  # the blank and five prompts
            commands = {title: run for title, _, run in palette.palette_commands(app, f"prompt {last}")}
            assert [t for t in commands if t.startswith("Scope: prompt")] == [f"Scope: prompt {last}"]
            commands[f"Scope: prompt {last}"]()
            await settle(pilot, rounds=5)
            assert app.scope.prompt == last and select.value == last and select.listed[-1] == last
            assert (
                app.board is not None and sum(r.games for r in app.board.rows) == 2
            )  # one battle, both sides


async def test_a_board_of_many_verdicts_shows_its_point_fit_before_its_intervals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import of PREVIEW_VERDICTS battles or more (here the bound lowered to 100): the board's point fit is shown
    at once, interval, order and band reading "…" while its bootstrap runs, then the full board, with the same
    order and ratings."""
    from elotui.tui import app as app_module
    from elotui.tui.messages import LeaderboardComputed
    from elotui.tui.widgets.leaderboard_table import LeaderboardTable

    log = tmp_path / "log.jsonl"
    write_jsonl(log, list(arena_battles(n=400, seed=4)))
    assert main(["import", "arena", str(log), "-o", str(tmp_path / "t")]) == 0
    tournament = load_tournament(tmp_path / "t" / "tournament.toml")
    seen: list[LeaderboardComputed] = []

    def hook(message: object) -> None:
        if isinstance(message, LeaderboardComputed):
            seen.append(message)

    for bound, previews in ((100, [True, False]), (401, [False])):
        monkeypatch.setattr(app_module, "PREVIEW_VERDICTS", bound)
        seen.clear()
        with Store.open_for(tournament, None) as store:
            app = make_app(tournament, store, start_run=False)
            async with app.run_test(size=SIZE, message_hook=hook) as pilot:
                await settle(pilot)
                key = app.view_key
                mine = [m for m in seen if m.key == key]
                # (a board ranked again while the first ranking ran may repeat its preview)
                assert [m.preview for m in mine][:1] + [m.preview for m in mine][-1:] == previews[
                    :1
                ] + previews[-1:]
                assert any(m.preview for m in mine) == (len(previews) == 2)
                full = mine[-1].board
                assert app.board is full and not app.board_preview
                if bound > 400:
                    continue
                point = mine[0].board
                assert [r.contestant for r in point.rows] == [r.contestant for r in full.rows]
                assert [r.rating for r in point.rows] == pytest.approx(
                    [r.rating for r in full.rows], abs=1e-9
                )
                app._show_board(key, point, -1, preview=True)  # as it showed while the rounds ran
                table = app.query_one(LeaderboardTable)
                columns = [c.key.value for c in table.ordered_columns]
                cells = dict(
                    zip(columns, (table.get_cell_at((0, i)).plain for i in range(len(columns))), strict=True)
                )
                assert cells["interval"] == "…" and cells["rating"] == f"{full.rows[0].rating:.0f}"


async def test_a_large_imports_replay_waits_for_p_and_the_summary_says_it_did_not_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import of HOLD_REPLAY_VERDICTS verdicts or more (the bound lowered to 100): the TUI ranks it from the
    store's snapshot and leaves its replay (minutes and gigabytes at 10^6) to `p`, saying so; `p` replays it into
    the store; a smaller import's replay starts at once, as before."""
    from elotui.run.summary import exit_summary
    from elotui.tui import run_monitor
    from elotui.tui.widgets.status_bar import StatusBar
    from tests.tui.test_live import wait_for

    log = tmp_path / "log.jsonl"
    write_jsonl(log, list(arena_battles(n=400, seed=5)))
    assert main(["import", "arena", str(log), "-o", str(tmp_path / "t")]) == 0
    tournament = load_tournament(tmp_path / "t" / "tournament.toml")
    monkeypatch.setattr(run_monitor, "HOLD_REPLAY_VERDICTS", 100)
    with Store.open_for(tournament, None) as store:
        app = make_app(tournament, store, no_delay=True)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.replay_held and app.runner is None and app.monitor.state == "imported"
            assert app.board is not None and sum(r.games for r in app.board.rows) == 800
            notices = [n.message for n in app._notifications]
            assert any(
                m.startswith("400 imported verdicts, ranked. Their replay into the store") for m in notices
            )
            status = str(app.query_one(StatusBar).render())
            assert "IMPORTED" in status and "the replay (each verdict's details) waits: p starts it" in status
            assert exit_summary(tournament, store, None)[0] == (
                "elotui: the replay was not started · the 400 imported verdicts rank as they are"
            )
            from textual.widgets._footer import FooterKey

            title = str(app.query_one("#judges-title").render())
            assert "the imported verdicts are not replayed: no call stored yet (p replays them)" in title
            shown = {k.description for k in app.query(FooterKey)}
            assert "replay" in shown and "pause" not in shown  # the footer says what p does now
            await pilot.press("p")
            await pilot.pause()
            assert app.check_action("pause", ()) and not app.check_action("replay", ())
            await wait_for(lambda: app.monitor.result is not None)
            assert not app.replay_held and app.monitor.result.state == "finished"
        assert not store.only_imported() and len(store.plan()) == 400
    monkeypatch.setattr(run_monitor, "HOLD_REPLAY_VERDICTS", 401)
    assert main(["import", "arena", str(log), "-o", str(tmp_path / "u")]) == 0
    other = load_tournament(tmp_path / "u" / "tournament.toml")
    with Store.open_for(other, None) as store:
        app = make_app(other, store, no_delay=True)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(lambda: app.monitor.result is not None)
            assert not app.replay_held
