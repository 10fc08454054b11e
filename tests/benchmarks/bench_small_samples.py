"""How honest are the intervals and the bands on small tournaments? (run: python -m tests.benchmarks.bench_small_samples
[seeds]; ~4 minutes at the default 12 seeds on a loaded 2-core machine).

Three worlds with known truth (bench_coverage's, and bench_elo_interval's "spread" and "close"), 3 to 30 prompts,
Bradley–Terry and Elo at threshold none with the default settings (200 rounds by prompt). For each cell:
- coverage: the share of (seed, contestant) whose 95 % interval holds the true rating (Bradley–Terry: the BT fit
  to the population's expected scores, by Monte Carlo; Elo: the stationary Elo of bench_elo_interval);
- bands: of the adjacent gaps the board calls certain (the gap's interval within one band), the share whose true
  gap is in that band, and how many such claims there were.
The figures set SMALL_SAMPLE_PROMPTS (elotui.rating.small_sample: below it the intervals under-cover and a note
says so) and BAND_CLAIM_PROMPTS (below it no band is called certain). Every seed is 0..seeds-1; the run stops by
itself.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np

from elotui.rating.bt import fit_theta, to_elo
from elotui.rating.leaderboard import RatingOptions, rank
from elotui.rating.table import VerdictTable
from elotui.vocab import band
from tests.benchmarks.bench_elo_interval import WORLDS, World, first_wins, simulate, stationary_elo

COVERAGE_WORLD = World(
    "coverage", (150, 90, 40, 0, -50, -120), ((60, 25, 0.0), (90, -10, 0.0), (120, 40, 0.0)), 80.0
)
PROMPTS = (3, 5, 10, 20, 30)


def population_bt(world: World, draws: int = 200_000, seed: int = 7) -> np.ndarray:
    """The BT ratings of the population: the fit to each pair's expected score over both orders and the judges."""
    rng = np.random.default_rng(seed)
    q, n, nj = np.array(world.qualities, float), len(world.qualities), len(world.judges)
    wins = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            u = rng.normal(0.0, world.tau, (draws, 2))
            judge = rng.integers(0, nj, draws)
            wins[i, j] += first_wins(world, q[i] + u[:, 0] - q[j] - u[:, 1], judge, rng).mean()
    # wins[i, j] so far: i's expected score shown first against j; each pair's score over both orders
    score = 0.5 * (wins + (1.0 - wins.T))
    np.fill_diagonal(score, 0.0)
    return to_elo(fit_theta(score, prior=0.0))


def cell(world: World, truth: np.ndarray, method: str, prompts: int, seeds: int) -> tuple[float, int, int]:
    hits: list[float] = []
    claims = right = 0
    for seed in range(seeds):
        table = VerdictTable.from_rows(simulate(world, prompts, seed), contestants=world.names)
        board = rank(table, threshold="none", method=method, options=RatingOptions(seed=seed))
        index = {c: i for i, c in enumerate(world.names)}
        for r in board.rows:
            if r.ci_low is not None and r.ci_high is not None:
                hits.append(float(r.ci_low <= truth[index[r.contestant]] <= r.ci_high))
        for up, lo in zip(board.rows, board.rows[1:], strict=False):
            if up.band_range is not None and len(up.band_range) == 1:
                claims += 1
                right += (
                    band(abs(truth[index[up.contestant]] - truth[index[lo.contestant]])) == up.band_range[0]
                )
    return float(np.mean(hits)) if hits else float("nan"), claims, right


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    started = time.perf_counter()
    print(f"small samples: seeds 0..{seeds - 1} per cell, threshold none, 200 prompt rounds, 95 % intervals")
    print(
        f"{'world':<9} {'method':<6} "
        + "  ".join(f"{p:>3} prompts: cov  bands right/claims" for p in PROMPTS)
    )
    for world in (COVERAGE_WORLD, *WORLDS):
        truths = {"bt": population_bt(world), "elo": stationary_elo(world, chains=1000, steps=10000)}
        for method in ("bt", "elo"):
            parts = []
            for p in PROMPTS:
                cov, claims, right = cell(world, truths[method], method, p, seeds)
                parts.append(f"{p:>3} prompts: {100 * cov:5.1f} % {right:>4}/{claims:<4}")
            print(f"{world.name:<9} {method:<6} " + "  ".join(parts), flush=True)
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
