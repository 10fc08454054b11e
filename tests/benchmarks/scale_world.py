"""A generated tournament of any size for the scale benchmarks: N contestants with known Elo-scale
qualities, P prompts (data files: `questions.jsonl`, `answers.jsonl`), every ordered pair on every prompt, one
replay judge reading a generated verdict log (`verdicts.jsonl`: Bradley–Terry outcomes with a 10 % tie band and
a 1 % invalid rate, seeded). N = 100, P = 101 gives 999,900 verdicts, the issue's 1M store.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def sizes_for(verdicts: int) -> tuple[int, int]:
    """(contestants, prompts) giving about `verdicts` planned verdicts (100 contestants = 9,900 per prompt)."""
    if verdicts <= 99_000:
        n = 20  # 380 ordered pairs per prompt
        return n, max(1, round(verdicts / (n * (n - 1))))
    return 100, max(1, round(verdicts / 9_900))


def write_data_files(folder: Path, names: list[str], qids: list[str]) -> None:
    """MT-bench style `questions.jsonl` and `answers.jsonl`: a question per id, every contestant's answer to it."""
    with (folder / "questions.jsonl").open("w", encoding="utf-8") as out:
        for p, qid in enumerate(qids):
            out.write(json.dumps({"question_id": qid, "turns": [f"Question {p}?"]}) + "\n")
    with (folder / "answers.jsonl").open("w", encoding="utf-8") as out:
        for p, qid in enumerate(qids):
            for name in names:
                row = {"question_id": qid, "model_id": name, "choices": [{"turns": [f"{name} on {p}"]}]}
                out.write(json.dumps(row) + "\n")


def write_world(folder: Path, contestants: int, prompts: int, *, seed: int = 0) -> Path:
    """Write the tournament, its data files and its verdict log into `folder`; return the tournament path."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    names = [f"m{i:03d}" for i in range(contestants)]
    quality = np.linspace(400.0, -400.0, contestants)
    write_data_files(folder, names, [f"q{p:04d}" for p in range(prompts)])
    a, b = np.meshgrid(np.arange(contestants), np.arange(contestants), indexing="ij")
    off = a != b
    first, second = a[off], b[off]
    with (folder / "verdicts.jsonl").open("w", encoding="utf-8") as out:
        for p in range(prompts):
            diff = quality[first] - quality[second] + 30.0  # a first-position advantage
            p_first = 1.0 / (1.0 + 10.0 ** (-diff / 400.0))
            u = rng.random(len(first))
            winner = np.where(np.abs(u - p_first) < 0.05, 2, np.where(u < p_first, 0, 1))
            invalid = rng.random(len(first)) < 0.01
            qid = f"q{p:04d}"
            lines = []
            for f, s, w, bad in zip(
                first.tolist(), second.tolist(), winner.tolist(), invalid.tolist(), strict=True
            ):
                status, win = ("invalid", None) if bad else ("ok", ("first", "second", "tie")[w])
                lines.append(
                    json.dumps(
                        {
                            "prompt": qid,
                            "first": names[f],
                            "second": names[s],
                            "judge": "j",
                            "winner": win,
                            "reasoning": None,
                            "status": status,
                        }
                    )
                )
            out.write("\n".join(lines) + "\n")
    toml = folder / "tournament.toml"
    toml.write_text(
        "\n".join(
            [
                '[tournament]\nname = "scale"\n',
                '[data]\nprompts = "questions.jsonl"\nresponses = "answers.jsonl"\n',
                '[comparison]\nboth_orders = true\nsamples = 1\nconditions = ["clean"]\n',
                '[ranking]\nmethod = "bt"\nthreshold = "none"\npermutations = 100\nbootstrap = 200\nseed = 0\n',
                *(f'[[contestants]]\nid = "{n}"\n' for n in names),
                '[[judges]]\nid = "j"\nprovider = "replay"\npath = "verdicts.jsonl"\nmax_concurrency = 64\n',
            ]
        ),
        encoding="utf-8",
    )
    return toml
