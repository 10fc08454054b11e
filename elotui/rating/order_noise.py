"""Elo's bootstrap rounds without their order noise: how many orders a round plays, and how much of the rounds'
spread is left once the noise of averaging a few random orders is taken out.

The permutation-averaged Elo of a set of games is the mean final rating over random orders of them. One order's
final rating scatters around that mean by the "order spread" (sd sigma, ~37 points at K = 16, whatever the
number of games: the last few hundred games set it). A bootstrap round averages m orders of its resampled
games, so its spread across rounds is the resampling's variance V plus sigma^2 / m; V shrinks as prompts are
added (as 1 / prompts) while sigma^2 / m does not. The interval must show V, plus the point estimate's own order
noise sigma^2 / P (P orders, `[ranking] permutations`), which is small but not nil.

The ratio sigma^2 / V grows with the data (sigma^2 stays, V shrinks), so no fixed number of orders keeps the
order noise a small part of the rounds' spread. Where the games are many (`averages_tails`: at least
TAIL_GAMES_PER_CONTESTANT per contestant at K = 16, more at a smaller K), a round plays TAIL_ORDERS orders and
takes each order's ratings averaged over the second half of its games (the "tail average": by then the start
is forgotten, so its mean over orders is the mean final rating, measured: within the orders' own noise), whose
order noise shrinks as 1 / games like V (~12x below one order's at 5,000 games, ~45x at 20,000): its share of the
rounds' spread stays about 0.4 whatever the size. The rounds are then as many as a budget of game updates allows
(`elo_round_count`: between MIN_ROUNDS and the requested ones) and cost about what the point estimate does.
Below that size:
- Rounds play as many orders as a budget of game updates allows (`orders_per_round`: up to 32 for small
  tournaments, 1 for huge ones), so that sigma^2 / m is a small part of the rounds' spread where it is cheap.
- sigma^2 is measured on the point estimate's P orders (a precise variance: P - 1 degrees of freedom), pooled with
  the orders' spread within the rounds where they play more than one, and V = total - sigma^2 / m is floored at
  one standard error of the rounds' total variance (never a zero-width interval, no jump from "corrected" to
  "uncorrected" where the estimate crosses zero).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

ELO_STEP_BUDGET = 40_000_000  # game updates the rounds may play (~0.1-0.2 s natively)
MAX_ORDERS_PER_ROUND = 32
TAIL_GAMES_PER_CONTESTANT = 400  # at K = 16: the first half of the games holds ~15 times Elo's memory
TAIL_ORDERS = 2  # a round's tail-averaged orders (two: their spread measures the order noise left)
TAIL_BUDGET = 20_000_000  # game updates the tail-averaged rounds may play
MIN_ROUNDS = 50


def averages_tails(n_games: int, n: int, k_factor: float) -> bool:
    """Whether the rounds take each order's tail average: where the first half of the games is long enough for
    Elo to forget its start (its memory is ~1 / K games per contestant)."""
    return k_factor > 0 and n_games >= TAIL_GAMES_PER_CONTESTANT * n * 16.0 / k_factor


def elo_round_count(requested: int, n_games: int, n: int, k_factor: float) -> int:
    """The bootstrap rounds Elo plays: the requested ones, or, where the rounds take tail averages, as many as
    TAIL_BUDGET game updates allow, but at least MIN_ROUNDS (and never more than requested)."""
    if requested <= 0 or not averages_tails(n_games, n, k_factor):
        return max(requested, 0)
    return int(min(requested, max(MIN_ROUNDS, TAIL_BUDGET // (TAIL_ORDERS * max(n_games, 1)))))


def orders_per_round(n_games: int, rounds: int, budget: int = ELO_STEP_BUDGET) -> int:
    """How many random orders each bootstrap round averages: as many as `budget` game updates allow over
    `rounds` rounds of `n_games` games, between 1 and MAX_ORDERS_PER_ROUND."""
    if n_games <= 0 or rounds <= 0:
        return 1
    return int(np.clip(budget // (rounds * n_games), 1, MAX_ORDERS_PER_ROUND))


def pooled_order_variance(
    within: NDArray[np.float64] | None,
    within_df: int,
    point: NDArray[np.float64] | None,
    point_df: int,
) -> NDArray[np.float64]:
    """One order's variance per contestant, pooled (weighted by degrees of freedom) from the rounds' within-round
    variances (`within`, their mean, on `within_df` degrees of freedom) and the point estimate's orders (`point`,
    on `point_df`)."""
    parts = [(v, df) for v, df in ((within, within_df), (point, point_df)) if v is not None and df > 0]
    if not parts:
        raise ValueError("no estimate of the order variance: rounds of one order need the point's orders")
    total_df = sum(df for _, df in parts)
    return sum(v * (df / total_df) for v, df in parts)  # type: ignore[return-value]


def order_variance_of(
    within: NDArray[np.float64], orders: int, point: NDArray[np.float64] | None
) -> NDArray[np.float64]:
    """One order's variance per contestant from the rounds' within-round variances (`within`: (rounds, n), each
    round's variance over its `orders` orders) and the point estimate's orders' final ratings (`point`: (P, n)),
    whichever there are."""
    rounds = len(within)
    return pooled_order_variance(
        within.mean(axis=0) if orders > 1 else None,
        rounds * (orders - 1),
        point.var(axis=0, ddof=1) if point is not None and len(point) > 1 else None,
        len(point) - 1 if point is not None else 0,
    )


def resampling_scale(
    round_means: NDArray[np.float64],
    round_noise: NDArray[np.float64],
    point_noise: NDArray[np.float64] | float,
) -> NDArray[np.float64]:
    """Per contestant, the factor that scales the rounds' deviations from their mean to the spread the point
    estimate has: the resampling's variance (the rounds' variance less the order noise of a round's mean,
    `round_noise`, floored at one standard error of that variance) plus the point's own order noise
    (`point_noise`: one order's variance over the point's orders)."""
    rounds = len(round_means)
    n = round_means.shape[1] if round_means.ndim == 2 else 0
    if rounds < 2:
        return np.ones(n)
    total = round_means.var(axis=0, ddof=1)
    standard_error = total * np.sqrt(2.0 / (rounds - 1))
    target = np.maximum(total - round_noise, standard_error) + point_noise
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, np.sqrt(target / total), 1.0)
