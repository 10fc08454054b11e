"""A reading command given `--store` of another tournament (its newest run was that tournament's: another name, from
another file) says so and exits 2, instead of ranking that tournament's plan under this one's name. The same
tournament moved elsewhere, or renamed in its own file, reads its store as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from elotui.cli import main
from tests.foundation.test_named_files import BASE


def _tournament(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "t.toml"
    path.write_text(BASE.replace('name = "t"', f'name = "{name}"'), encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["export", "diagnose", "verdicts", "graph", "runs"])
def test_tournament_b_from_the_store_tournament_a_ran_last_is_refused(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _tournament(tmp_path / "a", "A"), _tournament(tmp_path / "b", "B")
    store = tmp_path / "a.sqlite"
    assert main(["run", str(a), "--headless", "--store", str(store)]) == 0
    capsys.readouterr()
    extra = ["-o", str(tmp_path / "graph")] if command == "graph" else []
    assert main([command, str(b), "--store", str(store), *extra]) == 2
    out, err = capsys.readouterr()
    assert f"--store holds the plan of tournament 'A' ({a.resolve()}), you asked for 'B'" in err, err
    assert "rank,contestant" not in out


def test_the_same_tournament_moved_or_renamed_reads_its_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _tournament(tmp_path / "a", "A")
    store = tmp_path / "a.sqlite"
    assert main(["run", str(a), "--headless", "--store", str(store)]) == 0
    moved = _tournament(tmp_path / "elsewhere", "A")
    assert main(["export", str(moved), "--store", str(store)]) == 0
    a.write_text(a.read_text(encoding="utf-8").replace('name = "A"', 'name = "A, renamed"'), encoding="utf-8")
    assert main(["export", str(a), "--store", str(store)]) == 0
    b = _tournament(tmp_path / "b", "B")
    assert main(["run", str(b), "--headless", "--store", str(store)]) == 0  # B's plan now: B reads it
    capsys.readouterr()
    assert main(["export", str(b), "--store", str(store)]) == 0
    assert "rank,contestant" in capsys.readouterr().out
