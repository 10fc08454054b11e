"""Is the leaderboard right in a live run's first minutes? (run: python -m tests.benchmarks.bench_early_order [runs])

Simulated live runs: 4, 8 or 12 contestants with strengths drawn N(0, 1) on the natural-log scale, 6 prompts,
every ordered pair on every prompt by 1 or 3 judges (Bradley–Terry winners, 5 % ties), verdicts arriving in a
random order. After the first k verdicts, k = 8, 12, ..., 100, both leaderboards (threshold none) are checked
against code written here:
- contradictions: snapshots whose Bradley–Terry order lists y above x where x reaches y through wins (or ties)
  and y never reaches x (a breadth-first search over the verdicts);
- Elo rated: the share of contestants with games that have a finite Elo rating and interval;
- unmarked: adjacent orders with order confidence < 0.5 and no `order_uncertain` (either method);
- marked: adjacent pairs that carry `order_uncertain` (confidence < 0.5, or no path of wins orders them);
- tau: Kendall τ between the displayed Bradley–Terry order (first comparison group) and the true strengths.
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np
from scipy.stats import kendalltau

from elotui.rating.leaderboard import Leaderboard, RatingOptions, rank
from elotui.rating.table import VerdictTable

OPTIONS = RatingOptions(permutations=50, bootstrap=100)
PROMPTS = 6


def live_run(n: int, judges: int, seed: int) -> tuple[list[str], np.ndarray, list[tuple]]:
    rng = np.random.default_rng(seed)
    names = [f"m{k:02d}" for k in range(n)]
    strength = rng.normal(0.0, 1.0, n)
    rows = []
    for p in range(PROMPTS):
        for i, k in itertools.permutations(range(n), 2):
            for j in range(judges):
                tie = rng.random() < 0.05
                first_wins = rng.random() < 1.0 / (1.0 + math.exp(strength[k] - strength[i]))
                winner = "tie" if tie else "first" if first_wins else "second"
                rows.append((f"p{p}", names[i], names[k], f"j{j}", "clean", 0, "ok", winner))
    order = rng.permutation(len(rows))
    return names, strength, [rows[i] for i in order]


def reaches(rows: list[tuple], names: list[str]) -> dict[str, set[str]]:
    beat: dict[str, set[str]] = {c: set() for c in names}
    for _p, first, second, _j, _c, _s, _st, winner in rows:
        if winner in ("first", "tie"):
            beat[first].add(second)
        if winner in ("second", "tie"):
            beat[second].add(first)
    out = {}
    for start in names:
        seen: set[str] = set()
        frontier = [start]
        while frontier:
            frontier = [m for v in frontier for m in beat[v] if m not in seen]
            seen.update(frontier)
        out[start] = seen
    return out


def contradicts(board: Leaderboard, reach: dict[str, set[str]]) -> bool:
    listed = [(r.contestant, r.group) for r in board.rows if r.rank is not None]
    return any(
        gx == gy and x in reach[y] and y not in reach[x]
        for (x, gx), (y, gy) in itertools.combinations(listed, 2)
    )


def adjacent(board: Leaderboard) -> tuple[int, int, int]:
    """(adjacent pairs, unmarked below one half, marked)."""
    pairs = unmarked = marked = 0
    for r in board.rows:
        if r.gap_to_next is None:
            continue
        pairs += 1
        marked += getattr(r, "order_uncertain", None) is not None  # (absent before the field existed)
        unmarked += (
            r.order_confidence is not None
            and r.order_confidence < 0.5
            and not getattr(r, "order_uncertain", None)
        )
    return pairs, unmarked, marked


def study(n: int, judges: int, runs: int) -> dict[str, float]:
    snapshots = bad = runs_bad = pairs = unmarked = marked = 0
    rated = with_games = 0
    taus: list[float] = []
    for seed in range(runs):
        names, strength, rows = live_run(n, judges, 7919 * n + 31 * judges + seed)
        run_bad = False
        for k in range(8, 101, 4):
            shown = rows[:k]
            table = VerdictTable.from_rows(shown, contestants=names)
            bt = rank(table, threshold="none", method="bt", options=OPTIONS)
            elo = rank(table, threshold="none", method="elo", options=OPTIONS)
            wrong = contradicts(bt, reaches(shown, names))
            bad += wrong
            run_bad |= wrong
            snapshots += 1
            played = {c for r in shown for c in (r[1], r[2])}
            with_games += len(played)
            rated += sum(
                r.contestant in played
                and r.rating is not None
                and math.isfinite(r.rating)
                and r.ci_low is not None
                for r in elo.rows
            )
            for board in (bt, elo):
                p, u, m = adjacent(board)
                pairs, unmarked, marked = pairs + p, unmarked + u, marked + m
            first = [r.contestant for r in bt.rows if r.rank is not None and r.group in (None, 1)]
            if len(first) >= 3:
                taus.append(
                    kendalltau([-first.index(c) for c in first], [strength[names.index(c)] for c in first])[0]
                )
        runs_bad += run_bad
    return {
        "snapshots": snapshots,
        "contradict": bad / snapshots,
        "runs": runs_bad / runs,
        "elo_rated": rated / with_games,
        "unmarked": unmarked,
        "marked": marked / max(pairs, 1),
        "tau": float(np.nanmean(taus)),
    }


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    started = time.perf_counter()
    print(
        f"early snapshots of simulated live runs: {runs} runs per row, k = 8..100 verdicts every 4 (threshold none)"
    )
    print(f"{'n':>3} {'judges':>6} {'snapshots':>9} {'BT contradicts':>14} {'runs with one':>13} {'Elo rated':>9}"
          f" {'unmarked <50%':>13} {'marked pairs':>12} {'tau':>6}")  # fmt: skip
    for n, judges in itertools.product((4, 8, 12), (1, 3)):
        s = study(n, judges, runs)
        print(
            f"{n:>3} {judges:>6} {s['snapshots']:>9} {100 * s['contradict']:>12.1f} % {100 * s['runs']:>11.0f} %"
            f" {100 * s['elo_rated']:>7.1f} % {s['unmarked']:>13} {100 * s['marked']:>10.1f} % {s['tau']:>6.3f}"
        )
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
