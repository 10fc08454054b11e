"""Text in the repository is dated by versions, not by development rounds, and cites papers by title, authors and
year, never by the file name or section number of a copy users do not have."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLACES = ["README.md", "CHANGELOG.md", "pyproject.toml", "docs", "elotui", "tests", "scripts"]
TEXT = {".py", ".md", ".toml", ".txt", ".tcss", ".json", ".jsonl", ".csv", ".cfg", ".ini", ".sh"}
FORBIDDEN = re.compile(r"stop [0-9]|stops [0-9]|issue [0-9]|seed 00[0-2]|§[0-9]", flags=re.IGNORECASE)


def _files() -> list[Path]:
    found: list[Path] = []
    for place in PLACES:
        path = ROOT / place
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found += [
                p for p in path.rglob("*") if p.is_file() and p.suffix in TEXT and ".venv" not in p.parts
            ]
    return found


def test_no_text_names_development_rounds_or_source_sections() -> None:
    hits = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()[:120]}"
        for path in _files()
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1)
        if FORBIDDEN.search(line)
    ]
    assert not hits, "name the change or cite the paper instead:\n" + "\n".join(hits)


def test_the_check_sees_what_it_forbids() -> None:
    """The pattern catches each form it is meant to (a check that cannot fail is no check)."""
    samples = [
        ("as at stop", "53"),
        ("stops", "45-53"),
        ("Issue", "17"),
        ("seed", "000 appendix"),
        ("§", "4.3"),
    ]
    for text in (f"{a} {b}" if a != "§" else a + b for a, b in samples):
        assert FORBIDDEN.search(text), text
    assert len(_files()) > 100
