"""The leaderboard and its rows: order, ranks per group, gaps with their intervals, order confidence and bands.

Order: the groups of the comparison graph, largest first; within a group by rating (ties by id: ratings within
RATING_TIE of each other are one tie, and their gap is 0); for Bradley–Terry, in an order the wins support
(elotui.rating.win_order.follow_wins: never below a contestant it reaches through wins without being reached
back); unranked contestants (no games) last, by id. A gap, its interval, band and order confidence are drawn only
between two rated contestants of one group.

One estimator: the order is the point estimate's, and the gap interval and the order confidence come from the
bootstrap rounds centred on the point estimate (each contestant's rounds shifted so that their median is its
point rating), so that they speak of the order shown. A pair whose order confidence is below one half, or whose
order no path of wins sets (Bradley–Terry), carries `order_uncertain`: the reason, in words.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from elotui.rating.bootstrap import gap_stats
from elotui.rating.games import Games, record
from elotui.rating.identify import Identified, separation_warnings
from elotui.rating.win_order import follow_wins
from elotui.vocab import RATING_TIE, band, by_rating, win_probability


@dataclass(frozen=True)
class LeaderboardRow:
    rank: (
        int | None
    )  # None: unranked (no games); restarts in each group when the comparisons are disconnected
    contestant: str
    rating: float | None  # None when unranked
    ci_low: float | None
    ci_high: float | None
    gap_to_next: float | None  # rating minus the next row's rating (None on the last row of a group)
    win_prob_vs_next: float | None
    band: str | None  # the point gap's band
    wins: int
    losses: int
    draws: int
    games: int
    win_rate: float | None  # (wins + draws/2) / games; None without games
    intervals_overlap_next: bool | None
    gap_ci_low: float | None = None
    gap_ci_high: float | None = None
    order_confidence: float | None = None  # share of bootstrap rounds with this row above the next
    band_range: tuple[str, ...] | None = None  # the bands the gap interval spans (one: the band is certain)
    bound: str | None = None  # kept for the file formats: ratings are never bounds (always None)
    group: int | None = None  # 1-based group of the comparison graph; None when unranked
    order_spread_low: float | None = (
        None  # Elo only: 2.5 % of single-order ratings (not a confidence interval)
    )
    order_spread_high: float | None = None
    # why the order of this row above the next is not established (None: it is): order confidence below one
    # half, or (Bradley–Terry) no path of wins orders the two
    order_uncertain: str | None = None
    # what sets this row above the next (Bradley–Terry): "ratings" (one win component), "wins" (this row's win
    # component reaches the next's, never the other way: the gap's size is the prior's), "unordered" (no path)
    order_basis: str | None = None
    # the fewest verdicts (games) whose removal puts the next row above this one, and whether that is at most 1 %
    # of them (elotui.rating.drop_to_flip; filled in by the JSON export and diagnose, None elsewhere)
    drop_to_flip: int | None = None
    fragile: bool | None = None

    # False: too few prompts for any band to be called certain (elotui.rating.small_sample)
    band_claim: bool = True

    @property
    def band_certain(self) -> bool:
        return self.band_claim and self.band_range is not None and len(self.band_range) == 1


@dataclass(frozen=True)
class Leaderboard:
    rows: list[LeaderboardRow]
    settings: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[dict[str, Any]] = field(default_factory=list)

    def ratings(self) -> dict[str, float]:
        """Every rated contestant's rating; unranked ones are left out."""
        return {row.contestant: row.rating for row in self.rows if row.rating is not None}


