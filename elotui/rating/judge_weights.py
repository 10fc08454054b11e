"""Judge-weighted aggregation: a Bradley–Terry model with a discrimination (weight) per judge, estimated jointly
with the contestants' strengths, no labels needed (the judge-aware Bradley–Terry of "A Judge-Aware Ranking
Framework for Evaluating Large Language Models without Ground Truth", 2026).

Every valid verdict of judge k on (first, second) is a game: P(first wins) = σ(γ_k (s_first − s_second)), a tie
half a win (a weak prior, RIDGE_*, keeps the estimates finite when the data separate). A judge whose verdicts follow the contestants' order closely gets a large γ_k; one that answers
nearly at random gets γ_k → 0 and barely moves the ratings; one that prefers the worse contestant (a reversed
judge: a flipped label, a prompt that asks for the worse answer) gets γ_k < 0, and its verdicts count turned
around. Weights are signed and relative: identified by Σ s = 0 and mean γ = 1 (so the direction of the order is
the one the judges' summed weight favours). A judge whose weight's interval lies below 0 is named as reversed in
`reversed` and `warnings`; when those are most of the judges, a warning says the order's direction rests on
the few others. Being signed, a weight near 0 has an interval on both sides of it, never one pinned to a bound.
Fitted by maximum likelihood (L-BFGS with the analytic gradient, over the verdicts counted by (judge, first,
second)). Ratings on the Elo scale: initial + 400 / ln 10 · s. Intervals: 95 %
percentiles of fits on prompts resampled with replacement.

`weighted_vote_accuracy` compares, per (prompt, pair) with a decisive human majority, the judges' votes summed
with equal weights and with the learned weights (each judge's vote: its wins minus losses for the pair over both
orders) against the human majority, beside each single judge's accuracy on the same items.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.special import expit

from elotui.rating.table import OUTCOME_FIRST, OUTCOME_SECOND, OUTCOME_TIE, VerdictTable
from elotui.vocab import ranked_names

ELO_SCALE = 400 / np.log(10)
RIDGE_WEIGHT = 1e-2  # a weak Gaussian prior on γ - 1 (and, weaker, on s): finite estimates when the data
RIDGE_STRENGTH = 1e-4  # separate (a judge always right, a contestant never beaten); negligible otherwise
ROUNDS = 50


@dataclass(frozen=True)
class Counted:
    judge: NDArray[np.int64]
    first: NDArray[np.int64]
    second: NDArray[np.int64]
    wins: NDArray[np.float64]  # the first-shown contestant's score, summed (ties half)
    games: NDArray[np.float64]
    n_contestants: int
    n_judges: int


def counted(table: VerdictTable, weights: NDArray[np.float64] | None = None) -> Counted:
    """Valid verdicts counted by (judge, first, second); `weights`: a multiplicity per row (a bootstrap round)."""
    valid = table.outcome <= OUTCOME_TIE
    w = np.ones(len(table)) if weights is None else weights
    rows = np.flatnonzero(valid & (w > 0))
    n, k = len(table.contestants), len(table.judges)
    key = (table.judge[rows].astype(np.int64) * n + table.first[rows]) * n + table.second[rows]
    score = np.where(
        table.outcome[rows] == OUTCOME_FIRST, 1.0, np.where(table.outcome[rows] == OUTCOME_SECOND, 0.0, 0.5)
    )
    uniq, inverse = np.unique(key, return_inverse=True)
    wins = np.bincount(inverse, score * w[rows], len(uniq)).astype(np.float64)
    games = np.bincount(inverse, w[rows], len(uniq)).astype(np.float64)
    return Counted(uniq // (n * n), (uniq // n) % n, uniq % n, wins, games, n, k)


def _unpack(x: NDArray[np.float64], n: int, k: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    s = np.append(x[: n - 1], -x[: n - 1].sum())
    weight = np.append(x[n - 1 :], k - x[n - 1 :].sum())  # mean weight 1
    return s, weight


def negative_log_likelihood(x: NDArray[np.float64], c: Counted) -> tuple[float, NDArray[np.float64]]:
    """−log L and its gradient in the free parameters (n − 1 strengths, k − 1 signed weights)."""
    n, k = c.n_contestants, c.n_judges
    s, g = _unpack(x, n, k)
    diff = s[c.first] - s[c.second]
    z = g[c.judge] * diff
    log_p = -np.logaddexp(0.0, -z)  # log σ(z)
    log_q = -np.logaddexp(0.0, z)  # log σ(−z)
    nll = -float((c.wins * log_p + (c.games - c.wins) * log_q).sum())
    nll += 0.5 * (RIDGE_WEIGHT * float((g - 1.0) @ (g - 1.0)) + RIDGE_STRENGTH * float(s @ s))
    dz = c.wins - c.games * expit(z)  # d log L / dz
    pull = dz * g[c.judge]
    ds: NDArray[np.float64] = (
        np.bincount(c.first, pull, n) - np.bincount(c.second, pull, n) - RIDGE_STRENGTH * s
    )
    dg: NDArray[np.float64] = np.bincount(c.judge, dz * diff, k) - RIDGE_WEIGHT * (g - 1.0)
    grad_s = ds[: n - 1] - ds[n - 1]
    grad_g = dg[: k - 1] - dg[k - 1]
    return nll, -np.concatenate([grad_s, grad_g])


def fit(
    c: Counted, start: NDArray[np.float64] | None = None
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(strengths s, signed weights γ) maximising the likelihood."""
    n, k = c.n_contestants, c.n_judges
    x0 = np.r_[np.zeros(n - 1), np.ones(k - 1)] if start is None else start
    bounds = [(-60.0, 60.0)] * (n - 1) + [(-50.0, 50.0)] * (
        k - 1
    )  # keeps the line search's trial points finite
    result = minimize(negative_log_likelihood, x0, args=(c,), jac=True, method="L-BFGS-B", bounds=bounds,
                      options={"maxiter": 2000, "gtol": 1e-10, "ftol": 1e-15})  # fmt: skip
    return _unpack(result.x, n, k)


