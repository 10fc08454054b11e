"""`elotui init` writes a short tournament file for data files that validates and runs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.tournament.model import load_tournament


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


def test_init_writes_the_prices_of_well_known_models_and_a_todo_for_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from elotui.commands.model_prices import PRICES, PRICES_AS_OF, model_price

    files = []
    for m in ("m1", "m2"):
        (tmp_path / f"{m}.jsonl").write_text('{"question_id": 1, "choices": [{"turns": ["hi"]}]}\n')
        files.append(str(tmp_path / f"{m}.jsonl"))
    (tmp_path / "q.jsonl").write_text('{"question_id": 1, "turns": ["Say hi."]}\n')
    out = tmp_path / "t.toml"
    judges = [
        "openai:gpt-4o-mini-2024-07-18",
        "anthropic:claude-sonnet-4-5",
        "openai:my-finetune",
        "ollama:llama3",
    ]
    argv = ["init", "--prompts", str(tmp_path / "q.jsonl"), "--responses", *files, "-o", str(out)]
    assert main([*argv, *[a for j in judges for a in ("--judge", j)]]) == 0
    capsys.readouterr()
    text = out.read_text()
    assert (
        f"price table of {PRICES_AS_OF}" in text
        and "TODO: my-finetune is not in elotui's price table" in text
    )
    by_id = {j.id: j for j in load_tournament(out).spec.judges}
    mini = PRICES[("openai", "gpt-4o-mini")]
    assert (
        by_id["gpt-4o-mini-2024-07-18"].price_per_million_input,
        by_id["gpt-4o-mini-2024-07-18"].price_per_million_output,
    ) == mini
    assert (
        by_id["claude-sonnet-4-5"].price_per_million_output == PRICES[("anthropic", "claude-sonnet-4-5")][1]
    )
    assert (
        by_id["my-finetune"].price_per_million_input is None
        and by_id["llama3"].price_per_million_input is None
    )
    assert model_price("openai", "gpt-4o-audio-preview") is None  # another model, not a snapshot of gpt-4o
    assert model_price("openai", "gpt-4o") == PRICES[("openai", "gpt-4o")]
    assert (
        model_price("gemini", "models/gemini-2.5-flash-lite") == PRICES[("gemini", "gemini-2.5-flash-lite")]
    )
    assert main(["run", str(out), "--dry-run", "--store", str(tmp_path / "s.sqlite")]) == 0
    plan = capsys.readouterr().out
    gpt = next(line for line in plan.splitlines() if line.startswith("gpt-4o-mini"))
    assert "$" in gpt  # an estimate, not "-"


def test_init_missing_and_allow_empty_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "q.jsonl").write_text(
        '{"question_id": 1, "turns": ["One?"]}\n{"question_id": 2, "turns": ["Two?"]}\n'
    )
    (tmp_path / "a.jsonl").write_text(
        '{"question_id": 1, "choices": [{"turns": [""]}]}\n{"question_id": 2, "choices": [{"turns": ["a2"]}]}\n'
    )
    (tmp_path / "b.jsonl").write_text(
        '{"question_id": 2, "choices": [{"turns": ["b2"]}]}\n'
    )  # no answer to 1
    argv = ["init", "--prompts", str(tmp_path / "q.jsonl"), "--responses", str(tmp_path / "a.jsonl")]
    argv += [str(tmp_path / "b.jsonl"), "-o", str(tmp_path / "t.toml")]
    assert main(argv) == 2  # b did not answer prompt 1: an error by default
    capsys.readouterr()
    assert main([*argv, "--force", "--missing", "skip-prompt", "--allow-empty"]) == 0
    text = (tmp_path / "t.toml").read_text()
    assert 'missing = "skip-prompt"' in text and "\nallow_empty = true" in text
    t = load_tournament(tmp_path / "t.toml")
    assert t.spec.data is not None and t.spec.data.missing == "skip-prompt" and t.spec.data.allow_empty
    assert t.prompt_ids == ["2"]
