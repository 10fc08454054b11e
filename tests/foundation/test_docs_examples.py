"""The tournament files shown in the README and the docs are valid files."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from elotui.tournament.model import load_tournament

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


ILLUSTRATION = "<!-- illustration"


def fenced_blocks(path: Path, lang: str) -> list[tuple[bool, str]]:
    """Each ```lang block of a document: (marked as an illustration on the line before it, its text)."""
    found = re.finditer(
        rf"(^[^\n]*\n)?```{lang}\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.DOTALL | re.MULTILINE
    )
    return [((m.group(1) or "").startswith(ILLUSTRATION), m.group(2)) for m in found]


def _commands(block: str) -> list[list[str]]:
    """The commands of a shell block: continuation lines joined, comments dropped."""
    joined = block.replace("\\\n", " ")
    out = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            out.append(words)
    return out


def test_readme_toml_examples_are_tournament_files_or_illustrations() -> None:
    """Every toml example of the README is validated by the test above (it has `[tournament]`) or is marked."""
    for marked, block in fenced_blocks(ROOT / "README.md", "toml"):
        assert marked or "[tournament]" in block, block[:200]


def test_readme_shell_examples_run_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every sh example of the README not marked as an illustration runs as written, in order, from a folder
    holding the samples (as a clone does), each command exiting 0."""
    (tmp_path / "sample_tournaments").symlink_to(ROOT / "sample_tournaments")
    env = {**os.environ, "ELOTUI_HOME": str(tmp_path / "home"), "ELOTUI_NO_SHARED_CACHE": "1"}
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GROQ_API_KEY"):
        env.pop(var, None)
    ran = 0
    for marked, block in fenced_blocks(ROOT / "README.md", "sh"):
        if marked:
            continue
        for words in _commands(block):
            stdout: Any = subprocess.DEVNULL
            if ">" in words:  # `cmd > file`: the one redirection the examples use
                words, target = words[: words.index(">")], words[words.index(">") + 1]
                stdout = (tmp_path / target).open("wb")
            assert words[0] == "elotui", f"an example that is not an elotui command: {words}"
            out = subprocess.run(
                [sys.executable, "-m", "elotui.cli", *words[1:]],
                check=False,
                stdout=stdout,
                stderr=subprocess.PIPE,
                cwd=tmp_path,
                env=env,
                timeout=240,
            )
            if stdout is not subprocess.DEVNULL:
                stdout.close()
            assert out.returncode == 0, (
                f"{' '.join(words)}: exit {out.returncode}\n{out.stderr.decode()[-2000:]}"
            )
            ran += 1
    assert ran >= 5
    ranking = json.loads((tmp_path / "ranking.json").read_text(encoding="utf-8"))
    assert len(ranking["rows"]) == 5
    release = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert ranking["provenance"]["elotui_version"] == release  # the release, as pyproject.toml says


def test_the_readme_is_a_five_minute_read() -> None:
    """At most 12,000 characters, a table of contents whose links lead to its sections, no command that does not
    exist, and the method and the figures in docs/ (the figures generated, never edited by hand)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text) <= 12_000, len(text)
    sections = {
        re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")
        for h in re.findall(r"^## (.+)$", text, re.MULTILINE)
    }
    toc = re.findall(r"^- \[[^\]]+\]\(#([\w-]+)\)$", text, flags=re.MULTILINE)
    assert len(toc) >= 6 and set(toc) <= sections, (toc, sections)
    assert "elotui view" not in text
    for doc in re.findall(r"\]\((docs/[\w.-]+\.md)", text):
        assert (ROOT / doc).is_file(), doc
    assert "python -m tests.benchmarks.report" in (ROOT / "docs" / "benchmarks.md").read_text(
        encoding="utf-8"
    )
