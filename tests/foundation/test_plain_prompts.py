"""A prompts file of plain JSON Lines rows is read column-wise (elotui.tournament.plain_prompts) and held as columns
(elotui.tournament.prompt_columns): every tournament loads to the same prompts, texts, categories, responses and
data report as through the row-by-row merge, and every row the column-wise reading does not take is read row by
row, with the messages (file, line, key) that reading gives."""

from __future__ import annotations

import gzip
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from elotui.cli import main
from elotui.errors import UserError
from elotui.plan.presentations import build_plan
from elotui.tournament import checks, data_cache, plain_prompts
from elotui.tournament.model import PromptConfig, Tournament, load_tournament
from elotui.tournament.prompt_columns import PromptSequence
from tests.foundation.test_data_files import _jsonl, _judge, _mt_bench, _mt_toml
from tests.importers.fixtures import arena_battles, mt_bench_records, write_jsonl

MODELS = ["a", "b", "c"]


# --- loading both ways -------------------------------------------------------------------------------------------


def _row_by_row(path: Path, monkeypatch: pytest.MonkeyPatch) -> Tournament:
    """The tournament loaded through the row-by-row merge only (in a home of its own: no merge kept by another
    load is read back)."""
    with monkeypatch.context() as m:
        m.setattr(plain_prompts, "read_plain", lambda text, keys: None)
        m.setenv("ELOTUI_HOME", str(path.parent / "row-by-row-home"))
        return load_tournament(path)


def _both_ways(
    path: Path, monkeypatch: pytest.MonkeyPatch, *, columns: bool = True
) -> tuple[Tournament, Tournament]:
    """(the tournament as loaded again — read back from the data cache —, as loaded row by row), asserting whether
    the loads read the prompts column-wise, and that the first load, which merged the files, gave the same."""
    first = load_tournament(path)
    assert isinstance(first.spec.prompts, PromptSequence) is columns
    general = _row_by_row(path, monkeypatch)
    _assert_same(first, general)
    with monkeypatch.context() as m:
        merges: list[Path] = []
        real = data_cache.merge_data_files
        m.setattr(data_cache, "merge_data_files", lambda data, base: merges.append(base) or real(data, base))
        loaded = load_tournament(path)
    assert merges == [] and isinstance(loaded.spec.prompts, PromptSequence) is columns
    return loaded, general


def _assert_same(loaded: Tournament, general: Tournament) -> None:
    assert loaded.spec.model_dump() == general.spec.model_dump()
    assert loaded.spec.model_dump(mode="json") == general.spec.model_dump(mode="json")
    assert loaded.spec == general.spec and loaded.spec.prompts == general.spec.prompts
    assert [p.model_fields_set for p in loaded.spec.prompts] == [
        p.model_fields_set for p in general.spec.prompts
    ]
    assert loaded.prompt_ids == general.prompt_ids
    assert loaded.categories == general.categories
    assert loaded.prompt_texts == general.prompt_texts
    assert list(loaded.responses.items()) == list(general.responses.items())  # the same order too
    assert loaded.responses == general.responses and len(loaded.responses) == len(general.responses)
    assert list(loaded.responses.values()) == list(general.responses.values())
    assert loaded.prompt_turns == general.prompt_turns
    assert loaded.prompts_with_context() == general.prompts_with_context()
    assert loaded.data == general.data
    assert loaded.content_hash == general.content_hash


