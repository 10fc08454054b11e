"""80x24 keeps what matters: during a run, the leaderboard keeps rank, contestant (14 characters whole, a longer
name cut with an ellipsis), rating, interval, Δ, order and band; the header keeps done/total, rate, ETA, failed and
cost, each count labelled with its scope; the footer starts with `? help  q quit`; the pairs list keeps the names.
Wider terminals add P(win), then W/L/D, win rate and games; what a narrow one leaves out is shown for the selected
contestant under the table. Read from the screen as the terminal shows it (tests.tui.small_terminal.screen_text)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import Static

from elotui.run.events import Progress, RunStarted
from elotui.run.runner import Runner
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from elotui.tui.widgets.leaderboard_table import LeaderboardTable, fit_columns
from elotui.tui.widgets.pair_detail import response_shown
from elotui.tui.widgets.pairs_table import pair_columns
from tests.run.fakes import FakeWorld
from tests.tui.conftest import press_and_settle, settle
from tests.tui.crafted import crafted, write_tournament
from tests.tui.small_terminal import EMPTY_PROMPT, FOURTEEN, LONG, SHORT, run_small, screen_text
from tests.tui.test_live import wait_for

HEADERS = ("#", "contestant", "rating", "interval", "Δ next", "order", "band")


def running(done: int, total: int) -> Progress:
    return Progress(
        done=done,
        total=total,
        cached=6,
        failed=1,
        invalid=2,
        in_flight=3,
        rate_per_s=2.5,
        eta_s=95.0,
        input_tokens=12_000,
        output_tokens=3_000,
        cost=0.0421,
        estimated_total_cost=0.0675,
        elapsed_s=12.0,
    )


def header_line(lines: list[str]) -> str:
    return next(line for line in lines if "contestant" in line and "rating" in line)


async def test_an_80x24_terminal_shows_what_matters_during_a_run(tmp_path: Path) -> None:
    tournament, store = await run_small(tmp_path)
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.on_run_event(RunStarted(total=48, cached=6, run_id=2))
        app.on_run_event(running(30, 48))
        await settle(pilot)
        app._refresh_status()
        await pilot.pause()
        lines = screen_text(app)
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        header = header_line(lines)
        assert all(f" {name} " in f" {header} " for name in HEADERS)
        assert "P(win)" not in header and "W/L/D" not in header
        board = [line for line in lines if line[:6].strip() in ("1", "2", "3")]
        assert len(board) == 3
        assert [row.count("%") for row in board] == [1, 1, 0]  # the order confidence (the last has no next)
        shown = "\n".join(board)
        assert f" {FOURTEEN} " in shown  # 14 characters, whole
        cuts = [LONG[:k] + "…" for k in range(14, len(LONG))]
        assert (
            any(cut in shown for cut in cuts) and LONG not in shown
        )  # cut with an ellipsis, after 14+ characters
        for row in board:
            assert any(band in row for band in ("tied", "moderate", "strong", "—"))
            assert "–" in row  # the interval
        status = "\n".join(lines[:3])
        assert "RUNNING" in status
        assert "tournament: 30/48 calls (62%) · cost $0.0421 of ~$0.0675" in lines[1]
        assert lines[2].strip().startswith("this run: 2.5 calls/s · ETA 1m35s · failed 1 · invalid 2")
        assert lines[-1].strip().startswith("? help  q quit")
    store.close()


@pytest.mark.parametrize(
    ("size", "extra", "left_out"),
    [
        ((80, 24), (), ("P(win)", "W/L/D", "win rate", "games")),
        ((100, 30), ("P(win)",), ("W/L/D", "win rate", "games")),
        ((160, 45), ("P(win)", "W/L/D", "games", "win rate"), ()),
    ],
)
async def test_wider_terminals_add_columns_and_a_narrow_one_shows_them_for_the_selected_row(
    tmp_path: Path, size: tuple[int, int], extra: tuple[str, ...], left_out: tuple[str, ...]
) -> None:
    tournament, store = await run_small(tmp_path)
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        lines = screen_text(app)
        header = header_line(lines)
        assert all(name in header for name in (*HEADERS, *extra))
        assert not any(name in header for name in left_out)
        detail = [line for line in lines if line.strip().startswith(f"{SHORT} · ")]
        assert len(detail) == 1  # the first row is selected: under the table, its figures
        figures = detail[0].split(" · above ")[0]  # of the columns left out, then its gap to the next in full
        assert all(f"{name} " in figures for name in left_out)
        assert not any(
            f"{name} " in figures for name in ("W/L/D", "win rate", "games") if name not in left_out
        )
        assert "drop_to_flip" in "\n".join(lines)
        assert lines[-1].strip().startswith("? help  q quit")
    store.close()


def test_the_required_columns_fit_80_columns_and_the_name_keeps_14_characters() -> None:
    for longest in (6, 14, 26, 40, 200):
        columns = fit_columns(80 - 2, longest)
        names = [n for n, _ in columns]
        assert set(HEADERS) <= set(names) and [n for n in names if n in HEADERS] == list(HEADERS)
        assert longest < 14 or names == list(HEADERS)  # short names leave room for P(win)
        assert sum(w + 2 for _, w in columns) <= 78
        assert dict(columns)["contestant"] >= min(longest, 15)
    assert [n for n, _ in fit_columns(158, 26)][-4:] == ["band", "W/L/D", "games", "win rate"]


async def test_the_pairs_list_keeps_the_names_at_80_columns(tmp_path: Path) -> None:
    tournament, store = await run_small(tmp_path)
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press_and_settle(pilot, "v")
        lines = screen_text(app)
        header = next(line for line in lines if "pair" in line and "stability" in line)
        assert "preferred" in header  # whole: it was cut to "prefe" at 80 columns
        assert any(f"{FOURTEEN[:11]}… vs {LONG[:11]}…" in line for line in lines)
        assert lines[-1].strip().startswith("? help  q quit  / search")
    store.close()
    assert [n for n, _ in pair_columns(80)] == ["prompt", "pair", "stability", "c·p·i", "preferred"]
    assert len(pair_columns(140)) == 7


def test_an_empty_response_is_called_empty_not_missing() -> None:
    assert response_shown("") == "(empty response)"
    assert response_shown(" \n\t") == "(empty response)"
    assert response_shown(None) == "(no response recorded yet)"
    assert response_shown("Hi \x1b[31mthere") == "Hi there"


async def test_the_pair_detail_says_empty_response(tmp_path: Path) -> None:
    tournament, store = await run_small(tmp_path)
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await press_and_settle(pilot, "v")
        pane = app.query_one("#pairs-pane")
        row = next(
            i for i, s in enumerate(pane.shown_pairs) if s.prompt == EMPTY_PROMPT and SHORT in (s.a, s.b)
        )
        app.query_one("#pairs-table").move_cursor(row=row)
        await settle(pilot)
        text = "\n".join(screen_text(app))
        assert "(empty response)" in text and "(no response recorded yet)" not in text
    store.close()


async def test_without_a_run_the_header_counts_are_the_tournaments(tmp_path: Path) -> None:
    tournament, store = await run_small(tmp_path)
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = screen_text(app)
        assert "STORED VERDICTS" in lines[1] and "tournament: 48/48 calls (100%)" in lines[1]
        assert lines[2].strip() == "tournament: failed 0 · invalid 0"
        assert any(line.strip().startswith("tournament: games 24 · verdicts used 48") for line in lines)
        assert any(line.strip().startswith("Judges (2) · tournament: done 48/48") for line in lines)
    store.close()


async def test_an_80x24_terminal_during_a_real_run_with_calls_in_flight(tmp_path: Path) -> None:
    """The real Runner, its judges held at a gate (calls in flight): the header shows the run's own progress."""
    tournament = load_tournament(write_tournament(tmp_path / "t", max_concurrency=2, labels={"A": LONG}))
    store = Store(tmp_path / "store.sqlite")
    world = FakeWorld(quality={"A": 3, "C": 2, "B": 1})
    world.gate = asyncio.Event()

    def runner(t, s, *, on_event, max_cost):  # type: ignore[no-untyped-def]
        return Runner(t, s, on_event=on_event, max_cost=max_cost, judge_factory=world.factory)

    app = make_app(tournament, store, runner_factory=runner)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(lambda: world.in_flight >= 2 and app.monitor.progress is not None)
        app._refresh_status()
        await pilot.pause()
        lines = screen_text(app)
        assert "RUNNING" in lines[1] and "tournament: 0/36 calls (0%)" in lines[1]
        assert lines[2].strip().startswith("this run: ") and "ETA " in lines[2] and "failed 0" in lines[2]
        assert all(f" {name} " in f" {header_line(lines)} " for name in HEADERS)
        assert lines[-1].strip().startswith("? help  q quit")
        world.gate.set()
        await wait_for(lambda: app.monitor.result is not None)
        await settle(pilot)
        app._refresh_status()
        await pilot.pause()
        lines = screen_text(app)
        assert "FINISHED" in lines[1] and "tournament: 36/36 calls (100%)" in lines[1]
        assert any(f"A ({LONG[:12]}" in line and "…" in line for line in lines)  # cut with an ellipsis
    store.close()


