"""How few verdicts an order rests on: for two adjacent rows, the fewest games whose removal puts the lower one
above the upper one (`drop_to_flip`), after Broderick, Giordano and Meager's "An Automatic Finite-Sample
Robustness Metric" (2020): a conclusion that a handful of data points can overturn is fragile, whatever its
p-value or interval says.

A game is a verdict at threshold none (an agreed vote of a presentation at a threshold). The search:
1. Influence guide: the first-order change of the gap when one game is dropped, from a Bradley–Terry fit of the
   same games (implicit function theorem: d theta = H^-1 grad of the dropped game's log-likelihood; the gap moves by
   (v_a - v_b)(s - p_ab) with v = H^-1 (e_upper - e_lower)). Games are listed by how much dropping them narrows
   the gap.
2. Confirmation by refitting with the ranking's own method and settings (Elo: the same orders and seed;
   Bradley–Terry: the same fit): the smallest prefix of that list whose removal flips the order is found by
   doubling then bisection, every candidate refitted. The count reported always flips when refitted: it is an
   upper bound on the fewest.
3. Exactness where it is cheap: when every smaller set of games (counted as multisets of distinct games: the
   same pair with the same score is the same game to both methods) is few enough to refit, each is tried, and the
   count is the exact fewest (`exact`).

A gap that `FRAGILE_SHARE` (1 %) of the games or fewer can flip is `fragile`. A board's searches share a budget
of refits (`REFIT_BUDGET` game updates: Elo's refit plays every game in each of its orders); a pair whose search
runs out of it has no count (None), and the export's settings list it under `not_searched`. Rows whose rating is a
bound, rows ordered by the wins alone (Bradley–Terry: `order_basis` "wins" or "unordered") and rows in different groups get no count.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from elotui.rating.board import Leaderboard, LeaderboardRow
from elotui.rating.bt import DEFAULT_PRIOR, fit_theta, point_ratings, win_matrix
from elotui.rating.games import Games
from elotui.rating.leaderboard import RatingOptions, ratings_for

FRAGILE_SHARE = 0.01
EXACT_REFITS = 300  # at most this many refits to prove a count is the fewest
MIN_REFITS = 8  # a search with fewer refits than this is not started
REFIT_BUDGET = 500_000_000  # game updates a board's searches may refit (Elo: orders x games a refit; ~1-2 s)

Rate = Callable[[Games], NDArray[np.float64]]
# the ratings of the games with these (distinct) games left out: a refit
Refit = Callable[[NDArray[np.intp]], NDArray[np.float64]]


@dataclass(frozen=True)
class Flip:
    """The fewest games whose removal puts `lower` above `upper` (None: no such set found, e.g. the order stands
    with every game that favours `upper` removed), of `games` in all."""

    upper: int
    lower: int
    drop: int | None
    games: int
    exact: bool
    dropped: tuple[int, ...] = ()  # the games (indices) whose removal flips the order, `drop` of them
    searched: bool = True  # False: the refits allowed ran out before a count was confirmed (drop is None)

    @property
    def share(self) -> float | None:
        return None if self.drop is None or self.games == 0 else self.drop / self.games

    @property
    def fragile(self) -> bool:
        return self.drop is not None and self.drop <= FRAGILE_SHARE * self.games


class _OutOfRefits(Exception):
    pass


class Searched:
    """What a board's searches share about its games `g`: their win matrix and their kinds (`_kinds`), each made
    once, on first use."""

    def __init__(self, g: Games) -> None:
        self.g = g
        self._wins: NDArray[np.float64] | None = None
        self._kinds: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.intp]] | None = None

    @property
    def wins(self) -> NDArray[np.float64]:
        if self._wins is None:
            self._wins = win_matrix(self.g)
            self._wins.flags.writeable = False
        return self._wins

    def kinds(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.intp]]:
        """Each game's kind, the distinct kinds (sorted) and how many games each has."""
        if self._kinds is None:
            keys = _kinds(self.g)
            kinds, counts = np.unique(keys, return_counts=True)
            self._kinds = (keys, kinds, counts)
        return self._kinds

    @cached_property
    def exact(self) -> bool:
        """Whether every score is a half (`exact_win_counts`), asked once per board."""
        return exact_win_counts(self.g)

    @cached_property
    def cells(self) -> Cells | None:
        """The games by cell (`Cells`), where every score is a half (`exact_win_counts`) and the cells are few
        enough to sort games by (their ranks fit 16 bits); None otherwise."""
        g, n = self.g, self.g.n_contestants
        if 3 * n * n > _MAX_CELLS or not self.exact:
            return None
        cell = g.a.astype(np.intp) * n
        cell += g.b
        cell *= 3
        cell += (2.0 * g.score_a).astype(np.intp)
        every = np.arange(3 * n * n)
        return Cells(
            cell, (every // 3 // n).astype(np.int32), (every // 3 % n).astype(np.int32), (every % 3) / 2.0
        )


_MAX_CELLS = 1 << 16


@dataclass(frozen=True)
class Cells:
    """Each game's cell: its pair (a, b) and its score (0, 1/2, 1), as (a * n + b) * 3 + 2 * score; and each cell's
    a, b and score. Two games of one cell are the same to a Bradley–Terry fit and to the first-order guide."""

    of_game: NDArray[np.intp]
    a: NDArray[np.int32]
    b: NDArray[np.int32]
    score: NDArray[np.float64]


def by_selection(g: Games, rate: Rate) -> Refit:
    """A refit by `rate` on the games kept (`Games.select`): any method."""
    total = len(g)

    def refit(dropped: NDArray[np.intp]) -> NDArray[np.float64]:
        keep = np.ones(total, dtype=bool)
        keep[dropped] = False
        return rate(g.select(keep))

    return refit


def exact_win_counts(g: Games) -> bool:
    """Every score is 0, 1/2 or 1: each cell of the win matrix is a sum of halves, exact in floating point in any
    order, so the matrix of the games kept is the whole one less the dropped games' to the last bit."""
    s = g.score_a
    return bool(np.all((s == 0.0) | (s == 0.5) | (s == 1.0)))


def by_win_counts(searched: Searched, prior: float = DEFAULT_PRIOR, mean: float = 1000.0) -> Refit:
    """Bradley–Terry's point refit (`bt.point_ratings`, as `bradley_terry` without a bootstrap) from the win
    matrix of the games kept, made as the whole matrix less the dropped games' (the same matrix, bit for bit, where
    `exact_win_counts`: sums of halves in any order): no pass over every game a refit."""
    g, n = searched.g, searched.g.n_contestants
    cells = searched.cells

    def refit(dropped: NDArray[np.intp]) -> NDArray[np.float64]:
        wins = searched.wins
        if len(dropped) and cells is not None:  # the dropped games counted by cell, then the cells summed
            many = np.bincount(cells.of_game[dropped], minlength=len(cells.a)).astype(np.float64)
            gone = Games(cells.a, cells.b, cells.score, n, {})
            wins = wins - _weighted_wins(gone, many)
        elif len(dropped):
            gone = Games(g.a[dropped], g.b[dropped], g.score_a[dropped], n, {})
            wins = wins - win_matrix(gone)
        return point_ratings(wins, prior, mean)

    return refit


def _weighted_wins(g: Games, many: NDArray[np.float64]) -> NDArray[np.float64]:
    """`win_matrix` of the games each repeated `many` times (counts times halves: exact)."""
    n = g.n_contestants
    flat = np.bincount(g.a.astype(np.int64) * n + g.b, weights=many * g.score_a, minlength=n * n)
    flat += np.bincount(g.b.astype(np.int64) * n + g.a, weights=many * (1.0 - g.score_a), minlength=n * n)
    return flat.reshape(n, n)  # type: ignore[return-value]  # a float bincount (numpy's stub says intp)


def fewest_to_flip(g: Games, upper: int, lower: int, rate: Rate, refits: int | None = None) -> Flip:
    """The fewest games of `g` to drop so that `rate` puts `lower` above `upper` (see the module's docstring),
    refitting at most `refits` times (None: no limit; past it, the search gives up: drop None, searched False)."""
    return search_flip(Searched(g), upper, lower, by_selection(g, rate), refits)


def search_flip(searched: Searched, upper: int, lower: int, refit: Refit, refits: int | None = None) -> Flip:
    """`fewest_to_flip` with the refit given as the ratings of the games less a set of them (`by_selection`,
    `by_win_counts`)."""
    g = searched.g
    total = len(g)
    used = [0]

    def flipped(dropped: NDArray[np.intp]) -> bool:
        if refits is not None and used[0] >= refits:
            raise _OutOfRefits
        used[0] += 1
        r = refit(dropped)
        return bool(r[lower] > r[upper])

    try:
        if total == 0 or flipped(np.zeros(0, dtype=np.intp)):
            return Flip(upper, lower, 0 if total else None, total, True)
        plan = _guided_plan(searched, upper, lower)
        found = _smallest_prefix(plan, flipped)
    except _OutOfRefits:
        return Flip(upper, lower, None, total, False, searched=False)
    if found is None:
        return Flip(upper, lower, None, total, False)
    guided = tuple(plan[:found].tolist())
    left = EXACT_REFITS if refits is None else min(EXACT_REFITS, refits - used[0])
    exact = _exact_below(searched, found, flipped, left)
    if exact is not None:
        return Flip(upper, lower, len(exact) if exact else found, total, True, exact or guided)
    return Flip(upper, lower, found, total, found == 1, guided)


def _guided_plan(searched: Searched, upper: int, lower: int) -> NDArray[np.intp]:
    """The games whose removal narrows the gap to first order, the most narrowing first."""
    g = searched.g
    w = searched.wins
    theta = fit_theta(w, prior=0.01)
    n = g.n_contestants
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j]: i beats j
    games_ij = w + w.T
    hessian = -np.diag((games_ij * p * p.T).sum(axis=1)) + games_ij * p * p.T
    hessian -= 0.01 * np.eye(n)
    direction = np.zeros(n)
    direction[upper], direction[lower] = 1.0, -1.0
    v = np.linalg.lstsq(hessian, direction, rcond=None)[0]
    cells = searched.cells
    if (
        cells is not None
    ):  # a game's change is its cell's: the cells' changes ranked, the games sorted by rank
        change = (v[cells.a] - v[cells.b]) * (cells.score - p[cells.a, cells.b])
        narrowing = np.flatnonzero((change < 0)[cells.of_game])
        rank = np.unique(change, return_inverse=True)[1].astype(np.uint16)
        return narrowing[np.argsort(rank[cells.of_game[narrowing]], kind="stable")]
    a, b = g.a.astype(np.intp), g.b.astype(np.intp)
    change = (v[a] - v[b]) * (g.score_a - p[a, b])  # the gap's first-order change when the game is dropped
    narrowing = np.flatnonzero(change < 0)
    return narrowing[np.argsort(change[narrowing], kind="stable")]


