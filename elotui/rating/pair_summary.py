"""Per-pair summaries (the pairs pane, `elotui diagnose`'s pair table, the review export): the stability class
by the majority of the pair's mirrored units (Diagnosing Bias and Instability in LLM Evaluation, by `elotui.rating.stability.unit_class`), which
judges flipped, and how the judges split, from the store's int-coded columns (numpy passes over the verdicts,
then one Python object per pair: 10^6 verdicts in ~3 s, 17-25 s row by row before).

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

from collections import Counter
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from elotui.rating.stability import UNIT_INCONCLUSIVE, UNIT_POSITION_BIAS, unit_class
from elotui.rating.table import outcome_code
from elotui.records import PlanVerdict

if TYPE_CHECKING:
    from elotui.store.columns import VerdictColumns
from elotui.vocab import OUTCOME_FIRST, OUTCOME_MISSING, OUTCOME_SECOND, OUTCOME_TIE

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
    # judges, flipped, conditions: from the store's columns, frozensets shared between pairs
    judges: AbstractSet[str] = field(default_factory=set)
    prefs: dict[str, str] = field(default_factory=dict)  # judge -> a, b or "tie"
    flipped: AbstractSet[str] = field(default_factory=set)  # judges with a position-bias unit on this pair
    conditions: AbstractSet[str] = field(default_factory=set)

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

    def sides(self) -> tuple[int, int]:
        """(judges preferring a, judges preferring b), in one pass over the judges (the pairs pane filters, counts
        and sorts 500,000 pairs by these)."""
        a = b = 0
        for p in self.prefs.values():
            a += p == self.a
            b += p == self.b
        return a, b

    @property
    def for_a(self) -> int:
        return self.sides()[0]

    @property
    def for_b(self) -> int:
        return self.sides()[1]

    @property
    def judges_split(self) -> bool:
        """Judges on both sides (each side preferred by at least one judge)."""
        a, b = self.sides()
        return a > 0 and b > 0

    @property
    def split(self) -> float:
        """min(for a, for b) / (for a + for b): 0 unanimous (or no decisive judge), 0.5 an even split."""
        a, b = self.sides()
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
        for_a, for_b = self.sides()
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
            "judges_for_a": for_a,
            "judges_for_b": for_b,
            "judges_tied": sum(1 for p in self.prefs.values() if p == "tie"),
            "agreement": self.agreement,
            "preference": self.preference,
            "dissenter": self.dissenter,
            "verdicts": self.verdicts,
        }


def _coded(rows: Iterable[PlanVerdict]) -> VerdictColumns:
    """Plan verdict rows coded as the store codes its columns (`summarise_pairs`)."""
    # below this floor; imported only where rows are summarised
    from elotui.store.columns import VerdictColumns, code_names

    listed = list(rows)
    fields = list(zip(*listed, strict=True)) if listed else [()] * 8  # PlanVerdict's fields, by position
    prompts: dict[str, int] = {}
    contestants: dict[str, int] = {}
    judges: dict[str, int] = {}
    conditions: dict[str, int] = {}
    prompt, first, second = (
        code_names(fields[0], prompts),
        code_names(fields[1], contestants),
        code_names(fields[2], contestants),
    )
    judge, condition = code_names(fields[3], judges), code_names(fields[4], conditions)
    return VerdictColumns(
        prompts=list(prompts),
        contestants=list(contestants),
        judges=list(judges),
        conditions=list(conditions),
        prompt=prompt,
        first=first,
        second=second,
        judge=judge,
        condition=condition,
        sample=np.fromiter(fields[5], dtype=np.int32, count=len(listed)),
        outcome=np.fromiter(map(outcome_code, fields[6], fields[7]), dtype=np.int8, count=len(listed)),
    )


def _groups(code: NDArray[np.int64]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(group of each entry, first entry of each group), groups numbered in order of their first entry (numpy's
    hashed unique: faster here than radix.unique_ints' sorts, 10^6 codes over a range of 10^6)."""
    _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    number = np.empty(len(order), dtype=np.intp)
    number[order] = np.arange(len(order))
    return number[inverse.reshape(-1)], first[order]


