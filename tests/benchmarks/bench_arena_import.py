"""A Chatbot Arena battle log imported and ranked with style control by elotui, whole processes, against FastChat's
own code in the same run: `pd.read_json(lines=True)` and `compute_style_control` (fastchat/serve/monitor/
rating_systems.py, vendored verbatim in tests/benchmarks/fastchat_rating.py) in a Python process.

Run as `python -m tests.benchmarks.bench_arena_import [--battles 1000000] [--log FILE] [--runs 3] [--with-run]
[--write MD]` from the repository root (needs pandas and tqdm: the test extra). The log (tests/importers/fixtures.arena_battles, seed 7: 5
models, a question per battle, `conv_metadata`) is generated once into the cache folder (`--cache`) and reused, or
given with `--log`. Each step is a process, timed from start to exit: `elotui import arena` (which stores the
verdicts' snapshot: the ranking needs no run) and `elotui export --style-control` (a point fit, as FastChat's:
`bootstrap = 0`): together the whole process; with `--with-run`, `elotui run --headless` (the replay of the log into
the store, for the per-verdict views) is timed too, between them, outside the whole. Then FastChat's process, which
also times its `compute_style_control` call alone. The two sides run `--runs` times in turns (a change of the
machine's load hits both alike). Printed, and with `--write` written into a markdown page with the version, date,
machine and load: the median seconds, the ratios, and the agreement (the largest rating difference after one shift,
the order, the style coefficients). At most 10^6 battles; a step that
runs longer than `--timeout` seconds is stopped and named.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_BATTLES = 1_000_000
REFERENCE = """
import json, sys, time
import pandas as pd
from tests.benchmarks.fastchat_rating import compute_style_control
df = pd.read_json(sys.argv[1], lines=True)
start = time.perf_counter()
ratings, params = compute_style_control(df)
seconds = time.perf_counter() - start
print(json.dumps({"compute": seconds, "ratings": {str(k): float(v) for k, v in ratings.items()},
                  "coef": [float(c) for c in params]}))
"""


class Stopped(Exception):
    pass


def timed(cmd: list[str], env: dict[str, str], timeout: float) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        out = subprocess.run(
            cmd, capture_output=True, text=True, env=env, cwd=ROOT, check=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise Stopped(f"`{' '.join(cmd[2:4])}` stopped after {timeout:.0f} s") from None
    except subprocess.CalledProcessError as exc:
        raise Stopped(f"`{' '.join(cmd[2:4])}` exited {exc.returncode}: {exc.stderr[-2000:]}") from None
    return time.perf_counter() - start, out.stdout


def battle_log(battles: int, cache: Path) -> Path:
    """The generated log of `battles` battles, written once into `cache` (seed 7)."""
    from tests.importers.fixtures import arena_battles

    log = cache / f"arena-battles-{battles}-seed7.jsonl"
    if not log.exists():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = log.with_suffix(".tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            for b in arena_battles(n=battles, seed=7):
                fh.write(json.dumps(b) + "\n")
        tmp.replace(log)
    return log


def elotui_steps(
    log: Path, folder: Path, env: dict[str, str], timeout: float, with_run: bool
) -> tuple[dict[str, float], str]:
    """Seconds of each elotui process, and the export's JSON."""
    elotui = [sys.executable, "-m", "elotui.cli"]
    seconds: dict[str, float] = {}
    seconds["import"], _ = timed(
        [*elotui, "import", "arena", str(log), "-o", str(folder / "t")], env, timeout
    )
    toml = folder / "t" / "tournament.toml"
    text = toml.read_text(encoding="utf-8").replace('method = "bt"', 'method = "bt"\nbootstrap = 0')
    toml.write_text(text, encoding="utf-8")
    if with_run:
        seconds["run"], _ = timed([*elotui, "run", str(toml), "--headless", "--no-delay"], env, timeout)
    export = [*elotui, "export", str(toml), "--format", "json", "--style-control"]
    seconds["export"], out = timed(export, env, timeout)
    return seconds, out


def agreement(doc: dict[str, object], ref: dict[str, object]) -> tuple[float, bool, float]:
    """The largest rating difference after one shift, whether the order is the same, the largest relative
    difference of the style coefficients."""
    rows = doc["rows"]
    assert isinstance(rows, list)
    mine = {r["contestant"]: r["rating"] for r in rows}
    theirs = ref["ratings"]
    assert isinstance(theirs, dict)
    shift = sum(theirs[m] - mine[m] for m in theirs) / len(theirs)
    worst = max(abs(mine[m] + shift - r) for m, r in theirs.items())
    same_order = [r["contestant"] for r in rows] == list(theirs)  # FastChat's series is sorted, best first
    settings = doc["settings"]
    assert isinstance(settings, dict)
    coef = [c["logit_per_sd"] for c in settings["style_control"]["coefficients"]]
    ref_coef = ref["coef"]
    assert isinstance(ref_coef, list)
    rel = max(abs(a - b) / abs(b) for a, b in zip(coef, ref_coef, strict=True))
    return worst, same_order, rel