@dataclass(frozen=True)
class Rated:
    """What a method gives for a set of games: point ratings, interval, bootstrap rounds, and (Elo) order spread."""

    rating: NDArray[np.float64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    rounds: NDArray[np.float64]  # (R, n); empty without bootstrap
    spread: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None


def build_leaderboard(
    contestants: list[str], g: Games, rated: Rated, ident: Identified, settings: dict[str, Any]
) -> Leaderboard:
    groups = int(ident.component.max()) + 1 if len(ident.component) and ident.component.max() >= 0 else 0
    by_wins = settings.get("method") == "bt" and ident.wins is not None
    ordered: list[list[int]] = [
        _ranked(np.flatnonzero(ident.component == k).tolist(), rated, ident, contestants, by_wins)
        for k in range(groups)
    ]
    unranked = sorted(np.flatnonzero(ident.component < 0).tolist(), key=lambda i: contestants[i])
    rec = record(g)
    gaps = gap_intervals(ordered, rated, ident)
    rows: list[LeaderboardRow] = []
    for k, members in enumerate(ordered):
        for pos, i in enumerate(members):
            nxt = members[pos + 1] if pos + 1 < len(members) else None
            gap = gap_fields(i, nxt, rated, ident, gaps)
            if nxt is not None:
                gap.update(
                    order_fields(i, nxt, ident if by_wins else None, contestants, gap.get("order_confidence"))
                )
            rows.append(_row(i, pos + 1, k + 1 if groups > 1 else 1, contestants, rated, ident, rec, gap))
    rows += [_row(i, None, None, contestants, rated, ident, rec, {}) for i in unranked]
    method = str(settings.get("method", ""))
    warnings = ident.warnings_for(method)
    if by_wins:
        warnings += separation_warnings(ident, contestants, ordered)
    return Leaderboard(rows=rows, settings=settings, counts=dict(g.counts), warnings=warnings)


def _ranked(
    members: list[int], rated: Rated, ident: Identified, contestants: list[str], by_wins: bool
) -> list[int]:
    """A group's members from the highest rating down, ties by id (`vocab.by_rating`); with `by_wins`, moved as
    little as needed to follow the wins (`follow_wins`)."""
    ranked = by_rating(members, lambda i: float(rated.rating[i]), contestants.__getitem__)
    return follow_wins(ranked, ident.wins) if by_wins and ident.wins is not None else ranked


def order_fields(
    i: int, nxt: int, ident: Identified | None, contestants: list[str], confidence: float | None
) -> dict[str, Any]:
    """`order_basis` and `order_uncertain` of row i above row nxt (`ident`: the win order applies)."""
    reasons: list[str] = []
    basis = None
    if ident is not None and ident.wins is not None:
        wins = ident.wins
        same = wins.label[i] == wins.label[nxt]
        basis = "ratings" if same else "wins" if wins.above(i, nxt) else "unordered"
        if basis == "unordered":
            reasons.append(
                f"no path of wins orders {contestants[i]} and {contestants[nxt]}: listed by the penalised ratings"
            )
    if confidence is not None and confidence < 0.5:
        reasons.append(
            f"order confidence {100 * confidence:.0f} % < 50 %: {contestants[nxt]} is above "
            f"{contestants[i]} in most bootstrap rounds"
        )
    return {"order_basis": basis, "order_uncertain": "; ".join(reasons) or None}


def _row(
    i: int,
    rank: int | None,
    group: int | None,
    contestants: list[str],
    rated: Rated,
    ident: Identified,
    rec: dict[str, Any],
    gap: dict[str, Any],
) -> LeaderboardRow:
    games_i = int(rec["games"][i])
    common: dict[str, Any] = {
        "contestant": contestants[i],
        "wins": int(rec["wins"][i]),
        "losses": int(rec["losses"][i]),
        "draws": int(rec["draws"][i]),
        "games": games_i,
        "win_rate": float(rec["win_rate"][i]) if games_i else None,
        "rank": rank,
        "group": group,
    }
    if rank is None:  # no games: no rating at all
        return LeaderboardRow(
            rating=None,
            ci_low=None,
            ci_high=None,
            gap_to_next=None,
            win_prob_vs_next=None,
            band=None,
            intervals_overlap_next=None,
            **common,
        )
    spread = rated.spread
    return LeaderboardRow(
        rating=float(rated.rating[i]),
        ci_low=float(rated.low[i]),
        ci_high=float(rated.high[i]),
        order_spread_low=float(spread[0][i]) if spread is not None else None,
        order_spread_high=float(spread[1][i]) if spread is not None else None,
        **gap,
        **common,
    )


def gap_intervals(
    ordered: list[list[int]], rated: Rated, ident: Identified
) -> dict[tuple[int, int], tuple[float, float, float]]:
    """(gap interval low, high, order confidence) over the bootstrap rounds for each two neighbours of a group
    that are both rated, all in one pass over the rounds; empty without rounds."""
    pairs = [
        (i, nxt)
        for members in ordered
        for i, nxt in itertools.pairwise(members)
        if ident.rated[i] and ident.rated[nxt]
    ]
    if not pairs or not len(rated.rounds):
        return {}
    upper, lower = np.array(pairs, dtype=np.intp).T
    centred = centred_rounds(rated.rounds, rated.rating)
    stats = zip(*(values.tolist() for values in gap_stats(centred, upper, lower)), strict=True)
    return dict(zip(pairs, stats, strict=True))


def centred_rounds(rounds: NDArray[np.float64], rating: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each contestant's bootstrap rounds shifted so that their median is its point rating: the rounds then
    spread around the ratings shown, and the order confidence speaks of the order shown."""
    if not len(rounds):
        return rounds
    shift = rating - np.median(rounds, axis=0)
    shift[~np.isfinite(shift)] = 0.0
    return rounds + shift


def gap_fields(
    i: int,
    nxt: int | None,
    rated: Rated,
    ident: Identified,
    gaps: dict[tuple[int, int], tuple[float, float, float]],
) -> dict[str, Any]:
    """The gap to the next row and how certain it is (only between two rated contestants; the interval and
    the order confidence from `gap_intervals`)."""
    if nxt is None or not (ident.rated[i] and ident.rated[nxt]):
        return {"gap_to_next": None, "win_prob_vs_next": None, "band": None, "intervals_overlap_next": None}
    gap = float(rated.rating[i] - rated.rating[nxt])
    if abs(gap) <= RATING_TIE:  # one tie (see _ranked): not a gap of a few units in the last place
        gap = 0.0
    out: dict[str, Any] = {
        "gap_to_next": gap,
        "win_prob_vs_next": win_probability(gap),
        "band": band(gap),
        "intervals_overlap_next": bool(rated.low[i] <= rated.high[nxt] and rated.low[nxt] <= rated.high[i]),
    }
    if (i, nxt) in gaps:
        low, high, confidence = gaps[i, nxt]
        out.update(
            gap_ci_low=low, gap_ci_high=high, order_confidence=confidence, band_range=band_range(low, high)
        )
    return out


def band_range(low: float, high: float) -> tuple[str, ...]:
    """The bands the size of a gap can have when the gap lies in [low, high] (it may cross zero: then the two
    could be in either order, and the smallest size is 0)."""
    smallest = 0.0 if low <= 0 <= high else min(abs(low), abs(high))
    largest = max(abs(low), abs(high))
    bands = [band(smallest), band(largest)]
    if bands[0] == "practically tied" and bands[1] == "strong":
        bands.insert(1, "moderate")
    return tuple(dict.fromkeys(bands))
