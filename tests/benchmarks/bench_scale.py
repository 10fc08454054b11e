"""How elotui's export grows from 10^4 to 10^7 verdicts: whole-process time and peak memory.

Run as `python -m tests.benchmarks.bench_scale [--sizes 10k,100k,1m,10m] [--keep DIR]` from the repository root,
with the bench extra installed (`pip install -e '.[bench]'`).

Each size is a synthetic tournament: 100 contestants (20 below 10^5 verdicts), every ordered pair on every
prompt, five judges, Bradley–Terry outcomes with a first-position advantage, a 10 % tie band and 1 % invalid
verdicts (seeded). Its store is written through the store's own API (`Store.set_plan`, then `record_calls` in
transactions of 65,536), the way a run writes one but without planning or judges, so that 10^7 verdicts take
minutes to build instead of a ten-minute ingest; the build is timed but it is not what is measured.

Measured, per size: `elotui export T --method bt` and `--method elo` as whole processes (median of 3; one run
at 10^7), each with its peak RSS (200 bootstrap rounds; 100 orders and 50 interval rounds for Elo). The
reference, in the same run and on the same verdicts: FastChat's published `compute_bt` (vendored in
fastchat_rating.py) on a DataFrame already in memory, one fit without bootstrap (its 100-round bootstrap takes
minutes at 10^7), against elotui's one fit without bootstrap in process, its store read and table build
included. The load average is printed before and after.
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

import numpy as np

from tests.benchmarks.scale_world import write_data_files

ROOT = Path(__file__).resolve().parents[2]
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000, "10m": 10_000_000}
JUDGES = 5
BATCH = 65_536


def shape(verdicts: int) -> tuple[int, int]:
    """(contestants, prompts) giving about `verdicts` verdicts from five judges on every ordered pair."""
    n = 20 if verdicts < 100_000 else 100
    return n, max(1, round(verdicts / (n * (n - 1) * JUDGES)))


def write_tournament(folder: Path, n: int, prompts: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    names = [f"m{i:03d}" for i in range(n)]
    write_data_files(folder, names, [f"q{p:05d}" for p in range(prompts)])
    qualities = "".join(f"{c} = {q:.1f}\n" for c, q in zip(names, np.linspace(1400.0, 600.0, n), strict=True))
    judges = "".join(
        f'[[judges]]\nid = "j{j}"\nprovider = "simulated"\n[judges.simulation]\nseed = {j}\n'
        f"[judges.simulation.qualities]\n{qualities}"
        for j in range(JUDGES)
    )
    toml = folder / "tournament.toml"
    toml.write_text(
        '[tournament]\nname = "scale"\n\n[data]\nprompts = "questions.jsonl"\nresponses = "answers.jsonl"\n\n'
        '[comparison]\nboth_orders = true\n\n[ranking]\nmethod = "bt"\nthreshold = "none"\npermutations = 100\n'
        "bootstrap = 200\nseed = 0\n\n" + "".join(f'[[contestants]]\nid = "{c}"\n' for c in names) + judges,
        encoding="utf-8",
    )
    return toml


def outcomes(n: int, prompts: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    """(prompt, first, second, judge, winner 0/1/2, invalid) codes of every verdict, in plan order."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(400.0, -400.0, n)
    a, b = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    off = a != b
    first = np.tile(np.repeat(a[off], JUDGES), prompts)
    second = np.tile(np.repeat(b[off], JUDGES), prompts)
    judge = np.tile(np.arange(JUDGES), prompts * n * (n - 1))
    prompt = np.repeat(np.arange(prompts), n * (n - 1) * JUDGES)
    p_first = 1.0 / (1.0 + 10.0 ** (-(quality[first] - quality[second] + 30.0) / 400.0))
    u = rng.random(len(first))
    winner = np.where(np.abs(u - p_first) < 0.05, 2, np.where(u < p_first, 0, 1))
    return prompt, first, second, judge, winner, rng.random(len(first)) < 0.01


def build_store(store_path: Path, n: int, prompts: int) -> float:
    """Write the plan and every verdict through the store's API; returns the seconds it took."""
    from elotui.records import CallRecord, PlanRow
    from elotui.store import Store

    names = [f"m{i:03d}" for i in range(n)]
    qids = [f"q{p:05d}" for p in range(prompts)]
    judges = [f"j{j}" for j in range(JUDGES)]
    prompt, first, second, judge, winner, invalid = outcomes(n, prompts)
    t0 = time.perf_counter()
    columns = [c.tolist() for c in (prompt, first, second, judge)]
    keys = [f"{i:064x}" for i in range(len(prompt))]
    with Store(store_path) as store:
        store.set_plan(
            PlanRow(i, qids[p], names[f], names[s], judges[j], "clean", 0, keys[i])
            for i, (p, f, s, j) in enumerate(zip(*columns, strict=True))
        )
        words = ("first", "second", "tie")
        for start in range(0, len(keys), BATCH):
            stop = min(start + BATCH, len(keys))
            records = [
                CallRecord(
                    key=keys[i],
                    kind="verdict",
                    status="invalid" if invalid[i] else "ok",
                    judge=judges[columns[3][i]],
                    provider="simulated",
                    prompt=qids[columns[0][i]],
                    first=names[columns[1][i]],
                    second=names[columns[2][i]],
                    condition="clean",
                    sample=0,
                    winner=None if invalid[i] else words[winner[i]],
                )
                for i in range(start, stop)
            ]
            store.record_calls(records, claimed=False, share=False)
        store.compact()
    return time.perf_counter() - t0