def _errors_both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The problems loading gives, asserted to be those of the row-by-row merge, word for word."""
    with pytest.raises(UserError) as loaded:
        load_tournament(path)
    with pytest.raises(UserError) as general:
        _row_by_row(path, monkeypatch)
    assert str(loaded.value) == str(general.value)
    assert loaded.value.details == general.value.details
    return list(loaded.value.details)


# --- generated tournaments -----------------------------------------------------------------------------------------


def _toml(folder: Path, data: str, *, recorded: bool = False, contestants: str = "") -> Path:
    declared = contestants or "".join(f'[[contestants]]\nid = "{m}"\n' for m in MODELS)
    if recorded:
        (folder / "verdicts.jsonl").write_text("", encoding="utf-8")
        judges = '[[judges]]\nid = "human"\nprovider = "replay"\npath = "verdicts.jsonl"\n'
        judges += '[comparison]\npairs = "recorded"\nboth_orders = false\n'
    else:
        judges = _judge(MODELS)
    path = folder / "t.toml"
    path.write_text(f'[tournament]\nname = "plain"\n[data]\n{data}\n{declared}{judges}', encoding="utf-8")
    return path


TEXTS = [
    "What is 2 + 2?",
    "Écris un haïku.",
    "日本語で答えて",
    'Emoji 😀 and "quotes"',
    "tab\there",
    "two\nlines",
]
RESPONSES = ["", "", " ", "\n", "An answer.", "Une réponse 😀", "x"]


def _generated_rows(
    rng: random.Random, n: int, *, every: bool, blank: bool, turn: bool
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for i in range(n):
        row: dict[str, Any] = {"id": f"p{rng.randint(0, 9)}-{i}", "text": f"{rng.choice(TEXTS)} #{i}"}
        category = rng.choice([None, "", "math", "writing", "日本語"])
        if category is not None or rng.random() < 0.5:
            row["category"] = category
        chosen = list(MODELS) if every else rng.sample(MODELS, rng.randint(0, 3))
        rng.shuffle(chosen)
        if chosen or rng.random() < 0.5:
            row["responses"] = {m: rng.choice(RESPONSES) if blank else f"{m} {rng.random()}" for m in chosen}
        if turn and rng.random() < 0.7:
            row["turn"] = rng.choice([None, 1, 2, 100])
        rows.append(dict(rng.sample(list(row.items()), len(row))))  # any order of keys
    return rows


def _write(path: Path, rows: list[dict[str, Any]], rng: random.Random) -> None:
    ascii_only = rng.random() < 0.5
    path.write_text("".join(json.dumps(r, ensure_ascii=ascii_only) + "\n" for r in rows), encoding="utf-8")


@pytest.mark.parametrize("seed", range(8))
def test_generated_tournaments_load_the_same_both_ways(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    recorded, turn = seed % 2 == 0, seed % 3 == 0
    rows = _generated_rows(rng, 60, every=not recorded, blank=recorded, turn=turn)
    _write(tmp_path / "q.jsonl", rows, rng)
    fields = 'responses = "responses"\n' + ('turn = "turn"\n' if turn else "")
    extra = "allow_empty = true\n" if recorded else ""
    extra += 'missing = "skip-prompt"\n' if seed == 4 else ""
    path = _toml(tmp_path, f'prompts = "q.jsonl"\n{extra}[data.fields]\n{fields}', recorded=recorded)
    loaded, general = _both_ways(path, monkeypatch)
    _assert_same(loaded, general)
    assert len(loaded.spec.prompts) == 60
    if recorded:
        assert general.data is not None and any("has an empty response to" in n for n in general.data.notes)


def test_an_arena_import_loads_the_same_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "battles.jsonl"
    log.write_text("".join(json.dumps(b) + "\n" for b in arena_battles(400, seed=5)), encoding="utf-8")
    assert main(["import", "arena", str(log), "-o", str(tmp_path / "t")]) == 0
    loaded, general = _both_ways(tmp_path / "t" / "tournament.toml", monkeypatch)
    _assert_same(loaded, general)
    assert general.data is not None and len(general.data.notes) == 5  # each model's empty responses
    assert main(["validate", str(tmp_path / "t" / "tournament.toml")]) == 0


def test_empty_responses_are_noted_in_the_row_by_row_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notes come by the first prompt with an empty response, then in declared order (not the row's order);
    a contestant with a generator is not expected to answer, so its empty responses are not noted."""
    rows = [
        {"id": "p1", "text": "one", "responses": {"b": "fine", "a": "fine"}},
        {"id": "p2", "text": "two", "responses": {"c": " ", "b": "", "a": "ok"}},
        *({"id": f"q{i}", "text": f"q {i}", "responses": {"a": "", "b": "", "c": ""}} for i in range(8)),
    ]
    _jsonl(tmp_path / "q.jsonl", rows)
    contestants = '[[contestants]]\nid = "c"\n[[contestants]]\nid = "b"\n[[contestants]]\nid = "a"\n'
    contestants += '[contestants.generator]\nprovider = "ollama"\nmodel = "m"\n'
    data = 'prompts = "q.jsonl"\nallow_empty = true\n[data.fields]\nresponses = "responses"'
    path = _toml(tmp_path, data, recorded=True, contestants=contestants)
    loaded, general = _both_ways(path, monkeypatch)
    _assert_same(loaded, general)
    assert general.data is not None
    assert [n.split(" has ")[0] for n in general.data.notes] == ["contestant 'c'", "contestant 'b'"]
    assert general.data.notes[0].startswith(
        "contestant 'c' has an empty response to p2, q0, q1, q2, q3, … (9 in all)"
    )


