"""The position-aware Bradley–Terry's counts by (judge, first, second): found once and re-weighted for each
bootstrap round (elotui.rating.position_bt.tally with its Cells), they equal, bit for bit, the counts made from
scratch over the games of positive weight (the reference below: how every round counted them before)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from elotui.rating.position_bt import Tallied, cells, position_aware_ratings, tally


def reference(g: Any, weights: np.ndarray | None = None) -> Tallied:
    judges, judge = np.unique(g.judge, return_inverse=True)
    n, k = g.n_contestants, len(judges)
    w = np.ones(len(g.a)) if weights is None else weights
    keep = w > 0
    key = ((judge.astype(np.int64) * n + g.a) * n + g.b)[keep]
    uniq, inverse = np.unique(key, return_inverse=True)
    score, ww = g.score_a[keep], w[keep]
    wins = np.bincount(inverse, ww * (score == 1.0), len(uniq)).astype(np.float64)
    losses = np.bincount(inverse, ww * (score == 0.0), len(uniq)).astype(np.float64)
    ties = np.bincount(inverse, ww * (score == 0.5), len(uniq)).astype(np.float64)
    return Tallied(uniq // (n * n), (uniq // n) % n, uniq % n, wins, losses, ties, n, k)


def _games(rng: np.random.Generator) -> SimpleNamespace:
    n, size = int(rng.integers(2, 9)), int(rng.integers(1, 400))
    a = rng.integers(0, n, size)
    b = (a + rng.integers(1, n, size)) % n
    return SimpleNamespace(
        a=a,
        b=b,
        judge=rng.choice([3, 7, 11, 12][: int(rng.integers(1, 5))], size),
        score_a=rng.choice([0.0, 0.5, 1.0], size),
        prompt=rng.integers(0, 1 + size // 5, size),
        n_contestants=n,
    )


def _same(x: Tallied, y: Tallied) -> bool:
    fields = ("judge", "first", "second", "wins", "losses", "ties")
    arrays = all(np.array_equal(getattr(x, f), getattr(y, f)) for f in fields)
    return arrays and (x.n, x.k) == (y.n, y.k)


@pytest.mark.parametrize("seed", range(40))
def test_reweighted_counts_equal_counts_from_scratch(seed: int) -> None:
    rng = np.random.default_rng(seed)
    g = _games(rng)
    c = cells(g)
    assert _same(tally(g), reference(g)) and _same(tally(g, None, c), reference(g))
    for _ in range(5):  # bootstrap-like weights: many games weigh 0, some count several times
        w = rng.choice([0.0, 0.0, 1.0, 2.0, 3.0], len(g.a)) * rng.choice([1.0, 0.1], len(g.a))
        assert _same(tally(g, w, c), reference(g, w))
    assert _same(tally(g, np.zeros(len(g.a)), c), reference(g, np.zeros(len(g.a))))


def test_the_bootstrap_is_that_of_counts_from_scratch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole position-aware fit with 30 bootstrap rounds, against the same fit counting from scratch."""
    import elotui.rating.position_bt as module

    g = _games(np.random.default_rng(5))
    got = position_aware_ratings(g, bootstrap=30, seed=1)
    monkeypatch.setattr(module, "tally", lambda g, weights=None, c=None: reference(g, weights))
    want = position_aware_ratings(g, bootstrap=30, seed=1)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert np.array_equal(got[2]["advantage_rounds"], want[2]["advantage_rounds"])
