"""Bradley–Terry maximum likelihood on the Elo scale, with bootstrap intervals.

Model: P(i beats j) = p_i / (p_i + p_j) = sigma(theta_i - theta_j), theta = ln p. A draw counts as half a win for
each side, so the data are the win matrix W[i, j] = wins of i over j + draws / 2.

Reported rating = 1000 + 400 log10(p_i) with the strengths normalised so the ratings' mean is 1000 (the mean over
every declared contestant).

Regularisation (documented choice): the log-likelihood gets a Gaussian prior -prior/2 * sum(theta^2) with
`prior = 0.01` by default. It only matters where the MLE does not exist: a contestant with no games sits at the
mean, one with all wins (or all losses) gets a large but finite rating instead of +-infinity, and disconnected
groups of contestants are put on one scale. With the usual hundreds of games per contestant it moves ratings by
a small fraction of a point.

The fit is Newton's method with step halving on the (strictly concave) penalised log-likelihood, batched over
bootstrap rounds and warm-started at the point fit. Bootstrap (elotui.rating.bootstrap): by prompt (default: each
round draws the prompts with replacement and refits on their games) or by game (B multinomial draws over the
distinct (pair, outcome) game types, the same as drawing G games with replacement); the interval is the
2.5-97.5 % percentile range of the refitted ratings, and the rounds are kept for the gaps' intervals and the order
confidence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from elotui.rating.bootstrap import (
    BootstrapUnit,
    clusters_of,
    percentile_interval,
    prompt_win_rounds,
    small_sample_corrected,
)
from elotui.rating.games import Games

DEFAULT_PRIOR = 0.01
SPREAD_EXP = 600.0  # natural-log strengths further apart than this: sigma by tanh (exp(-745) is 0)
_SCALE = 400.0 / math.log(10.0)  # theta (natural log) -> Elo points


@dataclass(frozen=True)
class BTResult:
    rating: NDArray[np.float64]  # (n,)
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    bootstrap: NDArray[np.float64]  # (rounds, n), may be empty


def win_matrix(g: Games) -> NDArray[np.float64]:
    """W[i, j] = wins of i over j, a draw counting half for each side."""
    n = g.n_contestants
    flat = np.bincount(g.a.astype(np.int64) * n + g.b, weights=g.score_a, minlength=n * n)
    flat += np.bincount(g.b.astype(np.int64) * n + g.a, weights=1.0 - g.score_a, minlength=n * n)
    # numpy's stub types bincount as NDArray[intp] always; with float weights it returns float64
    return flat.reshape(n, n)  # type: ignore[return-value]


def log_likelihood(
    theta: NDArray[np.float64], wins: NDArray[np.float64], prior: float = DEFAULT_PRIOR
) -> float:
    """Penalised log-likelihood of natural-log strengths `theta` given the win matrix."""
    diff = theta[:, None] - theta[None, :]
    return float(-(wins * np.logaddexp(0.0, -diff)).sum() - 0.5 * prior * (theta**2).sum())


def fit_theta(
    wins: NDArray[np.float64],
    prior: float = DEFAULT_PRIOR,
    *,
    tol: float = 1e-10,
    max_iter: int = 100,
    start: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Maximum-likelihood natural-log strengths for one (n, n) or a batch (B, n, n) of win matrices; `start`
    (n,) warm-starts every fit (the optimum is unique: only the number of Newton steps changes)."""
    batched = wins.ndim == 3
    w = wins if batched else wins[None]
    bsz, n, _ = w.shape
    games = w + np.swapaxes(w, 1, 2)
    won = w.sum(axis=2)
    theta = np.zeros((bsz, n)) if start is None else np.tile(start, (bsz, 1))
    grad, curv = _slopes(theta, games, won, prior)
    active = np.ones(bsz, dtype=bool)
    diagonal = np.arange(n)
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        if len(idx) == 0:
            break
        every = len(idx) == bsz  # all fits still running: their arrays as they are, no copies
        th, g, c = (theta, grad, curv) if every else (theta[idx], grad[idx], curv[idx])
        games_i, won_i = (games, won) if every else (games[idx], won[idx])
        # The negated Hessian, made in c: off-diagonal -curv, diagonal (sum of curv) + prior (positive definite;
        # negating is exact, so this is bit for bit the negation of the Hessian)
        row_sums = c.sum(axis=2) - np.diagonal(c, axis1=1, axis2=2) + prior
        negated = np.negative(c, out=c)
        negated[:, diagonal, diagonal] = row_sums
        if (
            prior == 0.0
        ):  # the likelihood alone is flat along theta + c: pin the mean (the step stays Newton's)
            negated += 1.0 / n
        step = np.linalg.solve(negated, g[:, :, None])[:, :, 0]
        del negated, c
        # Step halving on the squared gradient (the Newton step descends it; its one zero is the optimum):
        # each trial's gradient and curvature are the next iteration's, so no separate objective is evaluated.
        merit = (g * g).sum(axis=1)
        t = np.ones(len(idx))
        for _halving in range(30):
            trial = th + t[:, None] * step
            g_trial, c_trial = _slopes(trial, games_i, won_i, prior)
            better = (g_trial * g_trial).sum(axis=1) <= (1.0 - 1e-4 * t) * merit
            better |= np.abs(t[:, None] * step).max(axis=1) < tol  # at the optimum: rounding noise only
            if better.all():
                break
            t = np.where(better, t, 0.5 * t)
        if every:
            theta, grad, curv = trial, g_trial, c_trial
        else:
            theta[idx], grad[idx], curv[idx] = trial, g_trial, c_trial
        done = np.abs(t[:, None] * step).max(axis=1) < tol
        active[idx[done]] = False
    return theta if batched else theta[0]


