"""Per-pair summaries (the pairs pane, `elotui diagnose`'s pair table, the review export): the stability class
by the majority of the pair's mirrored units (seed 002 §3.2, by `elotui.rating.stability.unit_class`), which
judges flipped, and how the judges split, from the store's plan verdict tuples.

A *unit* is one (prompt, pair, judge, condition, sample) judged in both orders: consistent (the same contestant
wins both), position bias (both decisive, the same slot wins both), inconclusive (a tie, or an invalid / failed
verdict in either order). A pair's counts read `consistent·position bias·inconclusive` (e.g. `4·1·0`) and its
class is the most common of the three; a tie between classes is "inconclusive". "pending" before any unit is
complete (both orders answered), "one order" when the plan shows the pair in one order only. Whether *any*
judge flipped is `any_flip` (its own filter).

Judge preferences: each judge's preferred contestant for the pair (the sign of its wins minus losses over its
valid verdicts; 0 = "tie"). `agreement` is the share of judges whose preference equals the most common one;
`split` = min(judges preferring a, judges preferring b) / (both): 0 when no judge takes the other side, 0.5 for
an even split; `dissenter` is the one judge whose preference differs from all the others (who agree), if so.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from elotui.rating.stability import UNIT_CONSISTENT, UNIT_INCONCLUSIVE, UNIT_POSITION_BIAS, unit_class
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
CLASSES = (CONSISTENT, POSITION_BIAS, INCONCLUSIVE, PENDING, ONE_ORDER)


@dataclass
class PairSummary:
    prompt: str
    a: str  # the contestant shown first in the "AB" order (declaration order)
    b: str
    klass: str = PENDING
    units: int = 0  # complete units: consistent + flips + inconclusive
    consistent: int = 0
    flips: int = 0  # units with position bias
    inconclusive: int = 0
    verdicts: int = 0
    judges_voting: int = 0
    agreement: float | None = None  # share of judges agreeing with the most common preference
    preference: str | None = None  # the most common preferred contestant, "tie", or None
    judges: set[str] = field(default_factory=set)
    prefs: dict[str, str] = field(default_factory=dict)  # judge -> a, b or "tie"
    flipped: set[str] = field(default_factory=set)  # judges with a position-bias unit on this pair
    conditions: set[str] = field(default_factory=set)

    @property
    def disagreement(self) -> bool:
        return self.agreement is not None and self.agreement < 1.0

    @property
    def any_flip(self) -> bool:
        return self.flips > 0

    @property
    def counts(self) -> str:
        """`consistent·position bias·inconclusive`, e.g. `4·1·0`."""
        return f"{self.consistent}·{self.flips}·{self.inconclusive}"

    @property
    def for_a(self) -> int:
        return sum(1 for p in self.prefs.values() if p == self.a)

    @property
    def for_b(self) -> int:
        return sum(1 for p in self.prefs.values() if p == self.b)

    @property
    def judges_split(self) -> bool:
        """Judges on both sides (each side preferred by at least one judge)."""
        return self.for_a > 0 and self.for_b > 0

    @property
    def split(self) -> float:
        """min(for a, for b) / (for a + for b): 0 unanimous (or no decisive judge), 0.5 an even split."""
        a, b = self.for_a, self.for_b
        return min(a, b) / (a + b) if a + b else 0.0

    @property
    def dissenter(self) -> str | None:
        """The one judge whose preference differs from every other judge's (who all agree), with ≥ 3 judges."""
        if len(self.prefs) < 3:
            return None
        counts = Counter(self.prefs.values())
        if len(counts) != 2 or min(counts.values()) != 1:
            return None
        lone = min(counts, key=lambda p: counts[p])
        return next(j for j, p in self.prefs.items() if p == lone)

    @property
    def key(self) -> str:
        return f"{self.prompt}\x1f{self.a}\x1f{self.b}"

    def as_record(self) -> dict[str, object]:
        """The summary as plain values (diagnose JSON, the review export)."""
        return {
            "prompt": self.prompt,
            "a": self.a,
            "b": self.b,
            "class": self.klass,
            "consistent": self.consistent,
            "position_bias": self.flips,
            "inconclusive": self.inconclusive,
            "any_flip": self.any_flip,
            "flipped_judges": sorted(self.flipped),
            "judges_for_a": self.for_a,
            "judges_for_b": self.for_b,
            "judges_tied": sum(1 for p in self.prefs.values() if p == "tie"),
            "agreement": self.agreement,
            "preference": self.preference,
            "dissenter": self.dissenter,
            "verdicts": self.verdicts,
        }


