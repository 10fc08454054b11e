"""Bradley–Terry: against direct numerical maximisation, degenerate data, mirror symmetry, bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from elotui.rating import VerdictTable, games
from elotui.rating.bt import _slopes, bradley_terry, fit_theta, log_likelihood, to_elo, win_matrix
from elotui.rating.games import Games
from tests.rating.rating_builders import simulate


def _games(a: list[int], b: list[int], s: list[float], n: int) -> Games:
    return Games(np.array(a, dtype=np.int32), np.array(b, dtype=np.int32), np.array(s, dtype=float), n, {})


def test_two_players_closed_form() -> None:
    # 3 wins to 1: MLE p_A / p_B = 3, Elo gap = 400 log10(3) = 190.85; mean 1000
    g = _games([0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 0], 2)
    r = bradley_terry(g, bootstrap=0, prior=0.0).rating
    assert r[0] - r[1] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert r.mean() == pytest.approx(1000.0)


def test_draw_counts_half_a_win_each_way() -> None:
    g = _games([0, 0, 0], [1, 1, 1], [1, 0.5, 0], 2)  # 1.5 : 1.5
    r = bradley_terry(g, bootstrap=0, prior=0.0).rating
    assert r.tolist() == pytest.approx([1000.0, 1000.0])
    assert win_matrix(g).tolist() == [[0, 1.5], [1.5, 0]]


def test_matches_direct_numerical_maximisation() -> None:
    rows = simulate({"A": 120, "B": 40, "C": 0, "D": -30, "E": -150}, prompts=3, judges=2, seed=11)
    g = games(VerdictTable.from_rows(rows), "none")
    wins = win_matrix(g)
    for prior in (0.0, 0.01, 1.0):
        ours = fit_theta(wins, prior)

        def negative(theta: np.ndarray, prior: float = prior) -> float:
            return (
                -log_likelihood(np.r_[theta, 0.0], wins, prior)
                if prior == 0
                else -log_likelihood(theta, wins, prior)
            )

        x0 = np.zeros(4 if prior == 0 else 5)  # without a prior one strength is fixed (identifiability)
        res = optimize.minimize(negative, x0, method="BFGS", options={"gtol": 1e-10})
        theirs = np.r_[res.x, 0.0] if prior == 0 else res.x
        np.testing.assert_allclose(to_elo(ours), to_elo(theirs), atol=1e-3)
        assert log_likelihood(ours, wins, prior) >= log_likelihood(theirs, wins, prior) - 1e-9


def test_zero_games_all_wins_and_disconnected_do_not_crash() -> None:
    # A beats B every time, C beats D every time (two components), E never plays
    g = _games([0, 0, 2], [1, 1, 3], [1, 1, 1], 5)
    res = bradley_terry(g, bootstrap=50, seed=1)
    r = res.rating
    assert np.isfinite(r).all() and np.isfinite(res.low).all() and np.isfinite(res.high).all()
    assert r.mean() == pytest.approx(1000.0)
    assert r[0] > r[4] > r[1] and r[2] > r[4] > r[3]
    assert r[4] == pytest.approx(1000.0, abs=1e-6)  # no games: at the mean (the prior's centre)
    assert r[0] == pytest.approx(2000 - r[1])  # symmetric component


def test_swapping_a_and_b_mirrors_ratings() -> None:
    rows = simulate({"A": 80, "B": 0, "C": -40}, prompts=3, judges=2, seed=2)
    table = VerdictTable.from_rows(rows, contestants=["A", "B", "C"])
    swap = {"A": "B", "B": "A", "C": "C"}
    swapped_rows = [(p, swap[f], swap[s], j, c, k, st, w) for p, f, s, j, c, k, st, w in rows]
    swapped = VerdictTable.from_rows(swapped_rows, contestants=["A", "B", "C"])
    for t in ("none", 0.5, 1.0):
        x = bradley_terry(games(table, t), bootstrap=0).rating
        y = bradley_terry(games(swapped, t), bootstrap=0).rating
        np.testing.assert_allclose(x, y[[1, 0, 2]], atol=1e-8)


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    rows = simulate({"A": 100, "B": 0, "C": -100}, prompts=5, judges=3, seed=4)
    g = games(VerdictTable.from_rows(rows), "none")
    x = bradley_terry(g, bootstrap=100, seed=3)
    y = bradley_terry(g, bootstrap=100, seed=3)
    z = bradley_terry(g, bootstrap=100, seed=4)
    np.testing.assert_array_equal(x.low, y.low)
    assert not np.array_equal(x.low, z.low)
    assert (x.low <= x.rating).all() and (x.rating <= x.high).all()
    assert x.bootstrap.shape == (100, 3)
    np.testing.assert_allclose(x.bootstrap.mean(axis=1), 1000.0)
    # the bootstrap spread is close to the asymptotic standard error scale: a few tens of points here
    assert 5 < (x.high - x.low).mean() < 200


def test_batched_fit_equals_single_fits() -> None:
    rng = np.random.default_rng(0)
    batch = rng.integers(0, 5, size=(4, 6, 6)).astype(float)
    for i in range(4):
        np.fill_diagonal(batch[i], 0)
    together = fit_theta(batch)
    for i in range(4):
        np.testing.assert_allclose(together[i], fit_theta(batch[i]), atol=1e-9)


def _tanh_slopes(
    theta: np.ndarray, games: np.ndarray, won: np.ndarray, prior: float
) -> tuple[np.ndarray, ...]:
    """The gradient and curvature written out with sigma from tanh (what _slopes computed before)."""
    p = 0.5 * (1.0 + np.tanh(0.5 * (theta[:, :, None] - theta[:, None, :])))
    return won - (games * p).sum(axis=2) - prior * theta, games * p * (1.0 - p)


@pytest.mark.parametrize("spread", [0.1, 5.0, 60.0, 1500.0])
def test_slopes_equal_the_tanh_form_at_every_spread(spread: float) -> None:
    # e_i / (e_i + e_j) with e = exp(theta - max) is sigma(theta_i - theta_j) to rounding; past SPREAD_EXP the
    # exponentials would underflow to 0 / 0 for two weak contestants (1500 here): the tanh form takes over
    rng = np.random.default_rng(7)
    theta = rng.uniform(-spread / 2, spread / 2, size=(6, 12))
    theta[:, :2] = -spread / 2  # two at the bottom: at 2 * SPREAD_EXP both e would be 0
    games = rng.integers(0, 30, size=(6, 12, 12)).astype(float)
    games += np.swapaxes(games, 1, 2)
    won = rng.uniform(0, 100, size=(6, 12))
    with np.errstate(all="raise"):  # no overflow, underflow to zero or 0 / 0 on either path
        grad, curv = _slopes(theta, games, won, 0.01)
    ref_grad, ref_curv = _tanh_slopes(theta, games, won, 0.01)
    assert np.isfinite(grad).all() and np.isfinite(curv).all()
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(curv, ref_curv, rtol=1e-10, atol=1e-12)
