"""Per-pair summaries for the pairs screen: stability class (seed 002 §3.2, by `elotui.rating.stability.unit_class`)
and judge agreement, from the store's plan verdict tuples. No Textual here.

A *unit* is one (prompt, pair, judge, condition, sample) judged in both orders:
consistent (the same contestant wins both), position bias (both decisive, the same slot wins both), inconclusive
(a tie, or an invalid / failed / missing verdict in either order). A pair is "position bias" if any of its units is,
"consistent" if all complete units are, "inconclusive" otherwise; "pending" before any unit is complete, and
"one order" when the plan shows it in one order only.

Judge agreement: each judge's preferred contestant for the pair (sign of its wins minus losses over its valid
verdicts, a tie = 0); the share of judges whose preference equals the most common one.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from elotui.rating.stability import UNIT_CONSISTENT, UNIT_POSITION_BIAS, unit_class
from elotui.rating.table import outcome_code
from elotui.records import PlanVerdict

PairKey = tuple[str, str, str]  # (prompt, a, b)
UnitKey = tuple[str, str, int]  # (judge, condition, sample)
CONSISTENT, POSITION_BIAS, INCONCLUSIVE, PENDING, ONE_ORDER = (
    "consistent",
    "position bias",
    "inconclusive",
    "pending",
    "one order",
)


@dataclass
class PairSummary:
    prompt: str
    a: str  # the contestant shown first in the "AB" order (declaration order)
    b: str
    klass: str = PENDING
    units: int = 0
    flips: int = 0
    verdicts: int = 0
    judges_voting: int = 0
    agreement: float | None = None  # share of judges agreeing with the most common preference
    preference: str | None = None  # the most common preferred contestant, "tie", or None
    judges: set[str] = field(default_factory=set)

    @property
    def disagreement(self) -> bool:
        return self.agreement is not None and self.agreement < 1.0

    @property
    def key(self) -> str:
        return f"{self.prompt}\x1f{self.a}\x1f{self.b}"


def _unit_tally(
    pairs: dict[PairKey, PairSummary],
    orders: dict[PairKey, set[bool]],
    units: dict[PairKey, dict[UnitKey, dict[bool, tuple[str, str | None]]]],
) -> NDArray[np.int64]:
    """Per pair (in `pairs` order), how many of its complete units (both orders judged, neither missing) fall in
    each class of `elotui.rating.stability.unit_class`."""
    pair_of: list[int] = []
    codes_ab: list[int] = []
    codes_ba: list[int] = []
    for n, key in enumerate(pairs):
        if len(orders[key]) < 2:
            continue
        for unit in units[key].values():
            if True not in unit or False not in unit:
                continue
            (s_ab, w_ab), (s_ba, w_ba) = unit[True], unit[False]
            if "missing" in (s_ab, s_ba):
                continue
            pair_of.append(n)
            codes_ab.append(outcome_code(s_ab, w_ab))
            codes_ba.append(outcome_code(s_ba, w_ba))
    tally = np.zeros((len(pairs), 3), dtype=np.int64)
    klass = unit_class(np.array(codes_ab, dtype=np.int64), np.array(codes_ba, dtype=np.int64))
    np.add.at(tally, (np.array(pair_of, dtype=np.intp), klass), 1)
    return tally


@dataclass
class _Collected:
    pairs: dict[PairKey, PairSummary] = field(default_factory=dict)
    orders: dict[PairKey, set[bool]] = field(default_factory=lambda: defaultdict(set))
    units: dict[PairKey, dict[UnitKey, dict[bool, tuple[str, str | None]]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(dict))
    )
    scores: dict[PairKey, dict[str, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )
    voted: dict[PairKey, set[str]] = field(default_factory=lambda: defaultdict(set))


def _collect(rows: Iterable[PlanVerdict], contestant_order: list[str]) -> _Collected:
    rank = {c: i for i, c in enumerate(contestant_order)}
    c = _Collected()
    for prompt, first, second, judge, condition, sample, status, winner in rows:
        ab = (rank.get(first, len(rank)), first) <= (rank.get(second, len(rank)), second)
        a, b = (first, second) if ab else (second, first)
        key = (prompt, a, b)
        summary = c.pairs.get(key)
        if summary is None:
            summary = c.pairs[key] = PairSummary(prompt=prompt, a=a, b=b)
        summary.judges.add(judge)
        c.orders[key].add(ab)
        c.units[key][(judge, condition, sample)][ab] = (status, winner)
        if status == "ok" and winner in ("first", "second", "tie"):
            summary.verdicts += 1
            c.voted[key].add(judge)
            won = first if winner == "first" else second if winner == "second" else None
            c.scores[key][judge] += 0 if won is None else 1 if won == a else -1
    return c


def _classify(summary: PairSummary, tally: NDArray[np.int64]) -> str:
    consistent, flips = int(tally[UNIT_CONSISTENT]), int(tally[UNIT_POSITION_BIAS])
    complete = int(tally.sum())
    summary.units, summary.flips = complete, flips
    if complete == 0:
        return PENDING
    if flips:
        return POSITION_BIAS
    return CONSISTENT if consistent == complete else INCONCLUSIVE


def _prefer(summary: PairSummary, scores: dict[str, int], voted: set[str]) -> None:
    """Each voting judge's preferred side (by its verdicts' balance); the most common one and its share."""
    prefs = {
        j: (summary.a if s > 0 else summary.b if s < 0 else "tie") for j, s in scores.items() if j in voted
    }
    summary.judges_voting = len(prefs)
    if prefs:
        counts = Counter(prefs.values())
        top = max(counts.values())
        leaders = sorted(p for p, n in counts.items() if n == top)
        summary.preference = leaders[0] if len(leaders) == 1 else None
        summary.agreement = top / len(prefs)


def summarise_pairs(rows: Iterable[PlanVerdict], contestant_order: list[str]) -> list[PairSummary]:
    """One summary per (prompt, unordered pair) in the plan, in plan order of first appearance."""
    c = _collect(rows, contestant_order)
    tally = _unit_tally(c.pairs, c.orders, c.units)
    for n, (key, summary) in enumerate(c.pairs.items()):
        summary.klass = ONE_ORDER if len(c.orders[key]) < 2 else _classify(summary, tally[n])
        _prefer(summary, c.scores[key], c.voted[key])
    return list(c.pairs.values())


def filter_pairs(
    pairs: Iterable[PairSummary],
    *,
    position_bias_only: bool = False,
    disagreements_only: bool = False,
    prompt: str | None = None,
) -> list[PairSummary]:
    """Filter summaries. (To look at one judge, summarise that judge's rows only: its flips, its preference.)"""
    return [
        p
        for p in pairs
        if (not position_bias_only or p.klass == POSITION_BIAS)
        and (not disagreements_only or p.disagreement)
        and (prompt is None or p.prompt == prompt)
    ]
