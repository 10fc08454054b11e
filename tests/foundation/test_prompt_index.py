"""A prompts file read column-wise is kept in the data cache as its index (elotui.tournament.prompt_index): read back
by the next load, every view of its prompts answers as the row-by-row merge's, its rows are decoded only when a text
or a response is asked for (from the bytes read at load), and it is never stale: an edited prompts or tournament
file is merged again, a damaged entry reads as absent, a cache folder that cannot be written costs only speed."""

from __future__ import annotations

import hashlib
import os
import random
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec
import numpy as np
import pytest

from elotui.errors import UserError
from elotui.runtime import disk_cache
from elotui.tournament import data_cache, plain_prompts, prompt_index
from elotui.tournament.model import Tournament, load_tournament
from elotui.tournament.prompt_columns import Coded, PromptColumns, PromptSequence
from tests.foundation.test_plain_prompts import (
    FIELDS,
    GOOD,
    _generated_rows,
    _lines,
    _row_by_row,
    _toml,
    _with,
    _write,
)


def _folder() -> Path:
    return Path(os.environ["ELOTUI_HOME"]) / "cache" / "data"


def _indexes() -> list[Path]:
    return sorted(_folder().glob("*.columns"))


def _merges_kept() -> list[Path]:
    return sorted(_folder().glob("*.marshal"))


def _good(tmp_path: Path) -> Path:
    _lines(tmp_path, GOOD)
    return _toml(tmp_path, f'prompts = "q.jsonl"\n{FIELDS}')


# --- kept, read back, never stale ----------------------------------------------------------------------------------


def test_plain_prompts_are_kept_as_their_index_and_never_stale(tmp_path: Path, merges: list[Path]) -> None:
    path = _good(tmp_path)
    assert load_tournament(path).prompt_texts["p1"] == "question 1"
    assert len(_indexes()) == 1 and _merges_kept() == []
    assert load_tournament(path).prompt_texts["p1"] == "question 1" and len(merges) == 1  # read back
    _lines(tmp_path, _with(1, text="edited"))  # the prompts file edited: merged again
    assert load_tournament(path).prompt_texts["p1"] == "edited" and len(merges) == 2
    assert load_tournament(path).prompt_texts["p1"] == "edited" and len(merges) == 2
    _lines(tmp_path, _with(1, text="edited again", note="an unread field: read row by row, then kept whole"))
    assert load_tournament(path).prompt_texts["p1"] == "edited again"
    assert len(_merges_kept()) == 1 and len(merges) == 3
    _lines(tmp_path, _with(1, text="plain again"))  # both entries are for other bytes: neither is read back
    t = load_tournament(path)
    assert t.prompt_texts["p1"] == "plain again" and isinstance(t.spec.prompts, PromptSequence)
    assert len(merges) == 4 and len(_indexes()) == 1  # the entry of this tournament file, written over


def test_an_edited_tournament_file_is_merged_again(tmp_path: Path, merges: list[Path]) -> None:
    _lines(tmp_path, _with(2, responses={"a": "", "b": "y", "c": "z"}))
    path = _toml(tmp_path, f'prompts = "q.jsonl"\nallow_empty = true\n{FIELDS}')
    first = load_tournament(path)
    assert first.data is not None and "contestant 'a' has an empty response to p2" in first.data.notes[0]
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text + "\n# a comment\n[ranking]\nbootstrap = 0\n", encoding="utf-8"
    )  # not read by the merge
    t = load_tournament(path)
    assert (
        t.data == first.data and t.spec.ranking.bootstrap == 0 and len(merges) == 1 and len(_indexes()) == 1
    )
    path.write_text(_edited(text, 'missing = "error"'), encoding="utf-8")  # [data] edited: merged again
    assert load_tournament(path).data == first.data and len(merges) == 2 and len(_indexes()) == 2
    path.write_text(text.replace("allow_empty = true\n", ""), encoding="utf-8")
    with pytest.raises(UserError) as err:  # the entries kept are for other tournament files
        load_tournament(path)
    assert "contestant 'a' has an empty response to 1 of 4 prompt(s): p2" in "\n".join(err.value.details)
    assert len(merges) == 3


def _edited(toml: str, key: str) -> str:
    """The tournament file with `key` added to its [data] table."""
    return toml.replace('prompts = "q.jsonl"\n', f'prompts = "q.jsonl"\n{key}\n', 1)


def _entry(body: bytes) -> bytes:
    """A cache file holding `body` whole (disk_cache's own layout: its SHA-256, then it)."""
    return hashlib.sha256(body).digest() + body


