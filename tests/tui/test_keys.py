"""Pilot tests: press the keys a user would and check what the widgets show."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from textual.widgets import Checkbox, DataTable, Static

from elotui.export.ranking import write_csv
from elotui.rating.labels import band_text
from elotui.session import TournamentSession
from elotui.store import Store
from elotui.tournament.model import Tournament
from elotui.tui.app import ElotuiApp
from elotui.tui.launch import make_app
from elotui.tui.screens.raw_reply import RawTextScreen
from elotui.tui.widgets.leaderboard_table import LeaderboardTable
from elotui.tui.widgets.status_bar import StatusBar
from tests.tui.conftest import SIZE, press_and_settle, settle
from tests.tui.crafted import RAW_INVALID


def plain(widget: Static) -> str:
    content = widget.content
    return content.plain if isinstance(content, Text) else str(content)


async def test_threshold_keys_change_the_order(crafted_app: ElotuiApp) -> None:
    app = crafted_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        board = app.query_one(LeaderboardTable)
        assert board.order() == ["A", "C", "B"]  # threshold 0.5 (the file's default): A beats both 2-1
        await press_and_settle(pilot, "1")
        assert board.order() == ["C", "A", "B"]  # 1.0: A's 2-1 wins become draws, C beats B unanimously
        assert "threshold 1.0" in plain(app.query_one(StatusBar))
        await press_and_settle(pilot, "4")
        assert board.order() == ["A", "C", "B"]
        assert "threshold 0.5" in plain(app.query_one(StatusBar))


async def test_the_cursor_stays_on_its_contestant_as_the_rows_change_in_place(crafted_app: ElotuiApp) -> None:
    app = crafted_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one(LeaderboardTable)
        name = [c.label.plain for c in table.ordered_columns].index("contestant")
        table.move_cursor(row=1)  # C, second at threshold 0.5
        await press_and_settle(pilot, "1")  # 1.0: C first; the same three rows, their cells replaced
        assert table.order() == ["C", "A", "B"] and table.cursor_row == 0
        assert [str(table.get_cell_at((i, name))) for i in range(3)] == ["C", "A", "B"]
        assert app.board is not None
        assert [str(table.get_cell_at((i, 0))) for i in range(3)] == [str(r.rank) for r in app.board.rows]
        await press_and_settle(pilot, "4")
        assert table.order() == ["A", "C", "B"] and table.cursor_row == 1


async def test_switching_back_is_served_from_the_cache(crafted_app: ElotuiApp) -> None:
    app = crafted_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)  # the first ranking precomputes every threshold and both methods
        for key, order in (("1", ["C", "A", "B"]), ("5", None), ("m", None), ("4", ["A", "C", "B"])):
            await pilot.press(key)
            await pilot.pause()  # no worker needed: the cached leaderboard is shown at once
            assert app.board_key == app.view_key
            assert app.board_version == app.ranking.version
            if order is not None:
                assert app.query_one(LeaderboardTable).order() == order


async def test_m_toggles_bradley_terry(crafted_app: ElotuiApp) -> None:
    app = crafted_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press_and_settle(pilot, "m")
        assert "Bradley–Terry" in plain(app.query_one(StatusBar))
        assert app.board is not None and app.board.settings["method"] == "bt"
        assert app.query_one(LeaderboardTable).order() == ["A", "C", "B"]


async def test_band_word_is_shown(crafted_app: ElotuiApp) -> None:
    app = crafted_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in ("1", "5"):  # two thresholds where the gaps have bands
            await press_and_settle(pilot, key)
            table = app.query_one(LeaderboardTable)
            column = [c.label.plain for c in table.ordered_columns].index("band")
            assert app.board is not None and any(row.band for row in app.board.rows)
            for i, row in enumerate(app.board.rows):
                assert str(table.get_cell_at((i, column))) == band_text(row)


async def test_selecting_a_pair_shows_its_reasoning_literally(crafted_app: ElotuiApp) -> None:
    app = crafted_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press_and_settle(pilot, "v")
        table = app.query_one("#pairs-table", DataTable)
        assert table.row_count == 6
        await pilot.press("down", "up")  # the first pair: p1, A vs B
        await settle(pilot)
        parts = [w.content for w in app.query("#verdicts .verdict").results(Static)]
        assert all(isinstance(p, Text) for p in parts)
        text = Text("\n").join(parts)
        # the markup is shown as the characters it is made of; the ANSI colour code is removed
        expected = "Response A is [bold]x[/bold] better red and [link=http://evil]click[/link]."
        assert expected in text.plain
        assert "\x1b" not in text.plain
        start = text.plain.index(expected)
        styled = [span for span in text.spans if span.start < start + len(expected) and span.end > start]
        assert styled == []  # no style from the untrusted text
        assert "j3 prefers B on p1." in text.plain  # every judge's reasoning
        grid = Console(width=160, record=True, file=io.StringIO())
        grid.print(app.query_one("#abba", Static).content)
        drawn = grid.export_text()
        assert "AB" in drawn and "BA" in drawn and all(j in drawn for j in ("j1", "j2", "j3"))
        title = plain(app.query_one("#pair-title", Static))
        assert "Question p1: explain [i]this[/i]." in title
        assert "replay verdicts" in title


async def test_pair_filters(crafted_app: ElotuiApp) -> None:
    app = crafted_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press_and_settle(pilot, "v")
        table = app.query_one("#pairs-table", DataTable)
        app.query_one("#f-split", Checkbox).value = True
        await settle(pilot)
        assert table.row_count == 4  # A vs B and A vs C on both prompts: j3 takes the other side
        app.query_one("#f-split", Checkbox).value = False
        app.query_one("#f-flip", Checkbox).value = True
        await settle(pilot)
        assert table.row_count == 0  # the crafted judges never flip with the order


async def test_e_writes_the_csv_like_elotui_export(
    crafted_tournament: tuple[Tournament, Store], tmp_path: Path
) -> None:
    tournament, store = crafted_tournament
    target = tmp_path / "out" / "ranking.csv"
    app = make_app(tournament, store, start_run=False, export_path=target)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press_and_settle(pilot, "1")
        await pilot.press("e")
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert any(str(target) in m for m in messages)
    expected = io.StringIO()
    write_csv(TournamentSession(tournament, store).leaderboard(threshold=1.0, method="elo"), expected)
    assert target.read_text(encoding="utf-8") == expected.getvalue()
    rows = list(csv.DictReader(io.StringIO(expected.getvalue())))
    assert [r["contestant"] for r in rows] == ["C", "A", "B"]


async def test_default_export_path_is_the_tournament_slug(
    crafted_tournament: tuple[Tournament, Store], tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    tournament, store = crafted_tournament
    monkeypatch.chdir(tmp_path)
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        await press_and_settle(pilot, "5")
        await pilot.press("m")
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        messages = [n.message for n in app._notifications]
    # the name says the threshold and method; a second export never overwrites the first
    first = tmp_path / "crafted-b-markup-b-cup-ranking-t0.5-elo.csv"
    assert first.exists()
    assert (tmp_path / "crafted-b-markup-b-cup-ranking-tnone-bt.csv").exists()
    assert (tmp_path / "crafted-b-markup-b-cup-ranking-tnone-bt-2.csv").exists()
    assert any(str(tmp_path / "crafted-b-markup-b-cup-ranking-tnone-bt-2.csv") in m for m in messages)


async def test_invalid_reply_opens_in_a_modal(crafted_app: ElotuiApp) -> None:
    app = crafted_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, RawTextScreen)
        body = app.screen.query_one("#raw-text", Static).content
        assert isinstance(body, Text) and body.plain == RAW_INVALID and not body.spans
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RawTextScreen)


async def test_scope_selector_ranks_one_judge(crafted_app: ElotuiApp) -> None:
    app = crafted_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.set_scope_judge("j3")  # j3 prefers B and C over A
        await settle(pilot)
        assert app.board is not None and app.board.settings["judges"] == ["j3"]
        assert app.query_one(LeaderboardTable).order()[-1] == "A"
        assert "judge j3" in plain(app.query_one(StatusBar))
        app.set_scope_judge(None)
        app.set_scope_prompt("p2")
        await settle(pilot)
        assert app.board is not None and app.board.settings["prompts"] == ["p2"]


async def test_help_and_palette_commands(crafted_app: ElotuiApp) -> None:
    app = crafted_app
    from elotui.tui.palette import palette_commands
    from elotui.tui.screens.help import HelpScreen

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        titles = {title: cb for title, _, cb in palette_commands(app)}
        for needed in (
            "Threshold 1.0",
            "Threshold none",
            "Toggle method Elo / Bradley–Terry",
            "Pause or resume judging",
            "Export ranking to CSV",
            "Help",
            "Quit",
            "Show pairs",
            "Show diagnostics",
            "Switch theme: elotui-light",
            "Switch theme: elotui-contrast",
            "Scope: judge j2",
        ):
            assert needed in titles
        titles["Switch theme: elotui-light"]()
        titles["Threshold 1.0"]()
        await settle(pilot)
        assert app.theme == "elotui-light"
        assert app.query_one(LeaderboardTable).order() == ["C", "A", "B"]


async def test_broken_user_theme_is_reported_and_the_default_used(
    crafted_tournament: tuple[Tournament, Store],
) -> None:
    from elotui.locations import user_themes_dir

    (user_themes_dir() / "mine.toml").write_text("name = 'mine'\n[colors]\nprimary = 'no-such-colour!'\n")
    tournament, store = crafted_tournament
    app = make_app(tournament, store, start_run=False, theme="mine")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "elotui-dark"
        messages = [n.message for n in app._notifications]
        assert any("mine.toml" in m and "not a colour" in m for m in messages)
        assert app.query_one(LeaderboardTable).order() == ["A", "C", "B"]


async def test_a_user_theme_is_used(
    crafted_tournament: tuple[Tournament, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    from elotui.locations import user_themes_dir

    # two prompts would call no band certain (elotui.rating.small_sample); this test is about a certain band's colour
    monkeypatch.setattr("elotui.rating.small_sample.SMALL_SAMPLE_PROMPTS", 1)

    (user_themes_dir() / "mine.toml").write_text(
        "name = 'mine'\ndark = false\n[colors]\nprimary = '#336699'\n[variables]\nband-moderate = '#aa00aa'\n"
    )
    tournament, store = crafted_tournament
    app = make_app(tournament, store, start_run=False, theme="mine")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "mine"
        await press_and_settle(
            pilot, "1"
        )  # threshold 1.0, Bradley–Terry: C > A by a moderate gap, for certain
        await press_and_settle(pilot, "m")
        table = app.query_one(LeaderboardTable)
        band = table.get_cell_at((0, [c.label.plain for c in table.ordered_columns].index("band")))
        assert str(band) == "moderate" and "#aa00aa" in str(band.style)


def test_unknown_theme_is_bad_input(crafted_tournament: tuple[Tournament, Store]) -> None:
    import pytest

    from elotui.errors import UserError

    tournament, store = crafted_tournament
    with pytest.raises(UserError, match="unknown theme 'nope'.*elotui-contrast"):
        make_app(tournament, store, start_run=False, theme="nope")


async def test_s_saves_an_svg_into_the_chosen_folder_never_over_another(
    crafted_tournament: tuple[Tournament, Store], tmp_path: Path
) -> None:
    tournament, store = crafted_tournament
    folder = tmp_path / "shots"
    folder.mkdir()
    app = make_app(tournament, store, start_run=False)
    app.screenshot_dir = folder
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press_and_settle(pilot, "s")
        await press_and_settle(pilot, "s")
        messages = [n.message for n in app._notifications]
    shots = sorted(folder.glob("*.svg"))
    assert len(shots) == 2 and all(s.read_text(encoding="utf-8").startswith("<svg") for s in shots)
    assert all(str(s) in " ".join(messages) for s in shots)  # the user is told where each one went
    assert list(tmp_path.glob("*.svg")) == []  # nothing written outside the chosen folder
