"""The head-to-head grid gives Rich each column's width (so Rich measures no cell of a 100 x 100 grid); the
widths are those Rich would measure: the grid renders exactly as the same table left for Rich to measure."""

from __future__ import annotations

import copy
import random

import pytest
from rich.console import Console
from rich.table import Table

from elotui.tui.widgets.charts import head_to_head_table

NAMES = [
    "gpt-4",
    "claude-3-opus-20240229",
    "模型甲",
    "🦙 llama-3-70b",
    "a",
    "vicuna-13b-v1.5",
    "ｗｉｄｅ名前",
]


def _h2h(rng: random.Random, n: int) -> dict[str, object]:
    names = rng.sample(NAMES, n)
    wins = [[0.0 if i == j else float(rng.choice([0, 0, 1, 3, 17])) for j in range(n)] for i in range(n)]
    ties = [[0.0 if i == j else float(rng.choice([0, 1, 2])) for j in range(n)] for i in range(n)]
    for i in range(n):
        for j in range(i):
            ties[i][j] = ties[j][i]  # ties are counted for both sides
    return {"contestants": names, "wins": wins, "ties": ties}


def _rendered(table: Table) -> list[object]:
    return list(Console(width=500, color_system="truecolor", legacy_windows=False).render(table))


@pytest.mark.parametrize("seed", range(12))
def test_the_grid_renders_as_rich_would_measure_it(seed: int) -> None:
    rng = random.Random(seed)
    table = head_to_head_table(_h2h(rng, rng.randint(1, len(NAMES))), "#ff0000", "#808080", "#00ff00")
    measured = copy.deepcopy(table)
    for column in measured.columns:
        column.width = None
    assert all(c.width for c in table.columns)
    assert _rendered(table) == _rendered(measured)
