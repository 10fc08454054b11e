"""A JSON Lines source is checked for UTF-8 while its blocks are decoded (elotui.importers.source_records._Utf8):
a file that is not UTF-8 is still said first, naming the first byte that is not, before any record's own message,
wherever that byte is; a file that is UTF-8 but not ASCII imports as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.importers import source_records
from tests.importers.fixtures import arena_battles


def _lines(n: int, seed: int) -> list[bytes]:
    return [json.dumps(b).encode() + b"\n" for b in arena_battles(n=n, seed=seed)]


@pytest.mark.parametrize("bad_record", [False, True])
@pytest.mark.parametrize("where", [0.1, 0.95])
def test_a_source_that_is_not_utf8_is_said_first(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    bad_record: bool,
    where: float,
) -> None:
    monkeypatch.setattr(source_records, "BLOCK_BYTES", 20_000)  # many blocks
    lines = _lines(400, seed=3)
    if bad_record:  # a battle the general reading refuses, before the byte that is not UTF-8
        lines[2] = lines[2].replace(b'"winner": "', b'"winner": "nobody-')
    k = int(len(lines) * where)
    lines[k] = lines[k].replace(b'"language": "', b'"language": "\xff')
    src = tmp_path / "battles.jsonl"
    src.write_bytes(b"".join(lines))
    byte = b"".join(lines).index(b"\xff")
    assert main(["import", "arena", str(src), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"{src}: not UTF-8 text (byte {byte})" in err and "winner" not in err
    assert not (tmp_path / "out").exists()


def test_a_source_in_utf8_beyond_ascii_imports_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(source_records, "BLOCK_BYTES", 20_000)
    battles = arena_battles(n=300, seed=4)
    for b in battles[::50]:
        b["language"] = "Français ✓"
    src = tmp_path / "battles.jsonl"
    src.write_text("".join(json.dumps(b, ensure_ascii=False) + "\n" for b in battles), encoding="utf-8")
    assert main(["import", "arena", str(src), "-o", str(tmp_path / "out")]) == 0
    prompts = [
        json.loads(line) for line in (tmp_path / "out" / "prompts.jsonl").read_text("utf-8").splitlines()
    ]
    assert [p.get("category") for p in prompts] == [b["language"] for b in battles]
