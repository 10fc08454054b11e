"""The tournament files shown in the README and the docs are valid files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from elotui.config import load_tournament

ROOT = Path(__file__).resolve().parents[2]


def toml_blocks(path: Path) -> list[str]:
    return re.findall(r"```toml\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.DOTALL)


@pytest.mark.parametrize("doc", ["README.md", "docs/tournament-file.md"])
def test_documented_tournament_files_validate(doc: str, tmp_path: Path) -> None:
    blocks = [b for b in toml_blocks(ROOT / doc) if "[tournament]" in b]
    assert blocks, f"no tournament example in {doc}"
    for block in blocks:
        for rel in re.findall(r'(?:file|votes|examples_file) = "([^"]+)"', block):  # files an example names
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_text("an answer", encoding="utf-8")
        path = tmp_path / "t.toml"
        path.write_text(block, encoding="utf-8")
        t = load_tournament(path)
        assert len(t.spec.contestants) >= 2 and t.spec.judges
