"""Benchmark of elotui.rating. Run as a script: `python tests/benchmarks/bench_rating.py`.

1. 100k verdicts, 20 contestants, 5 judges, both orders: games + Bradley–Terry (200 bootstrap rounds) for all five
   thresholds (target <= 0.5 s total); permutation Elo, 100 orders, threshold none (target <= 1 s).
2. 1M verdicts, 100 contestants: Bradley–Terry with 200 bootstrap rounds (target <= 5 s, peak memory <= 1 GB).
3. Table construction from store rows + rank(threshold none, elo, 100 orders) against a plain per-verdict Python
   loop doing the same 100 orders, measured in the same run (target ratio >= 10x).
"""

from __future__ import annotations

import math
import random
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from elotui.rating.leaderboard import RatingOptions

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from elotui.rating import VerdictTable, games, rank
from elotui.rating.bt import bradley_terry
from elotui.rating.elo import (
    canonical_games,
    permutation_elo,
    permutation_orders,
    run_orders_numpy,
)
from elotui.rating.games import THRESHOLDS
from elotui.rating.native import jit_kernels


def synthetic_rows(
    n_verdicts: int, n_contestants: int, n_judges: int, seed: int = 1
) -> tuple[list[tuple], list[str]]:
    """Store-shaped rows: every pair in both orders, judges x samples, quality-driven winners, 2 % invalid."""
    rng = np.random.default_rng(seed)
    names = [f"c{i:03d}" for i in range(n_contestants)]
    quality = rng.normal(0, 150, n_contestants)
    pairs = [(i, j) for i in range(n_contestants) for j in range(n_contestants) if i != j]
    per_prompt = len(pairs) * n_judges
    n_prompts = max(1, math.ceil(n_verdicts / per_prompt))
    idx = np.arange(n_verdicts)
    pair = idx % len(pairs)
    judge = (idx // len(pairs)) % n_judges
    prompt = idx // per_prompt
    pa = np.array([p[0] for p in pairs])[pair]
    pb = np.array([p[1] for p in pairs])[pair]
    p_first = 1 / (1 + 10 ** (-(quality[pa] - quality[pb] + 30) / 400))
    u = rng.random(n_verdicts)
    winner = np.where(u < p_first - 0.05, "first", np.where(u < p_first + 0.05, "tie", "second"))
    status = np.where(rng.random(n_verdicts) < 0.02, "invalid", "ok")
    rows = [
        (
            f"p{prompt[k]}",
            names[pa[k]],
            names[pb[k]],
            f"j{judge[k]}",
            "clean",
            0,
            str(status[k]),
            None if status[k] != "ok" else str(winner[k]),
        )
        for k in range(n_verdicts)
    ]
    assert n_prompts >= 1
    return rows, names


def plain_permutation_elo(
    rows: list[tuple], names: list[str], permutations: int, seed: int
) -> dict[str, float]:
    """Reference: a per-verdict Python loop over the same 100 orders (same canonical games and orders)."""
    index = {n: i for i, n in enumerate(names)}
    games_list = []
    for _prompt, first, second, _judge, _condition, _sample, status, winner in rows:
        if status != "ok" or winner not in ("first", "second", "tie"):
            continue
        s = 1.0 if winner == "first" else 0.0 if winner == "second" else 0.5
        a, b = index[first], index[second]
        if a > b:
            a, b, s = b, a, 1.0 - s
        games_list.append((a, b, s))
    games_list.sort()
    orders = permutation_orders(len(games_list), permutations, seed).tolist()
    totals = [0.0] * len(names)
    for order in orders:
        r = [1000.0] * len(names)
        for g in order:
            a, b, s = games_list[g]
            e = 1.0 / (1.0 + 10.0 ** ((r[b] - r[a]) / 400.0))
            d = 16.0 * (s - e)
            r[a] += d
            r[b] -= d
        for i in range(len(names)):
            totals[i] += r[i]
    return {n: totals[i] / permutations for i, n in enumerate(names)}


def time_export_cli(rows: list[tuple], names: list[str]) -> float:
    """Best of 3 wall times of the real CLI on a store holding `rows` (one warm-up run first)."""
    from elotui.store import PlanRow, Store

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        prompts = list(dict.fromkeys(r[0] for r in rows))
        judges = list(dict.fromkeys(r[3] for r in rows))
        zero = ", ".join(f"{n} = 0.0" for n in names)
        parts = ['[tournament]\nname = "bench"\n', *(f'[[contestants]]\nid = "{n}"\n' for n in names)]
        responses = ", ".join(f'{n} = "r"' for n in names)
        parts += [f'[[prompts]]\nid = "{p}"\ntext = "q"\nresponses = {{ {responses} }}\n' for p in prompts]
        parts += [
            f'[[judges]]\nid = "{j}"\nprovider = "simulated"\n[judges.simulation]\nqualities = {{ {zero} }}\n'
            for j in judges
        ]
        (folder / "t.toml").write_text("\n".join(parts), encoding="utf-8")
        with Store(folder / "store.sqlite") as store:
            store._db.execute("BEGIN")
            store._db.executemany(
                "INSERT INTO calls (key, kind, status, winner, attempts, http_429s) VALUES (?, 'verdict', ?, ?, 1, 0)",
                [(f"k{i}", r[6], r[7]) for i, r in enumerate(rows)],
            )
            store._db.execute("COMMIT")
            store.set_plan(
                PlanRow(i, r[0], r[1], r[2], r[3], r[4], r[5], f"k{i}") for i, r in enumerate(rows)
            )
        cmd = [
            sys.executable,
            "-m",
            "elotui.cli",
            "export",
            str(folder / "t.toml"),
            "--store",
            str(folder / "store.sqlite"),
            "--threshold",
            "none",
            "--method",
            "elo",
            "-o",
            str(folder / "out.csv"),
        ]
        subprocess.run(cmd, check=True)
        best = math.inf
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True)
            best = min(best, time.perf_counter() - t0)
        return best


