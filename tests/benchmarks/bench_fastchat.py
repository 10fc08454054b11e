"""elotui against FastChat's published rating functions, on the same verdicts, same machine, same run.

Run as `python -m tests.benchmarks.bench_fastchat [--sizes 100k,1m] [--keep DIR]` from the repository root, with
the bench extra installed (`pip install -e '.[bench]'`: pandas, tqdm; FastChat's functions are vendored in
`fastchat_rating.py` with their licence).

For each size a generated tournament (tests/benchmarks/scale_world.py: 100 contestants, every ordered pair on
every prompt, one replay judge reading a generated verdict log) is

1. ingested with `elotui run T --headless --no-delay` (timed: verdicts/s and its peak RSS, its own log-reading
   child included);
2. ranked in process: FastChat `compute_bt` + `compute_bootstrap_bt` (100 rounds, its multiprocessing pool) and
   `compute_elo` + `compute_bootstrap_elo` (100 rounds) on a pandas DataFrame of the valid verdicts, against
   `TournamentSession.leaderboard` (store read included) for Bradley–Terry with 200 prompt-bootstrap rounds, for
   all five thresholds, and for permutation-averaged Elo (100 orders) with its intervals;
3. ranked as whole processes: `elotui export T --method bt|elo` against a Python process that reads the verdict
   log with pandas and runs the FastChat functions (interleaved: the median of 3 FastChat processes, and of 9
   elotui exports, three before each of FastChat's, with their quartiles and the slowest).

The child processes run with compiled bytecode for every module, as after `pip install` (`as_installed`).

Every figure is printed with its ratio. The load average is printed before and after.
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
os.environ.setdefault("TQDM_DISABLE", "1")  # FastChat's progress bars
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}


def battles(log: Path):  # type: ignore[no-untyped-def]
    """The valid verdicts as FastChat's battles DataFrame (model_a shown first; winner model_a | model_b | tie)."""
    import pandas as pd

    df = pd.read_json(log, lines=True)
    df = df[df["status"] == "ok"]
    winner = df["winner"].map({"first": "model_a", "second": "model_b", "tie": "tie"})
    return pd.DataFrame({"model_a": df["first"], "model_b": df["second"], "winner": winner})


def fastchat(log: Path, method: str) -> dict[str, float]:
    """The FastChat side: read the log, rate, bootstrap 100 rounds. Returns the times."""
    from tests.benchmarks import fastchat_rating as fc

    t0 = time.perf_counter()
    df = battles(log)
    t1 = time.perf_counter()
    if method == "bt":
        fc.compute_bt(df)
        fc.compute_bootstrap_bt(df, num_round=100)
    else:
        fc.compute_elo(df)
        fc.compute_bootstrap_elo(df, num_round=100)
    return {"read_s": t1 - t0, "rate_s": time.perf_counter() - t1}


