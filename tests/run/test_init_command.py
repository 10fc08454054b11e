"""`elotui init` writes a short tournament file for data files that validates and runs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.config import load_tournament


def _mt_bench(folder: Path, models: list[str]) -> None:
    (folder / "model_answer").mkdir(parents=True)
    questions = [
        {"question_id": i, "category": "writing", "turns": [f"Question {i}?", "more"]} for i in range(1, 5)
    ]
    (folder / "question.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    for m in models:
        rows = [
            {
                "question_id": q["question_id"],
                "model_id": m,
                "choices": [{"index": 0, "turns": [f"{m}: {q['question_id']}"]}],
            }
            for q in questions
        ]
        (folder / "model_answer" / f"{m}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
        )


def test_init_from_mt_bench_files_validates_and_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _mt_bench(tmp_path / "data", ["gpt-4", "vicuna-13b", "llama-13b"])
    monkeypatch.chdir(tmp_path)
    files = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "data" / "model_answer").glob("*.jsonl"))
    out = tmp_path / "exp" / "t.toml"
    out.parent.mkdir()
    argv = [
        "init",
        "--prompts",
        "data/question.jsonl",
        "--responses",
        *files,
        "--judge",
        "simulated",
        "-o",
        str(out),
    ]
    assert main(argv) == 0
    assert "3 contestants, 4 prompts" in capsys.readouterr().out
    text = out.read_text(encoding="utf-8")
    assert 'prompts = "../data/question.jsonl"' in text  # relative to the file written
    assert len(text.splitlines()) < 60
    t = load_tournament(out)
    assert t.contestant_ids == ["gpt-4", "llama-13b", "vicuna-13b"]
    assert t.responses[("3", "llama-13b")] == "llama-13b: 3"
    assert main(["run", str(out), "--headless", "--no-delay"]) == 0
    assert main(argv) == 2  # never over an existing file
    assert "already exists" in capsys.readouterr().err
    assert main([*argv, "--force"]) == 0


def test_init_from_one_long_csv_takes_contestants_from_its_model_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with (tmp_path / "answers.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["instruction", "generator", "output"])
        for i in range(3):
            for m in ("m1", "m2", "m3"):
                w.writerow([f"Do task {i}", m, f"{m} did {i}"])
    out = tmp_path / "t.toml"
    argv = [
        "init",
        "--responses",
        str(tmp_path / "answers.csv"),
        "--judge",
        "openai:gpt-4o-mini",
        "-o",
        str(out),
    ]
    argv += ["--judge", "anthropic:claude-haiku-4-5", "--judge", "openai:gpt-4o-mini"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "set OPENAI_API_KEY" in printed and "set ANTHROPIC_API_KEY" in printed
    t = load_tournament(out)
    assert t.contestant_ids == ["m1", "m2", "m3"]
    assert [t.prompt_texts[p] for p in t.prompt_ids] == ["Do task 0", "Do task 1", "Do task 2"]
    assert t.judge_ids == ["gpt-4o-mini", "claude-haiku-4-5", "gpt-4o-mini-2"]
    assert [j.provider for j in t.spec.judges] == ["openai", "anthropic", "openai"]


def test_init_bad_judge_and_single_contestant_are_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _mt_bench(tmp_path, ["a", "b"])
    files = [str(p) for p in (tmp_path / "model_answer").glob("*.jsonl")]
    out = str(tmp_path / "t.toml")
    assert main(["init", "--responses", *files, "--judge", "openia:gpt", "-o", out]) == 2
    assert "PROVIDER:MODEL" in capsys.readouterr().err
    assert main(["init", "--responses", files[0], "-o", out]) == 2
    assert "at least two contestants" in capsys.readouterr().err
