"""Elo (Braun and Forell 2026): online in a given order, and averaged over random permutations (Braun and Forell 2026, Elo over random permutations).

E_a = 1 / (1 + 10^((R_b - R_a) / 400)); after a game R_a += K (S_a - E_a) and R_b -= K (S_a - E_a).

`permutation_elo` plays the same games in `permutations` random orders and reports, per contestant, the mean
final rating and the 2.5-97.5 % range across orders (Boubdir et al. 2023). Games are first put in a canonical
order (each game oriented lower code first, then sorted), so the result depends on the multiset of games and the
seed only, not on the order the verdicts were stored in, nor on which contestant was shown first.

Orders are Fisher–Yates shuffles driven by a counter-based splitmix64 stream, seeded. The sequential kernel
(shuffle + play) is native code compiled from LLVM IR with llvmlite (`elotui.rating.native.kernels`; compiled once a
machine, `elotui.rating.native`, and kept on disk, `elotui.rating.native.kernel_cache`); without llvmlite (or with
ELOTUI_NO_JIT=1) the orders are drawn with numpy and every game step advances all orders at once. Both paths draw
the same orders and give the same ratings (up to float rounding); the native one is fast (bench_rating.py).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from elotui.rating.bootstrap import (
    BootstrapUnit,
    Resampling,
    clusters_of,
    resampled_blocks_of,
    small_sample_corrected,
)
from elotui.rating.games import Games
from elotui.rating.native import jit_kernels
from elotui.rating.native.kernels import Order, Packed, pack, whole
from elotui.rating.order_noise import (
    TAIL_ORDERS,
    averages_tails,
    order_variance_of,
    orders_per_round,
    resampling_scale,
)
from elotui.rating.radix import dense_codes, table_fits, unique_counts

if TYPE_CHECKING:
    from elotui.rating.native.kernels import Kernels

_C = math.log(10.0) / 400.0

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)


def expected_score(r_a: float, r_b: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((r_b - r_a) / 400.0))


def online_elo(
    a: NDArray[np.integer],
    b: NDArray[np.integer],
    score_a: NDArray[np.floating],
    n: int,
    *,
    k_factor: float = 16.0,
    initial_rating: float = 1000.0,
) -> NDArray[np.float64]:
    """Final ratings after playing the games once, in the given order."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    s = np.asarray(score_a, dtype=np.float64)
    kernels = jit_kernels()
    if kernels is not None:
        return kernels.online(a, b, s, n, float(k_factor), float(initial_rating))
    r = [float(initial_rating)] * n
    for x, y, sc in zip(a.tolist(), b.tolist(), s.tolist(), strict=True):
        d = k_factor * (sc - 1.0 / (1.0 + math.exp(_C * (r[y] - r[x]))))
        r[x] += d
        r[y] -= d
    return np.array(r, dtype=np.float64)


@dataclass(frozen=True)
class PermutationElo:
    mean: NDArray[np.float64]  # (n,)
    low: NDArray[np.float64]  # 2.5 % across orders
    high: NDArray[np.float64]  # 97.5 % across orders
    ratings: NDArray[np.float64]  # (permutations, n): final ratings of each order


@dataclass(frozen=True)
class Listing:
    """Games listed by a key, as the distinct keys ascending and how many games hold each (`counts`): games with
    one key are the same game to Elo, so the listing is the distinct keys repeated by their counts."""

    keys: NDArray[np.int64]
    counts: NDArray[np.int64]

    def repeated(self, values: NDArray[Any]) -> NDArray[Any]:
        """Per listed game, the value of its key (`values`: one per distinct key)."""
        return np.repeat(values, self.counts)


