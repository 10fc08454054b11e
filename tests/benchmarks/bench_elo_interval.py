"""Is Elo's interval right? Coverage in two worlds with known truth, stability across ranking seeds, and shrinking
with the data (run: python -m tests.benchmarks.bench_elo_interval [seeds]; ~2-4 minutes at 60 seeds).

Elo's truth is the rating the permutation-averaged Elo converges to as prompts are added: the stationary mean of
the Elo chain (K = 16, from 1000) fed with games drawn from the world itself (each game a fresh prompt, a uniform
ordered pair and a uniform judge). It is computed by running 2,000 such chains side by side and averaging their
ratings over 20,000 games after 4,000 games of burn-in (its Monte Carlo error is ~0.2 points).

The worlds (neither is bench_coverage's): a verdict on a prompt, with `first` shown first, by a judge, is a tie
with the judge's tie rate, else
    d = (q_first + u[prompt, first]) - (q_second + u[prompt, second]) + bias_judge + noise,  noise ~ N(0, sd_judge)
    P(first wins) = 1 / (1 + 10^(-d / 400)),   u ~ N(0, tau) once per prompt and contestant.
- "spread": 8 contestants from +200 to -200, two judges (one sharp, one noisy that ties 15 %), tau 60.
- "close": 5 contestants within 90 points, four judges with strong position biases, tau 40.

Printed: coverage of the 95 % interval at 30 and 100 prompts (target 92-97 %), the mean width at 30 and 120
prompts (target: width at 120 <= 0.6 x width at 30), and, for one tournament at 30 and at 120 prompts, each
contestant's widest / narrowest width across ten ranking seeds (target <= 1.5). Every seed is printed with its
figure; the run stops by itself after the seeds asked for.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np

from elotui.rating.leaderboard import RatingOptions, rank
from elotui.rating.table import VerdictTable

K, INIT = 16.0, 1000.0
_C = np.log(10.0) / 400.0


@dataclass(frozen=True)
class World:
    name: str
    qualities: tuple[float, ...]
    judges: tuple[tuple[float, float, float], ...]  # (noise sd, position bias, tie rate)
    tau: float

    @property
    def names(self) -> list[str]:
        return [f"m{i}" for i in range(len(self.qualities))]


WORLDS = (
    World("spread", (200, 120, 60, 20, 0, -40, -100, -200), ((50, 30, 0.0), (150, -20, 0.15)), 60.0),
    World(
        "close",
        (40, 20, 0, -10, -50),
        ((100, 80, 0.0), (100, 60, 0.05), (100, -40, 0.0), (100, 100, 0.1)),
        40.0,
    ),
)


def first_wins(world: World, d: np.ndarray, judge: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each verdict's score for the first-shown (1 win, 0.5 tie, 0 loss) given its quality difference `d`."""
    sd, bias, ties = (np.array(x)[judge] for x in zip(*world.judges, strict=True))
    d = d + bias + rng.normal(0.0, 1.0, len(d)) * sd
    win = rng.random(len(d)) < 1.0 / (1.0 + 10.0 ** (-d / 400.0))
    return np.where(rng.random(len(d)) < ties, 0.5, win.astype(float))


def simulate(world: World, prompts: int, seed: int) -> list[tuple]:
    rng = np.random.default_rng(seed)
    q, n, nj = np.array(world.qualities, float), len(world.qualities), len(world.judges)
    u = rng.normal(0.0, world.tau, (prompts, n))
    p, i, j, jd = (
        x.ravel() for x in np.meshgrid(range(prompts), range(n), range(n), range(nj), indexing="ij")
    )
    keep = i != j
    p, i, j, jd = p[keep], i[keep], j[keep], jd[keep]
    s = first_wins(world, q[i] + u[p, i] - q[j] - u[p, j], jd, rng)
    names, slot = world.names, {1.0: "first", 0.5: "tie", 0.0: "second"}
    return [
        (f"p{a}", names[b], names[c], f"j{e}", "clean", 0, "ok", slot[float(w)])
        for a, b, c, e, w in zip(p.tolist(), i.tolist(), j.tolist(), jd.tolist(), s.tolist(), strict=True)
    ]


