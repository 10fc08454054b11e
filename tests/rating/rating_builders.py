"""Shared builders for the rating tests: verdict rows in the store's tuple shape."""

from __future__ import annotations

import numpy as np


def row(
    prompt: str,
    first: str,
    second: str,
    judge: str,
    winner: str | None,
    *,
    status: str = "ok",
    condition: str = "clean",
    sample: int = 0,
) -> tuple:
    return (prompt, first, second, judge, condition, sample, status, winner if status == "ok" else None)


def simulate(
    qualities: dict[str, float],
    *,
    prompts: int = 10,
    judges: int = 3,
    samples: int = 1,
    seed: int = 0,
    tie_band: float = 0.05,
) -> list[tuple]:
    """Every ordered pair on every prompt, judged by `judges` noisy judges with Elo-logistic win chances."""
    rng = np.random.default_rng(seed)
    names = list(qualities)
    rows = []
    for p in range(prompts):
        for a in names:
            for b in names:
                if a == b:
                    continue
                for j in range(judges):
                    for s in range(samples):
                        pf = 1 / (1 + 10 ** (-(qualities[a] - qualities[b]) / 400))
                        u = rng.random()
                        w = "first" if u < pf - tie_band else "tie" if u < pf + tie_band else "second"
                        rows.append(row(f"p{p}", a, b, f"j{j}", w, sample=s))
    return rows


def exact_permutation_p(x, y, statistic) -> float:  # type: ignore[no-untyped-def]
    """An independent exact two-sided p-value: scipy's statistic on every ordering of `y`, P(|S| >= |S observed|)."""
    import itertools

    import numpy as np

    y = np.asarray(y, dtype=float)
    observed = abs(statistic(x, y))
    values = [abs(statistic(x, y[list(order)])) for order in itertools.permutations(range(len(y)))]
    return float(np.mean([v >= observed - 1e-12 for v in values]))
