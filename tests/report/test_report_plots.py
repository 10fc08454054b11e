"""`elotui report --plots DIR`: PNG and SVG files that open, each figure drawn from the numbers of `elotui export`
and `elotui diagnose`."""

from __future__ import annotations

import io
import json
import sys
import xml.etree.ElementTree as ET
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from elotui.cli import main
from tests.report.conftest import TOURNAMENT, export_rows

pytest.importorskip("matplotlib", reason="--plots needs matplotlib (pip install 'elotui[report]')")

from elotui.report.plots import figures

NAMES = ("ratings", "gaps", "head_to_head", "position_bias", "kappa", "tau")


def test_plots_are_png_and_svg_files(vicuna_store: Path, tmp_path: Path) -> None:
    folder = tmp_path / "plots"
    assert main(["report", str(TOURNAMENT), "--store", str(vicuna_store), "--plots", str(folder)]) == 0
    for name in NAMES:
        assert (folder / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        root = ET.parse(folder / f"{name}.svg").getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert not list(Path.cwd().glob("*-report.html"))  # --plots alone writes no page


@pytest.mark.parametrize(("method", "threshold"), [("elo", "0.5"), ("bt", "none")])
def test_rating_and_gap_figures_show_the_export(
    vicuna_store: Path, vicuna_doc: dict[str, Any], method: str, threshold: str
) -> None:
    exported = [r for r in export_rows(vicuna_store, threshold, method) if r["rating"]]
    figs = figures(vicuna_doc, method, threshold)
    ax = figs["ratings"].axes[0]
    top_first = exported[::-1]  # the figure draws the best at the top (last)
    assert list(ax.lines[0].get_xdata()) == pytest.approx([float(r["rating"]) for r in top_first])
    assert [t.get_text() for t in ax.get_yticklabels()] == [r["contestant"] for r in top_first]
    segments = ax.collections[0].get_segments()  # the interval bars
    assert [(s[0][0], s[1][0]) for s in segments] == pytest.approx(
        [(float(r["ci_low"]), float(r["ci_high"])) for r in top_first]
    )
    bars = figs["gaps"].axes[0].patches
    gaps = [float(r["gap_to_next"]) for r in exported if r["gap_to_next"]][::-1]
    assert [b.get_width() for b in bars] == pytest.approx(gaps)


def test_diagnose_figures_show_the_diagnose_report(vicuna_store: Path, vicuna_doc: dict[str, Any]) -> None:
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["diagnose", str(TOURNAMENT), "--store", str(vicuna_store), "--format", "json"]) == 0
    report = json.loads(buf.getvalue())
    figs = figures(vicuna_doc, "elo", "0.5")
    h = report["head_to_head"]
    wins, ties = np.array(h["wins"], float), np.array(h["ties"], float)
    with np.errstate(invalid="ignore"):
        expected = (wins + ties / 2) / (wins + wins.T + ties)
    np.fill_diagonal(expected, np.nan)
    shown = np.ma.filled(figs["head_to_head"].axes[0].images[0].get_array(), np.nan)
    np.testing.assert_allclose(shown, expected)
    taus = [v for v in report["per_prompt_tau"]["by_prompt"].values() if v is not None]
    counts, _ = np.histogram(taus, bins=np.linspace(-1, 1, 11))
    assert [p.get_height() for p in figs["tau"].axes[0].patches] == list(counts)
    bars = figs["position_bias"].axes[0].patches
    judges = list(report["judges"])
    consistent = [report["judges"][j]["position"]["consistent"] for j in judges]
    assert [b.get_width() for b in bars[: len(judges)]] == pytest.approx(consistent)


def test_plots_without_matplotlib_is_exit_2(
    vicuna_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed: importing it fails
    folder = tmp_path / "plots"
    assert main(["report", str(TOURNAMENT), "--store", str(vicuna_store), "--plots", str(folder)]) == 2
    assert "pip install 'elotui[report]'" in capsys.readouterr().err
    assert not folder.exists()
