"""The diagnostics pane's tables at 80 columns: no header word and no figure cut with an ellipsis (elotui.tui.widgets.
narrow_table). Before, at 80x24 on the Vicuna-80 sample, the position table showed "inconclus…" and the
self-preference table "presentat…", "+13.3 p…" and "[+10.8, +1…"."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.table import Table
from textual.widgets import Static

from elotui.tui.widgets.narrow_table import fitted, two_lines
from tests.tui.conftest import sample_diagnostics, shown


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("units", "units"),
        ("position bias", "position\nbias"),
        ("first-slot share", "first-slot\nshare"),
        ("95 % by prompt", "95 % by\nprompt"),
        ("its win rate", "its win\nrate"),
        ("vs human: accuracy", "vs human:\naccuracy"),
        ("τ vs reference", "τ vs\nreference"),
    ],
)
def test_a_header_breaks_where_its_longer_line_is_shortest(header: str, expected: str) -> None:
    assert two_lines(header) == expected


def _position_like() -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("judge", no_wrap=True)
    for name in ("units", "consistent", "position bias", "inconclusive", "first-slot share"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_row("vicuna-13b", "499950", "62.3%", "14.4%", "23.4%", "62.4%")
    return table


def test_a_table_that_fits_keeps_its_one_line_headers() -> None:
    wide = shown(fitted(_position_like()), 120)
    assert wide == shown(_position_like(), 120)
    assert wide.splitlines()[0].split() == [
        "judge",
        "units",
        "consistent",
        "position",
        "bias",
        "inconclusive",
    ] + [
        "first-slot",
        "share",
    ]
    assert len(wide.splitlines()) == 2


def test_a_table_too_wide_breaks_its_headers_instead_of_cutting_them() -> None:
    # one-line headers need 79 columns here; at 70 Rich alone cut "inconclusive" and the units
    assert "…" in shown(_position_like(), 70)
    narrow = shown(fitted(_position_like()), 70)
    assert "…" not in narrow, narrow
    top, bottom, row = narrow.splitlines()
    assert top.split() == ["position", "first-slot"]
    assert bottom.split() == ["judge", "units", "consistent", "bias", "inconclusive", "share"]
    assert row.split() == ["vicuna-13b", "499950", "62.3%", "14.4%", "23.4%", "62.4%"]


async def test_the_diagnostics_tables_cut_nothing_at_80_columns(tmp_path: Path) -> None:
    async with sample_diagnostics("vicuna80", tmp_path) as (_, app, _pilot):
        texts = {}
        for name in ("position", "agreement", "judges", "reference", "trust"):
            static = app.query_one(f"#diag-{name}", Static)
            assert static.size.width <= 80
            texts[name] = shown(static.content, static.size.width)
    for name, text in texts.items():
        assert "…" not in text, f"{name}:\n{text}"
    assert "inconclusive" in texts["position"]
    assert "presentations" in texts["trust"] and "[+10.8, +15.7]" in texts["trust"].replace("\n", " ")
