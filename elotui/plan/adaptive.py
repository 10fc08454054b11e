"""Adaptive comparison planning (`[comparison] plan = "adaptive"`): buy the judge calls that still matter, stop
when the ranking is settled.

The unit bought is a *unit* of the full plan: one (prompt, pair, condition, sample) with all its judges and both
orders, so every bought unit is a complete game at any agreement threshold, exactly as in the full plan.

1. **Start**: the first units in the plan's own order (round-robin rounds interleaved over prompts: every
   contestant meets others on several prompts, prompts and pairs balanced) until every contestant has played
   `START_GAMES` units.
2. **Then, in batches**: rank what is bought so far (the tournament's own leaderboard: its threshold, method,
   bootstrap rounds and seed, so the status line and the board shown agree gap for gap). An adjacent pair of the ranking is *settled* when its order confidence is at least
   `settle_confidence`, or its gap interval lies inside the practically-tied band (|gap| < 50 both ends). Every
   open gap whose pair still has prompts to buy puts weight on that pair (1) and on the pairs reaching one rank
   further (½); each
   candidate pair's weight is divided by (1 + units it already has), and a pair's next unit goes to the prompt
   (and condition, sample) with the fewest bought units so far, so no prompt is over-represented. The batch is
   the heaviest units (ties broken by a seeded shuffle: the same file, seed and answers give the same calls).
3. **Stop** when every adjacent gap is settled on two consecutive looks with the same order (a look that finds
   them all settled for the first time buys one more batch on the least confident gaps to confirm it: the first
   crossing of a confidence level after many looks overstates it, `bench_adaptive` measures the claims' level),
   or when each open gap's own pair is bought on every prompt (a
   gap whose pair is exhausted gets no more weight: buying its neighbours' pairs for indirect evidence costs much
   and settles little; such gaps are reported as open), or a budget is reached.

Resuming needs no state of its own: what is bought is what the store answered; the planner starts again from it.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from elotui.rating.leaderboard import Leaderboard, LeaderboardRow, RatingOptions, rank
from elotui.rating.table import VerdictTable
from elotui.vocab import Threshold

START_GAMES = 3  # units per contestant in the opening design
TIED_BAND = 50.0  # |gap| below this is "practically tied" (elotui.vocab.band)
NEIGHBOUR_WEIGHT = 0.5

UnitKey = tuple[str, str, str, str, int]  # (prompt, a, b, condition, sample), a before b in declaration order


@dataclass(frozen=True)
class Settlement:
    """The state of the ranking's adjacent gaps."""

    gaps: int
    settled: int
    open_pairs: tuple[tuple[str, str], ...]  # (upper, lower) of every open gap, best first
    weakest: tuple[tuple[str, str], ...] = ()  # (upper, lower) of every gap, the least confident first
    confirmed: bool = False  # every gap settled on this look and on the one before, in the same order

    @property
    def done(self) -> bool:
        return self.gaps > 0 and self.settled == self.gaps

    def describe(self) -> str:
        if not self.gaps:
            return "opening design"
        text = f"settled: {self.settled} of {self.gaps} gaps"
        return text + (" (confirmed)" if self.confirmed else " (to confirm)" if self.done else "")


def settlement(board: Leaderboard, settle_confidence: float) -> Settlement:
    """Which adjacent gaps of a leaderboard are settled (order confident, or certainly practically tied)."""
    gaps, settled, open_pairs, margin = 0, 0, [], {}
    rows = [r for r in board.rows if r.rank is not None]
    for upper, lower in pairwise(rows):
        if upper.group != lower.group:
            continue
        gaps += 1
        confident, tied = settled_gap(upper, settle_confidence)
        pair = (upper.contestant, lower.contestant)
        margin[pair] = 1.0 if tied else upper.order_confidence or 0.0
        if confident or tied:
            settled += 1
        else:
            open_pairs.append(pair)
    weakest = tuple(sorted(margin, key=margin.__getitem__))
    if any(w.get("kind") in ("disconnected", "no_games") for w in board.warnings):
        return Settlement(
            max(gaps, 1), min(settled, max(gaps - 1, 0)), tuple(open_pairs), weakest
        )  # not one scale yet
    return Settlement(gaps, settled, tuple(open_pairs), weakest)


def settled_gap(upper: LeaderboardRow, settle_confidence: float) -> tuple[bool, bool]:
    """(settled in order, settled as practically tied) for the gap below `upper`. In order: the order confidence
    reaches `settle_confidence` and the gap's interval excludes 0 (a stricter claim than the confidence alone: the
    displayed order favours its own gaps); tied: the gap's interval lies inside the practically-tied band."""
    low, high = upper.gap_ci_low, upper.gap_ci_high
    tied = low is not None and high is not None and -TIED_BAND < low and high < TIED_BAND
    confident = (
        upper.order_confidence is not None
        and upper.order_confidence >= settle_confidence
        and (low is None or low > 0)
    )
    return confident and not tied, tied