Units = dict[PairKey, dict[UnitKey, dict[bool, tuple[str, str | None]]]]


def _unit_tally(
    pairs: dict[PairKey, PairSummary], orders: dict[PairKey, set[bool]], units: Units
) -> NDArray[np.int64]:
    """Per pair (in `pairs` order), how many of its complete units (both orders judged, neither missing) fall in
    each class of `elotui.rating.stability.unit_class`; the judges with a position-bias unit go in `flipped`."""
    pair_of: list[int] = []
    judge_of: list[str] = []
    codes_ab: list[int] = []
    codes_ba: list[int] = []
    for n, key in enumerate(pairs):
        if len(orders[key]) < 2:
            continue
        for (judge, _, _), unit in units[key].items():
            if True not in unit or False not in unit:
                continue
            (s_ab, w_ab), (s_ba, w_ba) = unit[True], unit[False]
            if "missing" in (s_ab, s_ba):
                continue
            pair_of.append(n)
            judge_of.append(judge)
            codes_ab.append(outcome_code(s_ab, w_ab))
            codes_ba.append(outcome_code(s_ba, w_ba))
    tally = np.zeros((len(pairs), 3), dtype=np.int64)
    klass = unit_class(np.array(codes_ab, dtype=np.int64), np.array(codes_ba, dtype=np.int64))
    np.add.at(tally, (np.array(pair_of, dtype=np.intp), klass), 1)
    summaries = list(pairs.values())
    for i in np.flatnonzero(klass == UNIT_POSITION_BIAS):
        summaries[pair_of[i]].flipped.add(judge_of[i])
    return tally


@dataclass
class _Collected:
    pairs: dict[PairKey, PairSummary] = field(default_factory=dict)
    orders: dict[PairKey, set[bool]] = field(default_factory=lambda: defaultdict(set))
    units: Units = field(default_factory=lambda: defaultdict(lambda: defaultdict(dict)))
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
        summary.conditions.add(condition)
        c.orders[key].add(ab)
        c.units[key][(judge, condition, sample)][ab] = (status, winner)
        if status == "ok" and winner in ("first", "second", "tie"):
            summary.verdicts += 1
            c.voted[key].add(judge)
            won = first if winner == "first" else second if winner == "second" else None
            c.scores[key][judge] += 0 if won is None else 1 if won == a else -1
    return c


def _classify(summary: PairSummary, tally: NDArray[np.int64]) -> str:
    """The class most of the pair's complete units have (a tie between classes: inconclusive)."""
    summary.consistent = int(tally[UNIT_CONSISTENT])
    summary.flips = int(tally[UNIT_POSITION_BIAS])
    summary.inconclusive = int(tally[UNIT_INCONCLUSIVE])
    summary.units = int(tally.sum())
    if summary.units == 0:
        return PENDING
    ranked = sorted(
        (
            (summary.consistent, CONSISTENT),
            (summary.flips, POSITION_BIAS),
            (summary.inconclusive, INCONCLUSIVE),
        ),
        reverse=True,
    )
    return INCONCLUSIVE if ranked[0][0] == ranked[1][0] else ranked[0][1]


def _prefer(summary: PairSummary, scores: dict[str, int], voted: set[str]) -> None:
    """Each voting judge's preferred side (by its verdicts' balance); the most common one and its share."""
    prefs = {
        j: (summary.a if s > 0 else summary.b if s < 0 else "tie") for j, s in scores.items() if j in voted
    }
    summary.prefs = prefs
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
