"""drop_to_flip: the fewest games whose removal reverses an adjacent order, checked against an exhaustive search
over every subset of games (an independent brute force) on small tournaments, for Bradley–Terry and Elo."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from elotui.rating import VerdictTable, games
from elotui.rating.drop_to_flip import FRAGILE_SHARE, Flip, fewest_to_flip
from elotui.rating.games import Games
from elotui.rating.leaderboard import RatingOptions, ratings_for
from tests.rating.rating_builders import simulate


def _rate(method: str):  # type: ignore[no-untyped-def]
    options = RatingOptions(bootstrap=0, permutations=20, seed=3)
    return lambda g: ratings_for(g, method, options).rating


def _brute_force(g: Games, upper: int, lower: int, method: str, most: int) -> int | None:
    """Every subset of games of size 0..most, in order of size: the first that puts lower above upper."""
    rate = _rate(method)
    for size in range(most + 1):
        for drop in itertools.combinations(range(len(g)), size):
            keep = np.ones(len(g), dtype=bool)
            keep[list(drop)] = False
            r = rate(g.select(keep))
            if r[lower] > r[upper]:
                return size
    return None


def _small(seed: int, qualities: dict[str, float]) -> Games:
    rows = simulate(qualities, prompts=2, judges=1, seed=seed, tie_band=0.1)
    return games(VerdictTable.from_rows(rows, contestants=list(qualities)), "none")


@pytest.mark.parametrize("method", ["bt", "elo"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_fewest_equals_an_exhaustive_search_on_small_tournaments(method: str, seed: int) -> None:
    g = _small(seed, {"A": 60, "B": 20, "C": -40})  # 12 games
    r = _rate(method)(g)
    order = list(np.argsort(-r))
    for upper, lower in itertools.pairwise(order):
        flip = fewest_to_flip(g, int(upper), int(lower), _rate(method))
        truth = _brute_force(g, int(upper), int(lower), method, most=4)
        if truth is None:  # more than four games: ours must say more than four too (or none)
            assert flip.drop is None or flip.drop > 4
            continue
        assert flip.drop == truth
        assert flip.exact and len(flip.dropped) == truth
        assert truth == 0 or _drop_flips(g, flip.dropped, int(upper), int(lower), _rate(method))


def _drop_flips(g: Games, dropped: tuple[int, ...], upper: int, lower: int, rate) -> bool:  # type: ignore[no-untyped-def]
    keep = np.ones(len(g), dtype=bool)
    keep[list(dropped)] = False
    r = rate(g.select(keep))
    return bool(r[lower] > r[upper])


@pytest.mark.parametrize("method", ["bt", "elo"])
def test_the_guided_count_flips_when_refitted_and_beats_a_naive_search(method: str) -> None:
    rows = simulate({"A": 40, "B": 30, "C": -20, "D": -60}, prompts=30, judges=3, seed=5)
    g = games(VerdictTable.from_rows(rows), "none")
    rate = _rate(method)
    r = rate(g)
    upper, lower = (int(i) for i in np.argsort(-r)[:2])
    flip = fewest_to_flip(g, upper, lower, rate)
    assert flip.drop is not None and 0 < flip.drop < len(g) and flip.games == len(g)
    assert len(flip.dropped) == flip.drop and _drop_flips(g, flip.dropped, upper, lower, rate)
    # a naive search, independent of the influence guide: drop upper's wins over lower one by one
    wins = np.flatnonzero(
        ((g.a == upper) & (g.b == lower) & (g.score_a == 1))
        | ((g.b == upper) & (g.a == lower) & (g.score_a == 0))
    )
    naive = next(k for k in range(1, len(wins) + 1) if _drop_flips(g, tuple(wins[:k]), upper, lower, rate))
    assert flip.drop <= naive


def test_fragile_is_one_percent_of_the_games_or_fewer() -> None:
    assert Flip(0, 1, 2, 200, True).fragile
    assert not Flip(0, 1, 3, 200, True).fragile
    assert not Flip(0, 1, None, 200, False).fragile
    assert FRAGILE_SHARE == 0.01
    assert Flip(0, 1, 5, 1000, False).share == 0.005


def test_an_order_already_reversed_needs_no_drop() -> None:
    g = _small(0, {"A": 60, "B": 20, "C": -40})
    r = _rate("bt")(g)
    top, bottom = int(np.argmax(r)), int(np.argmin(r))
    assert fewest_to_flip(g, bottom, top, _rate("bt")).drop == 0


def test_a_search_out_of_refits_says_so_instead_of_guessing() -> None:
    rows = simulate({"A": 40, "B": 30, "C": -20}, prompts=20, judges=3, seed=5)
    g = games(VerdictTable.from_rows(rows), "none")
    rate = _rate("bt")
    r = rate(g)
    upper, lower = (int(i) for i in np.argsort(-r)[:2])
    flip = fewest_to_flip(g, upper, lower, rate, refits=2)
    assert flip.drop is None and not flip.searched and not flip.fragile
    assert fewest_to_flip(g, upper, lower, rate).searched


def test_bound_rows_and_other_groups_get_no_count() -> None:
    from elotui.rating.drop_to_flip import board_flips
    from elotui.rating.leaderboard import rank
    from tests.rating.rating_builders import row

    rows = simulate({"A": 60, "B": 0, "C": -60}, prompts=4, judges=2, seed=3)
    rows += [
        row(f"p{p}", "U", "A", "j0", "first") for p in range(4)
    ]  # U beats A every time: unbeaten, above A by its wins alone
    table = VerdictTable.from_rows(rows)
    board = rank(table, threshold="none", method="bt", options=RatingOptions(bootstrap=20))
    g = games(table, "none")
    flips = board_flips(board, table.contestants, g, RatingOptions(bootstrap=20))
    named = {(table.contestants[f.upper], table.contestants[f.lower]) for f in flips}
    assert all("U" not in pair for pair in named)
    assert any(r.order_basis == "wins" for r in board.rows) and len(flips) >= 1


def _random_games(seed: int, threshold: str) -> Games:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 6))
    qualities = {f"m{i}": float(q) for i, q in enumerate(rng.normal(0, 60, n))}
    rows = simulate(qualities, prompts=int(rng.integers(3, 9)), judges=int(rng.integers(1, 4)), seed=seed)
    return games(VerdictTable.from_rows(rows, contestants=list(qualities)), threshold)  # type: ignore[arg-type]


@pytest.mark.parametrize("threshold", ["none", 0.5])
@pytest.mark.parametrize("seed", range(6))
def test_refits_from_win_counts_are_the_refits_of_the_games_kept(threshold: str, seed: int) -> None:
    """The Bradley–Terry refit from the whole win matrix less the dropped games' gives the very ratings (to the
    last bit) of refitting the games kept, and so every search finds the same flips."""
    from elotui.rating.drop_to_flip import Searched, by_win_counts, exact_win_counts, search_flip

    g = _random_games(seed, threshold)
    options = RatingOptions(bootstrap=0, initial_rating=1200, seed=3)
    rate = lambda games_kept: ratings_for(games_kept, "bt", options).rating  # noqa: E731
    searched = Searched(g)
    fast = by_win_counts(searched, mean=1200.0)
    assert exact_win_counts(g)
    rng = np.random.default_rng(100 + seed)
    for size in (0, 1, 2, len(g) // 3, len(g) - 1, len(g)):
        dropped = np.sort(rng.choice(len(g), size=size, replace=False)).astype(np.intp)
        keep = np.ones(len(g), dtype=bool)
        keep[dropped] = False
        assert np.array_equal(fast(dropped), rate(g.select(keep)))
    order = [int(i) for i in np.argsort(-rate(g))]
    for upper, lower in itertools.pairwise(order):
        for refits in (None, 9):
            assert search_flip(searched, upper, lower, fast, refits) == fewest_to_flip(
                g, upper, lower, rate, refits
            )


def test_a_board_refits_from_counts_only_where_that_is_the_same_fit() -> None:
    from elotui.rating.drop_to_flip import Searched, _point_refit, by_selection

    g = _random_games(1, "none")
    halves = Games(g.a, g.b, np.where(g.score_a == 0.5, 0.25, g.score_a), g.n_contestants, {})
    plain = RatingOptions(bootstrap=0)
    assert _point_refit(Searched(g), "bt", plain).__qualname__.startswith("by_win_counts")
    # a split score (not a sum of halves), Elo, and a per-judge model refit the games kept
    assert _point_refit(Searched(halves), "bt", plain).__qualname__.startswith("by_selection")
    assert _point_refit(Searched(g), "elo", plain).__qualname__.startswith("by_selection")
    judged = plain.replace(position_effect=True)
    assert _point_refit(Searched(g), "bt", judged).__qualname__.startswith(by_selection.__name__)


@pytest.mark.parametrize("seed", range(4))
def test_the_guide_ranks_games_by_cell_in_the_order_of_their_own_changes(seed: int) -> None:
    """The influence guide computed once per cell (pair and score) lists the games exactly as computing each
    game's change and sorting them (stable) does."""
    from elotui.rating.drop_to_flip import Searched, _guided_plan

    g = _random_games(seed, "none")
    by_cell, by_game = Searched(g), Searched(g)
    assert by_cell.cells is not None
    by_game.__dict__["cells"] = None  # the per-game computation
    for upper, lower in itertools.permutations(range(g.n_contestants), 2):
        plan = _guided_plan(by_cell, upper, lower)
        assert np.array_equal(plan, _guided_plan(by_game, upper, lower))
