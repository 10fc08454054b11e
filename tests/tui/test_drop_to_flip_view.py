"""The leaderboard's drop_to_flip (how few verdicts each adjacent order rests on): the selected row's detail and
the `!` after a fragile gap equal `elotui export --format json`'s `drop_to_flip` and `fragile`, for the same
tournament and threshold; computed off the UI thread ("…" until then)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from textual.widgets import Static

from elotui.cli import main
from elotui.run.runner import Runner
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from elotui.tui.widgets.gap_detail import FRAGILE_MARK, GapFlip
from elotui.tui.widgets.leaderboard_table import LeaderboardTable
from tests.samples.sample_paths import SAMPLES
from tests.tui.conftest import press_and_settle, settle
from tests.tui.small_terminal import screen_text

VICUNA = SAMPLES / "vicuna80" / "tournament.toml"


@pytest.fixture(scope="module")
def vicuna_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import asyncio

    path = tmp_path_factory.mktemp("vicuna") / "store.sqlite"
    tournament = load_tournament(VICUNA)
    with Store.open_for(tournament, path) as store:
        assert asyncio.run(Runner(tournament, store, no_delay=True).run()).state == "finished"
    return path


def exported(
    store: Path, threshold: str, capsys: pytest.CaptureFixture[str], method: str = "elo"
) -> list[dict[str, object]]:
    args = ["export", str(VICUNA), "--store", str(store), "--format", "json", "--threshold", threshold]
    args += ["--method", method]
    capsys.readouterr()
    assert main([*args, "-o", "-"]) == 0
    rows: list[dict[str, object]] = json.loads(capsys.readouterr().out)["rows"]
    return rows


def as_flips(rows: list[dict[str, object]]) -> dict[tuple[str, str], tuple[object, object]]:
    return {
        (str(up["contestant"]), str(lo["contestant"])): (up["drop_to_flip"], up["fragile"])
        for up, lo in itertools.pairwise(rows)
    }


def shown_flips(flips: dict[tuple[str, str], GapFlip]) -> dict[tuple[str, str], tuple[object, object]]:
    return {pair: (f.drop, f.fragile) for pair, f in flips.items()}


@pytest.mark.parametrize(
    ("key", "threshold", "method"), [("", "0.5", "elo"), ("5", "none", "elo"), ("m", "0.5", "bt")]
)
async def test_the_boards_drop_to_flip_equals_the_json_exports(
    vicuna_store: Path, key: str, threshold: str, method: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = exported(vicuna_store, threshold, capsys, method)
    tournament = load_tournament(VICUNA)
    with Store.open_for(tournament, vicuna_store) as store:
        app = make_app(tournament, store, start_run=False)
        async with app.run_test(size=(160, 45)) as pilot:
            await settle(pilot)
            if key:
                await press_and_settle(pilot, key)
            await settle(pilot)
            table = app.query_one(LeaderboardTable)
            assert table.order() == [r["contestant"] for r in rows]
            flips = table.flips()
            assert shown_flips(flips) == as_flips(rows)
            assert all(not f.stale for f in flips.values())
            for i, (up, lo) in enumerate(itertools.pairwise(rows)):  # each row's detail under the table
                table.move_cursor(row=i)
                await pilot.pause()
                detail = str(app.query_one("#row-detail", Static).render())
                assert f"above {lo['contestant']}: Δ " in detail
                drop = (
                    f"drop_to_flip {up['drop_to_flip']} "
                    if up["drop_to_flip"] is not None
                    else "drop_to_flip "
                )
                assert drop in detail and detail.endswith("— fragile") == bool(up["fragile"]), detail
            table.move_cursor(row=0)
            await pilot.pause()
            lines = screen_text(app)
            for up in rows[:-1]:  # `!` after the gap of exactly the fragile ones
                line = next(x for x in lines if f" {up['contestant']} " in x and "%" in x)
                assert (f"{FRAGILE_MARK} " in line) == bool(up["fragile"]), line
    if (
        threshold == "0.5" and method == "elo"
    ):  # this sample's vicuna-13b above gpt-3.5 rests on 4 games of 1,600
        assert as_flips(rows)[("vicuna-13b", "gpt-3.5")] == (4, True)


async def test_the_detail_reads_an_ellipsis_until_the_counts_come_then_the_count(vicuna_store: Path) -> None:
    tournament = load_tournament(VICUNA)
    with Store.open_for(tournament, vicuna_store) as store:
        app = make_app(tournament, store, start_run=False)
        async with app.run_test(size=(80, 24)) as pilot:
            while app.board is None or app._busy("rank"):  # the board, before its drop_to_flip counts
                await pilot.pause()
            table = app.query_one(LeaderboardTable)
            if not table.flips():  # (on a slow machine the counts may not have come yet)
                detail = str(app.query_one("#row-detail", Static).render())
                assert detail.endswith("drop_to_flip …"), detail
            await settle(pilot)
            detail = str(app.query_one("#row-detail", Static).render())
            assert "drop_to_flip 75 games (4.7%)" in detail, detail
            lines = screen_text(app)
            assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
            assert any(line.strip().startswith(f"{FRAGILE_MARK} after Δ: fragile") for line in lines)