@pytest.mark.parametrize(
    ("data", "name"),
    [
        ('prompts = "q.jsonl"\n[data.fields]\nprompt_id = "question_id"\ntext = "prompt"', "mapped"),
        ('prompts = "q.jsonl.gz"', "gzipped"),
        ('prompts = "q.jsonl"\nmissing = "skip-prompt"', "skip-prompt"),
    ],
)
def test_mapped_gzipped_and_plain_files_load_the_same_both_ways(
    data: str, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [{"id": f"p{i}", "text": f"question {i}", "category": "x" if i % 2 else ""} for i in range(5)]
    if name == "mapped":
        rows = [{"question_id": r["id"], "prompt": r["text"]} for r in rows]
    _jsonl(tmp_path / "q.jsonl", rows)
    if name == "gzipped":
        (tmp_path / "q.jsonl.gz").write_bytes(gzip.compress((tmp_path / "q.jsonl").read_bytes()))
    contestants = "".join(
        f'[[contestants]]\nid = "{m}"\n[contestants.generator]\nprovider = "ollama"\nmodel = "m"\n'
        for m in MODELS
    )
    path = _toml(tmp_path, data, contestants=contestants)
    loaded, general = _both_ways(path, monkeypatch)
    _assert_same(loaded, general)
    assert build_plan(loaded) == build_plan(general)  # every prompt generated by every contestant


def test_the_existing_data_file_fixtures_load_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MT-bench's files (a responses file per contestant: not the prompts file alone) are read row by row."""
    _mt_bench(tmp_path)
    loaded, general = _both_ways(_mt_toml(tmp_path), monkeypatch, columns=False)
    _assert_same(loaded, general)
    rows = [{"id": f"p{i}", "text": f"q {i}", "responses": {m: f"{m}{i}" for m in MODELS}} for i in range(4)]
    _jsonl(tmp_path / "rows" / "q.jsonl", rows)
    path = _toml(tmp_path / "rows", 'prompts = "q.jsonl"\n[data.fields]\nresponses = "responses"')
    loaded, general = _both_ways(path, monkeypatch)
    _assert_same(loaded, general)
    assert loaded.responses[("p2", "b")] == "b2"


# --- rows the column-wise reading hands over ----------------------------------------------------------------------

GOOD = [
    {"id": f"p{i}", "text": f"question {i}", "responses": {m: f"{m} on {i}" for m in MODELS}}
    for i in range(4)
]
FIELDS = '[data.fields]\nresponses = "responses"\nturn = "turn"'


def _with(index: int, **changes: Any) -> list[dict[str, Any]]:
    rows = [dict(r) for r in GOOD]
    rows[index].update(changes)
    return rows


def _lines(path: Path, rows: list[dict[str, Any]]) -> Path:
    _jsonl(path / "q.jsonl", rows)
    return path / "q.jsonl"


# (rows or the file's bytes, a line the problems must hold — "{q}" the prompts file, "{t}" the tournament file)
BAD: dict[str, tuple[Any, str]] = {
    "duplicate id": (_with(2, id="p0"), "{q}:3: prompt id 'p0' is used twice (also {q}:1)"),
    "number as text": (
        _with(1, text=5),
        "{q}:2: no prompt text (looked for text, prompt, question, instruction, turns.0)",
    ),
    "blank text": (_with(1, text="  \t"), "{q}:2: no prompt text (looked for"),
    "response not text": (
        _with(1, responses={"a": 3, "b": "x", "c": "y"}),
        "{q}:2: the response of 'a' is not text (int)",
    ),
    "NaN as a response": (
        b'{"id": "p0", "text": "t", "responses": {"a": NaN, "b": "x", "c": "y"}}\n',
        "{q}:1: the response of 'a' is not text (float)",
    ),
    "responses not a table": (
        _with(3, responses=["a"]),
        "{q}:4: the responses must be a table (contestant → text)",
    ),
    "turn out of range": (_with(0, turn=0), "{q}:1: `turn` must be a turn number (1 to 100), got 0"),
    "turn a bool": (_with(0, turn=True), "{q}:1: `turn` must be a turn number (1 to 100), got True"),
    "turn a float": (_with(0, turn=2.0), "{q}:1: `turn` must be a turn number (1 to 100), got 2.0"),
    "missing response": (
        _with(1, responses={"a": "x", "b": "y"}),
        "contestants[2].id: contestant 'c' has no response to 1 of 4 prompt(s): p1",
    ),
    "null responses": (_with(1, responses=None), "contestant 'a' has no response to 1 of 4 prompt(s): p1"),
    "empty response": (
        _with(2, responses={"a": "", "b": "y", "c": "z"}),
        "contestant 'a' has an empty response to 1 of 4 prompt(s): p2",
    ),
    "not an object": (
        b'{"id": "p0", "text": "t"}\n[1, 2]\n',
        "{q}:2: expected an object ({{...}}), found list",
    ),
    "two values on a line": (
        b'{"id": "p0", "text": "t"}{"id": "p1", "text": "u"}\n',
        "{q}:1: not JSON (Extra data, column 26)",
    ),
    "two values on a line, a blank line": (
        b'{"id": "p0", "text": "t", "responses": {"a": "1", "b": "2", "c": "3"}}{"id": "p1", "text": "u", "responses": {"a": "1", "b": "2", "c": "3"}}\n\n',
        "{q}:1: not JSON (Extra data, column 71)",
    ),
    "two values on a line, a line of blanks": (
        b'{"id": "p0", "text": "t", "responses": {"a": "1", "b": "2", "c": "3"}}{"id": "p1", "text": "u", "responses": {"a": "1", "b": "2", "c": "3"}}\n \t\n',
        "{q}:1: not JSON (Extra data, column 71)",
    ),
    "a row across lines": (
        b'{"id": "p0", "text":\n"t", "responses": {"a": "1", "b": "2", "c": "3"}}{"id": "p1", "text": "u", "responses": {"a": "1", "b": "2", "c": "3"}}\n',
        "{q}:1: not JSON (Expecting value, column 21)",
    ),
    "not UTF-8": (
        b'{"id": "p0", "text": "t"}\n{"id": "p1", "text": "\xff"}\n',
        "{t}:4: data.prompts: {q}:2: not UTF-8 text (byte 48)",
    ),
    "a lone surrogate": (
        b'{"id": "p0", "text": "t"}\n{"id": "p1", "text": "half \\ud83d of it"}\n',
        "{q}:2: a lone surrogate escape (\\ud83d) in a JSON string",
    ),
    "an empty file": (b"", "data: no prompts (give [data] prompts, [[prompts]], or response rows"),
    "an empty object": (b"{}\n", "{q}:1: no prompt text (looked for"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_row_gives_the_row_by_row_message(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows, expected = BAD[case]
    q = tmp_path / "q.jsonl"
    if isinstance(rows, bytes):
        q.write_bytes(rows)
    else:
        _lines(tmp_path, rows)
    path = _toml(tmp_path, f'prompts = "q.jsonl"\n{FIELDS}')
    details = _errors_both_ways(path, monkeypatch)
    assert any(expected.format(q=q, t=path) in d for d in details), details


# rows the row-by-row reading takes, but differently from their bytes (or with a note): handed over, the same result
ODD: dict[str, Any] = {
    "empty id": _with(1, id=""),  # the row-by-row reading names it by its text
    "id with blanks around": _with(1, id=" p1 "),
    "number as id": _with(1, id=11),
    "number as category": _with(1, category=5),
    "empty turn": _with(1, turn=""),
    "an unknown contestant": _with(1, responses={"a": "x", "b": "y", "c": "z", "zzz": "undeclared"}),
    "an unread field": _with(1, note="kept out"),
    "a second id field": _with(1, question_id="q1"),
    "reference ranking": _with(1, reference_ranking="a > b > c"),
    "blank line": b'{"id": "p0", "text": "t", "responses": {"a": "1", "b": "2", "c": "3"}}\n\n',
    "windows line ends": b'{"id": "p0", "text": "t", "responses": {"a": "1", "b": "2", "c": "3"}}\r\n',
    "byte order mark": b'\xef\xbb\xbf{"id": "p0", "text": "t", "responses": {"a": "1", "b": "2", "c": "3"}}\n',
    "paired surrogates": b'{"id": "p0", "text": "\\ud83d\\ude00", "responses": {"a": "1", "b": "2", "c": "3"}}\n',
    "repeated keys": b'{"id": "x", "text": "t", "id": "p0", "responses": {"b": "1", "a": "2", "c": "3", "b": "4"}}\n',
    # JSON text, not a line break: a model name holding U+2028 or a NEL, as `elotui import` writes it
    "a raw line separator": '{"id": "p0", "text": "a\u2028b\u0085c", "responses": {"a": "1", "b": "2", "c": "3"}}\n'.encode(),
}
TAKEN = {"paired surrogates", "repeated keys"}  # valid rows the column-wise reading takes as they are


@pytest.mark.parametrize("case", sorted(ODD))
def test_an_odd_row_loads_as_row_by_row(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = ODD[case]
    if isinstance(rows, bytes):
        (tmp_path / "q.jsonl").write_bytes(rows)
    else:
        _lines(tmp_path, rows)
    path = _toml(tmp_path, f'prompts = "q.jsonl"\n{FIELDS}')
    loaded = load_tournament(path)
    general = _row_by_row(path, monkeypatch)
    _assert_same(loaded, general)
    # what only the column-wise reading takes as it is: the row-by-row reading's own result, held as columns
    assert isinstance(loaded.spec.prompts, PromptSequence) is (case in TAKEN)
    if case == "an unknown contestant":
        assert general.data is not None and any("zzz (1)" in n for n in general.data.notes)


def test_a_plan_too_large_is_said_as_row_by_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checks, "MAX_PLANNED_CALLS", 20)
    _lines(tmp_path, GOOD)
    details = _errors_both_ways(_toml(tmp_path, f'prompts = "q.jsonl"\n{FIELDS}'), monkeypatch)
    assert any("the plan would have 24 judge calls" in d for d in details)


def test_a_schema_problem_elsewhere_is_said_as_row_by_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _lines(tmp_path, GOOD)
    path = _toml(tmp_path, f'prompts = "q.jsonl"\n{FIELDS}\n[ranking]\nbootstrap = -1\nmethd = "bt"')
    details = _errors_both_ways(path, monkeypatch)
    assert any("ranking.bootstrap" in d for d in details) and any("methd" in d for d in details)


# --- the views -----------------------------------------------------------------------------------------------------


def test_the_column_views_answer_as_a_list_and_a_dict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _lines(tmp_path, _with(2, category="x", turn=3))
    path = _toml(tmp_path, f'prompts = "q.jsonl"\n{FIELDS}')
    loaded, general = _both_ways(path, monkeypatch)
    prompts, listed = loaded.spec.prompts, general.spec.prompts
    assert isinstance(prompts[0], PromptConfig) and prompts[-1] == listed[-1] and prompts[1:3] == listed[1:3]
    assert prompts[2].category == "x" and prompts[2].turn == 3 and prompts[1].category is None
    with pytest.raises(IndexError):
        prompts[4]
    assert prompts[0] is not prompts[0] and prompts[0] == prompts[0]  # built when asked for, not kept
    assert prompts.index(listed[3]) == 3 and listed[1] in prompts
    responses = loaded.responses
    assert responses[("p1", "b")] == "b on 1" and ("p1", "b") in responses and ("p1", "zzz") not in responses
    assert responses.get(("nope", "a"), "-") == "-" and responses.get(("p0", "a")) == "a on 0"
    for key in [("p1", "zzz"), ("nope", "a"), "p1", ("p1",), (1, "a")]:
        assert key not in responses and responses.get(key) is None  # type: ignore[arg-type]
        with pytest.raises(KeyError):
            responses[key]  # type: ignore[index]
    assert dict(responses) == general.responses and list(responses) == list(general.responses)
    prompts[0].responses["a"] = "changed"  # a built prompt's table is its own
    assert loaded.responses[("p0", "a")] == "a on 0"


# --- what is read row by row whatever its rows --------------------------------------------------------------------

ROWS_DATA = f'prompts = "q.jsonl"\n{FIELDS}'
ROW_BY_ROW: dict[str, tuple[str, str]] = {  # (the [data] table and what follows it, the TOML's extra tables)
    "each turn": (f'prompts = "q.jsonl"\nturn = [1, 2]\n{FIELDS}', ""),
    "a JSON array": (f'prompts = "q.json"\n{FIELDS}', ""),
    "inline prompts too": (
        ROWS_DATA,
        '[[prompts]]\nid = "inline"\ntext = "hi"\nresponses = { a = "1", b = "2", c = "3" }\n',
    ),
    "a responses file too": (f'prompts = "q.jsonl"\nresponses = "r.jsonl"\n{FIELDS}', ""),
    "references": (f'prompts = "q.jsonl"\nreferences = "ref.jsonl"\n{FIELDS}', ""),
    "a conversation": (f'prompts = "q.jsonl"\nturn = "conversation"\n{FIELDS}', ""),
    "a nested field": (f'prompts = "q.jsonl"\n{FIELDS}\ncategory = "meta.category"', ""),
    "one key for two fields": (f'prompts = "q.jsonl"\n{FIELDS}\nreference_ranking = "text"', ""),
}


FAILING = {
    "a responses file too": "r.jsonl:1: 1 row(s) for a prompt that is not in the tournament",
    "one key for two fields": "reference_ranking names undeclared contestant(s) question 0",
}


@pytest.mark.parametrize("case", sorted(ROW_BY_ROW))
def test_other_sources_are_read_row_by_row_to_the_same(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, extra = ROW_BY_ROW[case]
    _lines(tmp_path, GOOD)
    (tmp_path / "q.json").write_text(json.dumps(GOOD), encoding="utf-8")
    _jsonl(tmp_path / "r.jsonl", [{"prompt_id": "p9", "contestant": "a", "response": "x"}])
    _jsonl(tmp_path / "ref.jsonl", [{"prompt_id": "p1", "reference": "4"}])
    path = _toml(tmp_path, data)
    path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")
    if case in FAILING:
        assert any(FAILING[case] in d for d in _errors_both_ways(path, monkeypatch))
        return
    loaded, general = _both_ways(path, monkeypatch, columns=False)
    _assert_same(loaded, general)


def test_an_mt_bench_import_loads_the_same_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its responses are in a file of their own: read row by row."""
    source = write_jsonl(tmp_path / "gpt-4_pair.jsonl", mt_bench_records())
    assert main(["import", "mt-bench", str(source), "-o", str(tmp_path / "t")]) == 0
    loaded, general = _both_ways(tmp_path / "t" / "tournament.toml", monkeypatch, columns=False)
    _assert_same(loaded, general)


def test_skip_prompt_leaves_out_as_row_by_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _lines(tmp_path, _with(1, responses={"a": "x", "b": " ", "c": "z"}))
    path = _toml(tmp_path, f'prompts = "q.jsonl"\nmissing = "skip-prompt"\n{FIELDS}')
    loaded, general = _both_ways(path, monkeypatch, columns=False)
    _assert_same(loaded, general)
    assert general.data is not None and general.data.skipped == {"p1": "an empty response from b"}


def test_validate_says_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"id": f"p{i}", "text": f"q {i}", "category": "x", "responses": {"a": "", "b": "y"}} for i in range(9)
    ]
    _lines(tmp_path, rows)
    path = _toml(tmp_path, f'prompts = "q.jsonl"\nallow_empty = true\n{FIELDS}', recorded=True)
    assert main(["validate", str(path)]) == 0
    said = capsys.readouterr()
    assert main(["validate", str(path)]) == 0  # the prompts read back from their kept index
    assert capsys.readouterr() == said
    with monkeypatch.context() as m:
        m.setattr(plain_prompts, "read_plain", lambda text, keys: None)
        m.setenv("ELOTUI_HOME", str(tmp_path / "row-by-row-home"))
        assert main(["validate", str(path)]) == 0
    assert capsys.readouterr() == said
    assert "contestant 'a' has an empty response to p0, p1, p2, p3, p4, … (9 in all)" in said.out + said.err


def _said(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(args) == 0
    return "\n".join(line for line in capsys.readouterr().out.splitlines() if "_at" not in line)


def test_export_and_diagnose_say_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "battles.jsonl"
    log.write_text("".join(json.dumps(b) + "\n" for b in arena_battles(300, seed=9)), encoding="utf-8")
    assert main(["import", "arena", str(log), "-o", str(tmp_path / "t")]) == 0
    toml = str(tmp_path / "t" / "tournament.toml")
    (store,) = (Path(os.environ["ELOTUI_HOME"]) / "data" / "stores").glob("*.sqlite")
    commands = [
        ["export", toml, "--format", "json", "--style-control"],
        ["export", toml, "--format", "csv", "--category", "English"],
        ["diagnose", toml, "--format", "json"],
    ]
    loaded = [_said([*c, "--store", str(store)], capsys) for c in commands]  # the index the import kept
    with monkeypatch.context() as m:
        m.setenv(
            "ELOTUI_HOME", str(tmp_path / "fresh-home")
        )  # merged column-wise by the first, then read back
        merged = [_said([*c, "--store", str(store)], capsys) for c in commands]
    with monkeypatch.context() as m:
        m.setattr(plain_prompts, "read_plain", lambda text, keys: None)
        m.setenv("ELOTUI_HOME", str(tmp_path / "row-by-row-home"))
        general = [_said([*c, "--store", str(store)], capsys) for c in commands]
    assert loaded == general and merged == general
    assert all(len(said) > 200 for said in loaded)
