"""The HTML report's pairs browser shows a graded verdict's grade with its winner (`a wins (A>>B, strong)`, `a wins
(B>A)`; A the response shown first), in the reasoning list and the AB/BA grid; an ungraded verdict reads as
before. The document carries each verdict's strength."""

from __future__ import annotations

from pathlib import Path

import pytest

from elotui.cli import main
from elotui.report.document import VERDICT_FIELDS, report_document
from elotui.session import TournamentSession
from elotui.store import Store
from elotui.tournament.model import load_tournament
from tests.judges.test_replay_strength import LINES, replay_tournament


@pytest.fixture
def judged(tmp_path: Path) -> Path:
    toml = replay_tournament(tmp_path)
    assert main(["run", str(toml), "--headless", "--store", str(tmp_path / "s.sqlite")]) == 0
    return toml


def test_the_document_carries_each_verdicts_strength(judged: Path) -> None:
    t = load_tournament(judged)
    with Store.open_for(t, judged.parent / "s.sqlite") as store:
        doc = report_document(TournamentSession(t, store))
    assert doc["verdict_fields"] == list(VERDICT_FIELDS)
    first, strength = VERDICT_FIELDS.index("first"), VERDICT_FIELDS.index("strength")
    got = {
        (key.split("\x1f")[0], v[first]): v[strength]
        for key, verdicts in doc["verdicts"].items()
        for v in verdicts
    }
    assert got == {(p, f): s for p, f, _, _, _, s in LINES}


def test_the_pairs_browser_shows_the_grade(judged: Path) -> None:
    browser = pytest.importorskip("tests.report.test_report_browser")
    if browser.CHROMIUM is None:
        pytest.skip("no Chromium found")
    out = judged.parent / "report.html"
    assert main(["report", str(judged), "--store", str(judged.parent / "s.sqlite"), "-o", str(out)]) == 0
    shown = {}
    with browser.browser_on(out) as b:
        page = b.page
        for prompt in ("q1", "q2"):
            page.fill("#pair-search", f"{prompt}?")
            page.click('#pairs tbody tr[data-a="a"][data-b="b"] button')
            shown[prompt] = (
                page.eval_on_selector_all("#pair-detail details summary", "s => s.map(x => x.textContent)"),
                page.eval_on_selector_all("#pair-detail table td", "s => s.map(x => x.textContent)"),
            )
        assert b.errors == []
    reasons, cells = shown["q1"]
    assert any(r.endswith("AB order · clean · a wins (A>>B, strong)") for r in reasons), reasons
    assert any(r.endswith("BA order · clean · a wins (B>A)") for r in reasons), reasons
    assert cells == ["a wins (A>>B, strong)", "a wins (B>A)"]
    reasons, cells = shown["q2"]
    assert sorted(cells) == ["a wins", "tie"] and not any("(" in r for r in reasons), (reasons, cells)
