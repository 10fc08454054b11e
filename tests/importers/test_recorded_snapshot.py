"""`elotui import` stores its verdicts' columnar snapshot, so that `export` ranks them at once: the same
presentations, in the same order, with the same outcomes as the plan a replaying `elotui run` stores, and the same
exports (ratings, intervals, style coefficients, Elo's order-dependent ratings) before and after that run. A store
that holds a run's plan is left as it is."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from elotui.cli import main
from elotui.store import Store
from elotui.tournament.model import load_tournament
from tests.importers.fixtures import arena_battles, mt_bench_records, write_jsonl
from tests.importers.test_graded import BASELINE, judgments
from tests.importers.test_import_command import alpaca_rows

COLUMNS = ("prompt", "first", "second", "judge", "condition", "sample", "outcome")
BOOKS = ("prompts", "contestants", "judges", "conditions")


def columns_of(toml: Path) -> dict[str, Any]:
    with Store.open_for(load_tournament(toml)) as store:
        c = store.verdict_columns()
        plan_rows = len(store.plan())
    return {**{k: getattr(c, k).tolist() for k in COLUMNS}, **{b: c.book(b[:-1]) for b in ("prompts",)}} | {
        "books": [getattr(c, b) for b in BOOKS],
        "plan_rows": plan_rows,
    }


def exported(toml: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["export", str(toml), "--format", "json", *extra]) == 0
    doc = json.loads(capsys.readouterr().out)
    doc.pop("provenance", None)  # the store's runs and the time of the export
    return doc


def arena_log(tmp_path: Path) -> list[Path]:
    battles = arena_battles(n=400, seed=8)
    rng = random.Random(3)
    for b in battles[200:]:  # repeated questions: units with several battles, samples of one presentation
        b["question_id"] = f"q{rng.randrange(60):05d}"
    return [write_jsonl(tmp_path / "battles.jsonl", battles)]


def alpaca_file(tmp_path: Path) -> list[Path]:
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(alpaca_rows()), encoding="utf-8")
    return [path]


SOURCES = {
    "arena": arena_log,
    "mt-bench": lambda tmp: [write_jsonl(tmp / "gpt-4_pair.jsonl", mt_bench_records())],
    "arena-hard": judgments,
    "alpaca-eval": alpaca_file,
}


@pytest.mark.parametrize("fmt", list(SOURCES))
def test_import_ranks_at_once_as_the_replaying_run_does(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = SOURCES[fmt](tmp_path)
    out = tmp_path / "t"
    baseline = ["--baseline", BASELINE] if fmt == "arena-hard" else []
    assert main(["import", fmt, *map(str, files), "-o", str(out), "--skip-bad", *baseline]) == 0
    assert "ranked at once" in capsys.readouterr().err
    toml = out / "tournament.toml"
    extra = ["--style-control"] if fmt == "arena" else []
    imported = columns_of(toml)
    assert imported["plan_rows"] == 0 and len(imported["outcome"]) > 0
    before = [exported(toml, capsys, *extra), exported(toml, capsys, "--method", "elo")]
    assert main(["run", str(toml), "--headless"]) == 0
    replayed = columns_of(toml)
    assert replayed["plan_rows"] == len(replayed["outcome"])
    assert {k: v for k, v in imported.items() if k != "plan_rows"} == {
        k: v for k, v in replayed.items() if k != "plan_rows"
    }
    after = [exported(toml, capsys, *extra), exported(toml, capsys, "--method", "elo")]
    assert before == after
    if fmt == "arena":
        assert before[0]["settings"]["style_control"]["coefficients"]


def test_a_store_holding_a_runs_plan_is_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = arena_log(tmp_path)
    out = tmp_path / "t"
    assert main(["import", "arena", str(files[0]), "-o", str(out)]) == 0
    toml = out / "tournament.toml"
    assert main(["run", str(toml), "--headless"]) == 0
    ran = columns_of(toml)
    capsys.readouterr()
    assert main(["import", "arena", str(files[0]), "-o", str(out)]) == 0
    assert "holds a run's plan, kept" in capsys.readouterr().err
    assert columns_of(toml) == ran
    with Store.open_for(load_tournament(toml)) as store:
        assert np.count_nonzero(store.verdict_columns().outcome < 3) == len(ran["outcome"])
