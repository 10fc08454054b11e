"""Benchmark: loading a tournament whose prompts are one JSON Lines file of plain rows, column-wise and row by row.

Run as `python -m tests.benchmarks.bench_plain_prompts [--n 100000] [--tournament T.toml]` (from the repository
root). Without `--tournament` it writes the shape `elotui import arena` writes — `prompts.jsonl` with `id`, `text`,
`category` and a `responses` table of two empty responses per row (`[data.fields] responses`, `allow_empty`,
`pairs = "recorded"`) — with `--n` rows. Each load is a process of its own: the first load of the tournament as
elotui loads it (column-wise, a fresh ELOTUI_HOME: no data cache), the next load in that home (`read back`: the
prompts' index kept by the first, elotui.tournament.prompt_index, their rows decoded only for the digest, after
the timing), and a load through the row-by-row merge alone (a fresh home); each prints its wall time, its peak
memory and a digest of what it loaded (ids, categories, texts, responses, data report), and the digests must be
equal.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODELS = ["gpt-4-0613", "claude-2.1", "mixtral-8x7b-instruct-v0.1", "llama-2-70b-chat", "vicuna-33b"]

CHILD = """
import dataclasses, hashlib, json, resource, sys, time
from elotui.tournament import plain_prompts
from elotui.tournament.model import load_tournament
if sys.argv[2] == "row-by-row":
    plain_prompts.read_plain = lambda text, keys: None
start = time.perf_counter()
t = load_tournament(sys.argv[1])
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # the load's, before the digest's
digest = hashlib.sha256()
for part in (t.prompt_ids, sorted(t.categories.items()), sorted(t.prompt_texts.items()),
             [[p, c, r] for (p, c), r in t.responses.items()], dataclasses.asdict(t.data)):
    digest.update(json.dumps(part).encode())
print(json.dumps({"seconds": seconds, "peak_mb": peak, "digest": digest.hexdigest()}))
"""


def write_tournament(folder: Path, n: int) -> Path:
    with (folder / "prompts.jsonl").open("w", encoding="utf-8") as fh:
        for k in range(n):
            a, b = MODELS[k % 5], MODELS[(k * 7 + 1) % 5]
            b = b if b != a else MODELS[(k + 1) % 5]
            row = {"id": f"q{k:05d}", "text": f"battle q{k:05d}", "category": ["English", "Chinese"][k % 2]}
            fh.write(json.dumps({**row, "responses": {a: "", b: ""}}, separators=(",", ":")) + "\n")
    (folder / "verdicts.jsonl").write_text("", encoding="utf-8")
    contestants = "".join(f'[[contestants]]\nid = "{m}"\n' for m in MODELS)
    toml = folder / "tournament.toml"
    toml.write_text(
        '[tournament]\nname = "plain rows"\n[data]\nprompts = "prompts.jsonl"\nallow_empty = true\n'
        f'[data.fields]\nresponses = "responses"\n{contestants}'
        '[[judges]]\nid = "human"\nprovider = "replay"\npath = "verdicts.jsonl"\n'
        '[comparison]\npairs = "recorded"\nboth_orders = false\n',
        encoding="utf-8",
    )
    return toml


def load(toml: Path, how: str, home: str) -> dict[str, float | str]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(toml), how],
        cwd=ROOT,
        env={**os.environ, "ELOTUI_HOME": home},
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float | str] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="prompts to write (without --tournament)")
    parser.add_argument("--tournament", type=Path, help="an existing tournament file to load instead")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as home:
        toml = args.tournament or write_tournament(Path(folder), args.n)
        results = {how: load(toml, how, home) for how in ("column-wise", "read back")}
        with tempfile.TemporaryDirectory() as fresh:
            results["row-by-row"] = load(toml, "row-by-row", fresh)
    for how, r in results.items():
        print(f"{how:12} load_tournament {float(r['seconds']):7.2f} s   peak {float(r['peak_mb']):7.0f} MB")
    same = len({r["digest"] for r in results.values()}) == 1
    print("the same tournament every way" if same else "DIFFERENT tournaments")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
