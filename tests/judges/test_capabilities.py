"""Optional judge capabilities are declared in the judge protocol (elotui.judges.base), not found by name: a replay
judge reads a log before its first call, a live judge can be given up on, a simulated judge does neither."""

from __future__ import annotations

import asyncio
from pathlib import Path

from elotui.judges import build_judge
from elotui.judges.base import Judge, MayGiveUp, ReadsLog
from elotui.run.setup import logs_read
from elotui.tournament.model import load_tournament

TOURNAMENT = """
[tournament]
name = "capabilities"

[[contestants]]
id = "a"

[[contestants]]
id = "b"

[[prompts]]
id = "q1"
text = "?"
responses = { a = "x", b = "y" }

[[judges]]
id = "live"
provider = "openai-compatible"
base_url = "http://127.0.0.1:9/v1"
model = "m"

[[judges]]
id = "replayed"
provider = "replay"
path = "log.jsonl"

[[judges]]
id = "sim"
provider = "simulated"
[judges.simulation]
qualities = { a = 1100, b = 900 }
"""


def _judges(tmp_path: Path) -> dict[str, Judge]:
    (tmp_path / "log.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "t.toml").write_text(TOURNAMENT, encoding="utf-8")
    t = load_tournament(tmp_path / "t.toml")
    return {j.id: build_judge(j, judge_id=j.id, base_dir=t.base_dir) for j in t.spec.judges}


def test_each_judge_declares_what_it_can(tmp_path: Path) -> None:
    judges = _judges(tmp_path)
    try:
        assert [jid for jid, j in judges.items() if isinstance(j, ReadsLog)] == ["replayed"]
        assert [jid for jid, j in judges.items() if isinstance(j, MayGiveUp)] == ["live"]
        live = judges["live"]
        assert isinstance(live, MayGiveUp) and live.unreachable is None  # a fresh endpoint is not given up on
        logs = logs_read(judges.values())
        assert [path.name for path, _ in logs] == ["log.jsonl"]
    finally:
        for judge in judges.values():
            asyncio.run(judge.aclose())