def _smallest_prefix(plan: NDArray[np.intp], flipped: Callable[[NDArray[np.intp]], bool]) -> int | None:
    """The smallest k such that dropping plan[:k] flips (doubling, then bisection), or None."""

    def drops(k: int) -> bool:
        return flipped(plan[:k])

    low, k = 0, 1
    while k < len(plan) and not drops(k):
        low, k = k, 2 * k
    if k >= len(plan):
        k = len(plan)
        if k == 0 or not drops(k):
            return None
    high = k
    while high - low > 1:
        mid = (low + high) // 2
        if drops(mid):
            high = mid
        else:
            low = mid
    return high


def _exact_below(
    searched: Searched, found: int, flipped: Callable[[NDArray[np.intp]], bool], most: int
) -> tuple[int, ...] | None:
    """Where every multiset of fewer distinct games than `found` can be refitted within EXACT_REFITS: the first
    (smallest) such set that flips, or () when none does (`found` is the fewest); None where there are too
    many to try (more than `most` refits)."""
    sizes = range(1, found)
    if not sizes:
        return ()
    if len(sizes) > most:  # every size has one multiset at least: too many, whatever the kinds
        return None
    keys, kinds, counts = searched.kinds()
    if _multisets_beyond(len(kinds), sizes, most):
        return None
    # each kind's games in ascending order (a stable sort groups them)
    members = np.split(np.argsort(keys, kind="stable"), np.cumsum(counts)[:-1])
    for size in sizes:
        for combo in itertools.combinations_with_replacement(range(len(kinds)), size):
            taken = np.bincount(np.array(combo), minlength=len(kinds))
            if np.any(taken > counts):
                continue
            dropped = np.sort(
                np.concatenate([members[kind][: taken[kind]] for kind in np.flatnonzero(taken)])
            )
            if flipped(dropped):
                return tuple(int(i) for i in dropped)
    return ()


