"""Adaptive planning benchmark: `python -m tests.benchmarks.bench_adaptive [--seeds 20]`.

Simulated tournaments with known truth: 16 contestants (qualities 60 Elo points apart by default, `--gap`, dealt
in a seeded order),
30 prompts, 3 judges with realistic noise (sd 120 / 160 / 220 Elo points per verdict, plus a per-prompt effect of
sd 60 shared by the judges) and position bias (+40, 0, −30 toward Response A), ties within 15 points. The full plan
is every pair on every prompt, both orders, every judge: 30 × 120 × 2 × 3 = 21,600 calls.

Per seed: (1) the full round robin's Bradley–Terry ranking; (2) elotui's AdaptivePlanner buying units (a
prompt × pair with its 3 judges and 2 orders) in batches of 16 until settled (95 % order confidence, or certainly
practically tied); (3) random selection of the same number of units. Reported: Kendall τ of each ranking vs the
truth, whether the top 3 equals the truth's, and the adaptive run's share of the full plan's calls (median over
seeds), and a calls-vs-τ curve (adaptive after each batch against random at the same number of calls).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from scipy.stats import kendalltau

from elotui.rating.leaderboard import RatingOptions, rank
from elotui.rating.table import VerdictTable
from elotui.run.adaptive import AdaptivePlanner, UnitKey
from elotui.run.plan import round_robin_rounds, unit_order

N, PROMPTS = 16, 30
JUDGES = {
    "j-sharp": (120.0, 40.0),
    "j-mid": (160.0, 0.0),
    "j-noisy": (220.0, -30.0),
}  # noise sd, position bias
BATCH = 16


GAP = 60.0  # Elo points between neighbours in the truth (--gap); 16 contestants span 900 points


def truth(seed: int) -> dict[str, float]:
    names = [f"c{i:02d}" for i in range(N)]
    rng = random.Random(seed)
    rng.shuffle(names)
    return {c: 1300 - GAP * i for i, c in enumerate(names)}


def answer(u: UnitKey, q: dict[str, float], seed: int) -> list[tuple[str, str, str, str, str, int, str, str]]:
    """The 6 verdicts of one unit (3 judges × 2 orders), deterministic per seed and unit."""
    prompt, a, b, condition, sample = u
    rng = random.Random(f"{seed}:{prompt}:{a}:{b}")
    prompt_effect = random.Random(f"{seed}:{prompt}:{a}").gauss(0, 60) - random.Random(
        f"{seed}:{prompt}:{b}"
    ).gauss(0, 60)
    rows = []
    for judge, (noise, bias) in JUDGES.items():
        for first, second in ((a, b), (b, a)):
            sign = 1 if first == a else -1
            d = q[first] - q[second] + sign * prompt_effect + bias + rng.gauss(0, noise)
            winner = (
                "tie" if abs(d) < 15 else "first" if rng.random() < 1 / (1 + 10 ** (-d / 400)) else "second"
            )
            rows.append((prompt, first, second, judge, condition, sample, "ok", winner))
    return rows


def tau_of(
    rows: list[tuple[str, ...]], contestants: list[str], q: dict[str, float]
) -> tuple[float, bool, list[str]]:
    table = VerdictTable.from_rows(rows, contestants=contestants)
    ratings = rank(table, threshold="none", method="bt", options=RatingOptions(bootstrap=0)).ratings()
    names = sorted(ratings)
    tau = (
        float(kendalltau([ratings[c] for c in names], [q[c] for c in names]).statistic)
        if len(names) > 1
        else math.nan
    )
    top3 = sorted(ratings, key=lambda c: -ratings[c])[:3]
    return tau, top3 == sorted(q, key=lambda c: -q[c])[:3], top3


def one_seed(seed: int) -> dict[str, object]:
    q = truth(seed)
    contestants = sorted(q)
    prompts = [f"p{i:02d}" for i in range(PROMPTS)]
    units: list[UnitKey] = [
        (p, a, b, "clean", 0) for p, (a, b) in unit_order(prompts, round_robin_rounds(contestants))
    ]
    full_rows = [r for u in units for r in answer(u, q, seed)]
    full_tau, full_top, full_top3 = tau_of(full_rows, contestants, q)
    planner = AdaptivePlanner(units, contestants, RatingOptions(seed=seed), settle_confidence=0.95, seed=seed)
    bought: set[UnitKey] = set()
    rows: list[tuple[str, ...]] = []
    curve = []
    while True:
        table = VerdictTable.from_rows(rows, contestants=contestants, prompts=prompts)
        batch, state = planner.choose(table, bought, BATCH)
        if not batch:
            break
        for u in batch:
            bought.add(u)
            rows += answer(u, q, seed)
        curve.append((len(bought), tau_of(rows, contestants, q)[0]))
    ada_tau, ada_top, ada_top3 = tau_of(rows, contestants, q)
    rng = random.Random(seed + 7)
    picked = rng.sample(units, len(bought))
    rnd_rows = [r for u in picked for r in answer(u, q, seed)]
    rnd_tau, rnd_top, rnd_top3 = tau_of(rnd_rows, contestants, q)
    rand_curve = []
    for n_units, _ in curve[:: max(len(curve) // 8, 1)]:
        sub = [r for u in rng.sample(units, n_units) for r in answer(u, q, seed)]
        rand_curve.append((n_units, tau_of(sub, contestants, q)[0]))
    return {
        "share": len(bought) / len(units),
        "full": (full_tau, full_top),
        "adaptive": (ada_tau, ada_top),
        "random": (rnd_tau, rnd_top),
        "curve": curve,
        "random_curve": rand_curve,
        "settled": state.describe(),
        "same_top3": (ada_top3 == full_top3, rnd_top3 == full_top3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--gap", type=float, default=GAP, help="Elo points between neighbours in the truth")
    args = parser.parse_args(argv)
    globals()["GAP"] = args.gap
    print(
        f"{N} contestants {args.gap:g} Elo apart, {PROMPTS} prompts, judges {JUDGES} (noise sd, position bias)"
    )
    start = time.perf_counter()
    results = [one_seed(s) for s in range(args.seeds)]
    shares = [r["share"] for r in results]
    for name in ("full", "adaptive", "random"):
        taus = [r[name][0] for r in results]  # type: ignore[index]
        tops = sum(1 for r in results if r[name][1])  # type: ignore[index]
        print(
            f"{name:9s} τ vs truth: median {statistics.median(taus):.3f} (min {min(taus):.3f}); top-3 exact in {tops}/{len(results)} seeds"
        )
    same = [r["same_top3"] for r in results]
    print(
        f"top-3 equal to the full round robin's: adaptive {sum(a for a, _ in same)}/{len(same)}, random {sum(b for _, b in same)}/{len(same)}"
    )  # type: ignore[misc]
    gaps = [r["full"][0] - r["adaptive"][0] for r in results]  # type: ignore[index]
    print(f"full τ − adaptive τ: median {statistics.median(gaps):+.3f} (target ≤ 0.02)")
    print(
        f"adaptive calls: median {100 * statistics.median(shares):.1f} % of the full plan (target ≤ 35 %), range {100 * min(shares):.1f}–{100 * max(shares):.1f} %"
    )
    c = results[0]
    print("seed 0 curve (units bought: adaptive τ | random τ at the same count):")
    rand = dict(c["random_curve"])  # type: ignore[arg-type]
    for n_units, tau in c["curve"]:  # type: ignore[union-attr]
        if n_units in rand:
            print(
                f"  {n_units:5d} units ({100 * n_units / (PROMPTS * N * (N - 1) // 2):5.1f} %): {tau:.3f} | {rand[n_units]:.3f}"
            )
    print(f"{len(results)} seeds in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
