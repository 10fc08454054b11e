"""The pairs pane shows a graded verdict's grade with its winner (`A>>B (strong)`, `B>A`; A the response shown
first) and marks a strong one in the AB/BA grid (`≫`); an ungraded verdict reads as before."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from textual.widgets import DataTable, Static

from elotui.cli import main
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from elotui.tui.screens.pairs import PairsPane
from tests.judges.test_replay_strength import replay_tournament
from tests.tui.conftest import settle


def verdict_lines(app: object) -> list[str]:
    parts = [w.content for w in app.query("#verdicts .verdict").results(Static)]  # type: ignore[attr-defined]
    heads = [p.plain.split("\n")[0] for p in parts if isinstance(p, Text) and p.plain]
    return [re.sub(r"\s+\d+ ms$", "", h) for h in heads]  # without the latency


@pytest.fixture
def judged(tmp_path: Path) -> Path:
    """The replay tournament of graded and binary verdicts, run (store s.sqlite beside it)."""
    toml = replay_tournament(tmp_path)
    assert main(["run", str(toml), "--headless", "--store", str(tmp_path / "s.sqlite")]) == 0
    return toml


async def test_the_pair_detail_shows_each_verdicts_grade(judged: Path) -> None:
    toml = judged
    with Store(toml.parent / "s.sqlite") as store:
        app = make_app(load_tournament(toml), store, start_run=False)
        async with app.run_test(size=(160, 60)) as pilot:
            await settle(pilot)
            await pilot.press("v")
            await settle(pilot)
            pane = app.query_one(PairsPane)
            table = app.query_one("#pairs-table", DataTable)
            table.focus()
            seen: dict[str, list[str]] = {}
            grids: dict[str, str] = {}
            for prompt in ("q1", "q2", "q3"):
                table.move_cursor(row=next(i for i, s in enumerate(pane.shown_pairs) if s.prompt == prompt))
                await settle(pilot)
                seen[prompt] = sorted(verdict_lines(app))
                console = Console(width=160, record=True, file=io.StringIO())
                console.print(app.query_one("#abba", Static).content)
                grids[prompt] = console.export_text()
    ab, ba = (line for line in seen["q1"])  # AB (a shown first) sorts before BA
    assert ab.endswith("→ a (first slot) · A>>B (strong)"), ab
    assert ba.endswith("→ a (second slot) · B>A"), ba
    assert "(strong)" not in ba
    assert all(">" not in line and "strong" not in line for line in seen["q2"]), seen["q2"]  # ungraded
    assert any(line.endswith("→ tie") for line in seen["q2"]) and any(
        line.endswith("→ a (second slot)") for line in seen["q2"]
    )
    assert any(line.endswith("→ b (first slot) · A>>B (strong)") for line in seen["q3"]), seen["q3"]
    assert any("invalid reply" in line for line in seen["q3"])
    assert "a ≫" in grids["q1"] and "strong preference" in grids["q1"]
    assert "≫" not in grids["q2"]