def _multisets_beyond(kinds: int, sizes: range, most: int) -> bool:
    """More than `most` multisets of `kinds` kinds with a size in `sizes` (summed until past `most`)."""
    total = 0
    for s in sizes:
        total += math.comb(kinds + s - 1, s)
        if total > most:
            return True
    return False


def _kinds(g: Games) -> NDArray[np.int64]:
    """Each game's kind: its pair (lower code first), its score so oriented, and its judge where the games carry
    one (a per-judge model tells judges apart); games of one kind are the same game to the ranking."""
    swap = g.a > g.b
    a = np.where(swap, g.b, g.a).astype(np.int64)
    b = np.where(swap, g.a, g.b).astype(np.int64)
    table, score = np.unique(np.where(swap, 1.0 - g.score_a, g.score_a), return_inverse=True)
    keys = (a * g.n_contestants + b) * len(table) + score.astype(np.int64)
    if len(g.judge) == len(g):
        keys = keys * (int(g.judge.max(initial=0)) + 1) + g.judge
    return keys


def adjacent_flips(order: list[int], g: Games, rate: Rate) -> list[Flip]:
    """`fewest_to_flip` for each pair of adjacent contestants in `order` (codes, top first)."""
    return [fewest_to_flip(g, u, lo, rate) for u, lo in itertools.pairwise(order)]


