"""Prompts and responses from data files in the formats peers use (MT-bench, AlpacaEval, a long CSV), and the
coverage problems a user meets when the files do not line up."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.errors import UserError
from elotui.tournament.model import load_tournament

JUDGE = """
[[judges]]
id = "sim"
provider = "simulated"
[judges.simulation]
qualities = {{ {qualities} }}
"""


def _judge(contestants: list[str]) -> str:
    return JUDGE.format(qualities=", ".join(f'"{c}" = {1000 + 10 * i}' for i, c in enumerate(contestants)))


def _jsonl(path: Path, rows: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


MODELS = ["gpt-4", "vicuna-13b", "llama-13b"]
QUESTIONS = [
    {
        "question_id": 81,
        "category": "writing",
        "turns": ["Compose a travel blog post about Hawaii.", "Rewrite it."],
    },
    {"question_id": 82, "category": "writing", "turns": ["Draft a professional email.", "Shorter."]},
    {
        "question_id": 101,
        "category": "reasoning",
        "turns": ["You overtake the second person. Where are you?", "Why?"],
    },
]


def _mt_bench(tmp_path: Path, models: list[str] = MODELS, skip: set[tuple[int, str]] = frozenset()) -> None:  # type: ignore[assignment]
    _jsonl(tmp_path / "question.jsonl", QUESTIONS)
    for model in models:
        _jsonl(
            tmp_path / "model_answer" / f"{model}.jsonl",
            [
                {
                    "question_id": q["question_id"],
                    "answer_id": f"a{q['question_id']}{model}",
                    "model_id": model,
                    "choices": [
                        {"index": 0, "turns": [f"{model} answers {q['question_id']} (1)", "second turn"]}
                    ],
                    "tstamp": 1687222000.0,
                }
                for q in QUESTIONS
                if (q["question_id"], model) not in skip
            ],
        )


def _mt_toml(tmp_path: Path, extra: str = "", models: list[str] = MODELS) -> Path:
    contestants = "".join(
        f'[[contestants]]\nid = "{m}"\nresponses = "model_answer/{m}.jsonl"\n\n' for m in models
    )
    path = tmp_path / "tournament.toml"
    path.write_text(
        f'[tournament]\nname = "mt"\n\n[data]\nprompts = "question.jsonl"\n{extra}\n\n{contestants}{_judge(models)}',
        encoding="utf-8",
    )
    return path


def test_mt_bench_questions_and_model_answers(tmp_path: Path) -> None:
    _mt_bench(tmp_path)
    t = load_tournament(_mt_toml(tmp_path))
    assert t.prompt_ids == ["81", "82", "101"]
    assert t.prompt_texts["101"] == "You overtake the second person. Where are you?"
    assert {p.id: p.category for p in t.spec.prompts} == {
        "81": "writing",
        "82": "writing",
        "101": "reasoning",
    }
    assert t.responses[("82", "vicuna-13b")] == "vicuna-13b answers 82 (1)"
    assert len(t.responses) == 9
    assert t.data is not None and set(t.data.files) == {"question.jsonl"} | {
        f"model_answer/{m}.jsonl" for m in MODELS
    }


def test_mt_bench_second_turn_when_told(tmp_path: Path) -> None:
    _mt_bench(tmp_path)
    t = load_tournament(_mt_toml(tmp_path, "turn = 2"))
    assert t.prompt_texts["81"] == "Rewrite it."
    assert t.responses[("81", "gpt-4")] == "second turn"


def test_alpaca_eval_json_lists_matched_by_instruction(tmp_path: Path) -> None:
    instructions = ["What are the names of some famous actors?", "How do I wrap a present neatly?"]
    for gen in ("gpt4_turbo", "alpaca-7b"):
        (tmp_path / f"{gen}.json").write_text(
            json.dumps(
                [
                    {"dataset": "helpful_base", "instruction": ins, "output": f"{gen}: {i}", "generator": gen}
                    for i, ins in enumerate(reversed(instructions) if gen == "alpaca-7b" else instructions)
                ],
                indent=2,
            ),
            encoding="utf-8",
        )
    path = tmp_path / "t.toml"
    path.write_text(
        '[tournament]\nname = "alpaca"\n\n'
        '[[contestants]]\nid = "gpt4_turbo"\nresponses = "gpt4_turbo.json"\n\n'
        '[[contestants]]\nid = "alpaca-7b"\nresponses = "alpaca-7b.json"\n'
        + _judge(["gpt4_turbo", "alpaca-7b"]),
        encoding="utf-8",
    )
    t = load_tournament(path)
    assert [t.prompt_texts[p] for p in t.prompt_ids] == instructions  # derived from the rows' texts
    first = t.prompt_ids[0]
    assert t.responses[(first, "gpt4_turbo")] == "gpt4_turbo: 0"
    assert t.responses[(first, "alpaca-7b")] == "alpaca-7b: 1"
    assert first == load_tournament(path).prompt_ids[0]  # stable ids


def test_one_long_csv_for_every_contestant_and_inline_prompts_combined(tmp_path: Path) -> None:
    with (tmp_path / "prompts.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["prompt_id", "prompt", "category"])
        w.writerow(["p1", "Say hi,\nin two lines", "chat"])
        w.writerow(["p2", "Add 2+2", "math"])
    with gzip.open(tmp_path / "answers.csv.gz", "wt", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["prompt_id", "model", "response"])
        for pid in ("p1", "p2", "inline"):
            for m in ("a", "b"):
                w.writerow([pid, m, f"{m}:{pid}"])
        w.writerow(["p1", "zzz", "an undeclared model's row"])
    path = tmp_path / "t.toml"
    path.write_text(
        '[tournament]\nname = "long"\n\n[data]\nprompts = "prompts.csv"\nresponses = "answers.csv.gz"\n\n'
        '[[contestants]]\nid = "a"\n\n[[contestants]]\nid = "b"\n\n'
        '[[prompts]]\nid = "inline"\ntext = "An inline prompt"\n' + _judge(["a", "b"]),
        encoding="utf-8",
    )
    t = load_tournament(path)
    assert t.prompt_ids == ["inline", "p1", "p2"]
    assert t.prompt_texts["p1"] == "Say hi,\nin two lines"
    assert t.responses[("inline", "b")] == "b:inline"
    assert t.data is not None and any("zzz (1)" in n for n in t.data.notes)


def test_a_misspelt_contestant_is_pointed_at_the_name_in_the_data(tmp_path: Path) -> None:
    _jsonl(tmp_path / "q.jsonl", [{"id": "q1", "text": "hi?"}])
    _jsonl(
        tmp_path / "a.jsonl", [{"prompt_id": "q1", "model": m, "output": "x"} for m in ("gpt-3.5", "claude")]
    )
    path = tmp_path / "t.toml"
    path.write_text(
        '[tournament]\nname = "x"\n[data]\nprompts = "q.jsonl"\nresponses = "a.jsonl"\n'
        '[[contestants]]\nid = "gtp-3.5"\n[[contestants]]\nid = "claude"\n' + _judge(["gtp-3.5", "claude"]),
        encoding="utf-8",
    )
    with pytest.raises(UserError) as err:
        load_tournament(path)
    (line,) = err.value.details
    assert (
        "contestant 'gtp-3.5' has no response" in line and "rows for 'gpt-3.5', which is not declared" in line
    )


def test_missing_responses_are_listed_with_files_and_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _mt_bench(tmp_path, skip={(82, "llama-13b"), (101, "llama-13b")})
    _jsonl(
        tmp_path / "model_answer" / "vicuna-13b.jsonl",
        [
            {"question_id": 81, "model_id": "vicuna-13b", "choices": [{"turns": ["x"]}]},
            {"question_id": 82, "model_id": "vicuna-13b", "choices": [{"turns": ["   "]}]},
            {"question_id": 101, "model_id": "vicuna-13b", "choices": [{"turns": ["y"]}]},
            {"question_id": 999, "model_id": "vicuna-13b", "choices": [{"turns": ["z"]}]},
            {"question_id": 81, "model_id": "vicuna-13b", "choices": [{"turns": ["a different x"]}]},
        ],
    )
    path = _mt_toml(tmp_path)
    with pytest.raises(UserError) as err:
        load_tournament(path)
    details = "\n".join(err.value.details)
    assert f"{path}:" in details
    assert "contestant 'llama-13b' has no response to 2 of 3 prompt(s): 82, 101" in details
    assert "contestant 'vicuna-13b' has an empty response to 1 of 3 prompt(s): 82" in details
    assert "vicuna-13b.jsonl:4: 1 row(s) for a prompt that is not in the tournament" in details
    assert (
        "vicuna-13b.jsonl:5: a second, different response of 'vicuna-13b' to prompt '81' (first at" in details
    )
    assert main(["validate", str(path)]) == 2
    assert "llama-13b" in capsys.readouterr().err


def test_skip_prompt_leaves_incomplete_prompts_out_and_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _mt_bench(tmp_path, skip={(82, "llama-13b")})
    path = _mt_toml(tmp_path, 'missing = "skip-prompt"')
    t = load_tournament(path)
    assert t.prompt_ids == ["81", "101"]
    assert t.data is not None and t.data.skipped == {"82": "no response from llama-13b"}
    assert main(["validate", str(path)]) == 0
    assert "left out 1 prompt(s)" in capsys.readouterr().out
    assert main(["run", str(path), "--headless", "--no-delay"]) == 0


def test_many_missing_ids_are_counted_not_all_printed(tmp_path: Path) -> None:
    _jsonl(tmp_path / "q.jsonl", [{"id": f"q{i}", "text": f"question {i}"} for i in range(40)])
    _jsonl(tmp_path / "a.jsonl", [{"prompt_id": f"q{i}", "response": "r"} for i in range(40)])
    _jsonl(tmp_path / "b.jsonl", [{"prompt_id": "q0", "response": "r"}])
    path = tmp_path / "t.toml"
    path.write_text(
        '[tournament]\nname = "x"\n[data]\nprompts = "q.jsonl"\n'
        '[[contestants]]\nid = "a"\nresponses = "a.jsonl"\n[[contestants]]\nid = "b"\nresponses = "b.jsonl"\n'
        + _judge(["a", "b"]),
        encoding="utf-8",
    )
    with pytest.raises(UserError) as err:
        load_tournament(path)
    (line,) = [d for d in err.value.details if "'b'" in d]
    assert line.startswith(f"{path}:10: contestants[1].responses")  # the line of b's `responses`
    assert "no response to 39 of 40 prompt(s): q1, q2, q3, q4, q5, … (39 in all)" in line


def test_explicit_field_mapping(tmp_path: Path) -> None:
    _jsonl(tmp_path / "q.jsonl", [{"uid": 7, "body": {"en": "Hello?"}}])
    _jsonl(tmp_path / "r.jsonl", [{"uid": 7, "who": m, "out": [f"{m} says hi"]} for m in ("a", "b")])
    path = tmp_path / "t.toml"
    path.write_text(
        '[tournament]\nname = "x"\n[data]\nprompts = "q.jsonl"\nresponses = "r.jsonl"\n'
        '[data.fields]\nprompt_id = "uid"\ntext = "body.en"\ncontestant = "who"\nresponse = "out[0]"\n'
        '[[contestants]]\nid = "a"\n[[contestants]]\nid = "b"\n' + _judge(["a", "b"]),
        encoding="utf-8",
    )
    t = load_tournament(path)
    assert t.prompt_texts == {"7": "Hello?"}
    assert t.responses[("7", "b")] == "b says hi"


def test_broken_rows_and_missing_files_are_all_reported_at_once(tmp_path: Path) -> None:
    (tmp_path / "q.jsonl").write_text(
        '{"id": "a", "text": "ok"}\n{not json\n[1, 2]\n{"id": "b"}\n', encoding="utf-8"
    )
    path = tmp_path / "t.toml"
    path.write_text(
        '[tournament]\nname = "x"\n[data]\nprompts = "q.jsonl"\nresponses = "nowhere.csv"\n'
        '[data.fields]\ntext = "a..b"\n'
        '[[contestants]]\nid = "a"\n[[contestants]]\nid = "b"\n' + _judge(["a", "b"]),
        encoding="utf-8",
    )
    with pytest.raises(UserError) as err:
        load_tournament(path)
    details = "\n".join(err.value.details)
    assert "q.jsonl:2: not JSON" in details
    assert "q.jsonl:3: expected an object" in details
    assert "q.jsonl:4: no prompt text" in details
    assert f"{path}:5: data.responses: " in details and "nowhere.csv does not exist" in details
    assert f"{path}:7: data.fields.text: malformed field path 'a..b'" in details