def test_a_damaged_entry_reads_as_absent(tmp_path: Path, merges: list[Path]) -> None:
    path = _good(tmp_path)
    want = load_tournament(path)
    (kept,) = _indexes()
    good = kept.read_bytes()
    stored = prompt_index.stored(good[32:])
    assert stored is not None
    damages = [
        good[:-5],  # cut short
        b"",
        good[:32] + b"\0" * 40,
        _entry(b"\x93\xa1x\xa1y\xa1z"),  # whole, but not an entry
        _entry(msgspec.msgpack.encode(["elotui plain prompts 0", b"", b""])),  # another format
        _entry(
            msgspec.msgpack.encode([prompt_index.FORMAT, b"\xc0", b"\xc0"])
        ),  # a head and columns of nothing
        _entry(
            msgspec.msgpack.encode([prompt_index.FORMAT, stored.head_bytes, msgspec.Raw(b"\x93\x90\x92\x90")])
        ),
    ]
    for damage in damages:
        kept.write_bytes(damage)
        for _ in range(2):  # merged again and written over, then read back
            t = load_tournament(path)
            assert t.prompt_texts == want.prompt_texts and dict(t.responses) == dict(want.responses)
            assert t.data == want.data
        assert kept.read_bytes() == good
    assert len(merges) == 1 + len(damages)


def test_a_cache_folder_that_cannot_be_written_costs_only_speed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, merges: list[Path]
) -> None:
    path = _good(tmp_path)
    want = load_tournament(path).prompt_texts
    folder = _folder()

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")  # what a read-only folder gives (root writes in any)

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    os.chmod(folder, stat.S_IRUSR | stat.S_IXUSR)
    try:
        assert load_tournament(path).prompt_texts == want and len(merges) == 1  # what it holds is read
        path.write_text(_edited(path.read_text(encoding="utf-8"), 'missing = "error"'), encoding="utf-8")
        for _ in range(2):  # nothing can be kept: merged every time
            assert load_tournament(path).prompt_texts == want
        assert len(merges) == 3 and len(_indexes()) == 1
    finally:
        os.chmod(folder, stat.S_IRWXU)
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ELOTUI_HOME", str(blocker / "home"))  # no cache folder at all
    assert load_tournament(path).prompt_texts == want and load_tournament(path).prompt_texts == want
    assert len(merges) == 5


def test_the_entries_are_pruned_with_the_other_merges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, merges: list[Path]
) -> None:
    path = _good(tmp_path)
    load_tournament(path)
    (first,) = _indexes()
    monkeypatch.setattr(data_cache, "KEEP_BYTES", 2 * first.stat().st_size + 10)
    original = path.read_text(encoding="utf-8")
    os.utime(first, ns=(1, 1))  # the first entry used longest ago
    for key in ['missing = "error"', "allow_empty = false", "turn = 1"]:  # each its default: the same prompts
        path.write_text(_edited(original, key), encoding="utf-8")
        assert load_tournament(path).prompt_texts["p1"] == "question 1"
    assert len(_indexes()) == 2 and first not in _indexes() and len(merges) == 4


# --- the rows, decoded when asked for ------------------------------------------------------------------------------


def test_the_rows_are_those_of_the_bytes_read_at_load(tmp_path: Path, decoded: list[int]) -> None:
    path = _good(tmp_path)
    load_tournament(path)
    decoded.clear()
    t = load_tournament(path)  # read back: no row decoded but the first (checked as all are)
    assert decoded == [1]
    _lines(tmp_path, _with(1, text="edited after the load"))
    assert t.prompt_texts["p1"] == "question 1" and t.responses[("p3", "c")] == "c on 3"
    assert decoded == [1, 4]  # decoded once, from the bytes hashed at load
    assert load_tournament(path).prompt_texts["p1"] == "edited after the load"


def _generated(tmp_path: Path, seed: int) -> Path:
    """A tournament of 40 generated plain rows with categories, turns and (often empty) responses."""
    rng = random.Random(seed)
    _write(tmp_path / "q.jsonl", _generated_rows(rng, 40, every=False, blank=True, turn=True), rng)
    data = 'prompts = "q.jsonl"\nallow_empty = true\n[data.fields]\nresponses = "responses"\nturn = "turn"\n'
    return _toml(tmp_path, data, recorded=True)


