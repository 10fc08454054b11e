"""What Elo's interval costs the user: `elotui export --method elo` and the live TUI's first leaderboard (a
tournament ranked by Elo, its store fully cached, no run) against the same commands of other checkouts of
elotui (by default none: give each with `--against NAME=DIR`, e.g. a `git archive` of an earlier commit unpacked
in DIR), on the same stores, interleaved, with their ratios; and FastChat's rating code at 10^6 verdicts (one
process, bench_fastchat's reference: `compute_elo` + `compute_bootstrap_elo` 100 rounds).

Run as `python -m tests.benchmarks.bench_elo_speed [--sizes 10k,100k,1m] [--keep DIR] [--against NAME=DIR ...]
[--runs 3] [--fastchat]` from the repository root (`--fastchat` needs the bench extra: pandas).

The stores are bench_scale's (tests/benchmarks/bench_scale.py: every ordered pair on every prompt, five judges,
20 contestants below 10^5 verdicts and 100 from there on), built through the store's API; the tournament is
ranked with `method = "elo"`. Each command runs as a child process whose working folder is the checkout it
measures (`python -m elotui.cli export`, or `python -c` opening the app as bench_tui does, timing app created ->
first leaderboard in the table). Medians of `--runs` runs each, the two checkouts alternating. The load average
is printed before and after: on a shared machine only the ratios of interleaved runs mean much.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}

TUI_CHILD = """
import asyncio, sys, time
from elotui.tournament.model import load_tournament
from elotui.store import Store
from elotui.tui.launch import make_app

async def main():
    tournament = load_tournament(sys.argv[1])
    with Store(sys.argv[2]) as store:
        launched = time.perf_counter()
        app = make_app(tournament, store, start_run=False)
        async with app.run_test(size=(80, 24)):
            while app.board is None:
                await asyncio.sleep(0.001)
            print(time.perf_counter() - launched)

asyncio.run(main())
"""


def elo_tournament(folder: Path, n: int, prompts: int) -> Path:
    """bench_scale's tournament in `folder` (its store built there if missing), ranked by Elo."""
    from tests.benchmarks.bench_scale import child

    toml = folder / "tournament.toml"
    if not (folder / "store.sqlite").exists():
        built = child("build", str(folder), str(n), str(prompts))
        print(f"  store built in {built:.0f} s", flush=True)
    text = toml.read_text()
    elo = folder / "tournament-elo.toml"
    elo.write_text(text.replace('method = "bt"', 'method = "elo"'))
    return elo


def export_seconds(code: Path, toml: Path, store: Path) -> float:
    cmd = [sys.executable, "-m", "elotui.cli", "export", str(toml), "--store", str(store), "--method", "elo"]
    t0 = time.perf_counter()
    subprocess.run([*cmd, "-o", os.devnull], cwd=code, check=True, capture_output=True)
    return time.perf_counter() - t0


def tui_seconds(code: Path, toml: Path, store: Path) -> float:
    out = subprocess.run(
        [sys.executable, "-c", TUI_CHILD, str(toml), str(store)],
        cwd=code,
        check=True,
        capture_output=True,
        text=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def fastchat_seconds(folder: Path, n: int, prompts: int) -> float:
    """FastChat's Elo with its 100-round bootstrap on the same verdicts, in a child process (rating time only)."""
    code = (
        "import sys, time\n"
        "from tests.benchmarks.bench_scale import outcomes\n"
        "from tests.benchmarks import fastchat_rating as fc\n"
        "import numpy as np, pandas as pd\n"
        f"n, prompts = {n}, {prompts}\n"
        "_, first, second, _, winner, invalid = outcomes(n, prompts)\n"
        "names = np.array([f'm{i:03d}' for i in range(n)]); keep = ~invalid\n"
        "df = pd.DataFrame({'model_a': names[first[keep]], 'model_b': names[second[keep]],"
        " 'winner': np.array(['model_a', 'model_b', 'tie'])[winner[keep]]})\n"
        "t0 = time.perf_counter(); fc.compute_elo(df); fc.compute_bootstrap_elo(df, num_round=100)\n"
        "print(time.perf_counter() - t0)\n"
    )
    env = {**os.environ, "TQDM_DISABLE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True, env=env
    )
    return float(out.stdout.strip().splitlines()[-1])


def compare(label: str, measure, checkouts: dict[str, Path], runs: int, toml: Path, store: Path) -> dict:  # type: ignore[no-untyped-def,type-arg]
    """Each checkout's median of `runs` runs of `measure`, alternating; prints them and their ratio."""
    times: dict[str, list[float]] = {name: [] for name in checkouts}
    for _ in range(runs):
        for name, code in checkouts.items():
            times[name].append(measure(code, toml, store))
    medians = {name: statistics.median(t) for name, t in times.items()}
    parts = [
        f"{name} {m:.2f} s ({min(times[name]):.2f}-{max(times[name]):.2f})" for name, m in medians.items()
    ]
    line = f"  {label}: " + ", ".join(parts)
    ratios = [f"this / {name} = {medians['this'] / m:.2f}x" for name, m in medians.items() if name != "this"]
    line += "; " + ", ".join(ratios) if ratios else ""
    print(line, flush=True)
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10k,100k,1m")
    parser.add_argument(
        "--keep", metavar="DIR", help="build the stores in DIR and keep them (reused if present)"
    )
    parser.add_argument(
        "--against", metavar="NAME=DIR", action="append", default=[], help="another checkout to measure too"
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fastchat", action="store_true", help="FastChat's Elo process at 10^6 (one run)")
    args = parser.parse_args()
    from tests.benchmarks.bench_export import load
    from tests.benchmarks.bench_scale import JUDGES, shape

    checkouts = {"this": ROOT}
    for other in args.against:
        name, _, folder = other.partition("=")
        checkouts[name] = Path(folder).resolve()
    print(load(), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.keep or tmp)
        for label in args.sizes.split(","):
            n, prompts = shape(SIZES[label])
            folder = base / f"scale-{label}"
            os.environ["ELOTUI_HOME"] = str(folder / "home")
            print(
                f"{label}: {n * (n - 1) * prompts * JUDGES:,} verdicts ({n} contestants, {prompts} prompts)"
            )
            toml = elo_tournament(folder, n, prompts)
            store = folder / "store.sqlite"
            for code in checkouts.values():  # warm: kernels compiled, bytecode written
                export_seconds(code, toml, store)
            export = compare("elotui export --method elo", export_seconds, checkouts, args.runs, toml, store)
            tui = compare("TUI first leaderboard", tui_seconds, checkouts, args.runs, toml, store)
            if args.fastchat and label == "1m":
                reference = fastchat_seconds(folder, n, prompts)
                print(
                    f"  FastChat compute_elo + bootstrap 100 rounds: {reference:.1f} s; "
                    + ", ".join(f"{k} export {reference / v:.1f}x faster" for k, v in export.items()),
                    flush=True,
                )
            print(f"  TUI first leaderboard (target <= 3 s at 10^6): {tui}", flush=True)
    print(load())


if __name__ == "__main__":
    main()
