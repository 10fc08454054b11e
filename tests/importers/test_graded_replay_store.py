"""An arena-hard import replayed: the replay judge copies each log line's strength into the store
(`calls.strength`), so the store's column equals the log's strengths; the ratings are unchanged, and the store and
the logs, which now both name the strong verdicts, never count one twice (each alone ranks the same); a store
recorded before replays copied the strength still ranks by the logs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from elotui.cli import main
from elotui.rating import graded
from elotui.store import Store, default_store_path
from elotui.tournament.model import load_tournament
from tests.importers.test_graded import BASELINE, arena_hard_ratings, judgments


def exported(toml: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["export", str(toml), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_store_keeps_the_logs_strengths_and_the_ratings_stay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = judgments(tmp_path, seed=4)
    out = tmp_path / "t"
    assert main(["import", "arena-hard", *map(str, files), "-o", str(out), "--baseline", BASELINE]) == 0
    toml = out / "tournament.toml"
    assert main(["run", str(toml), "--headless"]) == 0
    logged = {}
    for line in (out / "verdicts.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        logged[(row["prompt"], row["first"], row["second"])] = row.get("strength")
    with Store(default_store_path(load_tournament(toml))) as store:
        calls = [c for c in store.calls() if c.kind == "verdict"]
    assert len(calls) == len(logged) > 0
    assert {(c.prompt, c.first, c.second): c.strength for c in calls} == logged
    capsys.readouterr()  # `elotui verdicts` writes them back: the same lines as the import's log
    assert main(["verdicts", str(toml), "-o", str(tmp_path / "again.jsonl")]) == 0
    again = [json.loads(line) for line in (tmp_path / "again.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {(r["prompt"], r["first"], r["second"]): r.get("strength") for r in again} == logged
    n_strong = sum(s == 2 for s in logged.values())
    assert 0 < n_strong < sum(s is not None for s in logged.values())

    both = exported(toml, capsys)
    assert both["settings"]["strong_weight"]["strong_verdicts"] == n_strong  # each strong verdict once
    ratings = {r["contestant"]: r["rating"] for r in both["rows"]}
    for model, rating in arena_hard_ratings(files, weight=3).items():
        assert ratings[model] == pytest.approx(rating, abs=1.0), model
    with monkeypatch.context() as m:  # the logs alone: the ranking as before replays copied the strength
        m.setattr(Store, "strong_verdicts", lambda self: [])
        logs_only = exported(toml, capsys)
    with monkeypatch.context() as m:  # the store alone
        m.setattr(graded, "_logged", lambda tournament, codes: set())
        store_only = exported(toml, capsys)
    # a store whose replays were recorded before they copied the strength (never replayed again): the logs rank it
    with sqlite3.connect(default_store_path(load_tournament(toml))) as db:
        db.execute("UPDATE calls SET strength = NULL")
    earlier_store = exported(toml, capsys)
    for alone in (logs_only, store_only, earlier_store):
        assert alone["settings"]["strong_weight"]["strong_verdicts"] == n_strong
        assert {r["contestant"]: r["rating"] for r in alone["rows"]} == pytest.approx(ratings, abs=1e-9)
