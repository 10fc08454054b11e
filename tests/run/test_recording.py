"""The store row of a verdict reply (elotui.run.recording): every field in its place (the record is made
positionally, for speed, so a field added to CallRecord or moved must show here)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any, cast

import pytest

from elotui.judges.base import Judge, JudgeReply, Presentation
from elotui.plan.calls import Call
from elotui.records import CallRecord
from elotui.run.recording import verdict_record


@pytest.mark.parametrize("status", ["ok", "invalid", "error"])
def test_a_verdict_record_puts_every_value_in_its_field(status: str) -> None:
    presentation = Presentation("q7", "alpha", "beta", "lexical", 3)
    call = Call("k" * 64, "verdict", "judge-1", ("system",), ("user",), presentation)
    judge = cast(Judge, SimpleNamespace(config=SimpleNamespace(provider="openai", model="gpt-x")))
    reply = JudgeReply(
        latency_ms=12.5,
        input_tokens=101,
        output_tokens=23,
        cost=0.004,
        attempts=2,
        http_429s=1,
        status=status,  # type: ignore[arg-type]
        winner="second",
        reasoning="because",
        raw_reply='{"winner": "B"}',
        error="boom" if status == "error" else None,
        strength=2,
    )
    record = verdict_record(judge, call, reply, 1_700_000_000.0, 42)
    want: dict[str, Any] = {
        "key": "k" * 64,
        "kind": "verdict",
        "status": status,
        "judge": "judge-1",
        "provider": "openai",
        "model": "gpt-x",
        "prompt": "q7",
        "first": "alpha",
        "second": "beta",
        "condition": "lexical",
        "sample": 3,
        "winner": "second" if status == "ok" else None,
        "reasoning": "because",
        "raw_reply": '{"winner": "B"}',
        "output_text": None,
        "error": "boom" if status == "error" else None,
        "latency_ms": 12.5,
        "input_tokens": 101,
        "output_tokens": 23,
        "cost": 0.004,
        "attempts": 2,
        "http_429s": 1,
        "started_at": 1_700_000_000.0,
        "run_id": 42,
        "strength": 2 if status == "ok" else None,  # a graded verdict's strength, kept only with its winner
    }
    got = dataclasses.asdict(record)
    finished = got.pop("finished_at")
    assert got == want
    assert set(want) | {"finished_at"} == {f.name for f in dataclasses.fields(CallRecord)}
    assert isinstance(finished, float) and finished > 1_700_000_000.0
