"""Bootstrap rounds for the ratings' intervals, the gaps' intervals and the order confidence.

Unit (`[ranking] bootstrap_unit`):
- "prompt" (default): each round resamples the prompts that have games, with replacement, and keeps every game of
  each drawn prompt (a cluster bootstrap). Verdicts on one prompt share its difficulty, its length difference and
  its topic for every judge and both orders, so they are not independent; resampling games would treat them as
  if they were and give intervals that cover the truth far less often than they say (81 % for "95 %" in the
  simulation of tests/benchmarks/bench_coverage.py; 93-95 % with prompts as the unit).
- "game": each round resamples the games themselves (independent games; the behaviour of elotui 0.1).

Bradley–Terry: each round's win matrix is the drawn prompts' win matrices summed (a (rounds x prompts) count
matrix times the per-prompt matrices), fitted in one batch by Newton's method warm-started at the point fit.

Elo: `min(bootstrap, ELO_MAX_ROUNDS)` rounds, each playing the drawn games in several random orders (as many as a
budget of game updates allows, elotui.rating.order_noise: up to 32 for small tournaments, 1 for huge ones) and
averaging them (the permutation average of Boubdir et al. 2023, on the resampled games); where the games are many,
two orders a round, each taken as its ratings averaged over the second half of its games (the same mean, far less
order noise), and as many rounds as a budget of game updates allows (at least 50). The order noise left in each
round's mean (it does not shrink with more games: K sets it) is measured on the point estimate's orders and the
orders within the rounds and taken out (elotui.rating.order_noise.resampling_scale), the point estimate's own
order noise kept in, so the interval shrinks as data grow and is stable across ranking seeds. The spread of
single orders around the point estimate is reported apart, as the "order spread": it measures Elo's dependence
on the order of the games, not the uncertainty of the rating.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from elotui.rating.games import Games
from elotui.rating.radix import count_distinct, dense_ints, in_order, stable_argsort
from elotui.vocab import RATING_TIE

BootstrapUnit = Literal["prompt", "game"]
LEVEL = 0.95
ELO_MAX_ROUNDS = 200


@dataclass(frozen=True)
class IntervalSpec:
    """What an interval is: the settings every export and screen names it by."""

    kind: str  # "bootstrap" (percentile), or "none" (no rounds: the interval is the point)
    unit: BootstrapUnit
    level: float
    rounds: int

    def as_settings(self) -> dict[str, object]:
        return {"kind": self.kind, "unit": self.unit, "level": self.level, "rounds": self.rounds}

    def label(self) -> str:
        if self.kind != "bootstrap":
            return "no interval (bootstrap = 0)"
        return f"{self.level:.0%} bootstrap by {self.unit}, {self.rounds} rounds"


def percentile_interval(rounds: NDArray[np.float64], level: float = LEVEL) -> tuple[NDArray[np.float64], ...]:
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(rounds, [tail, 100 - tail], axis=0)
    return low, high


COUNTS_AT_ONCE = (
    1 << 24
)  # draw counts held at a time (128 MB): 200 rounds of 10^6 prompts took 1.6 GB at once


@dataclass(frozen=True)
class ClusterCounts:
    """The rounds' draw counts over the prompts that have games (`clusters` of them), drawn lazily in chunks of
    rounds (`chunks()`: each a (rounds in the chunk, clusters) array, in round order; the same numbers as one
    (rounds, clusters) draw: the generator draws row after row either way), and each game's prompt index."""

    rng: np.random.Generator
    rounds: int
    clusters: int
    inverse: NDArray[np.intp]

    def chunks(self) -> Iterator[NDArray[np.int64]]:
        """Each chunk of rounds' counts, drawn when reached (once: the generator moves on)."""
        p, each = self.clusters, max(1, COUNTS_AT_ONCE // max(self.clusters, 1))
        pvals = np.full(p, 1.0 / p)
        for start in range(0, self.rounds, each):
            yield self.rng.multinomial(p, pvals, size=min(each, self.rounds - start))


def cluster_counts(prompt: NDArray[np.integer], rounds: int, rng: np.random.Generator) -> ClusterCounts:
    """The (rounds x prompts) draw counts over the prompts that have games (each game's prompt code in `prompt`),
    to be drawn from `rng`, and each game's prompt index."""
    clusters, inverse = dense_ints(prompt)
    return ClusterCounts(rng, rounds, len(clusters), inverse)


Blocks = tuple[NDArray[np.int64], NDArray[np.int64]]  # (starts, lengths) of a round's runs of games


@dataclass(frozen=True)
class Resampling:
    """The bootstrap rounds as runs of games: `order` lists the games grouped by cluster (all the games of a prompt
    in a row), None where the games as they are already are so (for unit "game", or prompts listed in order: no
    10^7-entry identity to make and gather through), and each round is a sequence of blocks of that listing,
    drawn lazily (a round of single games is a block per game)."""

    order: NDArray[np.intp] | None
    rounds: Iterator[Blocks]

    @staticmethod
    def indices(order: NDArray[np.intp] | None, blocks: Blocks) -> NDArray[np.intp]:
        """A round's game indices (with repeats), the blocks laid end to end."""
        starts, lengths = blocks
        offsets = np.repeat(starts - np.r_[0, np.cumsum(lengths)[:-1]], lengths)
        listed = np.arange(int(lengths.sum())) + offsets
        return listed if order is None else order[listed]


def resampled_blocks(g: Games, unit: BootstrapUnit, rounds: int, seed: int) -> Resampling:
    """For each round, the games it keeps (with repeats): whole prompts, or single games."""
    if len(g.prompt) != len(g):
        unit = "game"
    return resampled_blocks_of(
        g.prompt if unit == "prompt" else np.zeros(len(g), np.int32), unit, rounds, seed
    )


def resampled_blocks_of(
    prompt: NDArray[np.integer], unit: BootstrapUnit, rounds: int, seed: int
) -> Resampling:
    """`resampled_blocks` of games known by their prompt codes alone (`prompt`: one per game)."""
    rng = np.random.default_rng(seed)
    n = len(prompt)
    if unit == "game":
        ones = np.ones(n, dtype=np.int64)
        return Resampling(None, ((rng.integers(0, n, n).astype(np.int64), ones) for _ in range(rounds)))
    counts = cluster_counts(prompt, rounds, rng)
    inverse, p = counts.inverse, counts.clusters
    # listed by prompt already (Elo's rounds): no order to make
    order = None if in_order(inverse) else stable_argsort(inverse, p)
    # each cluster's run in `order`: its count of games, after those of the clusters before it
    lengths = np.bincount(inverse, minlength=p).astype(np.int64)
    starts = np.cumsum(lengths) - lengths
    drawn = (np.repeat(np.arange(p), c) for chunk in counts.chunks() for c in chunk)
    return Resampling(order, ((starts[d], lengths[d]) for d in drawn))


def small_sample_corrected(rounds: NDArray[np.float64], clusters: int) -> NDArray[np.float64]:
    """The rounds' spread widened by sqrt(P / (P - 1)) for P resampled clusters: the bootstrap variance of a mean
    over P clusters is (P - 1) / P of the unbiased one (a 12 % wider interval at 5 prompts, 2 % at 30)."""
    if clusters < 2 or len(rounds) == 0:
        return rounds
    centre = rounds.mean(axis=0)
    return centre + (rounds - centre) * np.sqrt(clusters / (clusters - 1))


def clusters_of(g: Games, unit: BootstrapUnit) -> int:
    """How many units a round resamples: the prompts that have games, or the games."""
    if unit == "prompt" and len(g.prompt) == len(g):
        return count_distinct(g.prompt)
    return len(g)


def pair_cells(g: Games) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """Each game as two win-matrix cells (a beats b by score, b beats a by 1 - score) of the flat (n*n) matrix."""
    n = g.n_contestants
    a, b = g.a.astype(np.int64), g.b.astype(np.int64)
    return a * n + b, b * n + a, g.score_a


def prompt_win_rounds(g: Games, rounds: int, seed: int) -> NDArray[np.float64]:
    """(rounds, n, n) win matrices of the prompt bootstrap: counts (rounds x prompts) @ per-prompt win matrices,
    accumulated over blocks of prompts and chunks of rounds so that memory stays bounded (at most ~16 MB of
    per-prompt matrices, COUNTS_AT_ONCE counts)."""
    n = g.n_contestants
    counts = cluster_counts(g.prompt, rounds, np.random.default_rng(seed))
    inverse, p = counts.inverse, counts.clusters
    ab, ba, s = pair_cells(g)
    out = np.zeros((rounds, n * n))
    block = max(1, int(2e6 // max(n * n, 1)))
    order = stable_argsort(inverse, p) if p > block else None  # one block: every game, in any order
    sorted_prompt = inverse[order] if order is not None else inverse
    done = 0
    for chunk in counts.chunks():
        for start in range(0, p, block):
            stop = min(p, start + block)
            if order is None:
                sel: slice | NDArray[np.intp] = slice(None)
            else:
                lo, hi = np.searchsorted(sorted_prompt, [start, stop])
                sel = order[lo:hi]
            local = (inverse[sel] - start).astype(np.int64) * (n * n)
            size = (stop - start) * n * n
            w = np.bincount(local + ab[sel], weights=s[sel], minlength=size)
            w += np.bincount(local + ba[sel], weights=1.0 - s[sel], minlength=size)
            out[done : done + len(chunk)] += chunk[:, start:stop].astype(np.float64) @ w.reshape(
                stop - start, n * n
            )
        done += len(chunk)
    return out.reshape(rounds, n, n)


def gap_stats(
    rounds: NDArray[np.float64], upper: NDArray[np.intp], lower: NDArray[np.intp], level: float = LEVEL
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(gap interval lows, highs, order confidences) of rating[upper[k]] - rating[lower[k]] over the rounds, for
    each pair k at once: the percentile interval of the gap and the share of rounds with `upper` above `lower`
    (a tie, within RATING_TIE, counts half)."""
    gaps = rounds[:, upper] - rounds[:, lower]
    low, high = percentile_interval(gaps, level)
    confidence = np.mean(gaps > RATING_TIE, axis=0) + 0.5 * np.mean(np.abs(gaps) <= RATING_TIE, axis=0)
    return low, high, confidence