VIEWS: dict[str, Callable[[Tournament], Any]] = {
    "ids": lambda t: t.prompt_ids,
    "categories": lambda t: t.categories,
    "turns": lambda t: t.prompt_turns,
    "the first prompt": lambda t: t.spec.prompts[0].model_dump(),
    "the last prompt": lambda t: t.spec.prompts[-1].model_dump(),
    "a slice of prompts": lambda t: [p.model_dump() for p in t.spec.prompts[2:5]],
    "every prompt": lambda t: [p.model_dump() for p in t.spec.prompts],
    "texts": lambda t: t.prompt_texts,
    "responses in order": lambda t: list(t.responses.items()),
    "a response": lambda t: (
        t.responses.get((t.prompt_ids[0], "a")),
        t.responses.get((t.prompt_ids[-1], "c")),
    ),
    "a response's presence": lambda t: ((t.prompt_ids[3], "b") in t.responses, ("nope", "a") in t.responses),
    "how many responses": lambda t: len(t.responses),
    "response values": lambda t: list(t.responses.values()),
    "context": lambda t: t.prompts_with_context(),
    "report": lambda t: t.data,
}
EAGER = {
    "ids",
    "categories",
    "turns",
    "the first prompt",
    "context",
    "report",
}  # no row decoded but the first


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("seed", [0, 3])
def test_each_view_of_prompts_read_back_answers_as_row_by_row(
    view: str, seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, decoded: list[int]
) -> None:
    """Asked first (nothing decoded before it) of prompts read back from the cache."""
    path = _generated(tmp_path, seed)
    general = _row_by_row(path, monkeypatch)
    load_tournament(path)
    decoded.clear()
    loaded = load_tournament(path)
    assert isinstance(loaded.spec.prompts, PromptSequence) and decoded == [1]
    assert VIEWS[view](loaded) == VIEWS[view](general)
    if view in EAGER:  # at most the first row, alone
        assert set(decoded) == {1}
    else:  # every row, once
        assert decoded.count(40) == 1 and set(decoded) <= {1, 40}
    assert VIEWS[view](loaded) == VIEWS[view](general)  # and again, from what is held now
    _assert_rows_equal(loaded, general)


def _assert_rows_equal(loaded: Tournament, general: Tournament) -> None:
    assert [p.model_dump() for p in loaded.spec.prompts] == [p.model_dump() for p in general.spec.prompts]
    assert loaded.categories == general.categories and loaded.prompt_turns == general.prompt_turns


# --- coded columns -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_coded_responses_count_as_the_rows_give_them(seed: int) -> None:
    """The coverage counts (plain_prompts.contestants, blank_responses) of responses given coded — an import's
    distinct tables and each prompt's — are those of the same responses in rows of their own."""
    rng = random.Random(seed)
    models = ["a", "b", "c", "d"]
    tables = [
        {m: rng.choice(["", " ", "text", "\n"]) for m in rng.sample(models, rng.randint(0, 4))}
        for _ in range(6)
    ]
    codes = np.array([rng.randrange(len(tables)) for _ in range(200)], dtype=np.int64)
    ids = [f"p{i}" for i in range(len(codes))]
    keys = {"prompt_id": "id", "text": "text", "responses": "responses"}
    rows = [
        SimpleNamespace(id=i, responses=dict(tables[c])) for i, c in zip(ids, codes.tolist(), strict=True)
    ]
    as_rows = PromptColumns(rows, ids, keys=keys)
    coded = PromptColumns(rows, ids, keys=keys, responses=Coded(tables, codes))
    assert list(coded.responses()) == list(as_rows.responses())
    assert [coded.responses_of(i) for i in range(len(ids))] == [
        as_rows.responses_of(i) for i in range(len(ids))
    ]
    given, blank = plain_prompts.contestants(coded)
    assert (given, blank) == plain_prompts.contestants(as_rows)
    assert set(blank) <= set(given) and all(blank.values())
    for show in (1, 5):
        assert plain_prompts.blank_responses(coded, blank, models, show) == plain_prompts.blank_responses(
            as_rows, blank, models, show
        )
    assert coded.response_groups() is not None and as_rows.response_groups() is None


def test_an_entry_is_the_same_bytes_for_the_same_prompts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Made twice — from the rows and from the columns read back — an entry is the same bytes (no object identity
    or interning in it): what lets an import write the one a load would."""
    path = _generated(tmp_path, 3)
    load_tournament(path)
    (kept,) = _indexes()
    body = kept.read_bytes()[32:]
    stored = prompt_index.stored(body)
    assert stored is not None
    head, columns = stored.head(), stored.columns()
    assert head is not None and columns is not None
    back = prompt_index.columns_of(
        head, columns, plain_prompts.RowsOfFile((tmp_path / "q.jsonl").read_bytes(), head.keys, None)
    )
    assert back is not None
    assert prompt_index.entry(head.file, back, head.data_report()) == body
    monkeypatch.setattr(disk_cache, "write", lambda *a, **k: pytest.fail("read back: nothing written"))
    load_tournament(path)