@dataclass(frozen=True)
class Canonical:
    """The games oriented lower contestant code first (the score turned with them: 1 - s) and listed by
    (a, b, score): each game's key is (a n + b) S + the index of its score among the S distinct scores in
    `table`, and `listing` holds the distinct keys with their counts. Listing by counting needs no sort of the
    games and no gather through one; the listing depends on the multiset of games only."""

    game_keys: NDArray[np.int64]  # each game's key, in the games' own order
    listing: Listing
    table: NDArray[np.float64]  # the distinct (oriented) scores, ascending
    n: int
    _packs: dict[int, Packed | None] = field(default_factory=dict, compare=False, repr=False)
    _distinct: dict[int, Packed | None] = field(default_factory=dict, compare=False, repr=False)

    @property
    def span(self) -> int:
        """How many keys there are: n * n * S."""
        return self.n * self.n * max(len(self.table), 1)

    def games_of(
        self, keys: NDArray[np.int64]
    ) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.float64]]:
        """The games (a, b, score) of game keys."""
        scores = max(len(self.table), 1)
        pair = keys // scores
        return (
            (pair // self.n).astype(np.int32),
            (pair % self.n).astype(np.int32),
            self.table[keys % scores] if len(self.table) else np.zeros(len(keys)),
        )

    def games(
        self, listing: Listing | None = None
    ) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.float64]]:
        """The games (a, b, score) as `listing` lists them (by default the canonical listing; a listing by
        prompt holds prompt * span + game key)."""
        listing = self.listing if listing is None else listing
        return tuple(listing.repeated(v) for v in self.games_of(listing.keys % self.span))  # type: ignore[return-value]

    def by_prompt(self, prompt: NDArray[np.integer]) -> Listing:
        """The games listed by (prompt, a, b, score): keys prompt * span + game key (`prompt`: each game's
        prompt code)."""
        groups = int(prompt.max()) + 1 if len(prompt) else 1
        if groups * self.span >= 1 << 62:
            raise ValueError("too many prompts and contestants to list the games by one integer key")
        return Listing(
            *unique_counts(prompt.astype(np.int64) * self.span + self.game_keys, groups * self.span)
        )

    def packed(self, n: int, listing: Listing | None = None) -> Packed | None:
        """The games packed for the native kernels as `listing` lists them (by default the canonical listing, made
        once: the orders and, for single games, the bootstrap rounds play the same words), or None where the
        games do not pack (the numpy path plays them)."""
        if listing is not None and listing is not self.listing:
            return self._pack(n, listing)
        if n not in self._packs:
            self._packs[n] = self._pack(n, self.listing)
        return self._packs[n]

    def _pack(self, n: int, listing: Listing) -> Packed | None:
        """Each distinct game packed once (kept), its word repeated for every game `listing` lists with it."""
        if n not in self._distinct:
            try:
                self._distinct[n] = pack(*self.games_of(self.listing.keys), n)
            except ValueError:
                self._distinct[n] = None
        distinct = self._distinct[n]
        if distinct is None:
            return None
        words = distinct.words
        if listing is not self.listing:  # its keys' games, among the distinct ones: by a table over the keys
            keys = listing.keys % self.span  # where it is small, else by a search (~6x slower at 10^6)
            if table_fits(self.span, len(keys)):
                by_key = np.zeros(self.span, dtype=words.dtype)
                by_key[self.listing.keys] = words
                words = by_key[keys]
            else:
                words = words[np.searchsorted(self.listing.keys, keys)]
        return Packed(listing.repeated(words), distinct.table, distinct.cbits)


def canonical(g: Games) -> Canonical:
    n = g.n_contestants
    swap = g.a > g.b
    a = np.where(swap, g.b, g.a).astype(np.int64)
    b = np.where(swap, g.a, g.b)
    s = np.subtract(1.0, g.score_a, where=swap, out=np.array(g.score_a, dtype=np.float64))  # swapped: 1 - s
    table, codes = dense_codes(s) if len(s) else (np.zeros(0), np.zeros(0, dtype=np.int64))
    scores = max(len(table), 1)
    keys = a
    keys *= n
    keys += b
    keys *= scores
    keys += codes
    del a, b, s, codes
    return Canonical(keys, Listing(*unique_counts(keys, n * n * scores)), table, n)


def canonical_games(g: Games) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.float64]]:
    """Games oriented lower contestant code first and sorted: a storage-order-free listing."""
    return canonical(g).games()