def _slopes(
    theta: NDArray[np.float64], games: NDArray[np.float64], won: NDArray[np.float64], prior: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(gradient (B, n), curvature n_ij p_ij (1 - p_ij) (B, n, n)) of the penalised log-likelihood at `theta`.

    p_ij = sigma(theta_i - theta_j) = e_i / (e_i + e_j) with e = exp(theta - max theta): n exponentials a fit
    and two multiplications and a reciprocal a cell, instead of a tanh a cell (3x faster; the same values to a
    few units in the last place). Where a fit's strengths spread over more than SPREAD_EXP (e would underflow
    for two of them), the cells take sigma from tanh, which holds at any distance."""
    top = theta.max(axis=1, keepdims=True)
    if (top - theta.min(axis=1, keepdims=True)).max(initial=0.0) > SPREAD_EXP:
        p = 0.5 * (1.0 + np.tanh(0.5 * (theta[:, :, None] - theta[:, None, :])))  # sigma(d), stable
        grad = won - (games * p).sum(axis=2) - prior * theta
        p *= 1.0 - p
        p *= games
        return grad, p
    e = np.exp(theta - top)
    per = e[:, :, None] + e[:, None, :]
    np.reciprocal(per, out=per)  # 1 / (e_i + e_j)
    cells = games * per
    cells *= e[:, :, None]  # n_ij p_ij
    grad = won - cells.sum(axis=2) - prior * theta
    cells *= e[:, None, :]
    cells *= per  # n_ij e_i e_j / (e_i + e_j)^2 = n_ij p_ij (1 - p_ij)
    return grad, cells


def to_elo(theta: NDArray[np.float64], mean: float = 1000.0) -> NDArray[np.float64]:
    """1000 + 400 log10(p) with the ratings' mean at `mean` (last axis)."""
    ratings = theta * _SCALE
    return ratings - ratings.mean(axis=-1, keepdims=True) + mean


def point_ratings(
    wins: NDArray[np.float64], prior: float = DEFAULT_PRIOR, mean: float = 1000.0
) -> NDArray[np.float64]:
    """The ratings `bradley_terry` gives without a bootstrap, from the games' win matrix alone."""
    return to_elo(fit_theta(wins, prior), mean)


def bradley_terry(
    g: Games,
    *,
    bootstrap: int = 200,
    seed: int = 0,
    prior: float = DEFAULT_PRIOR,
    mean: float = 1000.0,
    unit: BootstrapUnit = "prompt",
) -> BTResult:
    """Ratings on the Elo scale and percentile bootstrap intervals (`bootstrap` rounds by `unit`, seeded)."""
    n = g.n_contestants
    theta = fit_theta(win_matrix(g), prior)
    rating = to_elo(theta, mean)
    if bootstrap <= 0 or len(g) == 0:  # the point fit: `point_ratings` of the win matrix
        return BTResult(rating, rating.copy(), rating.copy(), np.zeros((0, n)))
    if unit == "prompt" and len(g.prompt) == len(g):
        wins = prompt_win_rounds(g, bootstrap, seed)
    else:
        wins = _game_win_rounds(g, bootstrap, seed)
    # A few fits at a time: the Newton steps' (B, n, n) arrays of ~2 MB stay in the processor's cache through a
    # step's passes over them (all 200 rounds at once, 16 MB arrays at 100 contestants: ~10 % slower at 1M)
    chunk = max(1, min(bootstrap, int(2.5e5 // max(n * n, 1))))
    samples = np.empty((bootstrap, n))
    for start in range(0, bootstrap, chunk):
        samples[start : start + chunk] = to_elo(
            fit_theta(wins[start : start + chunk], prior, start=theta), mean
        )
    samples = small_sample_corrected(samples, clusters_of(g, unit))
    low, high = percentile_interval(samples)
    return BTResult(rating, low, high, samples)


def _game_win_rounds(g: Games, bootstrap: int, seed: int) -> NDArray[np.float64]:
    """(rounds, n, n) win matrices of the game bootstrap: multinomial draws over the distinct game types."""
    n = g.n_contestants
    swap = g.a > g.b
    lo = np.where(swap, g.b, g.a).astype(np.int64)
    hi = np.where(swap, g.a, g.b).astype(np.int64)
    s = np.where(swap, 1.0 - g.score_a, g.score_a)
    outcome = np.rint(s * 2).astype(np.int64)  # 0 loss, 1 draw, 2 win for lo
    type_key = (lo * n + hi) * 3 + outcome
    kinds, type_counts = np.unique(type_key, return_counts=True)
    k_pair = kinds // 3
    k_lo, k_hi = k_pair // n, k_pair % n
    k_score = (kinds % 3) / 2.0
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(len(g), type_counts / type_counts.sum(), size=bootstrap).astype(np.float64)
    # kinds are sorted by pair: sum each pair's kinds with reduceat, then every pair owns two distinct cells
    pair_start = np.flatnonzero(np.r_[True, k_pair[1:] != k_pair[:-1]])
    cell_lo = (k_lo * n + k_hi)[pair_start]
    cell_hi = (k_hi * n + k_lo)[pair_start]
    flat = np.zeros((bootstrap, n * n))
    flat[:, cell_lo] = np.add.reduceat(draws * k_score, pair_start, axis=1)
    flat[:, cell_hi] = np.add.reduceat(draws * (1.0 - k_score), pair_start, axis=1)
    return flat.reshape(bootstrap, n, n)