def _last_of_each(code: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
    """The distinct codes and the last entry holding each."""
    flipped, last = np.unique(code[::-1], return_index=True)
    return flipped, len(code) - 1 - last


def _members(
    owner: NDArray[np.intp], value: NDArray[np.integer], n: int, names: list[str]
) -> list[frozenset[str]]:
    """For each of n owners, the names of its distinct values. Owners with the same values share one frozenset
    (a tournament has few distinct judge or condition sets: 500,000 pairs make a handful, not 500,000 sets)."""
    width = int(value.max()) + 1 if len(value) else 1
    pairs = np.unique(owner.astype(np.int64) * width + value)
    owners, values = pairs // width, pairs % width
    cuts = np.searchsorted(owners, np.arange(n + 1)).tolist()
    flat = values.tolist()
    shared: dict[tuple[int, ...], frozenset[str]] = {}
    out = []
    for i in range(n):
        key = tuple(flat[cuts[i] : cuts[i + 1]])
        named = shared.get(key)
        if named is None:
            named = shared[key] = frozenset(names[v] for v in key)
        out.append(named)
    return out


def summarise_columns(
    cols: VerdictColumns, contestant_order: list[str], keep: NDArray[np.bool_] | None = None
) -> list[PairSummary]:
    """One summary per (prompt, unordered pair) of the coded verdicts (those where `keep` is true, if given), in
    the order the pairs first appear; a and b in `contestant_order` (names it lacks after it, by name)."""
    take = (lambda a: a) if keep is None else (lambda a: a[keep])
    prompt, first, second = take(cols.prompt), take(cols.first), take(cols.second)
    judge, condition, sample = take(cols.judge), take(cols.condition), take(cols.sample)
    outcome = take(cols.outcome).astype(np.int64)
    if len(outcome) == 0:
        return []
    names, rank = cols.contestants, {c: i for i, c in enumerate(contestant_order)}
    place = np.empty(len(names), dtype=np.int64)
    place[sorted(range(len(names)), key=lambda i: (rank.get(names[i], len(rank)), names[i]))] = np.arange(
        len(names)
    )
    ab = place[first] <= place[second]  # shown in the "AB" order
    a, b = np.where(ab, first, second).astype(np.int64), np.where(ab, second, first).astype(np.int64)
    nc = max(len(names), 1)
    pair, rep = _groups((prompt.astype(np.int64) * nc + a) * nc + b)
    n_pairs = len(rep)
    both = (np.bincount(pair, weights=ab, minlength=n_pairs) > 0) & (
        np.bincount(pair, weights=~ab, minlength=n_pairs) > 0
    )
    valid = outcome <= OUTCOME_TIE
    verdicts = np.bincount(pair[valid], minlength=n_pairs)
    nj = max(len(cols.judges), 1)
    unit = ((pair.astype(np.int64) * nj + judge) * max(len(cols.conditions), 1) + condition) * (
        int(sample.max()) + 1
    ) + sample
    tally, flipped_rows = _unit_tally(pair, n_pairs, ab, unit, outcome)
    voted, side = _sides(pair.astype(np.int64) * nj + judge, ab, outcome, valid)
    judges = _members(pair, judge, n_pairs, cols.judges)
    conditions = _members(pair, condition, n_pairs, cols.conditions)
    flips = _members(pair[flipped_rows], judge[flipped_rows], n_pairs, cols.judges)
    klasses = _classes(tally, both)
    # per pair how many voting judges take each side, and the side most take (-1: a tie at the top)
    sides = np.bincount((voted // nj) * 3 + side, minlength=3 * n_pairs).reshape(n_pairs, 3)
    voting, top = sides.sum(axis=1), sides.max(axis=1)
    leader = np.where((sides == top[:, None]).sum(axis=1) == 1, sides.argmax(axis=1), -1)
    cuts = np.searchsorted(voted // nj, np.arange(n_pairs + 1)).tolist()
    voters, kinds = (voted % nj).tolist(), side.tolist()
    prompts, jn = cols.prompts, cols.judges
    counts, verdict_counts = tally.tolist(), verdicts.tolist()
    voting_l, top_l, leader_l = voting.tolist(), top.tolist(), leader.tolist()
    out: list[PairSummary] = []
    for n, row in enumerate(rep.tolist()):
        pa, pb = names[a[row]], names[b[row]]
        named = (pa, pb, "tie")
        c, f, i = counts[n]
        many = voting_l[n]
        out.append(
            PairSummary(
                prompts[prompt[row]],
                pa,
                pb,
                klasses[n],
                c + f + i,
                c,
                f,
                i,
                verdict_counts[n],
                many,
                top_l[n] / many if many else None,
                named[leader_l[n]] if many and leader_l[n] >= 0 else None,
                judges[n],
                {jn[voters[v]]: named[kinds[v]] for v in range(cuts[n], cuts[n + 1])},
                flips[n],
                conditions[n],
            )
        )
    return out


def _unit_tally(
    pair: NDArray[np.intp],
    n_pairs: int,
    ab: NDArray[np.bool_],
    unit: NDArray[np.int64],
    outcome: NDArray[np.int64],
) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
    """Per pair, how many of its complete units (judged in both orders, neither missing) fall in each class of
    `elotui.rating.stability.unit_class`; and the rows (the AB order's) of the position-bias units."""
    code_ab, row_ab = _last_of_each(np.where(ab, unit, -1))
    code_ba, row_ba = _last_of_each(np.where(ab, -1, unit))
    row_ab, row_ba = row_ab[code_ab >= 0], row_ba[code_ba >= 0]
    _, i_ab, i_ba = np.intersect1d(unit[row_ab], unit[row_ba], assume_unique=True, return_indices=True)
    r_ab, r_ba = row_ab[i_ab], row_ba[i_ba]
    complete = (outcome[r_ab] != OUTCOME_MISSING) & (outcome[r_ba] != OUTCOME_MISSING)
    r_ab, r_ba = r_ab[complete], r_ba[complete]
    klass = unit_class(outcome[r_ab], outcome[r_ba])
    tally = np.bincount(pair[r_ab] * 3 + klass, minlength=3 * n_pairs).reshape(n_pairs, 3)
    return tally, r_ab[klass == UNIT_POSITION_BIAS]


def _sides(
    voter: NDArray[np.int64], ab: NDArray[np.bool_], outcome: NDArray[np.int64], valid: NDArray[np.bool_]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The (pair, judge) codes `voter` with a valid verdict, ascending, and the side each takes by the balance of
    its verdicts (a won +1, b won -1, a tie 0): 0 for a, 1 for b, 2 for even."""
    won_a = np.where(ab, outcome == OUTCOME_FIRST, outcome == OUTCOME_SECOND)
    won_b = np.where(ab, outcome == OUTCOME_SECOND, outcome == OUTCOME_FIRST)
    voted, vote_of = np.unique(voter[valid], return_inverse=True)
    balance = np.bincount(
        vote_of.reshape(-1), weights=(won_a.astype(np.int64) - won_b)[valid], minlength=len(voted)
    )
    return voted, np.where(balance > 0, 0, np.where(balance < 0, 1, 2))


def _classes(tally: NDArray[np.int64], both: NDArray[np.bool_]) -> list[str]:
    """Each pair's class: the class most of its complete units have (a tie at the top: inconclusive), pending
    before any unit is complete, one order when the plan shows the pair in one order only."""
    top = tally.max(axis=1)
    shared = (tally == top[:, None]).sum(axis=1) > 1
    names = np.array([CONSISTENT, POSITION_BIAS, INCONCLUSIVE, PENDING, ONE_ORDER], dtype=object)
    best = np.where(shared, UNIT_INCONCLUSIVE, tally.argmax(axis=1))
    best = np.where(tally.sum(axis=1) == 0, 3, best)
    return list(names[np.where(both, best, 4)])


def summarise_pairs(rows: Iterable[PlanVerdict], contestant_order: list[str]) -> list[PairSummary]:
    """One summary per (prompt, unordered pair) in the plan, in plan order of first appearance (`summarise_columns`
    on the rows coded)."""
    return summarise_columns(_coded(rows), contestant_order)
