"""`elotui import arena` and a style-controlled ranking, whole processes, against FastChat's `compute_style_control`
(re-expressed with numpy/scipy in tests/importers/fastchat_reference.py, no pandas) in the same run.

Run as `python -m tests.benchmarks.bench_arena_import [--battles 100000] [--bootstrap 0]` from the repository
root. A generated battle log (tests/importers/fixtures.arena_battles: 5 models, conv_metadata) is written as JSON
Lines; then, each timed as a process: `elotui import arena`, `elotui run --headless`, `elotui export
--style-control` (with `bootstrap` rounds), and a Python process that reads the log and runs the reference.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = """
import json, sys
from tests.importers.fastchat_reference import compute_style_control
battles = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
ratings, coef = compute_style_control(battles)
print(json.dumps(ratings))
"""


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    return time.perf_counter() - start, out.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--battles", type=int, default=100_000)
    parser.add_argument("--bootstrap", type=int, default=0)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.importers.fixtures import arena_battles

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = {**os.environ, "ELOTUI_HOME": str(folder / "home"), "PYTHONPATH": str(ROOT)}
        log = folder / "battles.jsonl"
        with log.open("w", encoding="utf-8") as fh:
            for b in arena_battles(n=args.battles, seed=7):
                fh.write(json.dumps(b) + "\n")
        elotui = [sys.executable, "-m", "elotui.cli"]
        t_import, _ = timed([*elotui, "import", "arena", str(log), "-o", str(folder / "t")], env)
        toml = folder / "t" / "tournament.toml"
        toml.write_text(
            toml.read_text().replace('method = "bt"', f'method = "bt"\nbootstrap = {args.bootstrap}'),
            encoding="utf-8",
        )
        t_run, _ = timed([*elotui, "run", str(toml), "--headless", "--no-delay"], env)
        t_export, out = timed([*elotui, "export", str(toml), "--format", "json", "--style-control"], env)
        t_ref, ref_out = timed([sys.executable, "-c", REFERENCE, str(log)], env)
        mine = {r["contestant"]: r["rating"] for r in json.loads(out)["rows"]}
        ref = json.loads(ref_out)
        shift = next(iter(ref.values())) - mine[next(iter(ref))]
        worst = max(abs(mine[m] + shift - r) for m, r in ref.items())
        total = t_import + t_run + t_export
        print(f"{args.battles:,} battles, bootstrap {args.bootstrap}")
        print(f"elotui import {t_import:.1f} s, run {t_run:.1f} s, export --style-control {t_export:.1f} s")
        print(f"elotui whole: {total:.1f} s; reference compute_style_control process: {t_ref:.1f} s")
        print(
            f"ratio (reference / elotui export): {t_ref / t_export:.2f}; (reference / whole): {t_ref / total:.2f}"
        )
        print(f"largest rating difference after one shift: {worst:.3f} Elo points")


if __name__ == "__main__":
    main()
