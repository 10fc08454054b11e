"""`elotui verdicts T`: the recorded verdicts as a verdict log, and a round trip of that log through the `replay`
provider: a tournament replaying it ranks exactly as the live run it came from."""

from __future__ import annotations

import json
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
    assert all(
        set(r)
        == {"prompt", "first", "second", "judge", "condition", "sample", "winner", "reasoning", "status"}
        for r in rows
    )
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
