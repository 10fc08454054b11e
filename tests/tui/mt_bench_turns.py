"""An MT-bench-shaped tournament judged at two turns (`[data] turn = [1, "conversation"]`: turn 1 alone, and each
question's whole conversation as the prompts of turn 2), four contestants, a noisy simulated judge: turn 1's
leaderboard and turn 2's differ. `python -m tests.tui.mt_bench_turns DIR` writes it (to look at it under tmux)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

MODELS = ["alpha", "bravo", "charlie", "delta"]
QUESTIONS = [
    {"question_id": 81, "category": "writing", "turns": ["Write a haiku about rain.", "Now make it sad."]},
    {"question_id": 82, "category": "writing", "turns": ["Name a colour.", "Why that one?"]},
    {"question_id": 111, "category": "math", "turns": ["What is 17 * 23?", "And 17 * 24?"]},
    {"question_id": 112, "category": "math", "turns": ["What is 2^10?", "And 2^11?"]},
    {"question_id": 113, "category": "math", "turns": ["What is 99 + 101?", "And minus 50?"]},
    {"question_id": 131, "category": "coding", "turns": ["Reverse a list in Python.", "Now in place."]},
]


def answer(model: str, question: int, turn: int) -> str:
    """A recognisable answer: who, which question, which turn."""
    return f"{model} answers question {question}, turn {turn}."


def tournament_file(directory: Path) -> Path:
    """question.jsonl, model_answer/<model>.jsonl and t.toml in `directory`; the tournament file's path."""
    (directory / "model_answer").mkdir(parents=True, exist_ok=True)
    (directory / "question.jsonl").write_text(
        "".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8"
    )
    for model in MODELS:
        rows = [
            {
                "question_id": q["question_id"],
                "model_id": model,
                "choices": [{"index": 0, "turns": [answer(model, int(q["question_id"]), n) for n in (1, 2)]}],
            }
            for q in QUESTIONS
        ]
        (directory / "model_answer" / f"{model}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
        )
    contestants = "".join(
        f'[[contestants]]\nid = "{m}"\nresponses = "model_answer/{m}.jsonl"\n\n' for m in MODELS
    )
    qualities = ", ".join(f"{m} = {1000 + 60 * i}.0" for i, m in enumerate(MODELS))
    path = directory / "t.toml"
    path.write_text(
        '[tournament]\nname = "mt turns"\n\n[data]\nprompts = "question.jsonl"\nturn = [1, "conversation"]\n\n'
        f'{contestants}[[judges]]\nid = "sim"\nprovider = "simulated"\n[judges.simulation]\nnoise = 400.0\n'
        f"seed = 5\nqualities = {{ {qualities} }}\n",
        encoding="utf-8",
    )
    return path


if __name__ == "__main__":
    print(tournament_file(Path(sys.argv[1])))
