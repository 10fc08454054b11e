"""The leaderboard: ratings for one scope and threshold, ranks, gaps between adjacent ranks, bands.

Gap bands (seed 000 §4.4): Δ < 50 "practically tied", 50 <= Δ <= 150 "moderate", Δ > 150 "strong"; the expected
win probability of a gap is 1 / (1 + 10^(-Δ/400)).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from elotui.rating.bt import bradley_terry
from elotui.rating.elo import online_elo, permutation_elo
from elotui.rating.games import Games, games, record
from elotui.rating.table import VerdictTable
from elotui.vocab import (
    BAND_MODERATE,
    BAND_STRONG,
    BAND_TIED,
    METHODS,
    Method,
    Threshold,
    band,
    check_method,
    parse_threshold,
    win_probability,
)

__all__ = [
    "BAND_MODERATE",
    "BAND_STRONG",
    "BAND_TIED",
    "METHODS",
    "Leaderboard",
    "LeaderboardRow",
    "Method",
    "RatingOptions",
    "band",
    "build_leaderboard",
    "rank",
    "rank_games",
    "ratings_for",
    "win_probability",
]


@dataclass(frozen=True)
class RatingOptions:
    """The rating settings every method shares (from `[ranking]`); `bootstrap` is used by Bradley–Terry only."""

    k_factor: float = 16
    initial_rating: float = 1000
    permutations: int = 100
    bootstrap: int = 200
    seed: int = 0

    @classmethod
    def from_config(cls, ranking: Any) -> RatingOptions:
        """From a `[ranking]` table (elotui.config.RankingConfig)."""
        return cls(
            ranking.k_factor, ranking.initial_rating, ranking.permutations, ranking.bootstrap, ranking.seed
        )

    def replace(self, **changes: Any) -> RatingOptions:
        return dataclasses.replace(self, **changes)

    def as_settings(self) -> dict[str, Any]:
        return {
            "k_factor": float(self.k_factor),
            "initial_rating": float(self.initial_rating),
            "permutations": int(self.permutations),
            "bootstrap": int(self.bootstrap),
            "seed": int(self.seed),
        }


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    contestant: str
    rating: float
    ci_low: float
    ci_high: float
    gap_to_next: float | None  # rating minus the next row's rating (None on the last row)
    win_prob_vs_next: float | None
    band: str | None
    wins: int
    losses: int
    draws: int
    games: int
    win_rate: float | None  # (wins + draws/2) / games; None without games
    intervals_overlap_next: bool | None


@dataclass(frozen=True)
class Leaderboard:
    rows: list[LeaderboardRow]
    settings: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def ratings(self) -> dict[str, float]:
        return {row.contestant: row.rating for row in self.rows}


def rank(
    table: VerdictTable,
    *,
    threshold: Threshold,
    method: str,
    options: RatingOptions | None = None,
    prompts: Iterable[str] | None = None,
    judges: Iterable[str] | None = None,
    conditions: Iterable[str] | None = None,
) -> Leaderboard:
    """Rank every contestant of `table` within a scope (None = all prompts / judges / conditions).

    method "elo": permutation-averaged Elo, interval = 2.5-97.5 % across orders; "bt": Bradley–Terry with
    percentile bootstrap interval; "online": Elo once in arrival order (interval = the rating itself).
    """
    threshold = parse_threshold(threshold)
    check_method(method)
    prompts = list(prompts) if prompts is not None else None
    judges = list(judges) if judges is not None else None
    conditions = list(conditions) if conditions is not None else None
    mask = table.scope_mask(prompts=prompts, judges=judges, conditions=conditions)
    return rank_games(
        table.contestants,
        games(table, threshold, mask),
        threshold=threshold,
        method=method,
        options=options,
        prompts=prompts,
        judges=judges,
        conditions=conditions,
    )


def rank_games(
    contestants: list[str],
    g: Games,
    *,
    threshold: Threshold,
    method: str,
    options: RatingOptions | None = None,
    prompts: list[str] | None = None,
    judges: list[str] | None = None,
    conditions: list[str] | None = None,
) -> Leaderboard:
    """`rank` on games already made for `threshold` within the scope given (which is only recorded in the
    settings), e.g. from `games.games_from_tally`."""
    threshold = parse_threshold(threshold)
    check_method(method)
    options = options or RatingOptions()
    rating, low, high = ratings_for(g, method, options)
    settings = {
        "threshold": threshold,
        "method": method,
        **options.as_settings(),
        "prompts": prompts,
        "judges": judges,
        "conditions": conditions,
    }
    return build_leaderboard(contestants, g, rating, low, high, settings)


def ratings_for(
    g: Games, method: str, options: RatingOptions = RatingOptions()
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rating, ci_low, ci_high) arrays for a set of games."""
    check_method(method)
    o = options
    if method == "elo":
        pe = permutation_elo(
            g, k_factor=o.k_factor, initial_rating=o.initial_rating, permutations=o.permutations, seed=o.seed
        )
        return pe.mean, pe.low, pe.high
    if method == "bt":
        bt = bradley_terry(g, bootstrap=o.bootstrap, seed=o.seed, mean=float(o.initial_rating))
        return bt.rating, bt.low, bt.high
    r = online_elo(g.a, g.b, g.score_a, g.n_contestants, k_factor=o.k_factor, initial_rating=o.initial_rating)
    return r, r.copy(), r.copy()


def build_leaderboard(
    contestants: list[str],
    g: Games,
    rating: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    settings: dict[str, Any],
) -> Leaderboard:
    rec = record(g)
    order = sorted(range(len(contestants)), key=lambda i: (-float(rating[i]), contestants[i]))
    rows: list[LeaderboardRow] = []
    for pos, i in enumerate(order):
        nxt = order[pos + 1] if pos + 1 < len(order) else None
        gap = float(rating[i] - rating[nxt]) if nxt is not None else None
        games_i = int(rec["games"][i])
        rows.append(
            LeaderboardRow(
                rank=pos + 1,
                contestant=contestants[i],
                rating=float(rating[i]),
                ci_low=float(low[i]),
                ci_high=float(high[i]),
                gap_to_next=gap,
                win_prob_vs_next=win_probability(gap) if gap is not None else None,
                band=band(gap) if gap is not None else None,
                wins=int(rec["wins"][i]),
                losses=int(rec["losses"][i]),
                draws=int(rec["draws"][i]),
                games=games_i,
                win_rate=float(rec["win_rate"][i]) if games_i else None,
                intervals_overlap_next=(
                    bool(low[i] <= high[nxt] and low[nxt] <= high[i]) if nxt is not None else None
                ),
            )
        )
    return Leaderboard(rows=rows, settings=settings, counts=dict(g.counts))