def _mix(z: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """splitmix64's output function (uint64 arithmetic wraps)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def _stream_keys(permutations: int, seed: int) -> NDArray[np.uint64]:
    base = _mix(np.array([seed & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64))[0]
    return _mix(base + np.arange(permutations, dtype=np.uint64))


def permutation_orders(n_games: int, permutations: int, seed: int) -> NDArray[np.int64]:
    """The game orders, one row per permutation: a Fisher–Yates shuffle driven by a counter-based splitmix64
    stream (draw i of order p is mix(key_p + i * golden)), so that the native kernel (elotui.rating.native.kernels),
    which shuffles in place, draws exactly the same orders."""
    keys = _stream_keys(permutations, seed)
    orders = np.broadcast_to(np.arange(n_games, dtype=np.int64), (permutations, n_games)).copy()
    if n_games < 2:
        return orders
    steps = np.arange(n_games - 1, 0, -1, dtype=np.uint64)  # i = n-1 .. 1
    with np.errstate(over="ignore"):
        draws = _mix(keys[:, None] + steps[None, :] * _GOLDEN)
    js = (((draws >> _S32) * (steps + np.uint64(1))[None, :]) >> _S32).astype(np.int64)
    rows = np.arange(permutations)
    for col, i in enumerate(range(n_games - 1, 0, -1)):
        j = js[:, col]
        held = orders[:, i].copy()
        orders[:, i] = orders[rows, j]
        orders[rows, j] = held
    return orders


def permutation_elo(
    g: Games,
    *,
    k_factor: float = 16.0,
    initial_rating: float = 1000.0,
    permutations: int = 100,
    seed: int = 0,
    canon: Canonical | None = None,
) -> PermutationElo:
    """`canon`: `canonical(g)`, where the caller has it already (the bootstrap rounds list the same games)."""
    c = canon if canon is not None else canonical(g)
    n = g.n_contestants
    if len(g) == 0 or permutations < 1:
        flat = np.full((max(permutations, 1), n), float(initial_rating))
        return PermutationElo(flat[0].copy(), flat[0].copy(), flat[0].copy(), flat)
    kernels, packed = _native(c, n)
    if kernels is not None and packed is not None:
        orders = whole(len(g), _stream_keys(permutations, seed))
        ratings = kernels.play_packed(packed, orders, n, float(k_factor), float(initial_rating))
    else:
        orders_ = permutation_orders(len(g), permutations, seed)
        ratings = run_orders_numpy(*c.games(), orders_, n, float(k_factor), float(initial_rating))
    low, high = np.percentile(ratings, [2.5, 97.5], axis=0)
    return PermutationElo(ratings.mean(axis=0), low, high, ratings)


def elo_rounds(
    g: Games,
    *,
    rounds: int,
    unit: BootstrapUnit = "prompt",
    k_factor: float = 16.0,
    initial_rating: float = 1000.0,
    seed: int = 0,
    orders: int | None = None,
    canon: Canonical | None = None,
    point_orders: PermutationElo | None = None,
) -> NDArray[np.float64]:
    """(rounds, n) bootstrap replicates of the permutation-averaged Elo: each round resamples the games (by prompt
    or by game, elotui.rating.bootstrap) and averages `orders` random orders of them (by default as many as a
    budget of game updates allows, elotui.rating.order_noise). The games are put in their canonical order once,
    so the result depends on the multiset of games and the seed only.

    A round's mean of a few orders still carries order noise (the single-order variance / `orders`), which does
    not shrink as games are added. Where the games are many (elotui.rating.order_noise.averages_tails), a round
    takes each order's ratings averaged over the second half of its games instead of its final ratings: the same
    mean, a noise that shrinks as the games grow. Either way the noise left is taken out
    (elotui.rating.order_noise.resampling_scale): every round's deviation from the rounds' mean is scaled, per
    contestant, to the resampling's variance plus the point estimate's own order noise. The noise is measured on
    the orders within the rounds and (final ratings only) on the point estimate's orders (`point_orders`: the
    `permutation_elo` of the same games, where the caller has it; without it, rounds play at least two orders).
    `canon`: `canonical(g)`, where the caller has it already."""
    n = g.n_contestants
    if rounds <= 0 or len(g) == 0:
        return np.zeros((0, n))
    tails = averages_tails(len(g), n, float(k_factor))
    if orders is None:
        least = 1 if point_orders is not None else 2
        orders = TAIL_ORDERS if tails else max(orders_per_round(len(g), rounds), least)
    c = canon if canon is not None else canonical(g)
    # Listed by (prompt, a, b, score) for prompt resampling (the order the resampling groups them in), by
    # (a, b, score) for single games (drawn by their place in the listing; the prompt plays no part).
    if unit == "prompt":
        prompt = g.prompt if len(g.prompt) == len(g) else np.zeros(len(g), dtype=np.int32)
        listing = c.by_prompt(prompt)
        del prompt
        listed_prompt = listing.repeated((listing.keys // c.span).astype(np.int32))
    else:
        listing, listed_prompt = c.listing, np.zeros(len(g), dtype=np.int32)
    out = np.empty((rounds, n))
    within = np.zeros((rounds, n))
    rules = (float(k_factor), float(initial_rating), tails)
    played_rounds = _round_orders(c, listing, listed_prompt, n, unit, rounds, seed, orders, *rules)
    del canon, c, listing, listed_prompt  # the rounds hold what they need
    for r, played in enumerate(played_rounds):
        out[r] = played.mean(axis=0)
        if orders > 1:
            within[r] = played.var(axis=0, ddof=1)
    order_variance, point_noise = _order_noise(within, orders, point_orders, tails)
    scale = resampling_scale(out, order_variance / orders, point_noise)
    centre = out.mean(axis=0)
    return small_sample_corrected(centre + (out - centre) * scale, clusters_of(g, unit))


def _order_noise(
    within: NDArray[np.float64], orders: int, point_orders: PermutationElo | None, tails: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64] | float]:
    """(one order's variance in the rounds, the point estimate's own order noise), per contestant: the rounds'
    within-round variances (`within`, over `orders` orders each), pooled with the point's orders' variance where
    the rounds play final ratings too; the point's noise is its one-order variance / its orders."""
    point = point_orders.ratings if point_orders is not None and len(point_orders.ratings) > 1 else None
    if not tails:
        order_variance = order_variance_of(within, orders, point)
        return order_variance, order_variance / len(point) if point is not None else 0.0
    # tail averages: their noise from the rounds alone (the point's orders give final ratings)
    order_variance = within.mean(axis=0) if orders > 1 else np.zeros(within.shape[1])
    return order_variance, point.var(axis=0, ddof=1) / len(point) if point is not None else 0.0


