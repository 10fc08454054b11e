"""`elotui import arena` writes the style cache entry of the style.jsonl it writes (elotui.importers.style_prefill):
byte for byte (its name and its body) the entry the first reading of the written file keeps, on generated logs and
on logs with every odd battle (no conv_metadata, a side's counts missing, repeated, numeric and escaped ids, counts
as plain numbers or past 2^50); so the first export after the import reads nothing (the readings are counted), and
ranks as it would have without the cache. An import whose counts a reading would not take leaves no entry."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from elotui.cli import main
from elotui.errors import UserError
from elotui.importers import source_records
from elotui.locations import cache_dir
from elotui.rating.style_rank import style_lookup
from elotui.tournament import style_cache
from elotui.tournament.model import load_tournament
from tests.importers.fixtures import arena_battles
from tests.importers.test_arena_columns import _line, odd_battles
from tests.rating.test_style_cache import readings  # noqa: F401 (a fixture)


def _entries() -> dict[str, bytes]:
    folder = cache_dir() / style_cache.KIND
    return {p.name: p.read_bytes() for p in folder.iterdir()} if folder.exists() else {}


def _imported(
    tmp_path: Path, lines: list[str], capsys: pytest.CaptureFixture[str], *, skip_bad: bool
) -> Path:
    src = tmp_path / "battles.jsonl"
    src.write_text("".join(lines), encoding="utf-8")
    out = tmp_path / "t"
    assert main(["import", "arena", str(src), "-o", str(out), *(["--skip-bad"] if skip_bad else [])]) == 0
    capsys.readouterr()
    return out / "tournament.toml"


def _prefilled_as_read(toml: Path, done: list[str]) -> dict[str, bytes] | None:
    """The entry the import wrote, checked against the one a reading of the written file keeps (None: the import
    wrote none, and the reading refuses the file)."""
    prefilled = _entries()
    tournament = load_tournament(toml)
    done.clear()
    kept = style_lookup(tournament)  # the prefilled entry, read back
    assert done == [] and len(prefilled) == 1
    shutil.rmtree(cache_dir() / style_cache.KIND)
    fresh = style_lookup(tournament)  # read from the file
    assert done and done[0] == "_importer_rows"
    assert _entries() == prefilled  # the same name, the same bytes
    assert np.array_equal(kept.keys, fresh.keys) and kept.counts.tobytes() == fresh.counts.tobytes()
    return prefilled


@pytest.mark.parametrize(("seed", "n"), [(3, 1_000), (5, 3_000), (11, 6_000)])
def test_a_generated_logs_entry_is_the_one_its_reading_keeps(
    seed: int,
    n: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    readings: list[str],  # noqa: F811
) -> None:
    monkeypatch.setattr(source_records, "BLOCK_BYTES", 256 * 1024)  # several blocks
    toml = _imported(tmp_path, [_line(b) for b in arena_battles(n=n, seed=seed)], capsys, skip_bad=False)
    assert _prefilled_as_read(toml, readings)


def _uneven_battles(seed: int) -> list[str]:
    """Battles without conv_metadata, with one side's counts missing (skipped), counts as plain numbers and large
    ones, prompts met again with other models, numeric ids, ids and names JSON escapes."""
    battles = arena_battles(n=1_500, seed=seed)
    for k, b in enumerate(battles):
        meta = b["conv_metadata"]
        if k % 7 == 0:
            del b["conv_metadata"]
        elif k % 11 == 0:
            for key in [key for key in meta if key.endswith("_b") or "_b_" in key]:
                del meta[key]  # side b lacks its counts: the battle is skipped (--skip-bad)
        elif k % 5 == 0:
            meta["header_count_a"] = sum(meta["header_count_a"].values())
            meta["sum_assistant_b_tokens"] = 2**40 + k
        if k % 3 == 0:
            b["question_id"] = k
        if k % 4 == 1:
            b["question_id"] = battles[k - 1]["question_id"]  # a prompt met again
    battles[8]["question_id"] = 'q"uoted\\ \x7f'
    battles[9]["model_a"] = 'say "hi"\\ é'
    return [_line(b) for b in battles]


@pytest.mark.parametrize("seed", [2, 6])
@pytest.mark.parametrize("block_bytes", [5_000, 16 * 1024**2])
def test_an_uneven_logs_entry_is_the_one_its_reading_keeps(
    seed: int,
    block_bytes: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    readings: list[str],  # noqa: F811
) -> None:
    monkeypatch.setattr(source_records, "BLOCK_BYTES", block_bytes)
    toml = _imported(tmp_path, _uneven_battles(seed), capsys, skip_bad=True)
    assert _prefilled_as_read(toml, readings)


def test_odd_battles_counts_a_reading_would_not_take_leave_no_entry(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    readings: list[str],  # noqa: F811
) -> None:
    """A negative count and counts past 2^53 (not exact as float64): no entry; the reading says what is wrong."""
    toml = _imported(tmp_path, odd_battles(seed=4), capsys, skip_bad=True)
    assert not _entries()
    with pytest.raises(UserError, match="bad style row"):
        style_lookup(load_tournament(toml))


def test_odd_battles_with_counts_a_reading_takes_have_the_entry_it_keeps(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    readings: list[str],  # noqa: F811
) -> None:
    lines = odd_battles(seed=4)
    plain = arena_battles(n=300, seed=4)
    for k in (43, 58, 60, 76, 78):  # an id ending in a line break (below), past int64, negative, past 2^50
        lines[k] = _line(plain[k])
    toml = _imported(tmp_path, lines, capsys, skip_bad=True)
    assert _prefilled_as_read(toml, readings)


def test_an_entry_under_ids_the_tournament_reads_otherwise_is_not_used(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    readings: list[str],  # noqa: F811
) -> None:
    """A question id ending in a line break is read back from prompts.jsonl without it: the entry the import wrote
    (under the ids it wrote) is never read, the file is (the ids are part of an entry's name)."""
    battles = arena_battles(n=300, seed=4)
    battles[5]["question_id"] = "q-ends\n"
    toml = _imported(tmp_path, [_line(b) for b in battles], capsys, skip_bad=False)
    tournament = load_tournament(toml)
    assert "q-ends" in tournament.prompt_ids and len(_entries()) == 1
    readings.clear()
    first = style_lookup(tournament)
    assert readings and len(_entries()) == 2
    readings.clear()
    again = style_lookup(tournament)
    assert readings == [] and np.array_equal(first.keys, again.keys)


def test_the_first_export_after_an_import_reads_no_style_file(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    readings: list[str],  # noqa: F811
) -> None:
    toml = str(_imported(tmp_path, [_line(b) for b in arena_battles(n=800, seed=7)], capsys, skip_bad=False))
    readings.clear()

    def exported() -> Any:
        assert main(["export", toml, "--style-control", "--format", "json", "--threshold", "none"]) == 0
        out = json.loads(capsys.readouterr().out)
        del out["provenance"]["exported_at"]  # (the second it was exported)
        return out

    with_entry = exported()
    assert readings == []
    shutil.rmtree(cache_dir() / style_cache.KIND)
    assert exported() == with_entry
    assert readings == ["_importer_rows"]


def test_other_imports_write_no_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    battles = arena_battles(n=200, seed=1)
    for b in battles:
        del b["conv_metadata"]
    _imported(tmp_path, [_line(b) for b in battles], capsys, skip_bad=False)
    assert not _entries() and not (tmp_path / "t" / "style.jsonl").exists()


def test_style_rows_are_the_written_files_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`style_rows` against the written file's rows, decoded here."""
    from elotui.importers import arena
    from elotui.importers.style_prefill import style_rows

    lines = _uneven_battles(3)
    src = tmp_path / "battles.jsonl"
    src.write_text("".join(lines), encoding="utf-8")
    battles = arena.import_files([src], skip_bad=True)
    toml = _imported(tmp_path, lines, capsys, skip_bad=True)
    t = load_tournament(toml)
    rows = [
        json.loads(line) for line in (toml.parent / "style.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    prompt, contestant, sides = style_rows(battles)
    assert [t.prompt_ids[p] for p in prompt] == [r["prompt"] for r in rows]
    assert [t.contestant_ids[c] for c in contestant] == [r["contestant"] for r in rows]
    counts = battles.columns.counts.reshape(-1, 4)[sides]
    assert counts.tolist() == [[r["tokens"], r["headers"], r["lists"], r["bold"]] for r in rows]
