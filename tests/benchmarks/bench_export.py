"""Benchmark of the whole `elotui export` process.

Run as `python -m tests.benchmarks.bench_export` (from the repository root).

1. Builds a store the way a user would: a generated tournament (20 contestants, 53 prompts, 5 simulated judges
   with different noise and position bias and a 2 % invalid rate, both orders, 1 sample = 100,700 planned
   verdicts) is run with `elotui run T --headless --no-delay` (the simulated provider path: real call keys, real
   reasoning and raw replies in the store, the engine's own plan order).
2. Times the real `elotui export T --threshold none --method elo --store S -o out.csv` subprocess (start-up,
   loading the tournament, reading the store, permutation-averaged Elo with 100 orders, writing the CSV): median of
   several runs, after one warm-up run (file cache).
3. Times, in the same run and interleaved with (2), a plain reference: a separate Python process
   (`--reference`) that reads the same store with sqlite3 (`plan LEFT JOIN calls`, the current plan), turns the
   valid verdicts into games (tie = draw) in the same canonical order, and plays the same 100 orders (drawn with
   `elotui.rating.elo.permutation_orders`, so the results can be compared) in a per-verdict Python loop.
4. Prints both medians, the ratio (target >= 10x), a conservative ratio against the reference's Elo loop alone
   (its start-up, store read and order drawing left out), the largest rating difference between the two
   outputs, and the in-process figures (`TournamentSession.leaderboard` vs the plain loop, both in this process).

The machine's load average is printed before and after: other processes share the cores.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
N_CONTESTANTS, N_JUDGES, N_PROMPTS = 20, 5, 53
PERMUTATIONS, SEED = 100, 0


def tournament_toml() -> str:
    names = [f"m{i:02d}" for i in range(N_CONTESTANTS)]
    qualities = ", ".join(f"{n} = {1000 + 25 * (N_CONTESTANTS // 2 - i)}.0" for i, n in enumerate(names))
    parts = [
        '[tournament]\nname = "bench export"\n',
        '[comparison]\nboth_orders = true\nsamples = 1\nconditions = ["clean"]\n',
        f'[ranking]\nmethod = "elo"\nthreshold = "none"\npermutations = {PERMUTATIONS}\nseed = {SEED}\n',
        *(f'[[contestants]]\nid = "{n}"\n' for n in names),
    ]
    for j in range(N_JUDGES):
        parts.append(
            f'[[judges]]\nid = "j{j}"\nprovider = "simulated"\nmax_concurrency = 64\n[judges.simulation]\n'
            f"noise = {40 + 20 * j}.0\nposition_bias = {15 * j}.0\ntie_margin = 10.0\ninvalid_rate = 0.02\n"
            f"seed = {j}\nqualities = {{ {qualities} }}\n"
        )
    for p in range(N_PROMPTS):
        responses = ", ".join(
            f'{n} = "Answer of {n} to question {p}: {"words " * ((i * 7 + p) % 40)}"'
            for i, n in enumerate(names)
        )
        parts.append(
            f'[[prompts]]\nid = "p{p:03d}"\ntext = "Question number {p}?"\nresponses = {{ {responses} }}\n'
        )
    return "\n".join(parts)


def contestant_ids() -> list[str]:
    return [f"m{i:02d}" for i in range(N_CONTESTANTS)]


# --- the plain reference (runs in its own process) ----------------------------------------------------------


def reference(store: str, contestants: list[str], permutations: int, seed: int) -> dict[str, object]:
    """Read the store with sqlite3 and play `permutations` orders of per-verdict Elo in a plain Python loop."""
    import math
    import sqlite3

    t0 = time.perf_counter()
    db = sqlite3.connect(store)
    rows = db.execute(
        "SELECT p.first, p.second, c.status, c.winner FROM plan p LEFT JOIN calls c ON c.key = p.key ORDER BY p.seq"
    ).fetchall()
    db.close()
    index = {name: i for i, name in enumerate(contestants)}
    games = []
    for first, second, status, winner in rows:
        if status != "ok" or winner not in ("first", "second", "tie"):
            continue
        s = 1.0 if winner == "first" else 0.0 if winner == "second" else 0.5
        a, b = index[first], index[second]
        if a > b:
            a, b, s = b, a, 1.0 - s
        games.append((a, b, s))
    games.sort()
    t1 = time.perf_counter()
    from elotui.rating.elo import permutation_orders  # the same orders as elotui draws (numpy)

    orders = permutation_orders(len(games), permutations, seed).tolist()
    t2 = time.perf_counter()
    c = math.log(10.0) / 400.0
    exp = math.exp
    n = len(contestants)
    totals = [0.0] * n
    for order in orders:
        r = [1000.0] * n
        for g in order:
            a, b, s = games[g]
            d = 16.0 * (s - 1.0 / (1.0 + exp(c * (r[b] - r[a]))))
            r[a] += d
            r[b] -= d
        for i in range(n):
            totals[i] += r[i]
    t3 = time.perf_counter()
    return {
        "ratings": {name: totals[i] / permutations for i, name in enumerate(contestants)},
        "games": len(games),
        "read_s": t1 - t0,
        "orders_s": t2 - t1,
        "loop_s": t3 - t2,
    }


# --- the benchmark ----------------------------------------------------------------------------------------------


def elotui_command() -> list[str]:
    exe = Path(sys.executable).with_name("elotui")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "elotui.cli"]


def timed_run(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT, env=env)
    return time.perf_counter() - t0, out.stdout


def read_csv_ratings(path: Path) -> dict[str, float]:
    lines = path.read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    ci, ri = header.index("contestant"), header.index("rating")
    return {cells[ci]: float(cells[ri]) for cells in (line.split(",") for line in lines[1:])}


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cores)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", metavar="STORE", help="(internal) run the plain reference on STORE")
    parser.add_argument("--fast-runs", type=int, default=9)
    parser.add_argument("--reference-runs", type=int, default=3)
    parser.add_argument(
        "--keep", metavar="DIR", help="build the store in DIR and keep it (reused if present)"
    )
    args = parser.parse_args()
    if args.reference:
        print(json.dumps(reference(args.reference, contestant_ids(), PERMUTATIONS, SEED)))
        return

    print(load())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        toml, store, out_csv = folder / "bench.toml", folder / "bench.sqlite", folder / "out.csv"
        elotui = elotui_command()
        if not (args.keep and store.exists()):
            toml.write_text(tournament_toml(), encoding="utf-8")
            t0 = time.perf_counter()
            subprocess.run(
                [*elotui, "run", str(toml), "--headless", "--no-delay", "--store", str(store)],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=ROOT,
            )
            print(f"store built with the simulated judges in {time.perf_counter() - t0:.1f} s: {store}")
        import sqlite3

        with sqlite3.connect(store) as db:
            planned, answered, ok = db.execute(
                "SELECT COUNT(*), COUNT(c.key), SUM(c.status = 'ok') FROM plan p LEFT JOIN calls c ON c.key = p.key"
            ).fetchone()
        print(
            f"plan: {planned} verdicts ({answered} answered, {ok} valid), {N_CONTESTANTS} contestants, "
            f"{N_JUDGES} judges, {N_PROMPTS} prompts, both orders; store {store.stat().st_size / 2**20:.0f} MiB"
        )

        export = [
            *elotui,
            "export",
            str(toml),
            "--threshold",
            "none",
            "--method",
            "elo",
            "--store",
            str(store),
            "-o",
            str(out_csv),
        ]
        ref_cmd = [sys.executable, "-m", "tests.benchmarks.bench_export", "--reference", str(store)]
        timed_run(export)  # warm-up: the store's pages in the OS cache, .pyc files written
        fast_times: list[float] = []
        ref_times: list[float] = []
        ref_result: dict[str, object] = {}
        per_ref = max(1, args.fast_runs // max(args.reference_runs, 1))
        while len(fast_times) < args.fast_runs or len(ref_times) < args.reference_runs:
            for _ in range(per_ref):
                if len(fast_times) < args.fast_runs:
                    fast_times.append(timed_run(export)[0])
            if len(ref_times) < args.reference_runs:
                seconds, stdout = timed_run(ref_cmd)
                ref_times.append(seconds)
                ref_result = json.loads(stdout)
        fast = statistics.median(fast_times)
        ref = statistics.median(ref_times)
        ratings = read_csv_ratings(out_csv)
        ref_ratings: dict[str, float] = ref_result["ratings"]  # type: ignore[assignment]
        worst = max(abs(ratings[n] - ref_ratings[n]) for n in ref_ratings)
        print(
            f"`elotui export --threshold none --method elo` whole process: median {fast:.3f} s "
            f"(min {min(fast_times):.3f}, max {max(fast_times):.3f}, {len(fast_times)} runs: "
            + " ".join(f"{t:.3f}" for t in fast_times)
            + ")"
        )
        print(
            f"plain reference process (sqlite3 + per-verdict Python loop, {ref_result['games']} games x "
            f"{PERMUTATIONS} orders): median {ref:.3f} s (min {min(ref_times):.3f}, max {max(ref_times):.3f}, "
            f"{len(ref_times)} runs); last run: read {ref_result['read_s']:.3f} s, orders "
            f"{ref_result['orders_s']:.3f} s, Elo loop {ref_result['loop_s']:.3f} s"
        )
        print(f"RATIO whole process: {ref / fast:.1f}x (target >= 10x)")
        loop_only = float(ref_result["loop_s"])  # type: ignore[arg-type]
        print(
            f"conservative ratio (reference's Elo loop alone vs the whole export process): {loop_only / fast:.1f}x"
        )
        print(f"largest rating difference export vs reference: {worst:.2e}")

        in_process(toml, store)
    print(load())


def in_process(toml: Path, store_path: Path) -> None:
    """`TournamentSession.leaderboard` (store read, games, 100 orders, leaderboard) vs the plain reference, in this process."""
    from elotui.rating.native import jit_kernels
    from elotui.session import TournamentSession
    from elotui.store import Store
    from elotui.tournament.model import load_tournament

    tournament = load_tournament(toml)
    t0 = time.perf_counter()
    kernels = jit_kernels()
    compile_s = time.perf_counter() - t0
    times = []
    with Store(store_path) as store:
        for _ in range(5):
            t0 = time.perf_counter()
            TournamentSession(tournament, store).leaderboard(threshold="none", method="elo")
            times.append(time.perf_counter() - t0)
    fast = statistics.median(times)
    t0 = time.perf_counter()
    ref = reference(str(store_path), contestant_ids(), PERMUTATIONS, SEED)
    plain = time.perf_counter() - t0
    print(
        f"in process: TournamentSession.leaderboard(none, elo, 100 orders) median {fast:.3f} s "
        f"({'native kernel, compiled in ' + format(compile_s, '.3f') + ' s' if kernels else 'numpy fallback'}); "
        f"plain loop {plain:.3f} s (Elo loop alone {ref['loop_s']:.3f} s); RATIO in process {plain / fast:.1f}x"
    )


if __name__ == "__main__":
    main()