def timed(fn, repeat: int = 3):  # type: ignore[no-untyped-def]
    best = math.inf
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    print(f"JIT kernel (llvmlite): {'yes' if jit_kernels() is not None else 'no (numpy fallback)'}")
    rows, names = synthetic_rows(100_000, 20, 5)
    t_table, table = timed(lambda: VerdictTable.from_rows(rows, contestants=names))
    print(f"[100k] table from rows: {t_table:.3f} s")

    def all_thresholds() -> None:
        for t in THRESHOLDS:
            bradley_terry(games(table, t), bootstrap=200, seed=0)

    t_bt, _ = timed(all_thresholds)
    print(f"[100k] games + BT (200 bootstrap) for all 5 thresholds: {t_bt:.3f} s  (target <= 0.5 s)")
    g_none = games(table, "none")
    permutation_elo(g_none, permutations=2)  # JIT warm-up (the kernel compiles once per process)
    t_elo, _ = timed(lambda: permutation_elo(g_none, permutations=100, seed=0))
    print(
        f"[100k] permutation Elo, 100 orders, threshold none ({len(g_none)} games): {t_elo:.3f} s  (target <= 1 s)"
    )
    if jit_kernels() is not None:
        a, b, s = canonical_games(g_none)
        t_np, _ = timed(
            lambda: run_orders_numpy(a, b, s, permutation_orders(len(a), 100, 0), len(names), 16.0, 1000.0),
            repeat=1,
        )
        print(f"[100k] the same with the numpy fallback (no JIT): {t_np:.3f} s")

    # end-to-end vs plain loop
    def end_to_end() -> dict[str, float]:
        t = VerdictTable.from_rows(rows, contestants=names)
        return rank(
            t, threshold="none", method="elo", options=RatingOptions(permutations=100, seed=0)
        ).ratings()

    t_fast, fast = timed(end_to_end, repeat=1)
    t_plain, plain = timed(lambda: plain_permutation_elo(rows, names, 100, 0), repeat=1)
    worst = max(abs(fast[n] - plain[n]) for n in names)
    print(
        f"[100k] table + rank(none, elo, 100 orders): {t_fast:.3f} s; plain Python loop: {t_plain:.3f} s; "
        f"ratio {t_plain / t_fast:.1f}x (target >= 10x); max rating difference {worst:.2e}"
    )

    t_cli = time_export_cli(rows, names)
    print(
        f"[100k] whole `elotui export --threshold none --method elo` process (start-up, store, 100 orders): "
        f"{t_cli:.3f} s; ratio against the plain loop {t_plain / t_cli:.1f}x (target >= 10x)"
    )

    big_rows, big_names = synthetic_rows(1_000_000, 100, 5, seed=2)
    t0 = time.perf_counter()
    big = VerdictTable.from_rows(big_rows, contestants=big_names)
    t_big_table = time.perf_counter() - t0
    del big_rows
    print(f"[1M] table from rows: {t_big_table:.3f} s")
    tracemalloc.start()
    t_big, _ = timed(lambda: bradley_terry(games(big, "none"), bootstrap=200, seed=0), repeat=1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"[1M] games + BT (200 bootstrap), 100 contestants: {t_big:.3f} s (target <= 5 s); "
        f"peak numpy/python allocations {peak / 2**20:.0f} MiB (target <= 1024); process max RSS {rss:.0f} MiB "
        "(includes the 1M Python row tuples)"
    )
    t_big5, _ = timed(lambda: bradley_terry(games(big, 0.5), bootstrap=200, seed=0), repeat=1)
    print(f"[1M] games + BT (200 bootstrap), threshold 0.5: {t_big5:.3f} s")
    random.seed(0)


if __name__ == "__main__":
    main()