@dataclass
class AdaptivePlanner:
    """Chooses units to buy among `units` (the full plan's, in plan order)."""

    units: Sequence[UnitKey]
    contestants: Sequence[str]
    options: RatingOptions
    settle_confidence: float = 0.95
    seed: int = 0
    threshold: Threshold = "none"  # the leaderboard whose gaps must settle: the tournament's [ranking]
    method: str = "bt"
    _order: dict[str, int] = field(default_factory=dict, init=False)
    _settled_order: tuple[str, ...] | None = field(
        default=None, init=False
    )  # the last look's, if all settled

    def __post_init__(self) -> None:
        self._order = {c: i for i, c in enumerate(self.contestants)}

    def board(self, table: VerdictTable) -> Leaderboard:
        """The tournament's own leaderboard of what is bought (the same settings as the board on screen)."""
        return rank(table, threshold=self.threshold, method=self.method, options=self.options)

    def opening(self, bought: set[UnitKey]) -> list[UnitKey]:
        """The first plan-order units until every contestant has START_GAMES units (bought ones count)."""
        played: Counter[str] = Counter()
        for u in bought:
            played.update((u[1], u[2]))
        chosen = []
        for u in self.units:
            if all(played[c] >= START_GAMES for c in self.contestants):
                break
            if u in bought or (played[u[1]] >= START_GAMES and played[u[2]] >= START_GAMES):
                continue
            chosen.append(u)
            played.update((u[1], u[2]))
        return chosen

    def choose(
        self, table: VerdictTable, bought: set[UnitKey], size: int
    ) -> tuple[list[UnitKey], Settlement]:
        """The next batch (at most `size` units) and the settlement it was chosen from; an empty batch when the
        ranking is settled or nothing is left."""
        first = self.opening(bought)
        if first:
            return first[:size] if size < len(first) else first, Settlement(0, 0, ())
        board = self.board(table)
        state = settlement(board, self.settle_confidence)
        ranking = [r.contestant for r in board.rows if r.rank is not None]
        if state.done:
            if self._settled_order == tuple(ranking):
                return [], dataclasses.replace(state, confirmed=True)
            self._settled_order = tuple(ranking)  # to confirm: one more batch on the least confident gaps
            state = dataclasses.replace(state, open_pairs=state.weakest[: max(1, len(state.weakest) // 2)])
        else:
            self._settled_order = None
        candidates = [u for u in self.units if u not in bought]
        weights = self._pair_weights(state, ranking, {(u[1], u[2]) for u in candidates})
        per_pair: Counter[tuple[str, str]] = Counter((u[1], u[2]) for u in bought)
        rng = random.Random(self.seed * 1_000_003 + len(bought))
        rng.shuffle(candidates)
        best = _least_used_slot(candidates, bought, weights)
        scored = sorted(best.items(), key=lambda kv: -weights[kv[0]] / (1 + per_pair[kv[0]]))
        # empty: the open gaps' own pairs are bought on every prompt; they stay open (reported, not forced)
        batch = [u for _, u in scored[:size]]
        if (
            not batch and state.done
        ):  # nothing left to confirm with: the gaps' pairs are bought on every prompt
            return [], dataclasses.replace(state, confirmed=True)
        return batch, state

    def _key(self, x: str, y: str) -> tuple[str, str]:
        return (x, y) if self._order[x] < self._order[y] else (y, x)

    def _pair_weights(
        self, state: Settlement, ranking: list[str], available: set[tuple[str, str]]
    ) -> dict[tuple[str, str], float]:
        """Pair -> weight. A gap whose own pair is bought on every prompt gets none: the data of this plan have
        said what they can about it (its neighbours' pairs would buy indirect evidence at a high price)."""
        position = {c: i for i, c in enumerate(ranking)}
        out: dict[tuple[str, str], float] = {}

        def add(x: str, y: str, w: float) -> None:
            pair = self._key(x, y)
            out[pair] = max(out.get(pair, 0.0), w)

        for upper, lower in state.open_pairs:
            if self._key(upper, lower) not in available:
                continue
            add(upper, lower, 1.0)
            i, j = position.get(upper), position.get(lower)
            if i is not None and i > 0:
                add(ranking[i - 1], lower, NEIGHBOUR_WEIGHT)
            if j is not None and j + 1 < len(ranking):
                add(upper, ranking[j + 1], NEIGHBOUR_WEIGHT)
        unrated = [c for c in self.contestants if c not in position]
        for c in unrated:  # not on the board yet (no games): meet everyone
            for other in self.contestants:
                if other != c:
                    add(c, other, 1.0)
        return out


def _least_used_slot(
    candidates: list[UnitKey], bought: set[UnitKey], weights: dict[tuple[str, str], float]
) -> dict[tuple[str, str], UnitKey]:
    """Per weighted pair, its candidate unit on the (prompt, condition, sample) with the fewest bought units."""
    per_slot: Counter[tuple[str, str, int]] = Counter((u[0], u[3], u[4]) for u in bought)
    best: dict[tuple[str, str], UnitKey] = {}
    for u in candidates:
        pair = (u[1], u[2])
        if weights.get(pair, 0.0) <= 0:
            continue
        held = best.get(pair)
        if held is None or per_slot[(u[0], u[3], u[4])] < per_slot[(held[0], held[3], held[4])]:
            best[pair] = u
    return best


def unit_of(
    prompt: str, first: str, second: str, condition: str, sample: int, order: dict[str, int]
) -> UnitKey:
    a, b = (first, second) if order[first] < order[second] else (second, first)
    return (prompt, a, b, condition, sample)


def units_in_order(
    rows: Iterable[tuple[str, str, str, str, int]], contestants: Sequence[str]
) -> list[UnitKey]:
    """The distinct units of plan rows `(prompt, first, second, condition, sample)`, in order of first appearance."""
    order = {c: i for i, c in enumerate(contestants)}
    seen: dict[UnitKey, None] = {}
    for prompt, first, second, condition, sample in rows:
        seen.setdefault(unit_of(prompt, first, second, condition, sample, order), None)
    return list(seen)