def judge_weighted(
    table: VerdictTable, *, initial_rating: float = 1000.0, rounds: int = ROUNDS, seed: int = 0
) -> dict[str, Any]:
    """{"weights": {judge: {weight, ci_low, ci_high}}, "ratings": {contestant: {rating, ci_low, ci_high}},
    "ranking", "rounds"}; None-like empty dicts when there is nothing to fit."""
    if len(table.judges) < 2 or len(table.contestants) < 2:
        return {"weights": {}, "ratings": {}, "ranking": [], "rounds": 0}
    c = counted(table)
    s, g = fit(c)
    rng = np.random.default_rng(seed)
    prompts = np.unique(table.prompt)
    boot_s, boot_g = [], []
    for _ in range(rounds if len(prompts) > 1 else 0):
        multiplicity = np.bincount(rng.choice(prompts, len(prompts)), minlength=len(table.prompts))
        bs, bg = fit(counted(table, multiplicity[table.prompt].astype(np.float64)))
        boot_s.append(bs)
        boot_g.append(bg)
    rating = initial_rating + ELO_SCALE * s
    out_ratings = {}
    for i, name in enumerate(table.contestants):
        low, high = _interval([initial_rating + ELO_SCALE * b[i] for b in boot_s])
        out_ratings[name] = {"rating": float(rating[i]), "ci_low": low, "ci_high": high}
    weights = {}
    for j, name in enumerate(table.judges):
        low, high = _interval([b[j] for b in boot_g])
        weights[name] = {"weight": float(g[j]), "ci_low": low, "ci_high": high}
    ranking = ranked_names({name: float(rating[i]) for i, name in enumerate(table.contestants)})
    reversed_ = [name for name, w in weights.items() if w["ci_high"] is not None and w["ci_high"] < 0]
    return {
        "weights": weights,
        "ratings": out_ratings,
        "ranking": ranking,
        "rounds": len(boot_s),
        "reversed": reversed_,
        "warnings": reversal_warnings(weights, reversed_),
    }


def reversal_warnings(weights: Mapping[str, Mapping[str, Any]], reversed_: list[str]) -> list[str]:
    """A warning per reversed judge (its weight's interval below 0), and one when they are most of the judges."""
    out = []
    for name in reversed_:
        w = weights[name]
        out.append(
            f"judge {name} is reversed: it prefers the contestant the other judges rank lower (weight "
            f"{w['weight']:.2f}, 95 % [{w['ci_low']:.2f}, {w['ci_high']:.2f}]); its verdicts count turned around"
        )
    if reversed_ and len(reversed_) * 2 > len(weights):
        others = [name for name in weights if name not in reversed_]
        out.append(
            f"most judges ({', '.join(reversed_)}) are reversed against the weighted order: its direction rests "
            f"on {', '.join(others) or 'no judge'} alone; check the judges' prompts and labels before trusting it"
        )
    return out