def stationary_elo(
    world: World, chains: int = 2000, burn: int = 4000, steps: int = 20000, seed: int = 99
) -> np.ndarray:
    """The stationary mean of Elo fed with the world's games (each a fresh prompt, pair and judge)."""
    rng = np.random.default_rng(seed)
    q, n, nj = np.array(world.qualities, float), len(world.qualities), len(world.judges)
    r = np.full((chains, n), INIT)
    acc = np.zeros(n)
    rows = np.arange(chains)
    for t in range(burn + steps):
        a = rng.integers(0, n, chains)
        b = (a + rng.integers(1, n, chains)) % n
        u = rng.normal(0.0, world.tau, (chains, 2))
        s = first_wins(world, q[a] + u[:, 0] - q[b] - u[:, 1], rng.integers(0, nj, chains), rng)
        d = K * (s - 1.0 / (1.0 + np.exp(_C * (r[rows, b] - r[rows, a]))))
        r[rows, a] += d
        r[rows, b] -= d
        if t >= burn:
            acc += r.sum(axis=0)
    return acc / (chains * steps)


def elo_rows(world: World, prompts: int, seed: int, rank_seed: int) -> list[tuple[str, float, float, float]]:
    table = VerdictTable.from_rows(simulate(world, prompts, seed), contestants=world.names)
    board = rank(table, threshold="none", method="elo", options=RatingOptions(bootstrap=200, seed=rank_seed))
    return [(r.contestant, r.rating, r.ci_low, r.ci_high) for r in board.rows]  # type: ignore[misc]


def coverage(world: World, truth: np.ndarray, prompts: int, seeds: int) -> tuple[float, float, float]:
    hits, widths = [], []
    for seed in range(seeds):
        rows = elo_rows(world, prompts, seed, rank_seed=seed)
        got = [float(lo <= truth[world.names.index(c)] <= hi) for c, _, lo, hi in rows]
        hits += got
        widths += [hi - lo for _, _, lo, hi in rows]
        print(f"  {world.name} {prompts} prompts seed {seed}: {int(sum(got))}/{len(got)} covered", flush=True)
    p = float(np.mean(hits))
    return p, float(np.sqrt(p * (1 - p) / len(hits))), float(np.mean(widths))


def stability(world: World, prompts: int, rank_seeds: int = 10) -> float:
    widths = np.array(
        [[hi - lo for _, _, lo, hi in elo_rows(world, prompts, 1, s)] for s in range(rank_seeds)]
    )
    board = widths.mean(axis=1)
    print(
        f"  {world.name} {prompts} prompts, ranking seeds 0..{rank_seeds - 1}: mean width per board "
        f"{np.round(board, 1).tolist()} (widest / narrowest {board.max() / board.min():.2f})",
        flush=True,
    )
    return float((widths.max(axis=0) / widths.min(axis=0)).max())


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    started = time.perf_counter()
    print(
        f"Elo 95 % interval: {seeds} data seeds (0..{seeds - 1}) per cell, ranking seed = data seed, 200 rounds"
    )
    summary = []
    for world in WORLDS:
        truth = stationary_elo(world)
        print(f"\nworld {world.name}: stationary Elo {np.round(truth, 1).tolist()}")
        cov = {p: coverage(world, truth, p, seeds) for p in (30, 100)}
        width120 = float(
            np.mean([hi - lo for s in range(max(seeds // 4, 5)) for *_, lo, hi in elo_rows(world, 120, s, s)])
        )
        width30 = float(
            np.mean([hi - lo for s in range(max(seeds // 4, 5)) for *_, lo, hi in elo_rows(world, 30, s, s)])
        )
        steady = {p: stability(world, p) for p in (30, 120)}
        summary.append((world.name, cov, width30, width120, steady))
    print(
        "\nworld    coverage@30        coverage@100       width@30  width@120  ratio  seeds-ratio@30  @120 (per contestant)"
    )
    for name, cov, w30, w120, steady in summary:
        (c30, e30, _), (c100, e100, _) = cov[30], cov[100]
        print(
            f"{name:<8} {100 * c30:5.1f} % ± {100 * e30:.1f}    {100 * c100:5.1f} % ± {100 * e100:.1f}    "
            f"{w30:8.1f}  {w120:9.1f}  {w120 / w30:5.2f}  {steady[30]:14.2f}  {steady[120]:.2f}"
        )
    print("targets: coverage 92-97 %, width ratio <= 0.6, widest/narrowest across ranking seeds <= 1.5")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
