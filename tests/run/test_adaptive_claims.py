"""The adaptive planner's claims: its status is read from the same board as the one shown (same bootstrap rounds
and seed), and "settled" stops the run only once confirmed by a second look (bench_adaptive measures the claims'
level per world)."""

from __future__ import annotations

from elotui.plan.adaptive import AdaptivePlanner, UnitKey, settlement
from elotui.rating.leaderboard import RatingOptions, rank
from elotui.rating.table import VerdictTable
from tests.rating.rating_builders import simulate

QUALITIES = {"A": 300, "B": 0, "C": -300}
PROMPTS = 40


def _rows_of(units: set[UnitKey]) -> list[tuple]:
    rows = simulate(QUALITIES, prompts=PROMPTS, judges=2, seed=2)
    keep = {(u[0], u[1], u[2]) for u in units} | {(u[0], u[2], u[1]) for u in units}
    return [r for r in rows if (r[0], r[1], r[2]) in keep]


def _planner(options: RatingOptions) -> AdaptivePlanner:
    pairs = [("A", "B"), ("A", "C"), ("B", "C")]
    units: list[UnitKey] = [(f"p{p}", a, b, "clean", 0) for p in range(PROMPTS) for a, b in pairs]
    return AdaptivePlanner(units, list(QUALITIES), options, settle_confidence=0.95, seed=1)


def test_the_status_is_read_from_the_board_shown() -> None:
    options = RatingOptions(bootstrap=200, seed=3)
    planner = _planner(options)
    bought = set(planner.units[:30])
    table = VerdictTable.from_rows(_rows_of(bought), contestants=list(QUALITIES))
    shown = rank(table, threshold="none", method="bt", options=options)
    used = planner.board(table)
    assert [r.order_confidence for r in used.rows] == [r.order_confidence for r in shown.rows]
    assert used.settings["interval"]["rounds"] == 200
    assert settlement(used, 0.95) == settlement(shown, 0.95)


def test_settled_stops_only_when_a_second_look_confirms_it() -> None:
    planner = _planner(RatingOptions(bootstrap=100, seed=3))
    bought = set(planner.units[:60])  # 20 prompts of every pair: 300 points apart, settled at once
    table = VerdictTable.from_rows(_rows_of(bought), contestants=list(QUALITIES))
    batch, state = planner.choose(table, bought, 4)
    assert state.done and not state.confirmed and batch  # first settled look: buy a confirmation batch
    assert "(to confirm)" in state.describe()
    assert all(u not in bought for u in batch)
    bought |= set(batch)
    table = VerdictTable.from_rows(_rows_of(bought), contestants=list(QUALITIES))
    batch, state = planner.choose(table, bought, 4)
    assert batch == [] and state.done and state.confirmed
    assert "(confirmed)" in state.describe()