def judge_aware_ratings(
    g: Any, *, bootstrap: int, seed: int, unit: str = "prompt"
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Ratings (Elo scale, centred on 0) of games that carry their judges (threshold none), by the judge-aware
    fit, and `bootstrap` rounds of them (prompts, or games, resampled)."""
    judges, judge = np.unique(g.judge, return_inverse=True)
    n, k = g.n_contestants, len(judges)

    def counted_games(w: NDArray[np.float64]) -> Counted:
        key = (judge.astype(np.int64) * n + g.a) * n + g.b
        uniq, inverse = np.unique(key[w > 0], return_inverse=True)
        wins = np.bincount(inverse, (g.score_a * w)[w > 0], len(uniq)).astype(np.float64)
        games = np.bincount(inverse, w[w > 0], len(uniq)).astype(np.float64)
        return Counted(uniq // (n * n), (uniq // n) % n, uniq % n, wins, games, n, max(k, 1))

    if k < 2:  # one judge: its weight is not identified (the plain Bradley–Terry fit, γ = 1)
        k = 1
    ones = np.ones(len(g.a))
    s, _ = fit(counted_games(ones)) if k > 1 else _one_judge(counted_games(ones))
    rng = np.random.default_rng(seed)
    rounds = []
    clusters = g.prompt if unit == "prompt" and len(g.prompt) == len(g.a) else np.arange(len(g.a))
    used = np.unique(clusters)
    for _ in range(bootstrap if len(used) > 1 else 0):
        w = np.bincount(rng.choice(used, len(used)), minlength=int(clusters.max()) + 1)[clusters].astype(
            np.float64
        )
        bs, _ = fit(counted_games(w)) if k > 1 else _one_judge(counted_games(w))
        rounds.append(ELO_SCALE * bs)
    return ELO_SCALE * s, np.array(rounds).reshape(len(rounds), n)


def _one_judge(c: Counted) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    two = Counted(np.r_[c.judge, c.judge + 1], np.r_[c.first, c.first], np.r_[c.second, c.second],
                  np.r_[c.wins, c.wins], np.r_[c.games, c.games], c.n_contestants, 2)  # fmt: skip
    return fit(two)  # the same games twice, as two judges: equal weights by symmetry


def _interval(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def human_items(votes: VerdictTable, n_contestants: int) -> dict[tuple[int, int, int], int]:
    """(prompt, lo, hi) -> the human majority (−1 lo better, 0 tie, +1 hi better), from a votes table."""
    from elotui.rating.human import human_majority

    keys, majority = human_majority(votes, n_contestants)
    n = max(n_contestants, len(votes.contestants), 1)
    return {
        (int(k // (n * n)), int((k // n) % n), int(k % n)): int(m)
        for k, m in zip(keys, majority, strict=True)
    }


def weighted_vote_accuracy(
    table: VerdictTable, human: Mapping[tuple[int, int, int], int], weights: Mapping[str, float]
) -> dict[str, Any]:
    """Accuracy against the human majority (`human`: (prompt, lo, hi) -> −1 lo better, +1 hi better; ties left
    out) of the judges' summed votes, with equal and with the given weights, and of each judge alone."""
    valid = table.outcome <= OUTCOME_TIE
    rows = np.flatnonzero(valid & (table.outcome != OUTCOME_TIE))
    lo = np.minimum(table.first[rows], table.second[rows])
    hi = np.maximum(table.first[rows], table.second[rows])
    first_won = table.outcome[rows] == OUTCOME_FIRST
    winner = np.where(first_won, table.first[rows], table.second[rows])
    vote = np.where(winner == lo, -1, 1)  # per verdict, in the (lo, hi) orientation
    votes: dict[tuple[int, int, int], NDArray[np.float64]] = {}
    k = len(table.judges)
    for p, a, b, j, v in zip(
        table.prompt[rows].tolist(),
        lo.tolist(),
        hi.tolist(),
        table.judge[rows].tolist(),
        vote.tolist(),
        strict=True,
    ):
        votes.setdefault((p, a, b), np.zeros(k))[j] += v
    items = [key for key, h in human.items() if h != 0 and key in votes]
    w_learned = np.array([weights.get(name, 1.0) for name in table.judges])

    def accuracy(w: NDArray[np.float64]) -> float:
        hits = sum(1 for key in items if np.sign(votes[key] @ w) == human[key])
        return hits / len(items) if items else float("nan")

    single = {name: accuracy(np.eye(k)[j]) for j, name in enumerate(table.judges)}
    return {
        "items": len(items),
        "equal_weights": accuracy(np.ones(k)),
        "learned_weights": accuracy(w_learned),
        "single_judges": single,
    }
