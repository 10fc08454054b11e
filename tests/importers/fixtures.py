"""Small judgment files in the exact shapes FastChat writes: MT-bench's `model_judgment/*_pair.jsonl` and
Chatbot Arena's `clean_battle*.json` (with `conv_metadata`). Seeded, so every test sees the same files."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

MT_MODELS = ["gpt-4", "claude-v1", "vicuna-13b", "llama-13b"]
ARENA_MODELS = ["gpt-4-0613", "claude-2.1", "mixtral-8x7b-instruct-v0.1", "llama-2-70b-chat", "vicuna-33b"]


def mt_bench_records(seed: int = 1, questions: tuple[int, ...] = (81, 82, 83, 101)) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows = []
    for q in questions:
        for turn in (1, 2):
            for i, m1 in enumerate(MT_MODELS):
                for m2 in MT_MODELS[i + 1 :]:
                    w1, w2 = (rng.choice(["model_1", "model_2", "tie", "model_1"]) for _ in range(2))
                    prompt = "pair-v2" if turn == 1 else "pair-v2-multi-turn"
                    rows.append(
                        {
                            "question_id": q,
                            "model_1": m1,
                            "model_2": m2,
                            "g1_winner": w1,
                            "g2_winner": w2,
                            "judge": ["gpt-4", prompt],
                            "g1_user_prompt": "[User Question]\n...",
                            "g1_judgment": f"{m1} first on {q}: [[{'A' if w1 == 'model_1' else 'B'}]]",
                            "g2_user_prompt": "[User Question]\n...",
                            "g2_judgment": f"{m2} first on {q}",
                            "turn": turn,
                            "tstamp": 1687221000.0,
                        }
                    )
    return rows


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _style(rng: random.Random, side: str) -> dict[str, Any]:
    return {
        f"header_count_{side}": {f"h{i}": rng.randint(0, 2) if i < 3 else 0 for i in range(1, 7)},
        f"list_count_{side}": {"ordered": rng.randint(0, 5), "unordered": rng.randint(0, 5)},
        f"bold_count_{side}": {"**": rng.randint(0, 6), "__": rng.randint(0, 1)},
    }


def arena_battles(n: int = 600, seed: int = 2, length_effect: float = 1.0) -> list[dict[str, Any]]:
    """Battles where the better model wins more often and so does the longer answer (by `length_effect` logits
    per unit of (a - b) / (a + b + 1) tokens)."""
    rng = random.Random(seed)
    quality = {m: 0.3 * (len(ARENA_MODELS) - i) for i, m in enumerate(ARENA_MODELS)}
    battles = []
    for k in range(n):
        a, b = rng.sample(ARENA_MODELS, 2)
        ta, tb = rng.randint(50, 900), rng.randint(50, 900)
        metadata = {
            "sum_user_tokens": 20,
            "sum_assistant_a_tokens": ta,
            "sum_assistant_b_tokens": tb,
            "context_a_tokens": 5,
            "context_b_tokens": 5,
            "turns": 1,
            **_style(rng, "a"),
            **_style(rng, "b"),
        }
        p = 1 / (1 + math.exp(-(quality[a] - quality[b] + length_effect * (ta - tb) / (ta + tb + 1))))
        u = rng.random()
        winner = "tie" if abs(u - p) < 0.05 else ("model_a" if u < p else "model_b")
        if rng.random() < 0.03:
            winner = "tie (bothbad)"
        battles.append(
            {
                "question_id": f"q{k:05d}",
                "model_a": a,
                "model_b": b,
                "winner": winner,
                "judge": f"arena_user_{k}",
                "turn": 1,
                "anony": True,
                "language": rng.choice(["English", "Chinese"]),
                "tstamp": 1.7e9 + k,
                "conv_metadata": metadata,
            }
        )
    return battles
