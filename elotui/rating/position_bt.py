"""Bradley–Terry with a first-slot advantage per judge, for verdicts shown in one order.

`[ranking] position_effect = true`: every valid verdict of judge k on (first, second) is one observation with
    P(first wins) = σ(s_first + h_k − s_second),
a tie counted as half a win each — as the leaderboard's Bradley–Terry counts it, so the ratings are on the same
scale (a Davidson tie parameter would stretch the scale; not used). One home advantage h_k per judge. With both
orders judged, h_k is what the order
adds; with one seeded random order per presentation (`both_orders = false`), position bias becomes an estimated
term instead of noise, so half the calls rank close to both orders. h_k on the Elo scale (400 / ln 10 · h) is a
direct measure of a judge's position bias in rating points (positive: it favours Response A).

Maximum likelihood (L-BFGS, analytic gradient) over the verdicts counted by (judge, first, second) with
Σ s = 0; a weak prior (RIDGE) keeps estimates finite when the data separate. Intervals: prompt bootstrap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.special import expit

from elotui.rating.radix import unique_ints

ELO_SCALE = 400 / np.log(10)
RIDGE = 1e-4


@dataclass(frozen=True)
class Tallied:
    judge: NDArray[np.int64]
    first: NDArray[np.int64]
    second: NDArray[np.int64]
    wins: NDArray[np.float64]  # first-shown wins
    losses: NDArray[np.float64]
    ties: NDArray[np.float64]
    n: int
    k: int


@dataclass(frozen=True)
class Cells:
    """The (judge, first, second) cells of a set of games: each cell's key (judge·n² + first·n + second), each
    game's cell, and which games the first-shown response won, lost and tied. Found once; a bootstrap round only
    re-weights the games (one sort of 10^6 keys took ~45 ms a round, three weighted counts take ~10)."""

    key: NDArray[np.int64]
    of: NDArray[np.intp]
    n: int
    k: int
    won: NDArray[np.bool_]
    lost: NDArray[np.bool_]
    tied: NDArray[np.bool_]


def cells(g: Any) -> Cells:
    """The cells of games of threshold none that carry judge codes (their keys and codes as np.unique gives
    them, found by a count over the keys' range instead of a sort: 10^6 games 0.19 -> 0.03 s)."""
    codes = np.asarray(g.judge)
    judges, _, judge = unique_ints(codes, int(codes.max()) + 1 if len(codes) else 1)
    n = g.n_contestants
    keys = (judge.astype(np.int64) * n + g.a) * n + g.b
    key, _, of = unique_ints(keys, max(1, len(judges)) * n * n)
    score = g.score_a
    return Cells(key, of, n, len(judges), score == 1.0, score == 0.0, score == 0.5)


def tally(g: Any, weights: NDArray[np.float64] | None = None, c: Cells | None = None) -> Tallied:
    """Games of threshold none (with judge codes) counted by (judge, first, second): the cells holding a game of
    positive weight. A game of weight 0 adds exactly 0.0 to its cell's counts, so they equal counts over the
    weighted games alone, bit for bit."""
    c = c if c is not None else cells(g)
    n, m = c.n, len(c.key)
    w = np.ones(len(g.a)) if weights is None else weights
    wins = np.bincount(c.of, w * c.won, m).astype(np.float64)
    losses = np.bincount(c.of, w * c.lost, m).astype(np.float64)
    ties = np.bincount(c.of, w * c.tied, m).astype(np.float64)
    present = np.bincount(c.of, w > 0, m) > 0
    key = c.key[present]
    return Tallied(
        key // (n * n), (key // n) % n, key % n, wins[present], losses[present], ties[present], n, c.k
    )


def _nll(x: NDArray[np.float64], t: Tallied) -> tuple[float, NDArray[np.float64]]:
    n, k = t.n, t.k
    s = np.append(x[: n - 1], -x[: n - 1].sum())
    h = x[n - 1 : n - 1 + k]
    z = s[t.first] + h[t.judge] - s[t.second]
    total = t.wins + t.losses + t.ties
    y = t.wins + t.ties / 2  # a tie: half a win each, as the leaderboard's Bradley–Terry counts it
    nll = float((y * np.logaddexp(0.0, -z) + (total - y) * np.logaddexp(0.0, z)).sum()) + 0.5 * RIDGE * float(
        s @ s
    )
    dz = y - total * expit(z)  # d log L / dz
    ds = np.bincount(t.first, dz, n) - np.bincount(t.second, dz, n) - RIDGE * s
    dh = np.bincount(t.judge, dz, k)
    return nll, -np.concatenate([ds[: n - 1] - ds[n - 1], dh])


def fit(
    t: Tallied, start: NDArray[np.float64] | None = None
) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """(strengths s, per-judge first-slot advantages h, the share of ties among the verdicts)."""
    n, k = t.n, t.k
    x0 = np.zeros(n - 1 + k) if start is None else start
    bounds = [(-60.0, 60.0)] * (n - 1) + [(-20.0, 20.0)] * k
    result = minimize(_nll, x0, args=(t,), jac=True, method="L-BFGS-B", bounds=bounds,
                      options={"maxiter": 3000, "gtol": 1e-10, "ftol": 1e-15})  # fmt: skip
    x = result.x
    s = np.append(x[: n - 1], -x[: n - 1].sum())
    total = float((t.wins + t.losses + t.ties).sum())
    return s, x[n - 1 : n - 1 + k], float(t.ties.sum()) / total if total else 0.0


def first_slot_advantage(
    table: Any, *, rounds: int = 50, seed: int = 0
) -> dict[str, dict[str, float | None]]:
    """Per judge: its fitted first-slot advantage in Elo points, with a 95 % prompt-bootstrap interval."""
    from elotui.rating.games import games

    g = games(table, "none")
    if len(g.a) == 0 or g.n_contestants < 2:
        return {}
    _, _, extra = position_aware_ratings(g, bootstrap=rounds, seed=seed)
    out: dict[str, dict[str, float | None]] = {}
    for i, code in enumerate(extra["judges"]):
        column = extra["advantage_rounds"][:, i] if len(extra["advantage_rounds"]) else np.zeros(0)
        low, high = np.percentile(column, [2.5, 97.5]) if len(column) else (None, None)
        out[table.judges[code]] = {
            "elo_points": float(extra["advantage"][i]),
            "ci_low": None if low is None else float(low),
            "ci_high": None if high is None else float(high),
        }
    return out


def position_aware_ratings(
    g: Any, *, bootstrap: int, seed: int, unit: str = "prompt"
) -> tuple[NDArray[np.float64], NDArray[np.float64], dict[str, Any]]:
    """(ratings on the Elo scale centred on 0, bootstrap rounds of them, {"judges", "advantage": per judge code
    (Elo points), "advantage_rounds", "tie_share"}) for games of threshold none that carry judge codes."""
    c = cells(g)
    s, h, nu = fit(tally(g, None, c))
    rng = np.random.default_rng(seed)
    clusters = g.prompt if unit == "prompt" and len(g.prompt) == len(g.a) else np.arange(len(g.a))
    used = np.unique(clusters)
    rounds, h_rounds = [], []
    for _ in range(bootstrap if len(used) > 1 else 0):
        w = np.bincount(rng.choice(used, len(used)), minlength=int(clusters.max()) + 1)[clusters].astype(
            np.float64
        )
        bs, bh, _ = fit(tally(g, w, c))
        rounds.append(ELO_SCALE * bs)
        h_rounds.append(ELO_SCALE * bh)
    judges = np.unique(g.judge)
    extra = {
        "judges": judges.tolist(),
        "advantage": (ELO_SCALE * h).tolist(),
        "advantage_rounds": np.array(h_rounds).reshape(len(h_rounds), len(judges)),
        "tie_share": nu,
    }
    return ELO_SCALE * s, np.array(rounds).reshape(len(rounds), g.n_contestants), extra
