"""Benchmark: a tournament whose prompts and responses are data files.

Run as `python -m tests.benchmarks.bench_data_files` (from the repository root).

Writes 5,000 prompts (`question.jsonl`, MT-bench's format) and 10 contestants' answers (`model_answer/<m>.jsonl`,
~300 characters each: 50,000 responses, ~17 MB) and a page-long tournament file with one simulated judge, then
times as whole processes (median of several runs after a warm-up):

1. `elotui validate T` (target ≤ 1.5 s): with the data files' merge kept by an earlier run (elotui.tournament.data_cache),
   and the first time (each run with an empty cache folder: the files merged),
2. `elotui run T --dry-run` (the whole plan, 450,000 judge calls: call keys and the cache check; target ≤ 3 s),

and, as the reference measured in the same run, a plain process that reads the same files with `json.loads` per
line into dictionaries (what any loader must at least do) and the same process that `import`s elotui's config
module (start-up of pydantic and elotui). The ratio validate / plain read says what elotui's checks cost.
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
N_PROMPTS, N_CONTESTANTS = 5_000, 10
MODELS = [f"model-{i:02d}" for i in range(N_CONTESTANTS)]

PLAIN_READ = """
import json, sys
from pathlib import Path
folder = Path(sys.argv[1])
questions = [json.loads(line) for line in (folder / "question.jsonl").open(encoding="utf-8")]
answers = {}
for f in sorted((folder / "model_answer").glob("*.jsonl")):
    for line in f.open(encoding="utf-8"):
        row = json.loads(line)
        answers[(row["question_id"], f.stem)] = row["choices"][0]["turns"][0]
assert len(answers) == len(questions) * len(list((folder / "model_answer").glob("*.jsonl")))
"""


def write_files(folder: Path) -> Path:
    (folder / "model_answer").mkdir(parents=True, exist_ok=True)
    filler = "The answer considers the question carefully and gives the main points with an example. "
    with (folder / "question.jsonl").open("w", encoding="utf-8") as fh:
        for q in range(N_PROMPTS):
            row = {
                "question_id": q,
                "category": f"cat{q % 8}",
                "turns": [f"Question {q}: {filler[: 40 + q % 60]}?"],
            }
            fh.write(json.dumps(row) + "\n")
    for i, m in enumerate(MODELS):
        with (folder / "model_answer" / f"{m}.jsonl").open("w", encoding="utf-8") as fh:
            for q in range(N_PROMPTS):
                text = f"{m} on {q}: " + filler * (2 + (q + i) % 3)
                row = {
                    "question_id": q,
                    "answer_id": f"{m}-{q}",
                    "model_id": m,
                    "choices": [{"index": 0, "turns": [text]}],
                }
                fh.write(json.dumps(row) + "\n")
    qualities = ", ".join(f'"{m}" = {1000 + 20 * i}' for i, m in enumerate(MODELS))
    contestants = "".join(
        f'[[contestants]]\nid = "{m}"\nresponses = "model_answer/{m}.jsonl"\n\n' for m in MODELS
    )
    path = folder / "tournament.toml"
    path.write_text(
        '[tournament]\nname = "bench data files"\n\n[data]\nprompts = "question.jsonl"\n\n'
        f'{contestants}[[judges]]\nid = "sim"\nprovider = "simulated"\n[judges.simulation]\nqualities = {{ {qualities} }}\n',
        encoding="utf-8",
    )
    return path


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = write_files(folder)
        size = sum(p.stat().st_size for p in folder.rglob("*.jsonl"))
        print(f"{N_PROMPTS:,} prompts x {N_CONTESTANTS} contestants, {size / 1e6:.1f} MB of JSONL")
        env = {**os.environ, "ELOTUI_HOME": str(folder / "home"), "PYTHONPATH": str(ROOT)}
        commands = {
            "elotui validate": [sys.executable, "-m", "elotui.cli", "validate", str(path)],
            "elotui run --dry-run": [sys.executable, "-m", "elotui.cli", "run", str(path), "--dry-run"],
            "plain: json.loads per line": [sys.executable, "-c", PLAIN_READ, str(folder)],
            "plain + import elotui.tournament.model": [
                sys.executable,
                "-c",
                "import elotui.tournament.model\n" + PLAIN_READ,
                str(folder),
            ],
        }
        first = "elotui validate, the first time"
        times: dict[str, list[float]] = {name: [] for name in [*commands, first]}
        for argv_ in commands.values():
            timed(argv_, env)  # warm-up: the file cache
        for i in range(args.repeats):
            for name, argv_ in commands.items():  # interleaved: load changes hit every command alike
                times[name].append(timed(argv_, env))
            empty = {**env, "ELOTUI_HOME": str(folder / f"home-{i}")}  # nothing kept: the files merged
            times[first].append(timed(commands["elotui validate"], empty))
        medians = {name: statistics.median(t) for name, t in times.items()}
        for name, m in medians.items():
            print(f"{name:32s} median {m:6.2f} s  (runs: {', '.join(f'{t:.2f}' for t in times[name])})")
        base = medians["plain + import elotui.tournament.model"]
        print(f"validate / plain read with the import: {medians['elotui validate'] / base:.2f}x")
        print(f"dry-run  / plain read with the import: {medians['elotui run --dry-run'] / base:.2f}x")
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
