"""The tournament files shown in the README and the docs are valid files."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from elotui.config import load_tournament

ROOT = Path(__file__).resolve().parents[2]


def toml_blocks(path: Path) -> list[str]:
    return re.findall(r"```toml\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.DOTALL)


def _data_files(block: str, folder: Path) -> None:
    """The data files a `[data]` example names, in MT-bench's formats (two questions, an answer each)."""
    data = tomllib.loads(block)
    questions = [{"question_id": q, "category": "c", "turns": [f"question {q}?"]} for q in (1, 2)]
    files: dict[str, list[dict[str, object]]] = {}
    if "prompts" in data.get("data", {}):
        files[data["data"]["prompts"]] = questions
    ids = [c["id"] for c in data.get("contestants", [])]
    if "responses" in data.get("data", {}):
        files[data["data"]["responses"]] = [
            {"question_id": q, "model": m, "answer": "a"} for q in (1, 2) for m in ids
        ]
    for c in data.get("contestants", []):
        if "responses" in c:
            files[c["responses"]] = [
                {"question_id": q, "choices": [{"turns": ["an answer"]}]} for q in (1, 2)
            ]
    for rel, rows in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.mark.parametrize("doc", ["README.md", "docs/tournament-file.md"])
def test_documented_tournament_files_validate(doc: str, tmp_path: Path) -> None:
    blocks = [b for b in toml_blocks(ROOT / doc) if "[tournament]" in b]
    assert blocks, f"no tournament example in {doc}"
    for block in blocks:
        for rel in re.findall(r'(?:file|votes|examples_file) = "([^"]+)"', block):  # files an example names
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_text("an answer", encoding="utf-8")
        _data_files(block, tmp_path)
        path = tmp_path / "t.toml"
        path.write_text(block, encoding="utf-8")
        t = load_tournament(path)
        assert len(t.spec.contestants) >= 2 and t.spec.judges