async def test_the_boards_counts_say_when_they_are_of_a_scope(tmp_path: Path) -> None:
    tournament, store = await run_small(tmp_path)
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.set_scope_judge("j2")
        await settle(pilot)
        counts = [line.strip() for line in screen_text(app) if "verdicts used" in line]
        assert counts == ["tournament, in this scope: games 24 · verdicts used 24 · invalid 0 · failed 0"]
    store.close()


async def test_the_line_under_the_board_follows_the_top_row_until_a_contestant_is_chosen(
    tmp_path: Path,
) -> None:
    tournament, store = crafted(tmp_path)
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one(LeaderboardTable)
        detail = app.query_one("#row-detail", Static)

        def under() -> str:
            return str(detail.render()).split(" · ")[0]

        assert table.order() == ["A", "C", "B"] and under() == "A"
        await press_and_settle(pilot, "1")  # threshold 1.0: C first; nobody chose A, the cursor stays on top
        assert table.order()[0] == "C" and table.cursor_row == 0 and under() == "C"
        table.focus()
        await press_and_settle(pilot, "down")  # A chosen
        assert under() == "A"
        await press_and_settle(pilot, "4")  # A first again: the cursor follows it
        assert table.order()[0] == "A" and table.cursor_row == 0 and under() == "A"
        await press_and_settle(pilot, "1")
        assert table.cursor_row == table.order().index("A") == 1 and under() == "A"
    store.close()


