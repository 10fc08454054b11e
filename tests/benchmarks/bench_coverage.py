"""Do the intervals cover at their level? A simulation with known truth (run: python -m tests.benchmarks.bench_coverage).

The simulator: 6 contestants with qualities on the Elo scale, 3 judges (each with its own noise and position bias),
every pair in both orders on every prompt. A verdict on prompt p, with `first` shown first:
    d = (q_first + u[p, first]) - (q_second + u[p, second]) + bias_judge + noise,  noise ~ N(0, sd_judge)
    P(first wins) = 1 / (1 + 10^(-d / 400))
where u[p, c] ~ N(0, tau) is the prompt-level effect: one draw per prompt and contestant, shared by every judge and
both orders (a prompt that suits a contestant suits it for every judge). tau = 0 is the "no prompt effect" case.

The truth a Bradley–Terry fit estimates (no model is exactly BT here): the BT ratings of the population, i.e. the
BT fit (no prior) to the expected win probabilities P(i beats j), each the average over both orders and the
judges of E_u,noise[P(first wins)], computed by Monte Carlo with 400,000 draws per pair, order and judge. Coverage
is the share of (seed, contestant) pairs whose 95 % interval (centred, mean 1000, like the truth) contains the true
rating. The standard error printed is the binomial one over those pairs (they are correlated within a seed, so it
is a lower bound). Elo's interval has no such truth (Elo's limit depends on K); its width is what must shrink as
the data grow.
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

QUALITIES = np.array([150.0, 90.0, 40.0, 0.0, -50.0, -120.0])
NAMES = [f"c{i}" for i in range(len(QUALITIES))]
JUDGES = [("j1", 60.0, 25.0), ("j2", 90.0, -10.0), ("j3", 120.0, 40.0)]  # (id, noise sd, position bias)
TAU = 80.0


def win_probability(d: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + 10.0 ** (-d / 400.0))


def population_truth(tau: float, draws: int = 400_000, seed: int = 12345) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = len(QUALITIES)
    wins = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            p_ij = []
            for first, second in ((i, j), (j, i)):
                for _, sd, bias in JUDGES:
                    u = rng.normal(0, tau, (draws, 2)) if tau else np.zeros((draws, 2))
                    d = (
                        QUALITIES[first]
                        + u[:, 0]
                        - QUALITIES[second]
                        - u[:, 1]
                        + bias
                        + rng.normal(0, sd, draws)
                    )
                    p_first = win_probability(d).mean()
                    p_ij.append(p_first if first == i else 1 - p_first)
            wins[i, j] = np.mean(p_ij)
            wins[j, i] = 1 - wins[i, j]
    return to_elo(fit_theta(wins, prior=0.0))


def simulate(prompts: int, tau: float, seed: int) -> list[tuple]:
    rng = np.random.default_rng(seed)
    n = len(QUALITIES)
    u = rng.normal(0, tau, (prompts, n)) if tau else np.zeros((prompts, n))
    rows = []
    for p in range(prompts):
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                for jid, sd, bias in JUDGES:
                    d = QUALITIES[i] + u[p, i] - QUALITIES[j] - u[p, j] + bias + rng.normal(0, sd)
                    winner = "first" if rng.random() < win_probability(np.array(d)) else "second"
                    rows.append((f"p{p}", NAMES[i], NAMES[j], jid, "clean", 0, "ok", winner))
    return rows


def coverage(prompts: int, tau: float, seeds: int, truth: np.ndarray) -> dict[str, object]:
    out: dict[str, list[float]] = {"bt_prompt": [], "bt_game": [], "elo_width": [], "bt_width": []}
    bounded = 0
    for seed in range(seeds):
        table = VerdictTable.from_rows(simulate(prompts, tau, seed), contestants=NAMES)
        for unit in ("prompt", "game"):
            board = rank(
                table,
                threshold="none",
                method="bt",
                options=RatingOptions(bootstrap=200, seed=seed, bootstrap_unit=unit),
            )  # type: ignore[arg-type]
            for r in board.rows:
                t = truth[NAMES.index(r.contestant)]
                if r.ci_low is None or r.ci_high is None:
                    bounded += 1
                    out[f"bt_{unit}"].append(0.0)
                    continue
                out[f"bt_{unit}"].append(float(r.ci_low <= t <= r.ci_high))
                if unit == "prompt":
                    out["bt_width"].append(r.ci_high - r.ci_low)
        elo = rank(table, threshold="none", method="elo", options=RatingOptions(bootstrap=200, seed=seed))
        out["elo_width"] += [
            r.ci_high - r.ci_low for r in elo.rows if r.ci_high is not None and r.ci_low is not None
        ]
    summary: dict[str, object] = {"bounded": bounded}
    for key in ("bt_prompt", "bt_game"):
        values = np.array(out[key])
        p = values.mean()
        summary[key] = (p, float(np.sqrt(p * (1 - p) / len(values))))
    summary["elo_width"] = float(np.mean(out["elo_width"]))
    summary["bt_width"] = float(np.mean(out["bt_width"]))
    return summary


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    started = time.perf_counter()
    print(f"coverage of 95 % intervals, {seeds} seeds, 6 contestants, 3 judges, both orders (threshold none)")
    results = {}
    for tau in (TAU, 0.0):
        truth = population_truth(tau)
        print(f"\nprompt effect tau = {tau:g}: true BT ratings {np.round(truth, 1).tolist()}")
        print(
            f"{'prompts':>8}  {'BT by prompt':>16}  {'BT by game':>16}  {'BT width':>9}  {'Elo width':>9}  bounded"
        )
        for prompts in (5, 15, 30):
            s = coverage(prompts, tau, seeds, truth)
            results[(tau, prompts)] = s
            bp, bg = s["bt_prompt"], s["bt_game"]
            print(
                f"{prompts:>8}  {100 * bp[0]:>6.1f} % ± {100 * bp[1]:.1f}  {100 * bg[0]:>6.1f} % ± {100 * bg[1]:.1f}"  # type: ignore[index]
                f"  {s['bt_width']:>9.1f}  {s['elo_width']:>9.1f}  {s['bounded']}"
            )
    for tau in (TAU, 0.0):
        ratio = results[(tau, 30)]["elo_width"] / results[(tau, 5)]["elo_width"]  # type: ignore[operator]
        cov = results[(tau, 30)]["bt_prompt"][0]  # type: ignore[index]
        print(
            f"tau {tau:g}: BT-by-prompt coverage at 30 prompts {100 * cov:.1f} % (target 92-97 %); "
            f"Elo width at 30 / at 5 prompts = {ratio:.2f} (target <= 0.6)"
        )
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
