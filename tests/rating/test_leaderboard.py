"""rank(): gaps, bands, win probabilities, ties sorted by id, every declared contestant, scope, recovery."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from elotui.rating import VerdictTable, rank
from elotui.rating.games import THRESHOLDS, Games
from elotui.rating.identify import Identified
from elotui.rating.leaderboard import (
    Leaderboard,
    Rated,
    RatingOptions,
    band,
    build_leaderboard,
    win_probability,
)
from tests.rating.rating_builders import row, simulate

ROW_FIELDS = [
    "rank",
    "contestant",
    "rating",
    "ci_low",
    "ci_high",
    "gap_to_next",
    "win_prob_vs_next",
    "band",
    "wins",
    "losses",
    "draws",
    "games",
    "win_rate",
    "intervals_overlap_next",
    # how certain (elotui 0.2): the gap's interval, the order confidence, the bands the gap interval spans
    "gap_ci_low",
    "gap_ci_high",
    "order_confidence",
    "band_range",
    "bound",
    "group",
    "order_spread_low",
    "order_spread_high",
    # why an adjacent order is not established, and what sets it (Bradley–Terry: ratings, wins or unordered)
    "order_uncertain",
    "order_basis",
    # how few verdicts the order rests on (filled in by the JSON export and diagnose), and whether the prompts are
    # enough to call a band certain
    "drop_to_flip",
    "fragile",
    "band_claim",
]


def test_row_fields_are_the_contract() -> None:
    from elotui.rating.leaderboard import LeaderboardRow

    assert [f.name for f in dataclasses.fields(LeaderboardRow)] == ROW_FIELDS


def test_bands_and_win_probability() -> None:
    assert band(0) == "practically tied" and band(49.99) == "practically tied"
    assert band(50) == "moderate" and band(150) == "moderate"
    assert band(150.01) == "strong"
    assert win_probability(0) == 0.5
    assert win_probability(100) == pytest.approx(0.64, abs=0.001)
    assert win_probability(200) == pytest.approx(0.76, abs=0.001)


def test_gaps_overlap_and_tie_order() -> None:
    g = Games(np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0), 4, {"verdicts_used": 0})
    rating = np.array([1000.0, 1100.0, 1000.0, 1300.0])
    low, high = rating - 60, rating + 60
    every_one_rated = Identified(np.ones(4, dtype=bool), component=np.zeros(4, dtype=np.int64))
    lb = build_leaderboard(
        ["d", "c", "a", "b"], g, Rated(rating, low, high, np.zeros((0, 4))), every_one_rated, {}
    )
    assert [r.contestant for r in lb.rows] == ["b", "c", "a", "d"]  # equal ratings: by contestant id
    assert [r.rank for r in lb.rows] == [1, 2, 3, 4]
    assert [r.gap_to_next for r in lb.rows] == [200.0, 100.0, 0.0, None]
    assert [r.band for r in lb.rows] == ["strong", "moderate", "practically tied", None]
    assert [r.intervals_overlap_next for r in lb.rows] == [False, True, True, None]
    assert lb.rows[0].win_prob_vs_next == pytest.approx(1 / (1 + 10 ** (-0.5)))
    assert lb.rows[3].win_rate is None and lb.rows[3].games == 0


def test_ratings_equal_to_rounding_are_one_tie_by_id() -> None:
    # "a" and "c" have the same rating but for the last digits, which put "c" a unit in the last place above
    # (the order of a fit's floating-point operations decides that, not the data): one tie, listed by id, a
    # gap of 0 and an order confidence of one half in rounds that tie the same way
    g = Games(np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0), 3, {"verdicts_used": 0})
    tied = 1000.0
    above = np.nextafter(tied, np.inf)
    rating = np.array([tied, 1200.0, above])
    rounds = np.tile(rating, (50, 1))
    rounds[:, 2] = np.nextafter(rounds[:, 0], np.inf)
    rounds[::2, 2] = np.nextafter(rounds[::2, 0], -np.inf)  # the rounds' rounding falls either way
    every_one_rated = Identified(np.ones(3, dtype=bool), component=np.zeros(3, dtype=np.int64))
    lb = build_leaderboard(
        ["a", "b", "c"], g, Rated(rating, rating - 5, rating + 5, rounds), every_one_rated, {}
    )
    assert [r.contestant for r in lb.rows] == ["b", "a", "c"]
    assert lb.rows[1].gap_to_next == 0.0 and lb.rows[1].band == "practically tied"
    assert lb.rows[1].win_prob_vs_next == 0.5
    assert lb.rows[1].order_confidence == 0.5
    # a real difference, however small against the ratings' scale, still orders them
    rating[2] = tied + 1e-6
    lb = build_leaderboard(
        ["a", "b", "c"], g, Rated(rating, rating - 5, rating + 5, np.zeros((0, 3))), every_one_rated, {}
    )
    assert [r.contestant for r in lb.rows] == ["b", "c", "a"]
    assert lb.rows[1].gap_to_next == pytest.approx(1e-6)


def test_every_ranking_lists_ties_as_the_board_does() -> None:
    # the per-category, per-judge and judge-weighted rankings and the TUI's chart use the board's rule too
    from elotui.vocab import ranked_names

    tied = 1000.0
    ratings = {"c": np.nextafter(tied, np.inf), "b": 1200.0, "a": tied, "d": tied - 1e-6}
    assert ranked_names(ratings) == ["b", "a", "c", "d"]


def test_every_declared_contestant_appears_and_counts() -> None:
    rows = [
        row("p", "A", "B", "j", "first"),
        row("p", "B", "A", "j", "tie"),
        row("p", "A", "B", "k", None, status="invalid"),
    ]
    table = VerdictTable.from_rows(rows, contestants=["A", "B", "Z"])
    for method in ("elo", "bt", "online"):
        lb = rank(
            table, threshold="none", method=method, options=RatingOptions(permutations=10, bootstrap=20)
        )
        assert sorted(r.contestant for r in lb.rows) == ["A", "B", "Z"]
        z = next(r for r in lb.rows if r.contestant == "Z")
        assert (z.games, z.wins, z.win_rate) == (0, 0, None)
        a = next(r for r in lb.rows if r.contestant == "A")
        assert (a.wins, a.losses, a.draws, a.games) == (1, 0, 1, 2)
        assert a.win_rate == 0.75  # (1 + 1/2) / 2
        assert lb.counts == {"verdicts_used": 2, "invalid": 1, "failed": 0, "missing": 0, "games": 2}
        assert lb.settings["method"] == method and lb.settings["threshold"] == "none"


def test_scope_prompt_and_judge_subset() -> None:
    rows = [
        row("p", "A", "B", "j1", "first"),
        row("q", "A", "B", "j1", "second"),
        row("q", "A", "B", "j2", "second"),
    ]
    table = VerdictTable.from_rows(rows, contestants=["A", "B"])

    def top(lb: Leaderboard) -> str:
        return lb.rows[0].contestant

    assert (
        top(rank(table, threshold="none", method="bt", prompts=["p"], options=RatingOptions(bootstrap=0)))
        == "A"
    )
    assert (
        top(rank(table, threshold="none", method="bt", prompts=["q"], options=RatingOptions(bootstrap=0)))
        == "B"
    )
    lb = rank(table, threshold="none", method="elo", judges=["j1"], options=RatingOptions(permutations=10))
    assert lb.counts["verdicts_used"] == 2 and lb.rows[0].rating == pytest.approx(1000.0)
    assert rank(table, threshold="none", method="bt", conditions=["lexical"]).counts["verdicts_used"] == 0


@pytest.mark.parametrize("threshold", THRESHOLDS)
@pytest.mark.parametrize("method", ["elo", "bt"])
def test_simulated_tournament_recovers_true_order(threshold: float | str, method: str) -> None:
    qualities = {"q1": 300, "q2": 200, "q3": 100, "q4": 0, "q5": -100, "q6": -200}
    rows = simulate(qualities, prompts=12, judges=5, seed=21, tie_band=0.03)
    table = VerdictTable.from_rows(rows, contestants=sorted(qualities, reverse=True))
    lb = rank(
        table,
        threshold=threshold,
        method=method,
        options=RatingOptions(permutations=30, bootstrap=30, seed=1),
    )
    assert [r.contestant for r in lb.rows] == list(qualities)
    assert all(r.ci_low <= r.rating <= r.ci_high for r in lb.rows)


def test_bt_recovers_quality_gaps() -> None:
    qualities = {"a": 150, "b": 0, "c": -150}
    rows = simulate(qualities, prompts=40, judges=5, seed=8, tie_band=0.0)
    lb = rank(
        VerdictTable.from_rows(rows), threshold="none", method="bt", options=RatingOptions(bootstrap=50)
    )
    ratings = lb.ratings()
    assert ratings["a"] - ratings["b"] == pytest.approx(150, abs=40)
    assert ratings["b"] - ratings["c"] == pytest.approx(150, abs=40)
    assert np.mean(list(ratings.values())) == pytest.approx(1000)


def test_unknown_method_rejected() -> None:
    with pytest.raises(ValueError):
        rank(VerdictTable.from_rows([row("p", "A", "B", "j", "first")]), threshold="none", method="glicko")