def _round_seed(seed: int, r: int) -> int:
    """The seed of bootstrap round r's orders (both paths draw the same orders from it)."""
    return seed * 1_000_003 + r + 1


def _round_orders(
    c: Canonical,
    listing: Listing,
    prompt: NDArray[np.int32],
    n: int,
    unit: BootstrapUnit,
    rounds: int,
    seed: int,
    orders: int,
    k: float,
    init: float,
    tails: bool = False,
) -> Iterator[NDArray[np.float64]]:
    """Each round's (orders, n) final ratings (`tails`: tail averages) of its resampled games played in `orders`
    random orders. The
    rounds draw from the games as `listing` lists them (whose prompts are `prompt`). Natively, rounds are played a
    batch at a time (all their orders spread over the cores), each order a shuffle of the round's blocks of the
    packed games in cluster order; otherwise with numpy, round by round."""
    resampling = resampled_blocks_of(prompt, unit, rounds, seed)
    kernels, packed = _native(c, n)
    if kernels is None or packed is None:
        a, b, s = c.games(listing)
        for r, blocks in enumerate(resampling.rounds):
            keep = Resampling.indices(resampling.order, blocks)
            ra, rb, rs = a[keep], b[keep], s[keep]
            shuffles = permutation_orders(len(ra), orders, _round_seed(seed, r))
            yield run_orders_numpy(ra, rb, rs, shuffles, n, k, init, tail=tails)
        return
    src = c.packed(n, listing)
    assert src is not None  # games that pack in one listing pack in any
    if resampling.order is not None:  # the games grouped by cluster (listed by prompt, they are already)
        src = Packed(src.words[resampling.order], src.table, src.cbits)
    del listing, prompt
    batch = (
        16 if unit == "prompt" else max(1, min(16, 8_000_000 // max(len(src.words), 1)))
    )  # bounded block memory
    drawn = enumerate(resampling.rounds)
    while chunk := list(itertools.islice(drawn, batch)):
        plan = [
            Order(st, ln, int(key))
            for r, (st, ln) in chunk
            for key in _stream_keys(orders, _round_seed(seed, r))
        ]
        played = (kernels.play_tail if tails else kernels.play_packed)(src, plan, n, k, init)
        yield from played.reshape(len(chunk), orders, n)


def _native(c: Canonical, n: int) -> tuple[Kernels | None, Packed | None]:
    """The native kernels and the listing packed for them, or None where there are no kernels or the games do not
    pack (the numpy path plays them)."""
    kernels = jit_kernels()
    return kernels, c.packed(n) if kernels is not None else None


def run_orders_numpy(
    a: NDArray[np.integer],
    b: NDArray[np.integer],
    s: NDArray[np.float64],
    orders: NDArray[np.int64],
    n: int,
    k: float,
    init: float,
    chunk: int = 4096,
    *,
    tail: bool = False,
) -> NDArray[np.float64]:
    """All orders advanced together, one game step at a time (numpy fallback); `tail`: each order's ratings
    averaged after each of its games from n_games // 2 on (the native `play_tail`), not its final ratings."""
    n_orders, n_games = orders.shape
    ratings = np.full(n_orders * n, init)
    sums = np.zeros(n_orders * n) if tail and n_games else None
    step, half = 0, n_games // 2
    offsets = (np.arange(n_orders, dtype=np.int64) * n)[:, None]
    a64 = a.astype(np.int64)
    b64 = b.astype(np.int64)
    exp = np.exp
    for start in range(0, n_games, chunk):
        block = orders[:, start : start + chunk]
        fa = np.ascontiguousarray((a64[block] + offsets).T)
        fb = np.ascontiguousarray((b64[block] + offsets).T)
        sb = np.ascontiguousarray(s[block].T)
        for ia, ib, st in zip(fa, fb, sb, strict=True):
            ra = ratings[ia]
            rb = ratings[ib]
            d = k * (st - 1.0 / (1.0 + exp(_C * (rb - ra))))
            ratings[ia] = ra + d
            ratings[ib] = rb - d
            if sums is not None and step >= half:
                sums += ratings
            step += 1
    if sums is not None:
        ratings = sums / (n_games - half)
    return ratings.reshape(n_orders, n)