def test_wide_terminals_give_the_room_left_to_the_contestants_names() -> None:
    from elotui.rating.pair_summary import PairSummary
    from elotui.tui.widgets.pairs_table import pair_cells

    assert pair_columns(80, 26) == pair_columns(80)  # no room: 12 characters, as before
    wide = dict(pair_columns(160, 26))
    assert wide["preferred"] == 26 and wide["pair"] == 2 * 26 + 4
    assert sum(w + 2 for w in wide.values()) <= 160 - 2  # still fits beside the scrollbar
    assert dict(pair_columns(200, 14))["preferred"] == 14  # never wider than the longest name
    a, b = "mixtral-8x7b-instruct-v0.1", "mixtral-8x22b-instruct-v0.1"
    s = PairSummary(prompt="q1", a=a, b=b, preference=b)
    at_160 = [c.plain for c in pair_cells(s, pair_columns(160, len(b)), "")]
    assert f"{a} vs {b}" in at_160 and b in at_160
    at_80 = [c.plain for c in pair_cells(s, pair_columns(80, len(b)), "")]
    assert "mixtral-8x7… vs mixtral-8x2…" in at_80


def test_the_footer_leaves_out_a_key_that_would_be_cut() -> None:
    from textual.widgets._footer import FooterKey

    from elotui.tui.widgets.footer import fitting, key_width

    def key(k: str, description: str, classes: str = "") -> FooterKey:
        return FooterKey(k, k, description, f"do_{k}", classes=classes)

    keys = [key("?", "help"), key("q", "quit"), key("p", "pause"), key("e", "export CSV")]
    palette = key("^p", "palette", classes="-command-palette")
    assert [key_width(k, compact=False) for k in keys] == [8, 8, 9, 14]  # " ? help " and so on
    shown = [w.description for w in fitting([*keys, palette], 12 + 8 + 8 + 9 + 13, compact=False)]
    assert shown == ["help", "quit", "pause", "palette"]  # `export CSV` would be cut by one cell: left out
    shown = [w.description for w in fitting([*keys, palette], 12 + 8 + 8 + 9 + 14, compact=False)]
    assert shown == ["help", "quit", "pause", "export CSV", "palette"]


def test_the_counts_columns_widen_for_large_numbers_instead_of_cutting_them() -> None:
    """A 10^6-battle import's W/L/D (`240874/108933/51010`) and games (`1000000`) are wider than the fixed columns:
    the columns take their widths (at 160 columns every optional column still fits), never cutting a number."""
    from types import SimpleNamespace

    from elotui.tui.widgets.leaderboard_table import COLUMNS, count_widths, fit_columns

    row = SimpleNamespace(wins=240874, losses=108933, draws=51010, games=1000000)
    counts = count_widths(SimpleNamespace(rows=[row]))  # type: ignore[arg-type]
    assert counts == {"W/L/D": len("240874/108933/51010"), "games": 7}
    shown = dict(fit_columns(158, 26, counts=counts))
    assert shown["W/L/D"] == 19 and shown["games"] == 7 and len(shown) == len(COLUMNS)
    small = dict(
        fit_columns(
            158,
            26,
            counts=count_widths(SimpleNamespace(rows=[SimpleNamespace(wins=5, losses=3, draws=1, games=9)])),
        )
    )  # type: ignore[arg-type]
    assert small["W/L/D"] == dict(COLUMNS)["W/L/D"] and small["games"] == dict(COLUMNS)["games"]