def export(toml: Path, store: Path, method: str) -> tuple[float, float]:
    """(seconds, peak RSS MiB) of `elotui export T --method M` as a child process."""
    cmd = [sys.executable, "-m", "elotui.cli", "export", str(toml), "--store", str(store), "--method", method]
    t0 = time.perf_counter()
    proc = subprocess.Popen([*cmd, "-o", os.devnull], cwd=ROOT, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({status})")
    return time.perf_counter() - t0, usage.ru_maxrss / 1024


def fastchat_fit(n: int, prompts: int) -> float:
    """Seconds of FastChat's compute_bt (one fit) on the valid verdicts, as a DataFrame in memory."""
    import pandas as pd

    from tests.benchmarks import fastchat_rating as fc

    _, first, second, _, winner, invalid = outcomes(n, prompts)
    names = np.array([f"m{i:03d}" for i in range(n)])
    keep = ~invalid
    df = pd.DataFrame(
        {
            "model_a": names[first[keep]],
            "model_b": names[second[keep]],
            "winner": np.array(["model_a", "model_b", "tie"])[winner[keep]],
        }
    )
    t0 = time.perf_counter()
    fc.compute_bt(df)
    return time.perf_counter() - t0


def elotui_fit(toml: Path, store_path: Path) -> float:
    """Seconds of one Bradley–Terry fit (no bootstrap) in process, the store read and the table built included:
    the like-for-like figure for FastChat's one fit."""
    from elotui.rating import games
    from elotui.rating.bt import bradley_terry
    from elotui.session import TournamentSession
    from elotui.store import Store
    from elotui.tournament.model import load_tournament

    with Store(store_path) as store:
        session = TournamentSession(load_tournament(toml), store)
        t0 = time.perf_counter()
        bradley_terry(games(session.plan_table(), "none"), bootstrap=0)
        return time.perf_counter() - t0


def child(*args: str) -> float:
    """Run a step of this benchmark in a fresh process and return the seconds it printed. The parent stays small:
    a child forked from a large parent would report the parent's memory as its own peak (ru_maxrss survives
    exec)."""
    out = subprocess.run(
        [sys.executable, "-m", "tests.benchmarks.bench_scale", "--internal", *args],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def internal(step: str, folder: Path, n: int, prompts: int) -> float:
    toml, store = folder / "tournament.toml", folder / "store.sqlite"
    if step == "build":
        write_tournament(folder, n, prompts)
        return build_store(store, n, prompts)
    return elotui_fit(toml, store) if step == "fit-elotui" else fastchat_fit(n, prompts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10k,100k,1m,10m")
    parser.add_argument(
        "--keep", metavar="DIR", help="build the stores in DIR and keep them (reused if present)"
    )
    parser.add_argument(
        "--internal", nargs=4, metavar=("STEP", "DIR", "N", "PROMPTS"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    os.environ.setdefault("TQDM_DISABLE", "1")
    if args.internal:
        step, folder, n, prompts = args.internal
        print(internal(step, Path(folder), int(n), int(prompts)))
        return
    from tests.benchmarks.bench_export import load

    print(load())
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.keep or tmp)
        for label in args.sizes.split(","):
            n, prompts = shape(SIZES[label])
            verdicts = n * (n - 1) * prompts * JUDGES
            folder = base / f"scale-{label}"
            toml, store = folder / "tournament.toml", folder / "store.sqlite"
            os.environ["ELOTUI_HOME"] = str(folder / "home")
            if not store.exists():
                built = child("build", str(folder), str(n), str(prompts))
                print(
                    f"{label}: {verdicts:,} verdicts; store built in {built:.0f} s ({store.stat().st_size / 2**20:,.0f} MiB)"
                )
            runs = 1 if verdicts > 2_000_000 else 3
            figures = {}
            for method in ("bt", "elo"):
                timings = [export(toml, store, method) for _ in range(runs)]
                figures[method] = (statistics.median(t for t, _ in timings), max(m for _, m in timings))
            ours = child("fit-elotui", str(folder), str(n), str(prompts))
            reference = child("fit-fastchat", str(folder), str(n), str(prompts))
            rows.append((verdicts, figures, ours, reference))
            (bt_s, bt_mb), (elo_s, elo_mb) = figures["bt"], figures["elo"]
            print(
                f"  export bt {bt_s:.2f} s {bt_mb:,.0f} MiB | export elo {elo_s:.2f} s {elo_mb:,.0f} MiB | one BT fit "
                f"in process: elotui {ours:.2f} s (store read incl.), FastChat {reference:.2f} s ({reference / ours:.1f}x)",
                flush=True,
            )
    print(
        "\n| verdicts | export bt: s, peak MiB | export elo: s, peak MiB | one BT fit: elotui / FastChat (s) |"
    )
    print("|---|---|---|---|")
    for verdicts, figures, ours, reference in rows:
        (bt_s, bt_mb), (elo_s, elo_mb) = figures["bt"], figures["elo"]
        print(
            f"| {verdicts:,} | {bt_s:.2f}, {bt_mb:,.0f} | {elo_s:.2f}, {elo_mb:,.0f} | "
            f"{ours:.2f} / {reference:.2f} ({reference / ours:.1f}x) |"
        )
    print(load())


if __name__ == "__main__":
    main()
