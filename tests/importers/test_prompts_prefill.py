"""`elotui import arena` keeps the data cache's entry of the prompts file it writes
(elotui.importers.prompts_prefill): the entry a first load of the tournament would keep, byte for byte, so that
load merges nothing and decodes no row; an import whose prompts are not read column-wise keeps none."""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from elotui.cli import main
from elotui.tournament.model import load_tournament
from elotui.tournament.prompt_columns import PromptSequence
from tests.foundation.test_plain_prompts import _assert_same, _row_by_row
from tests.importers.fixtures import arena_battles, mt_bench_records, write_jsonl


def _entries(home: Path) -> dict[str, bytes]:
    """The data cache's prompts entries of this home: file name → bytes."""
    return {p.name: p.read_bytes() for p in (home / "cache" / "data").glob("*.columns")}


def _varied(battles: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """The battles with what makes an import's prompts differ: a prompt in several battles (more contestants in
    its table, as first met), no question_id, no or another language, several turns."""
    for i, b in enumerate(battles):
        roll = rng.random()
        if roll < 0.2 and i:
            b["question_id"] = battles[rng.randrange(i)].get("question_id", "q-again")
        elif roll < 0.25:
            b.pop("question_id", None)
        if rng.random() < 0.1:
            b["language"] = rng.choice([None, "", "Español", "日本語"])
        if rng.random() < 0.1:
            b["turn"] = rng.choice([2, 3])
    return battles


def _import(tmp_path: Path, battles: list[dict[str, Any]]) -> Path:
    log = tmp_path / "battles.jsonl"
    log.write_text("".join(json.dumps(b) + "\n" for b in battles), encoding="utf-8")
    assert main(["import", "arena", str(log), "-o", str(tmp_path / "t")]) == 0
    return tmp_path / "t" / "tournament.toml"


@pytest.mark.parametrize("seed", range(6))
def test_the_import_keeps_the_entry_a_first_load_would_keep(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, merges: list[Path], decoded: list[int]
) -> None:
    rng = random.Random(seed)
    battles = arena_battles(rng.choice([40, 300, 1200]), seed=seed)
    toml = _import(tmp_path, _varied(battles, rng) if seed % 3 else battles)
    home = Path(os.environ["ELOTUI_HOME"])
    prefilled = _entries(home)
    assert len(prefilled) == 1 and decoded == []  # the import decoded no row of the file it wrote
    monkeypatch.setenv("ELOTUI_HOME", str(tmp_path / "fresh-home"))
    fresh = load_tournament(toml)  # merged from the files: keeps its own entry
    assert merges == [toml.parent] and decoded == [len(fresh.prompt_ids)]
    assert _entries(tmp_path / "fresh-home") == prefilled  # the same name, the same bytes
    monkeypatch.setenv("ELOTUI_HOME", str(home))
    loaded = load_tournament(toml)  # read back from the import's entry
    assert merges == [toml.parent] and isinstance(loaded.spec.prompts, PromptSequence)
    _assert_same(loaded, _row_by_row(toml, monkeypatch))
    if seed % 3 and len(battles) > 40:  # the varied battles gave what they are for
        assert max(Counter(prompt for prompt, _ in loaded.responses).values()) > 2
        assert len(loaded.categories) < len(loaded.prompt_ids) and len(set(loaded.categories.values())) > 2


def test_an_export_after_the_import_merges_nothing_and_decodes_no_row(
    tmp_path: Path, merges: list[Path], decoded: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    """Also with the tournament file edited where the merge does not read it (the benchmark's `bootstrap = 0`)."""
    path = _import(tmp_path, arena_battles(500, seed=4))
    text = path.read_text(encoding="utf-8")
    assert 'method = "bt"\n' in text
    path.write_text(text.replace('method = "bt"\n', 'method = "bt"\nbootstrap = 0\n'), encoding="utf-8")
    toml = str(path)
    for args in (["--format", "json", "--style-control"], ["--format", "csv", "--category", "English"]):
        assert main(["export", toml, *args]) == 0
    assert merges == [] and decoded in ([], [1], [1, 1])  # at most the first row: the one checked as all are
    assert "claude-2.1" in capsys.readouterr().out


def test_ids_the_column_wise_reading_does_not_take_keep_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, merges: list[Path]
) -> None:
    battles = arena_battles(30, seed=1)
    battles[3]["question_id"] = " q-with-blanks "
    toml = _import(tmp_path, battles)
    assert _entries(Path(os.environ["ELOTUI_HOME"])) == {}
    loaded = load_tournament(toml)
    assert merges == [toml.parent] and not isinstance(loaded.spec.prompts, PromptSequence)
    _assert_same(loaded, _row_by_row(toml, monkeypatch))


def test_an_mt_bench_import_keeps_nothing(tmp_path: Path, merges: list[Path]) -> None:
    """Its responses are in a file of their own: read row by row, kept by its first load."""
    source = write_jsonl(tmp_path / "gpt-4_pair.jsonl", mt_bench_records())
    assert main(["import", "mt-bench", str(source), "-o", str(tmp_path / "t")]) == 0
    home = Path(os.environ["ELOTUI_HOME"])
    assert _entries(home) == {} and not list((home / "cache").glob("data/*"))
    load_tournament(tmp_path / "t" / "tournament.toml")
    load_tournament(tmp_path / "t" / "tournament.toml")
    assert len(merges) == 1