def board_flips(board: Leaderboard, contestants: list[str], g: Games, options: RatingOptions) -> list[Flip]:
    """`fewest_to_flip` for each pair of adjacent rated rows of `board` in one group (the games `g` it ranked,
    the method and settings it records), refitting with the method's point estimate."""
    method = str(board.settings.get("method", "elo"))
    point = options.replace(bootstrap=0)
    pairs = sum(1 for up, lo in itertools.pairwise(board.rows) if _searchable(up, lo))
    cost = max(len(g), 1) * (max(int(options.permutations), 1) if method == "elo" else 1)
    refits = max(int(REFIT_BUDGET // (cost * max(pairs, 1))), 1)

    searched = Searched(g)
    refit = _point_refit(searched, method, point)
    index = {c: i for i, c in enumerate(contestants)}
    out = []
    for up, lo in itertools.pairwise(board.rows):
        if not _searchable(up, lo):
            continue
        u, low = index[up.contestant], index[lo.contestant]
        if refits < MIN_REFITS:  # too many games to refit: no count rather than a slow export
            out.append(Flip(u, low, None, len(g), False, searched=False))
        else:
            out.append(search_flip(searched, u, low, refit, refits))
    return out


def _point_refit(searched: Searched, method: str, point: RatingOptions) -> Refit:
    """The refit of `ratings_for(games, method, point)`: Bradley–Terry's from the win counts where its ratings are
    those of the win matrix alone (no per-judge model) and the counts are exact, else a refit of the games kept."""
    g = searched.g
    per_judge = point.per_verdict_model and len(g.judge) == len(g.a)
    if method == "bt" and not per_judge and searched.exact:
        return by_win_counts(searched, DEFAULT_PRIOR, float(point.initial_rating))

    def rate(games: Games) -> NDArray[np.float64]:
        return ratings_for(games, method, point).rating

    return by_selection(g, rate)


def _searchable(up: LeaderboardRow, lo: LeaderboardRow) -> bool:
    """Two adjacent rows whose order the ratings set: both rated, in one group, neither a bound, and (Bradley–Terry)
    in one win component: where the wins alone order them (an unbeaten or winless contestant, a component that
    never lost to the next) or nothing does, their place is set by the record, not by a fit that drops games."""
    return (
        up.rating is not None
        and lo.rating is not None
        and up.group == lo.group
        and up.bound is None
        and lo.bound is None
        and up.order_basis in (None, "ratings")
    )


STYLE_NOT_COMPUTED = (
    "not computed for a style-controlled ranking (each refit would refit the style terms too); the raw ranking's "
    "are (`--no-style-control`, `y` in the TUI)"
)


def with_drop_to_flip(
    board: Leaderboard, contestants: list[str], g: Games, options: RatingOptions
) -> Leaderboard:
    """`board` with each adjacent row's `drop_to_flip` and `fragile` filled in (`board_flips`), and what they
    mean in its settings. A style-controlled board gets none (STYLE_NOT_COMPUTED): the refits drop games from a
    Bradley–Terry fit without its style terms, whose orders are the raw ranking's, not this one's."""
    if board.settings.get("style_control"):
        settings = dict(board.settings)
        settings["drop_to_flip"] = {"not_computed": STYLE_NOT_COMPUTED}
        return dataclasses.replace(board, settings=settings)
    flips = {(f.upper, f.lower): f for f in board_flips(board, contestants, g, options)}
    index = {c: i for i, c in enumerate(contestants)}
    rows = list(board.rows)
    for k, (up, lo) in enumerate(itertools.pairwise(board.rows)):
        flip = flips.get((index[up.contestant], index[lo.contestant]))
        if flip is not None:
            rows[k] = dataclasses.replace(up, drop_to_flip=flip.drop, fragile=flip.fragile)
    settings = dict(board.settings)
    settings["drop_to_flip"] = {
        "unit": "games" if settings.get("threshold") != "none" else "verdicts",
        "games": len(g),
        "fragile_share": FRAGILE_SHARE,
        "refit": "the ranking's method, point estimate, same settings and seed",
        "not_searched": [
            [contestants[f.upper], contestants[f.lower]] for f in flips.values() if not f.searched
        ],
    }
    return dataclasses.replace(board, rows=rows, settings=settings)


def flip_records(
    board: Leaderboard, contestants: list[str], g: Games, options: RatingOptions
) -> list[dict[str, object]]:
    """`board_flips` as records (diagnose's `drop_to_flip`): upper, lower, the count, its share of the games,
    fragile, exact, searched."""
    return [
        {
            "upper": contestants[f.upper],
            "lower": contestants[f.lower],
            "drop_to_flip": f.drop,
            "games": f.games,
            "share": f.share,
            "fragile": f.fragile,
            "exact": f.exact,
            "searched": f.searched,
        }
        for f in board_flips(board, contestants, g, options)
    ]
