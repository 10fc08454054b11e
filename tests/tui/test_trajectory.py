"""The diagnostics chart "ratings over the course of the run" ends at the leaderboard's values: its last point is
the leaderboard of the same view (threshold, method, scope); its earlier points say when they are a preview."""

from __future__ import annotations

import pytest

from elotui.rating.leaderboard import RatingOptions, rank
from elotui.rating.table import VerdictTable
from elotui.tui.state.live_ranking import PREVIEW_ORDERS, LiveRanking, ViewScope
from tests.rating.rating_builders import simulate

QUALITIES = {"a": 1.2, "b": 0.9, "c": 0.85, "d": 0.3, "e": 0.0}
OPTIONS = RatingOptions(permutations=60, bootstrap=20, seed=3)


@pytest.mark.parametrize("method", ["elo", "bt"])
@pytest.mark.parametrize("threshold", ["none", 0.5])
@pytest.mark.parametrize("judge", [None, "j1"])
def test_the_last_point_is_the_leaderboard(method: str, threshold, judge: str | None) -> None:
    rows = simulate(QUALITIES, prompts=6, judges=2, seed=5)
    table = VerdictTable.from_rows(rows, contestants=list(QUALITIES))
    live = LiveRanking(table, OPTIONS)
    scope = ViewScope(judge=judge)
    trajectory = live.trajectory(threshold, method, points=6, scope=scope)
    assert trajectory["done"][-1] == len(rows) and len(trajectory["done"]) == 6
    # the board the leaderboard shows for this view, computed here on its own
    board = rank(
        VerdictTable.from_rows(rows, contestants=list(QUALITIES)),
        threshold=threshold,
        method=method,
        options=OPTIONS,
        judges=[judge] if judge else None,
    )
    last = {c: values[-1] for c, values in trajectory["ratings"].items()}
    assert last == board.ratings()  # exactly: the same permutations, the same fit
    shown = live.cached((threshold, method, scope, ()))[0]
    assert shown is not None and shown.ratings() == board.ratings()
    # the earlier points: Elo with fewer orders than the board is a preview, and says so
    assert trajectory["preview_orders"] == (PREVIEW_ORDERS if method == "elo" else None)


def test_on_vicuna80_the_chart_ends_at_the_board() -> None:
    # the sample's own settings (threshold 0.5, Elo, 100 permutations): the chart's last point is the board
    from elotui.tournament.model import load_tournament
    from elotui.verdict_log import read_log
    from tests.samples.sample_paths import SAMPLES

    tournament = load_tournament(SAMPLES / "vicuna80" / "tournament.toml")
    rows = [
        (
            v["prompt"],
            v["first"],
            v["second"],
            v["judge"],
            v["condition"],
            v["sample"],
            v["status"],
            v["winner"],
        )
        for v in read_log(SAMPLES / "vicuna80" / "verdicts.jsonl.gz")
    ]
    options = RatingOptions.from_config(tournament.spec.ranking).replace(bootstrap=20)
    live = LiveRanking(VerdictTable.from_rows(rows, contestants=tournament.contestant_ids), options)
    trajectory = live.trajectory(0.5, "elo", points=4)
    board = rank(
        VerdictTable.from_rows(rows, contestants=tournament.contestant_ids),
        threshold=0.5,
        method="elo",
        options=options,
    )
    assert {c: v[-1] for c, v in trajectory["ratings"].items()} == board.ratings()
    last_order = sorted(board.ratings(), key=lambda c: -trajectory["ratings"][c][-1])
    assert last_order == [r.contestant for r in board.rows]
