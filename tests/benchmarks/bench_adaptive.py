"""Adaptive planning benchmark: `python -m tests.benchmarks.bench_adaptive [--seeds 20] [--world even|close|clusters]`.

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

Worlds (`--world`, the truth's shape): "even" (neighbours `--gap` apart), "close" (neighbours 25 apart: most gaps
practically tied), "clusters" (pairs of near-equal contestants, 10 apart, the pairs 90 apart). The claims the run
stops on are checked against the truth: of the gaps settled by order confidence, the share whose order is the
truth's; of the gaps settled as practically tied, the share whose true gap is under 50 points (target: both at
least the settle level, 95 %). The truth for the claims is the population's Bradley–Terry rating (the fit to each
pair's expected score under the simulator, by Monte Carlo): the judges' noise compresses the qualities' scale.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from scipy.stats import kendalltau

from elotui.plan.adaptive import AdaptivePlanner, UnitKey
from elotui.plan.presentations import round_robin_rounds, unit_order
from elotui.rating.leaderboard import RatingOptions, rank
from elotui.rating.table import VerdictTable

N, PROMPTS = 16, 30
JUDGES = {
    "j-sharp": (120.0, 40.0),
    "j-mid": (160.0, 0.0),
    "j-noisy": (220.0, -30.0),
}  # noise sd, position bias
BATCH = 16


GAP = 60.0  # Elo points between neighbours in the truth (--gap); 16 contestants span 900 points


WORLD = "even"


def truth(seed: int) -> dict[str, float]:
    names = [f"c{i:02d}" for i in range(N)]
    rng = random.Random(seed)
    rng.shuffle(names)
    if WORLD == "close":
        return {c: 1300 - 25.0 * i for i, c in enumerate(names)}
    if WORLD == "clusters":
        return {c: 1300 - 100.0 * (i // 2) - 10.0 * (i % 2) for i, c in enumerate(names)}
    return {c: 1300 - GAP * i for i, c in enumerate(names)}


def population_bt(q: dict[str, float], draws: int = 20_000) -> dict[str, float]:
    """The truth the leaderboard estimates: the Bradley–Terry fit to each pair's expected score (both orders, every
    judge, the prompt effect, the noise and the ties of `answer`, by Monte Carlo), on the Elo scale."""
    import numpy as np

    from elotui.rating.bt import fit_theta, to_elo

    rng = np.random.default_rng(11)
    names = sorted(q)
    n = len(names)
    score = np.zeros((n, n))
    effect = rng.normal(0, 60, draws) - rng.normal(0, 60, draws)
    for i, j in itertools.combinations(range(n), 2):
        total = 0.0
        for noise, bias in JUDGES.values():
            for sign in (1, -1):  # i shown first, then second
                d = sign * (q[names[i]] - q[names[j]]) + sign * effect + bias + rng.normal(0, noise, draws)
                first = np.where(np.abs(d) < 15, 0.5, 1 / (1 + 10 ** (-d / 400)))
                total += float(first.mean() if sign == 1 else 1 - first.mean())
        score[i, j] = total / (2 * len(JUDGES))
        score[j, i] = 1 - score[i, j]
    return dict(zip(names, to_elo(fit_theta(score, prior=0.0)).tolist(), strict=True))


def claims(board: object, q: dict[str, float]) -> tuple[int, int, int, int]:
    """(ordered claims, right ones, tied claims, right ones) of the settled gaps of the board the run stopped on,
    against the population's Bradley–Terry ratings `q`."""
    from elotui.plan.adaptive import settled_gap

    ordered = ordered_right = tied = tied_right = 0
    rows = [r for r in board.rows if r.rank is not None]  # type: ignore[attr-defined]
    for up, lo in itertools.pairwise(rows):
        true_gap = q[up.contestant] - q[lo.contestant]
        in_order, is_tied = settled_gap(up, 0.95)
        if is_tied:
            tied += 1
            tied_right += abs(true_gap) < 50
        elif in_order:
            ordered += 1
            ordered_right += true_gap > 0
    return ordered, ordered_right, tied, tied_right


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
    final = planner.board(VerdictTable.from_rows(rows, contestants=contestants, prompts=prompts))
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
        "claims": claims(final, population_bt(q)),
        "same_top3": (ada_top3 == full_top3, rnd_top3 == full_top3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--gap", type=float, default=GAP, help="Elo points between neighbours in the truth")
    parser.add_argument("--world", choices=("even", "close", "clusters"), default="even")
    args = parser.parse_args(argv)
    globals()["GAP"] = args.gap
    globals()["WORLD"] = args.world
    print(
        f"world {args.world}: {N} contestants ({args.gap:g} Elo apart when even), {PROMPTS} prompts, "
        f"judges {JUDGES} (noise sd, position bias), seeds 0..{args.seeds - 1}"
    )
    start = time.perf_counter()
    results = []
    for s in range(args.seeds):
        results.append(one_seed(s))
        o, o_r, t, t_r = results[-1]["claims"]  # type: ignore[misc]
        print(
            f"  seed {s}: {results[-1]['settled']}, ordered claims {o_r}/{o} right, tied {t_r}/{t}",
            flush=True,
        )
    totals = [sum(r["claims"][i] for r in results) for i in range(4)]  # type: ignore[index]
    print(
        f"claims at the stop ({args.world}): ordered {totals[1]}/{totals[0]} right "
        f"({100 * totals[1] / max(totals[0], 1):.1f} %), practically tied {totals[3]}/{totals[2]} right "
        f"({100 * totals[3] / max(totals[2], 1):.1f} %) (target >= 95 % each)"
    )
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
