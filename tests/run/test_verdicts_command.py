"""`elotui verdicts T`: the recorded verdicts as a verdict log, and a round trip of that log through the `replay`
provider: a tournament replaying it ranks exactly as the live run it came from."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from elotui.cli import main
from tests.run.fakes import write_tournament
from tests.servers.fake_llm import FakeLLMServer, Status, Text, Verdict


def test_verdicts_writes_the_log_and_replays_to_the_same_ranking(
    tmp_path: Path, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    judge = fake_llm.judge_config("openai-compatible", id="j1", model="m", max_retries=0)
    live = write_tournament(tmp_path / "live.toml", contestants=["a", "b", "c"], judges=[judge])
    fake_llm.script(
        Text("no verdict here"),
        Status(400, '{"error": {"message": "bad"}}'),
        *[Verdict(x) for x in ["A", "B", "A", "tie", "B", "A", "A", "B", "A", "B"]],
    )
    store = str(tmp_path / "live.sqlite")
    assert main(["run", str(live), "--headless", "--store", store]) == 3  # one call failed for good
    capsys.readouterr()
    log = tmp_path / "log.jsonl"
    assert main(["verdicts", str(live), "--store", store, "-o", str(log)]) == 0
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 12  # 2 prompts × 3 pairs × 2 orders: every planned presentation with a recorded call
    assert sorted(r["status"] for r in rows).count("invalid") == 1
    assert sorted(r["status"] for r in rows).count("error") == 1
    fields = {"prompt", "first", "second", "judge", "condition", "sample", "winner", "reasoning", "status"}
    assert all(set(r) == fields for r in rows if r["status"] != "invalid")
    (invalid,) = [r for r in rows if r["status"] == "invalid"]
    assert set(invalid) == fields | {"raw"} and invalid["raw"] == "no verdict here"  # what the judge said
    bare = tmp_path / "bare.jsonl"
    assert main(["verdicts", str(live), "--store", store, "-o", str(bare), "--no-raw"]) == 0
    assert [json.loads(line) for line in bare.read_text(encoding="utf-8").splitlines()] == [
        {k: v for k, v in r.items() if k != "raw"} for r in rows
    ]
    assert all((r["winner"] is None) == (r["status"] != "ok") for r in rows)

    replay = write_tournament(
        tmp_path / "replay.toml",
        contestants=["a", "b", "c"],
        judges=[{"id": "j1", "provider": "replay", "path": str(log)}],
    )
    rstore = str(tmp_path / "replay.sqlite")
    assert (
        main(["run", str(replay), "--headless", "--no-delay", "--store", rstore]) == 3
    )  # the failed one again
    capsys.readouterr()
    boards = []
    for tournament, s in ((live, store), (replay, rstore)):
        assert main(["export", str(tournament), "--store", s, "--format", "json", "--threshold", "none"]) == 0
        boards.append(json.loads(capsys.readouterr().out))
    assert boards[0]["rows"] == boards[1]["rows"]
    assert boards[0]["counts"] == boards[1]["counts"]


def test_a_log_piped_into_a_reader_that_stops_early_ends_quietly(tmp_path: Path) -> None:
    """`elotui verdicts T | head`: the reader goes away while the store is still being read. The command ends with
    exit 0 and says nothing: the store's read ends with it (before, its unfinished read was ended after the store
    had closed, and Python printed "Exception ignored in: <generator object Store._each>" with a traceback)."""
    import subprocess
    import sys

    from elotui.store import CallRecord, PlanRow, Store

    tournament = write_tournament(tmp_path / "t.toml", contestants=["a", "b", "c"])
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        store.set_plan([PlanRow(i, f"p{i}", "a", "b", "j", "clean", 0, f"k{i}") for i in range(10_000)])
        store.record_calls(
            [
                CallRecord(key=f"k{i}", kind="verdict", status="ok", winner="first", reasoning="r" * 200)
                for i in range(10_000)
            ]
        )
    cmd = [sys.executable, "-m", "elotui.cli", "verdicts", str(tournament), "--store", str(path)]
    reader = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ})
    assert reader.stdout is not None and reader.stderr is not None
    assert reader.stdout.read(100).startswith(b'{"prompt": "p0"')
    reader.stdout.close()  # the reader stops: the next write finds no one to read it
    err = reader.stderr.read().decode()
    assert reader.wait(60) == 0
    assert err == ""
