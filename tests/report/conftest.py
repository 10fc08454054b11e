"""The vicuna80 sample's store (its recorded verdicts replayed: ~10 s), its report document and its HTML report,
built once for the report tests."""

from __future__ import annotations

import csv
import io
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from elotui.cli import main
from elotui.report.document import report_document
from elotui.session import TournamentSession
from elotui.store import Store
from elotui.tournament.model import load_tournament

SAMPLES = Path(__file__).resolve().parents[2] / "sample_tournaments"
TOURNAMENT = SAMPLES / "vicuna80" / "tournament.toml"
THRESHOLDS = ("1.0", "0.9", "0.75", "0.5", "none")
METHODS = ("elo", "bt")


@pytest.fixture(scope="session")
def vicuna_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report-vicuna80")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ELOTUI_HOME", str(folder / "home"))
        path = folder / "store.sqlite"
        assert main(["run", str(TOURNAMENT), "--headless", "--no-delay", "--store", str(path)]) == 0
    return path


@pytest.fixture(scope="session")
def vicuna_doc(vicuna_store: Path) -> dict[str, Any]:
    t = load_tournament(TOURNAMENT)
    with Store.open_for(t, vicuna_store) as store:
        return report_document(TournamentSession(t, store))


@pytest.fixture(scope="session")
def vicuna_report(vicuna_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`elotui report T -o report.html`, through the CLI."""
    out = tmp_path_factory.mktemp("report-html") / "report.html"
    assert main(["report", str(TOURNAMENT), "--store", str(vicuna_store), "-o", str(out)]) == 0
    return out


def export_rows(store: Path, threshold: str, method: str) -> list[dict[str, str]]:
    """`elotui export`'s CSV rows for one view."""
    buf = io.StringIO()
    args = ["export", str(TOURNAMENT), "--store", str(store), "--threshold", threshold, "--method", method]
    with redirect_stdout(buf):
        assert main(args) == 0
    return list(csv.DictReader(io.StringIO(buf.getvalue())))
