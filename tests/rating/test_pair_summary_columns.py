"""`summarise_columns` (numpy over the store's coded columns) against the row-by-row summary it replaced, kept here
as the reference: random plans with several judges, conditions and samples, every outcome, pairs planned in one
order only, contestants missing from the declared order, rows in any order and any subset."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pytest
from numpy.typing import NDArray

from elotui.rating.pair_summary import (
    CONSISTENT,
    INCONCLUSIVE,
    ONE_ORDER,
    PENDING,
    POSITION_BIAS,
    PairSummary,
    _coded,
    summarise_columns,
    summarise_pairs,
)
from elotui.rating.stability import UNIT_CONSISTENT, UNIT_INCONCLUSIVE, UNIT_POSITION_BIAS, unit_class
from elotui.rating.table import outcome_code
from elotui.records import PlanVerdict

PairKey = tuple[str, str, str]
Units = dict[PairKey, dict[tuple[str, str, int], dict[bool, tuple[str, str | None]]]]


def _unit_tally(
    pairs: dict[PairKey, PairSummary], orders: dict[PairKey, set[bool]], units: Units
) -> NDArray[np.int64]:
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


@dataclass
class _Collected:
    pairs: dict[PairKey, PairSummary] = field(default_factory=dict)
    orders: dict[PairKey, set[bool]] = field(default_factory=lambda: defaultdict(set))
    units: Units = field(default_factory=lambda: defaultdict(lambda: defaultdict(dict)))
    scores: dict[PairKey, dict[str, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )
    voted: dict[PairKey, set[str]] = field(default_factory=lambda: defaultdict(set))


def reference(rows: Iterable[PlanVerdict], contestant_order: list[str]) -> list[PairSummary]:
    """The row-by-row summary (elotui 0.1 and the releases until the columnar one)."""
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
    tally = _unit_tally(c.pairs, c.orders, c.units)
    for n, (key, summary) in enumerate(c.pairs.items()):
        summary.klass = ONE_ORDER if len(c.orders[key]) < 2 else _classify(summary, tally[n])
        _prefer(summary, c.scores[key], c.voted[key])
    return list(c.pairs.values())


OUTCOMES = (
    [("ok", "first")] * 4 + [("ok", "second")] * 4 + [("ok", "tie"), ("invalid", None), ("error", None)]
)
OUTCOMES += [("missing", None)] * 2


def random_plan(rng: random.Random) -> tuple[list[PlanVerdict], list[str]]:
    contestants = [f"c{i}" for i in range(rng.randint(2, 6))]
    judges = [f"j{i}" for i in range(rng.randint(1, 4))]
    conditions = ["clean", "noisy"][: rng.randint(1, 2)]
    samples = rng.randint(1, 2)
    rows = []
    for p in range(rng.randint(1, 4)):
        for x in contestants:
            for y in contestants:
                if x == y or rng.random() < 0.15:  # some pairs planned in one order only
                    continue
                for j in judges:
                    for k in conditions:
                        for n in range(samples):
                            status, winner = rng.choice(OUTCOMES)
                            rows.append(PlanVerdict(f"q{p}", x, y, j, k, n, status, winner))  # type: ignore[arg-type]
    rng.shuffle(rows)
    rows = rows[: max(1, int(len(rows) * rng.uniform(0.5, 1.0)))]
    order = [c for c in contestants if rng.random() < 0.8]  # some contestants missing from the order
    rng.shuffle(order)
    return rows, order


@pytest.mark.parametrize("seed", range(60))
def test_columns_summarise_as_rows_did(seed: int) -> None:
    rows, order = random_plan(random.Random(seed))
    assert summarise_pairs(rows, order) == reference(rows, order)


def test_keep_selects_the_rows() -> None:
    rows, order = random_plan(random.Random(7))
    cols = _coded(rows)
    keep = np.array([r.judge == "j0" and r.condition == "clean" for r in rows])
    kept = [r for r in rows if r.judge == "j0" and r.condition == "clean"]
    assert summarise_columns(cols, order, keep) == reference(kept, order)
    assert summarise_columns(cols, order, np.zeros(len(rows), dtype=bool)) == [] == summarise_pairs([], order)
