"""`[ranking] anchor = { contestant, rating }`: the anchored contestant's exported rating is the anchor exactly,
every other rating, interval end and gap moves by the same constant (widths and gaps unchanged), and the export
says which anchor was used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elotui.cli import main
from tests.importers.fixtures import arena_battles, write_jsonl


def export(toml: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    assert main(["export", str(toml), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_anchor_pins_the_contestant_and_keeps_gaps_and_widths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write_jsonl(tmp_path / "battles.jsonl", arena_battles(n=300))
    out = tmp_path / "t"
    assert main(["import", "arena", str(src), "-o", str(out)]) == 0
    toml = out / "tournament.toml"
    assert main(["run", str(toml), "--headless"]) == 0
    plain = export(toml, capsys)
    text = toml.read_text(encoding="utf-8")
    toml.write_text(
        text.replace(
            'method = "bt"', 'method = "bt"\nanchor = { contestant = "llama-2-70b-chat", rating = 1250 }'
        ),
        encoding="utf-8",
    )
    pinned = export(toml, capsys)
    assert pinned["settings"]["anchor"] == {"contestant": "llama-2-70b-chat", "rating": 1250.0}
    assert "anchor" not in plain["settings"]
    rows = {r["contestant"]: r for r in pinned["rows"]}
    assert rows["llama-2-70b-chat"]["rating"] == 1250.0
    shift = 1250.0 - {r["contestant"]: r for r in plain["rows"]}["llama-2-70b-chat"]["rating"]
    assert abs(shift) > 50  # the anchor moved the board
    for before in plain["rows"]:
        after = rows[before["contestant"]]
        assert after["rating"] == pytest.approx(before["rating"] + shift, abs=1e-9)
        assert after["ci_high"] - after["ci_low"] == pytest.approx(
            before["ci_high"] - before["ci_low"], abs=1e-9
        )
        assert after["gap_to_next"] == pytest.approx(before["gap_to_next"], abs=1e-9)
    assert [r["contestant"] for r in pinned["rows"]] == [r["contestant"] for r in plain["rows"]]


def test_anchor_on_an_undeclared_contestant_is_a_file_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write_jsonl(tmp_path / "battles.jsonl", arena_battles(n=20))
    out = tmp_path / "t"
    assert main(["import", "arena", str(src), "-o", str(out)]) == 0
    toml = out / "tournament.toml"
    toml.write_text(
        toml.read_text().replace(
            'method = "bt"', 'method = "bt"\nanchor = { contestant = "gpt-5", rating = 1 }'
        )
    )
    capsys.readouterr()
    assert main(["validate", str(toml)]) == 2
    assert "contestant 'gpt-5' is not declared" in capsys.readouterr().err