def as_installed(folder: Path) -> None:
    """Run the timed child processes as from an installed package: with compiled bytecode. `pip install`
    compiles every module it installs (pandas' and numpy's are compiled here already), but a checkout run with
    PYTHONDONTWRITEBYTECODE=1 would compile elotui's and the vendored functions' ~50 modules from source in
    every process (~0.07 s each time). The bytecode goes to a folder of this run, not into the checkout."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "elotui", "tests/benchmarks"], check=True, cwd=ROOT
    )


def tree_rss_kib(pid: int) -> int:
    """The resident memory of a process and all its descendants now, in KiB (Linux /proc; 0 elsewhere)."""
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/status") as status:
                total += next((int(line.split()[1]) for line in status if line.startswith("VmRSS")), 0)
            with open(f"/proc/{p}/task/{p}/children") as children:
                stack += [int(c) for c in children.read().split()]
        except (OSError, ValueError):
            continue
    return total


def ingest(toml: Path, store: Path, home: Path) -> tuple[float, float]:
    """(seconds, peak RSS MiB) of `elotui run T --headless --no-delay` into a fresh store. The peak is that of the
    process and the children it starts (the replay log's reader: elotui.judges.replay_index) together, sampled every 20 ms,
    or the process's own peak (ru_maxrss, which counts the largest child, not their sum) if that is larger."""
    env = {**os.environ, "ELOTUI_HOME": str(home)}
    exe = [
        sys.executable,
        "-m",
        "elotui.cli",
        "run",
        str(toml),
        "--headless",
        "--no-delay",
        "--store",
        str(store),
    ]
    t0 = time.perf_counter()
    proc = subprocess.Popen(exe, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
    together = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        together = max(together, tree_rss_kib(proc.pid))
        time.sleep(0.02)
    seconds = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"ingest failed ({status})")
    return seconds, max(together, usage.ru_maxrss) / 1024


PLAIN_INGEST = """
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[2], isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("CREATE TABLE v (prompt, first, second, judge, condition, sample, winner, reasoning, status, "
           "PRIMARY KEY (prompt, first, second, judge, condition, sample))")
rows = []
for line in open(sys.argv[1], encoding="utf-8"):
    r = json.loads(line)
    rows.append((r["prompt"], r["first"], r["second"], r["judge"], r.get("condition") or "clean",
                 r.get("sample", 0), r["winner"], r["reasoning"], r["status"]))
db.execute("BEGIN")
db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
db.execute("COMMIT")
"""


def plain_ingest(log: Path, folder: Path) -> float:
    """The reference: a plain process that reads the verdict log and stores each verdict, keyed by its
    presentation, in one SQLite transaction (no plan, no prompts rendered, no call keys, no snapshot)."""
    target = folder / "plain.sqlite"
    for path in (target, target.with_name("plain.sqlite-wal"), target.with_name("plain.sqlite-shm")):
        path.unlink(missing_ok=True)
    seconds = timed([sys.executable, "-c", PLAIN_INGEST, str(log), str(target)])
    target.unlink(missing_ok=True)
    return seconds


def timed(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - t0


def in_process(toml: Path, store_path: Path, log: Path) -> None:
    from elotui.session import TournamentSession
    from elotui.store import Store
    from elotui.tournament.model import load_tournament
    from elotui.vocab import THRESHOLDS

    t = load_tournament(toml)
    with Store(store_path) as store:
        session = TournamentSession(t, store)
        session.leaderboard(threshold="none", method="bt")  # warm (imports, kernels)
        figures = {}
        for name, fn in (
            ("bt, one threshold", lambda: session.leaderboard(threshold="none", method="bt")),
            (
                "bt, all five thresholds",
                lambda: [session.leaderboard(threshold=x, method="bt") for x in THRESHOLDS],
            ),
            ("elo (100 orders + intervals)", lambda: session.leaderboard(threshold="none", method="elo")),
        ):
            runs = []
            for _ in range(3):
                t0 = time.perf_counter()
                fn()
                runs.append(time.perf_counter() - t0)
            figures[name] = statistics.median(runs)
    fc_bt = statistics.median(fastchat(log, "bt")["rate_s"] for _ in range(3))
    fc_elo = statistics.median(fastchat(log, "elo")["rate_s"] for _ in range(2))
    print("  in process (median of 3, store read included for elotui; FastChat from its DataFrame):")
    print(f"    FastChat compute_bt + bootstrap 100 rounds: {fc_bt:.2f} s")
    print(f"    FastChat compute_elo + bootstrap 100 rounds: {fc_elo:.2f} s")
    for name, seconds in figures.items():
        ref = fc_elo if name.startswith("elo") else fc_bt
        print(f"    elotui {name}: {seconds:.2f} s  ({ref / seconds:.1f}x FastChat)")


def whole_process(toml: Path, store: Path, log: Path) -> None:
    elotui = [
        sys.executable,
        "-m",
        "elotui.cli",
        "export",
        str(toml),
        "--store",
        str(store),
        "-o",
        os.devnull,
    ]
    for method in ("bt", "elo"):
        ours, theirs = [], []
        cmd = [sys.executable, "-m", "tests.benchmarks.bench_fastchat", "--reference", str(log), method]
        for _ in range(3):  # elotui's ~1 s three times before each of FastChat's: its spread is seen too
            ours += [timed([*elotui, "--method", method]) for _ in range(3)]
            theirs.append(timed(cmd))
        a, b = statistics.median(ours), statistics.median(theirs)
        q1, _, q3 = statistics.quantiles(ours, n=4)
        print(
            f"  whole process, --method {method}: elotui export {a:.2f} s (q1 {q1:.2f}, q3 {q3:.2f}, slowest"
            f" {max(ours):.2f}, {len(ours)} runs), FastChat process {b:.2f} s ({b / a:.1f}x)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100k,1m", help="comma-separated: 10k, 100k, 1m")
    parser.add_argument("--keep", metavar="DIR", help="build the worlds and stores in DIR and keep them")
    parser.add_argument(
        "--reference", nargs=2, metavar=("LOG", "METHOD"), help="(internal) the FastChat process"
    )
    args = parser.parse_args()
    if args.reference:
        print(json.dumps(fastchat(Path(args.reference[0]), args.reference[1])))
        return
    from tests.benchmarks.bench_export import load
    from tests.benchmarks.scale_world import sizes_for, write_world

    print(load())
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.keep or tmp)
        as_installed(Path(tmp))
        for label in args.sizes.split(","):
            contestants, prompts = sizes_for(SIZES[label])
            folder = base / f"world-{label}"
            toml, store, log = folder / "tournament.toml", folder / "store.sqlite", folder / "verdicts.jsonl"
            if not toml.exists():
                write_world(folder, contestants, prompts)
            n = contestants * (contestants - 1) * prompts
            print(f"{label}: {n:,} verdicts ({contestants} contestants, {prompts} prompts, one replay judge)")
            if not store.exists():
                seconds, rss = ingest(toml, store, folder / "home")
                plain = plain_ingest(log, folder)
                print(
                    f"  ingest: {seconds:.1f} s whole process = {n / seconds:,.0f} verdicts/s, peak RSS {rss:,.0f} MiB"
                    f" (plain log -> SQLite process: {plain:.1f} s = {n / plain:,.0f}/s; elotui at "
                    f"{plain / seconds:.2f}x its rate)"
                )
            in_process(toml, store, log)
            whole_process(toml, store, log)
    print(load())


if __name__ == "__main__":
    main()