def table(seconds: dict[str, float], t_ref: float, ref: dict[str, object], out: str) -> list[str]:
    """The figures as markdown: the steps, the ratios and the agreement."""
    whole = seconds["import"] + seconds["export"]
    compute = ref["compute"]
    assert isinstance(compute, float)
    lines = [
        "| step | seconds |",
        "|---|---|",
        f"| `elotui import arena` (files and the store's snapshot) | {seconds['import']:.1f} |",
    ]
    if "run" in seconds:
        lines.append(
            f"| (`elotui run --headless`: the replay, not needed to rank) | ({seconds['run']:.1f}) |"
        )
    lines += [
        f"| `elotui export --format json --style-control` | {seconds['export']:.1f} |",
        f"| **elotui, whole (import + export)** | **{whole:.1f}** |",
        f"| FastChat process (`pd.read_json` + `compute_style_control`) | {t_ref:.1f} |",
        f"| FastChat `compute_style_control` alone (in its process) | {compute:.1f} |",
        "",
        (
            f"- elotui whole against FastChat's process: **{t_ref / whole:.2f}×** (target ≥ 5×); against "
            f"`compute_style_control` alone: {compute / whole:.2f}×"
        ),
    ]
    worst, same_order, rel = agreement(json.loads(out), ref)
    lines.append(
        f"- agreement: largest rating difference after one shift {worst:.3f} Elo points; same order: "
        f"{same_order}; style coefficients within {100 * rel:.3f} %"
    )
    return lines


def medians(
    runs: list[tuple[dict[str, float], str, float, dict[str, object]]],
) -> tuple[dict[str, float], float, dict[str, object], str]:
    """Each step's median seconds over the runs, FastChat's (its compute's too), its last ratings and elotui's last
    export (the agreement is of one run's outputs: every run computes the same)."""
    seconds = {step: statistics.median(r[0][step] for r in runs) for step in runs[0][0]}
    ref = {**runs[-1][3], "compute": statistics.median(float(r[3]["compute"]) for r in runs)}  # type: ignore[arg-type]
    return seconds, statistics.median(r[2] for r in runs), ref, runs[-1][1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--battles", type=int, default=MAX_BATTLES)
    parser.add_argument("--log", type=Path, help="an arena battle log (JSON Lines) to use instead")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "elotui-bench")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a step may take")
    parser.add_argument(
        "--runs", type=int, default=3, help="runs of each side, in turns; medians (default 3)"
    )
    parser.add_argument(
        "--with-run", action="store_true", help="time `elotui run --headless` too (the replay)"
    )
    parser.add_argument(
        "--write",
        type=Path,
        metavar="MD",
        help="write the figures to this markdown file (docs/arena-import-benchmark.md)",
    )
    args = parser.parse_args()
    if not 0 < args.battles <= MAX_BATTLES:
        parser.error(f"--battles: 1 to {MAX_BATTLES:,}")
    sys.path.insert(0, str(ROOT))
    from tests.benchmarks.report import machine

    head = machine()
    log = args.log or battle_log(args.battles, args.cache)
    battles = sum(1 for _ in log.open("rb"))
    size = f"{battles:,} battles ({log.stat().st_size / 1e6:,.0f} MB)"
    print(size)
    runs: list[tuple[dict[str, float], str, float, dict[str, object]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):  # elotui, then FastChat, in turns: a change of load hits both alike
            folder = Path(tmp) / f"run-{run}"
            env = {**os.environ, "ELOTUI_HOME": str(folder / "home"), "PYTHONPATH": str(ROOT)}
            try:
                seconds, out = elotui_steps(log, folder, env, args.timeout, args.with_run)
            except Stopped as stop:
                print(f"elotui: {stop}")
                return
            t_ref, ref_out = timed([sys.executable, "-c", REFERENCE, str(log)], env, args.timeout)
            runs.append((seconds, out, t_ref, json.loads(ref_out)))
            shutil.rmtree(folder, ignore_errors=True)
    body = table(*medians(runs))
    print("\n".join(body))
    if args.write:
        given = " ".join(a for a in sys.argv[1:])
        doc = [
            "# Importing and ranking a Chatbot Arena log: elotui against FastChat",
            "",
            (
                f"Generated by `python -m tests.benchmarks.bench_arena_import {given}` from one run of the "
                f"script ({args.runs} of each side, in turns: the medians); do not edit."
            ),
            "",
            f"- {size}: a log generated by tests/importers/fixtures.arena_battles (seed 7) unless `--log` names one",
            *head,
            "- each step a whole process, timed from start to exit, one after the other; FastChat's own",
            "  `rating_systems.py` (vendored verbatim in tests/benchmarks/fastchat_rating.py) as its process",
            "",
            *body,
            "",
            f"Load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}.",
        ]
        args.write.write_text("\n".join(doc) + "\n", encoding="utf-8")
        print(f"wrote {args.write}")


if __name__ == "__main__":
    main()
