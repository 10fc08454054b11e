"""A JSON Lines `[data] style` file is read once (elotui.tournament.style_cache): every later lookup reads the kept
counts back, and gives exactly the lookup a fresh reading gives — for the importer's layout and for every file the
column-wise reading refuses but the typed one takes. A file only the general reading takes is read every time; an
edited file (any byte), other ids, a damaged entry read again; a cache that cannot be written only costs the
reading. The readings are counted (no clock)."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from elotui.errors import UserError
from elotui.locations import cache_dir
from elotui.rating import style_rank
from elotui.rating.style_rank import StyleLookup, style_lookup
from elotui.tournament import style_cache
from tests.rating.test_style_file import (
    CONTESTANTS,
    _prompts,
    _reference,
    _rows,
    _same,
    _tournament,
    _variants,
    _write,
)


@pytest.fixture
def readings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The readings of style files done (column-wise, typed, general), in turn."""
    done: list[str] = []
    for name in ("_importer_rows", "_typed_rows", "_read_style"):
        real = getattr(style_rank, name)

        def counted(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            done.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(style_rank, name, counted)
    return done


def _entries() -> dict[str, bytes]:
    folder = cache_dir() / style_cache.KIND
    return {p.name: p.read_bytes() for p in folder.iterdir()} if folder.exists() else {}


@pytest.mark.parametrize("seed", range(4))
def test_the_importers_layout_is_read_once_then_read_back_the_same(
    tmp_path: Path, seed: int, readings: list[str]
) -> None:
    prompts = _prompts(seed, 400)
    rows = _rows(seed, prompts)
    rows.append(dict(rows[-1], tokens=5))  # a response named twice: the first row kept
    path = _write(tmp_path / "style.jsonl", rows)
    want = _reference(path, prompts, CONTESTANTS)
    readings.clear()
    first = style_lookup(_tournament(path, prompts))
    assert readings == ["_importer_rows"] and len(_entries()) == 1
    for _ in range(2):
        _same(style_lookup(_tournament(path, prompts)), want)
    _same(first, want)
    assert readings == ["_importer_rows"]  # read back: no reading


@pytest.mark.parametrize("variant", list(_variants("a\nb\nc\nd\ne\nf\ng\n")))
def test_files_the_column_wise_reading_refuses_are_kept_as_the_typed_reading_gives_them(
    tmp_path: Path, variant: str, readings: list[str]
) -> None:
    """Whatever fast reading took a file, its lookup is kept and read back exactly; a file only the general reading
    takes is read every time, one with a bad row reported every time: neither is kept."""
    prompts = _prompts(7, 40)
    text = _write(tmp_path / "base.jsonl", _rows(7, prompts)).read_text(encoding="utf-8")
    path = tmp_path / "style.jsonl"
    path.write_bytes(_variants(text)[variant].encode("utf-8"))
    try:
        want: StyleLookup | None = _reference(path, prompts, CONTESTANTS)
    except UserError:
        want = None
    readings.clear()
    for _ in range(3):
        if want is None:
            with pytest.raises(UserError):
                style_lookup(_tournament(path, prompts))
        else:
            _same(style_lookup(_tournament(path, prompts)), want)
    typed = "_typed_rows" in readings and "_read_style" not in readings
    if typed:  # read once, then read back
        assert readings == ["_importer_rows", "_typed_rows"] and len(_entries()) == 1
    else:  # the general reading every time
        assert readings.count("_read_style") == 3 and not _entries()


def test_some_variants_are_kept_and_some_are_not(tmp_path: Path) -> None:
    """The variants above cover both branches: kept (typed) and not kept (general, or a bad row)."""
    prompts = _prompts(7, 40)
    text = _write(tmp_path / "base.jsonl", _rows(7, prompts)).read_text(encoding="utf-8")
    typed = 0
    variants = _variants(text)
    for variant in variants.values():
        path = tmp_path / "style.jsonl"
        path.write_bytes(variant.encode("utf-8"))
        typed += style_rank._typed_rows(path) is not None
    assert typed >= 8 and len(variants) - typed >= 8


def test_an_edited_file_is_read_again_whatever_byte_changes(tmp_path: Path, readings: list[str]) -> None:
    prompts = _prompts(0, 200)
    path = _write(tmp_path / "style.jsonl", _rows(0, prompts))
    raw = path.read_bytes()
    style_lookup(_tournament(path, prompts))
    rng = random.Random(5)
    digits = [i for i, b in enumerate(raw) if chr(b).isdigit()]
    for at in rng.sample(digits, 5):
        edited = bytearray(raw)
        edited[at] = ord("1") if edited[at] != ord("1") else ord("2")
        path.write_bytes(bytes(edited))
        want = _reference(path, prompts, CONTESTANTS)
        readings.clear()
        _same(style_lookup(_tournament(path, prompts)), want)
        assert readings[0] == "_importer_rows"  # read, not read back
        readings.clear()
        _same(style_lookup(_tournament(path, prompts)), want)
        assert readings == []  # the edited file's counts, kept in turn
    path.write_bytes(raw)  # the first bytes again: their counts read back
    want = _reference(path, prompts, CONTESTANTS)
    readings.clear()
    _same(style_lookup(_tournament(path, prompts)), want)
    assert readings == []


def test_other_ids_read_the_file_again(tmp_path: Path, readings: list[str]) -> None:
    """The counts are kept under the codes of the ids: other prompts or contestants (or their order) miss."""
    prompts = _prompts(0, 50)
    path = _write(tmp_path / "style.jsonl", _rows(0, prompts))
    style_lookup(_tournament(path, prompts))
    for ids, contestants in [
        ([*prompts, "extra"], CONTESTANTS),
        (prompts, [*CONTESTANTS, "another"]),
        (prompts, CONTESTANTS[::-1]),
    ]:
        want = _reference(path, ids, contestants)
        readings.clear()
        _same(style_lookup(_tournament(path, ids, contestants)), want)
        assert readings  # read, not read back
    assert len(_entries()) == 4


def test_a_damaged_entry_reads_as_absent_and_is_written_again(tmp_path: Path, readings: list[str]) -> None:
    prompts = _prompts(1, 100)
    path = _write(tmp_path / "style.jsonl", _rows(1, prompts))
    want = style_lookup(_tournament(path, prompts))
    ((name, body),) = _entries().items()
    entry = cache_dir() / style_cache.KIND / name
    for damaged in (body[:-1] + bytes([body[-1] ^ 1]), body[: len(body) // 2], b""):
        entry.write_bytes(damaged)
        readings.clear()
        _same(style_lookup(_tournament(path, prompts)), want)
        assert readings == ["_importer_rows"]
        assert entry.read_bytes() == body  # written again, whole


def test_a_cache_that_cannot_be_written_only_costs_the_reading(
    tmp_path: Path, readings: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    prompts = _prompts(2, 100)
    path = _write(tmp_path / "style.jsonl", _rows(2, prompts))
    want = _reference(path, prompts, CONTESTANTS)

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(
            13, "Permission denied"
        )  # a read-only folder (the tests run as root: chmod is no bar)

    with monkeypatch.context() as m:
        m.setattr(tempfile, "mkstemp", refused)
        readings.clear()
        for _ in range(2):
            _same(style_lookup(_tournament(path, prompts)), want)
        assert readings == ["_importer_rows"] * 2 and not _entries()
    (cache_dir() / style_cache.KIND).rmdir()
    (cache_dir() / style_cache.KIND).write_bytes(b"")  # not a folder
    readings.clear()
    _same(style_lookup(_tournament(path, prompts)), want)
    assert readings == ["_importer_rows"]


def test_a_missing_file_is_reported_as_without_the_cache(tmp_path: Path) -> None:
    prompts = _prompts(0, 10)
    with pytest.raises(UserError, match="no such file"):
        style_lookup(_tournament(tmp_path / "style.jsonl", prompts))


def test_the_folder_keeps_the_entries_used_last_up_to_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, readings: list[str]
) -> None:
    prompts = _prompts(0, 300)
    paths = [_write(tmp_path / f"s{k}.jsonl", _rows(k, prompts)) for k in range(3)]
    style_lookup(_tournament(paths[0], prompts))
    size = max(len(b) for b in _entries().values()) + 32
    monkeypatch.setattr(style_cache, "KEEP_BYTES", 2 * size)  # room for two entries
    for path in paths[1:]:
        style_lookup(_tournament(path, prompts))
    assert len(_entries()) == 2
    readings.clear()
    for path in paths[1:]:
        style_lookup(_tournament(path, prompts))
    assert readings == []  # the two used last
    style_lookup(_tournament(paths[0], prompts))
    assert readings == ["_importer_rows"]  # the first went


def _roundtrip(keys: list[int], counts: list[list[float]], n_contestants: int) -> tuple[Any, Any, bytes]:
    k = np.array(keys, dtype=np.int64)
    c = np.array(counts, dtype=np.float64).reshape(-1, 4)
    body = style_cache.encode(k, list(c.T), n_contestants)
    back = style_cache.decode(body, n_contestants)
    assert back is not None
    assert np.array_equal(back[0], k) and back[0].dtype == np.int64
    assert back[1].dtype == np.float64 and back[1].shape == c.shape
    assert back[1].tobytes() == c.tobytes()  # bit for bit (a negative zero stays one)
    return back[0], back[1], body


def test_counts_are_kept_exactly_in_the_smallest_type_that_holds_them() -> None:
    _roundtrip([], [], 3)
    _, _, small = _roundtrip([0, 1, 5], [[428, 3, 4, 4], [0, 0, 0, 0], [65535, 255, 0, 1]], 3)
    _, _, wide = _roundtrip([0, 1, 5], [[65536, 256, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1]], 3)
    assert len(wide) - len(small) == 3 * (2 + 1)  # tokens 2 bytes wider, headers 1 byte wider, per row
    floats = [[1.5, 0, 0, 0], [2**60, -0.0, 2.0**64, 1e300], [0, 1, 2, 3]]
    _roundtrip([7, 10**12, 2**62], floats, 10**6)  # large keys and differences


def test_an_entry_of_another_format_or_size_reads_as_absent() -> None:
    keys = np.array([0, 2, 3], dtype=np.int64)
    body = style_cache.encode(keys, list(np.ones((3, 4)).T), 2)
    assert style_cache.decode(body, 2) is not None
    assert style_cache.decode(body, 3) is None  # another tournament's count of contestants
    assert style_cache.decode(body[:-1], 2) is None
    assert style_cache.decode(body + b"\0", 2) is None
    assert style_cache.decode(body.replace(b"elotui style counts", b"elotui style county"), 2) is None
    assert style_cache.decode(b"\xff\xff\xff\x00{}", 2) is None
    assert style_cache.decode(b"", 2) is None


def test_a_hit_builds_the_lookup_a_reading_builds_without_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept counts against a lookup built with no cache folder at all (every reading fresh)."""
    prompts = _prompts(4, 500)
    rows = _rows(4, prompts)
    path = _write(tmp_path / "style.jsonl", rows)
    style_lookup(_tournament(path, prompts))
    hit = style_lookup(_tournament(path, prompts))
    monkeypatch.setenv("ELOTUI_HOME", str(tmp_path / "file"))
    (tmp_path / "file").write_bytes(b"")  # no cache folder can be made
    fresh = style_lookup(_tournament(path, prompts))
    _same(hit, fresh)


@pytest.mark.parametrize("seed", range(3))
def test_first_rows_are_numpys_unique_first_indices(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for n, spread in [(0, 1), (1, 1), (50, 3), (2000, 40), (2000, 4000)]:
        prompt = np.sort(rng.integers(0, spread, n)) if seed else rng.integers(0, spread, n)
        contestant = rng.integers(0, 7, n)
        keys, first = style_cache.first_rows(prompt, contestant, 7)
        want, want_first = np.unique(prompt.astype(np.int64) * 7 + contestant, return_index=True)
        assert np.array_equal(keys, want) and keys.dtype == np.int64
        assert np.array_equal(np.arange(n)[first], want_first)
    in_order = np.arange(10)
    assert style_cache.first_rows(in_order, in_order % 3, 3)[1] == slice(None)


def test_whole_counts_are_kept_as_the_same_counts_read_as_floats() -> None:
    """The import's prefill gives its counts as integers, a reading as float64: the same entry, byte for byte."""
    rng = np.random.default_rng(4)
    keys = np.cumsum(rng.integers(1, 9, 500)).astype(np.int64)
    for top in (9, 300, 70_000, 2**40):
        counts = rng.integers(0, top, (500, 4))
        floats = counts.astype(np.float64)
        as_ints = style_cache.encode(keys, list(counts.T), 9)
        assert as_ints == style_cache.encode(keys, list(floats.T), 9)
        back = style_cache.decode(as_ints, 9)
        assert back is not None and back[1].tobytes() == floats.tobytes()


def test_ids_that_cannot_be_encoded_keep_nothing(tmp_path: Path, readings: list[str]) -> None:
    """A lone surrogate in an id (no UTF-8 for it): the file is read every time, as without the cache."""
    prompts = _prompts(0, 30)
    path = _write(tmp_path / "style.jsonl", _rows(0, prompts))
    contestants = [*CONTESTANTS[:-1], "\ud800"]
    want = _reference(path, prompts, contestants)
    readings.clear()
    for _ in range(2):
        _same(style_lookup(_tournament(path, prompts, contestants)), want)
    assert readings.count("_typed_rows") == 2 and not _entries()
