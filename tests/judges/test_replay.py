from __future__ import annotations

import gzip
import io
from pathlib import Path

from elotui.judges import build_judge
from elotui.judges.base import JudgeRequest, Presentation
from elotui.judges.replay import ReplayJudge
from elotui.tournament.model import JudgeConfig
from elotui.verdict_log import content_hash, write_log


def row(
    prompt: str,
    first: str,
    second: str,
    judge: str,
    winner: str | None,
    *,
    condition: str = "clean",
    status: str = "ok",
    reasoning: str | None = None,
) -> dict:
    return {
        "prompt": prompt,
        "first": first,
        "second": second,
        "judge": judge,
        "condition": condition,
        "sample": 0,
        "winner": winner,
        "reasoning": reasoning,
        "status": status,
    }


def write(path: Path, rows: list[dict]) -> Path:
    buf = io.StringIO()
    write_log(rows, buf)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(buf.getvalue().encode()))
    else:
        path.write_text(buf.getvalue(), encoding="utf-8")
    return path


def ask(prompt: str, first: str, second: str, *, condition: str = "clean", sample: int = 0) -> JudgeRequest:
    return JudgeRequest(
        key=f"{prompt}{first}{second}{condition}{sample}",
        system="",
        user="",
        presentation=Presentation(prompt, first, second, condition, sample),
    )


ROWS = [
    row("q1", "a", "b", "gpt-4", "first", reasoning="a better"),
    row("q1", "a", "b", "claude", "second", reasoning="claude says b"),
    row("q1", "b", "a", "gpt-4", "tie", reasoning="even"),
    row("q1", "a", "b", "gpt-4", "second", reasoning="second vote"),  # sample 1 of (q1, a, b)
    row("q2", "a", "b", "gpt-4", None, status="invalid", reasoning="garbled"),
    row("q2", "b", "a", "gpt-4", "first", condition="lexical", reasoning="lexical one"),
    row("q3", "a", "b", "gpt-4", None, status="error"),
]


async def test_replay_finds_the_right_rows_and_reports_missing(tmp_path: Path) -> None:
    write(tmp_path / "log.jsonl.gz", ROWS)
    config = JudgeConfig(id="g4", provider="replay", path="log.jsonl.gz", model="gpt-4")
    judge = build_judge(config, judge_id="g4", base_dir=tmp_path)
    assert isinstance(judge, ReplayJudge) and judge.kind == "replay"
    r = await judge.judge(ask("q1", "a", "b"))
    assert (r.status, r.winner, r.reasoning) == ("ok", "first", "a better")
    r = await judge.judge(ask("q1", "a", "b", sample=1))
    assert (r.status, r.winner, r.reasoning) == ("ok", "second", "second vote")
    r = await judge.judge(ask("q1", "b", "a"))
    assert (r.status, r.winner) == ("ok", "tie")
    r = await judge.judge(ask("q2", "a", "b"))
    assert (r.status, r.winner, r.raw_reply) == ("invalid", None, "garbled")
    r = await judge.judge(ask("q2", "b", "a", condition="lexical"))
    assert (r.status, r.winner) == ("ok", "first")
    r = await judge.judge(ask("q3", "a", "b"))
    assert r.status == "error" and "recorded as failed" in (r.error or "")
    for missing in (
        ask("q1", "a", "b", sample=2),
        ask("q2", "b", "a"),
        ask("q9", "a", "b"),
        ask("q1", "a", "c"),
    ):
        r = await judge.judge(missing)
        assert r.status == "error" and r.winner is None
        assert (r.error or "").startswith("missing: no recorded verdict for")
    done = await judge.complete("s", "u")
    assert done.status == "error"


async def test_replay_name_defaults_to_the_judge_id(tmp_path: Path) -> None:
    write(tmp_path / "log.jsonl", ROWS)
    judge = build_judge(
        JudgeConfig(id="claude", provider="replay", path="log.jsonl"), judge_id="claude", base_dir=tmp_path
    )
    r = await judge.judge(ask("q1", "a", "b"))
    assert (r.status, r.winner, r.reasoning) == ("ok", "second", "claude says b")
    assert (await judge.judge(ask("q1", "b", "a"))).status == "error"


def test_identity_has_resolved_path_and_content_hash(tmp_path: Path) -> None:
    log = write(tmp_path / "log.jsonl", ROWS)
    judge = build_judge(
        JudgeConfig(id="g", provider="replay", path="log.jsonl", model="gpt-4"),
        judge_id="g",
        base_dir=tmp_path,
    )
    assert judge.identity() == {
        "provider": "replay",
        "path": str(log.resolve()),
        "content_hash": content_hash(log),
        "replay_name": "gpt-4",
    }
    write(log, ROWS[:3])  # an edited log is a different identity
    again = build_judge(
        JudgeConfig(id="g", provider="replay", path="log.jsonl", model="gpt-4"),
        judge_id="g",
        base_dir=tmp_path,
    )
    assert again.identity()["content_hash"] != judge.identity()["content_hash"]


async def test_large_log_is_indexed_once(tmp_path: Path, monkeypatch) -> None:
    from elotui.judges import replay_index as log_index

    rows = [
        row(f"q{p}", f"m{i}", f"m{j}", f"j{k}", "first")
        for p in range(80)
        for i in range(5)
        for j in range(5)
        if i != j
        for k in range(5)
    ]
    assert len(rows) == 8000
    write(tmp_path / "big.jsonl.gz", rows)
    reads = []
    real = log_index.read_graded_verdicts
    monkeypatch.setattr(log_index, "read_graded_verdicts", lambda p: reads.append(p) or real(p))
    judge = build_judge(
        JudgeConfig(id="j3", provider="replay", path="big.jsonl.gz"), judge_id="j3", base_dir=tmp_path
    )
    for p in range(80):
        r = await judge.judge(ask(f"q{p}", "m1", "m2"))
        assert r.status == "ok"
    assert len(reads) == 1
    index = judge.index()  # one row per presentation for this judge: the row itself, no list
    assert len(index) == 1600 and all(
        log_index.nth(e, 0) == e and log_index.nth(e, 1) is None for e in index.values()
    )


async def test_delay_ms_is_applied(tmp_path: Path) -> None:
    write(tmp_path / "log.jsonl", ROWS)
    judge = build_judge(
        JudgeConfig(id="g", provider="replay", path="log.jsonl", model="gpt-4", delay_ms=30),
        judge_id="g",
        base_dir=tmp_path,
    )
    r = await judge.judge(ask("q1", "a", "b"))
    assert r.status == "ok" and r.latency_ms is not None and r.latency_ms >= 30


def test_judges_reading_one_log_share_one_parse(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from elotui.judges import replay
    from elotui.judges import replay_index as log_index
    from elotui.tournament.model import load_tournament
    from tests.samples.sample_paths import SAMPLES

    t = load_tournament(SAMPLES / "vicuna80" / "tournament.toml")
    log_index.forget()
    calls = []
    real = log_index.read_graded_verdicts

    def counting(path):  # type: ignore[no-untyped-def]
        calls.append(path)
        return real(path)

    monkeypatch.setattr(log_index, "read_graded_verdicts", counting)
    judges = [replay.ReplayJudge(j, judge_id=j.id, base_dir=t.base_dir) for j in t.spec.judges]
    sizes = [len(j.index()) for j in judges]
    assert len(judges) == 5 and len(calls) == 1
    assert sizes == [80 * 20] * 5  # each judge sees its own rows only
