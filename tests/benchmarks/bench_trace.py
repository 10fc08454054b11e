"""Benchmark of the two commands that write a whole store out: `elotui verdicts` (the verdict log) and `elotui graph`
(the Neo4j trace), whole process, on a store a benchmark built (bench_fastchat's 1M store: `--keep DIR`).

Run as `python -m tests.benchmarks.bench_trace T STORE [--runs 3] [--graph-runs 1]` (from the repository root).

1. `elotui verdicts T --store STORE -o FILE`: median of `--runs`, interleaved with a plain reference process that
   reads the same rows with sqlite3 (every detail column of `plan JOIN calls`, in plan order, as the store reads a
   detail) and writes each with `json.dumps` (how `elotui verdicts` wrote its log before it streamed the columns). The two files
   are compared byte for byte.
2. `elotui graph T --store STORE -o DIR`: `--graph-runs` runs, against the floor of writing the same bytes (a
   process copying the graph's files, from the page cache, to a new folder).

The load average is printed before and after: other processes share the cores.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

REFERENCE = """
import json, sqlite3, sys
from elotui.store.schema import DETAIL_SQL
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
keys = ("prompt", "first", "second", "judge", "condition", "sample", "winner", "reasoning", "status")
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for r in db.execute(DETAIL_SQL + " WHERE c.key IS NOT NULL ORDER BY p.seq"):
        row = dict(zip(keys, (r[1], r[2], r[3], r[4], r[5], r[6], r[16] if r[13] == "ok" else None, r[17], r[13])))
        out.write(json.dumps(row, ensure_ascii=False) + "\\n")
"""


def timed(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def elotui(*args: str) -> list[str]:
    return [sys.executable, "-m", "elotui.cli", *args]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tournament", type=Path)
    ap.add_argument("store", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--graph-runs", type=int, default=1)
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="bench-trace-") as tmp:
        folder = Path(tmp)
        log, plain = folder / "verdicts.jsonl", folder / "plain.jsonl"
        ours, theirs = [], []
        for _ in range(args.runs):
            ours.append(
                timed(elotui("verdicts", str(args.tournament), "--store", str(args.store), "-o", str(log)))
            )
            theirs.append(timed([sys.executable, "-c", REFERENCE, str(args.store), str(plain)]))
        same = filecmp.cmp(log, plain, shallow=False)
        size = log.stat().st_size / 1e6
        a, b = statistics.median(ours), statistics.median(theirs)
        print(
            f"elotui verdicts: {a:.2f} s median of {len(ours)} ({', '.join(f'{t:.2f}' for t in ours)}), {size:.0f} MB"
        )
        print(
            f"plain json.dumps process: {b:.2f} s ({', '.join(f'{t:.2f}' for t in theirs)}) -> {b / a:.1f}x"
        )
        print(f"the two logs byte-identical: {same}")
        log.unlink()
        plain.unlink()
        graph = folder / "graph"
        runs, floors = [], []
        for _ in range(args.graph_runs):
            shutil.rmtree(graph, ignore_errors=True)
            runs.append(
                timed(elotui("graph", str(args.tournament), "--store", str(args.store), "-o", str(graph)))
            )
            copy = folder / "copy"
            shutil.rmtree(copy, ignore_errors=True)
            floors.append(timed(["cp", "-r", str(graph), str(copy)]))
            shutil.rmtree(copy)
        size = sum(p.stat().st_size for p in graph.iterdir()) / 1e6
        g, f = statistics.median(runs), statistics.median(floors)
        print(
            f"elotui graph: {g:.1f} s ({', '.join(f'{t:.1f}' for t in runs)}), {size:.0f} MB in {len(list(graph.iterdir()))} files"
        )
        print(f"writing the same bytes (cp -r): {f:.1f} s -> the graph takes {g / f:.0f}x the floor")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
