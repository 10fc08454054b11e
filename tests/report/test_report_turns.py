"""The report of a tournament judged at two turns: `elotui report --turn N` ranks turn N's prompts as `elotui export
--turn N` does, and the document carries each conversation's earlier turns for the pairs browser."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from elotui.cli import main
from tests.report.test_report_page import read_data
from tests.tui.mt_bench_turns import MODELS, QUESTIONS, answer, tournament_file


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tournament_file(tmp_path_factory.mktemp("report-turns"))
    assert (
        main(["run", str(path), "--headless", "--no-delay", "--store", str(path.with_suffix(".sqlite"))]) == 0
    )
    return path


def export(path: Path, capsys: pytest.CaptureFixture[str], *options: str) -> list[tuple[str, float]]:
    capsys.readouterr()
    assert main(["export", str(path), "--store", str(path.with_suffix(".sqlite")), *options]) == 0
    return [
        (r["contestant"], float(r["rating"])) for r in csv.DictReader(io.StringIO(capsys.readouterr().out))
    ]


def test_report_with_a_turn_ranks_as_export_with_that_turn(
    judged: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(judged.with_suffix(".sqlite"))
    boards = {}
    for n in (1, 2):
        out = tmp_path / f"turn{n}.html"
        assert main(["report", str(judged), "--store", store, "--turn", str(n), "-o", str(out)]) == 0
        doc = read_data(out.read_text(encoding="utf-8"))
        assert doc["meta"]["scope"] == f"turn {n}"
        rows = doc["boards"][f"{doc['meta']['method']}|{doc['meta']['threshold']}"]["rows"]
        boards[n] = [(r["contestant"], r["rating"]) for r in rows]
        want = export(judged, capsys, "--turn", str(n))
        assert [c for c, _ in boards[n]] == [c for c, _ in want]
        assert [r for _, r in boards[n]] == pytest.approx([r for _, r in want], abs=1e-6)
    assert boards[1] != boards[2]
    assert main(["report", str(judged), "--store", store, "--turn", "3", "-o", str(tmp_path / "x.html")]) == 2
    assert "turn 3 is not judged" in capsys.readouterr().err


def test_the_document_holds_each_conversations_earlier_turns(judged: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert main(["report", str(judged), "--store", str(judged.with_suffix(".sqlite")), "-o", str(out)]) == 0
    conversations = read_data(out.read_text(encoding="utf-8"))["conversations"]
    assert sorted(conversations) == sorted(f"{q['question_id']}-t2" for q in QUESTIONS)  # turn 1 alone: none
    for q in QUESTIONS:
        (first,) = conversations[f"{q['question_id']}-t2"]
        assert first["user"] == q["turns"][0]  # type: ignore[index]
        assert first["answers"] == {m: answer(m, int(q["question_id"]), 1) for m in MODELS}  # type: ignore[arg-type]
