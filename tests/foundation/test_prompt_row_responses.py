"""`[data.fields] responses`: a prompts file's rows may carry their responses as a table (contestant → text), read
as the rows of a responses file would be (the same tournament; a row that is not text, a table that is not one and a
second, different response named by file and line; undeclared contestants noted). Without the key, a prompts row's
`responses` field is ignored, as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elotui.errors import UserError
from elotui.tournament.model import load_tournament
from tests.foundation.test_data_files import _jsonl, _judge

MODELS = ["a", "b", "c"]


def _toml(folder: Path, data: str) -> Path:
    path = folder / "t.toml"
    contestants = "".join(f'[[contestants]]\nid = "{m}"\n' for m in MODELS)
    path.write_text(
        f'[tournament]\nname = "rows"\n[data]\n{data}\n{contestants}' + _judge(MODELS), encoding="utf-8"
    )
    return path


def _prompts(n: int = 6) -> list[dict[str, object]]:
    return [{"id": f"p{i}", "text": f"question {i}", "category": "x" if i % 2 else "y"} for i in range(n)]


def test_responses_in_prompt_rows_equal_a_responses_file(tmp_path: Path) -> None:
    prompts = _prompts()
    answers = {(p["id"], m): f"{m} on {p['id']}" for p in prompts for m in MODELS}
    (tmp_path / "one").mkdir()
    _jsonl(tmp_path / "one" / "q.jsonl", prompts)
    _jsonl(
        tmp_path / "one" / "r.jsonl",
        [{"prompt_id": p, "contestant": c, "response": t} for (p, c), t in answers.items()],
    )
    files = load_tournament(_toml(tmp_path / "one", 'prompts = "q.jsonl"\nresponses = "r.jsonl"'))
    inline = [{**p, "responses": {m: answers[(p["id"], m)] for m in MODELS}} for p in prompts]
    _jsonl(tmp_path / "q.jsonl", inline)
    rows = load_tournament(_toml(tmp_path, 'prompts = "q.jsonl"\n[data.fields]\nresponses = "responses"'))
    assert rows.responses == files.responses == answers
    assert rows.prompt_texts == files.prompt_texts and rows.categories == files.categories


def test_problems_in_prompt_row_responses_name_file_and_line(tmp_path: Path) -> None:
    rows = [{**p, "responses": {m: "fine" for m in MODELS}} for p in _prompts(5)]
    rows[1]["responses"] = ["not", "a", "table"]
    rows[2]["responses"] = {"a": 3, "b": "x", "c": "y"}
    rows[3]["responses"] = {"a": "x", "b": "x", "c": "x", "zzz": "an undeclared model"}
    _jsonl(tmp_path / "q.jsonl", rows)
    _jsonl(tmp_path / "r.jsonl", [{"prompt_id": "p4", "contestant": "a", "response": "another"}])
    path = _toml(
        tmp_path, 'prompts = "q.jsonl"\nresponses = "r.jsonl"\n[data.fields]\nresponses = "responses"'
    )
    with pytest.raises(UserError) as err:
        load_tournament(path)
    text = "\n".join(err.value.details)
    q, r = tmp_path / "q.jsonl", tmp_path / "r.jsonl"
    assert f"{q}:2: the responses must be a table (contestant → text)" in text
    assert f"{q}:3: the response of 'a' is not text (int)" in text
    assert f"{r}:1: a second, different response of 'a' to prompt 'p4' (first at {q}:5)" in text
    rows[1]["responses"] = rows[2]["responses"] = {m: "fine" for m in MODELS}
    _jsonl(tmp_path / "q.jsonl", rows)
    (tmp_path / "r.jsonl").unlink()
    t = load_tournament(_toml(tmp_path, 'prompts = "q.jsonl"\n[data.fields]\nresponses = "responses"'))
    assert t.data is not None and any("zzz (1)" in n for n in t.data.notes)
    assert t.responses[("p3", "c")] == "x" and ("p3", "zzz") not in t.responses


def test_without_the_field_a_prompt_rows_responses_are_ignored(tmp_path: Path) -> None:
    rows = [{**p, "responses": "whatever this dataset means by it"} for p in _prompts(3)]
    _jsonl(tmp_path / "q.jsonl", rows)
    _jsonl(
        tmp_path / "r.jsonl",
        [{"prompt_id": p["id"], "model": m, "output": "o"} for p in rows for m in MODELS],
    )
    t = load_tournament(_toml(tmp_path, 'prompts = "q.jsonl"\nresponses = "r.jsonl"'))
    assert set(t.responses.values()) == {"o"} and len(t.responses) == 9
    assert json.loads((tmp_path / "q.jsonl").read_text().splitlines()[0])["responses"]
