"""The diagnostics chart "ratings over the course of the run" ends at the leaderboard's values: its last point is
the leaderboard of the same view (threshold, method, scope); its earlier points say when they are a preview."""

from __future__ import annotations

import pytest

from elotui.rating.leaderboard import RatingOptions, rank
from elotui.rating.table import VerdictTable
from elotui.tui.live_ranking import PREVIEW_ORDERS, LiveRanking, Scope
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
    scope = Scope(judge=judge)
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
    shown = live.cached((threshold, method, scope))[0]
    assert shown is not None and shown.ratings() == board.ratings()
    # the earlier points: Elo with fewer orders than the board is a preview, and says so
    assert trajectory["preview_orders"] == (PREVIEW_ORDERS if method == "elo" else None)
