"""Asking a judge for one call and turning its reply into the record the store keeps (a judge never raises: if
one does, the call failed)."""

from __future__ import annotations

import time

from elotui.judges.base import Completion, Judge, JudgeReply, JudgeRequest
from elotui.records import CallRecord
from elotui.run.calls import Call


async def ask_verdict(judge: Judge, call: Call) -> JudgeReply:
    """The judge's verdict on the call (a judge never raises; if one does, the call failed)."""
    request = JudgeRequest(
        call.key, call.system, call.user, call.presentation, call.first_text, call.second_text
    )
    try:
        return await judge.judge(request)
    except Exception as exc:  # noqa: BLE001 - a judge must not raise; if one does, the call failed
        return JudgeReply(status="error", error=f"{type(exc).__name__}: {exc}")


async def ask_completion(judge: Judge, call: Call) -> Completion:
    """The judge's completion (generation, paraphrase); an empty text is a failure."""
    try:
        reply = await judge.complete(call.system, call.user)
    except Exception as exc:  # noqa: BLE001
        return Completion(status="error", error=f"{type(exc).__name__}: {exc}")
    if reply.status == "ok" and not (reply.text or "").strip():
        reply.status, reply.error = "error", "empty completion"
    return reply


def _base_record(
    judge: Judge, call: Call, reply: JudgeReply | Completion, started_at: float, run_id: int | None
) -> CallRecord:
    return CallRecord(
        key=call.key,
        kind=call.kind,
        status=reply.status,
        judge=call.judge,
        provider=judge.config.provider,
        model=judge.config.model,
        error=reply.error,
        latency_ms=reply.latency_ms,
        input_tokens=reply.input_tokens,
        output_tokens=reply.output_tokens,
        cost=reply.cost,
        attempts=reply.attempts,
        http_429s=reply.http_429s,
        started_at=started_at,
        finished_at=time.time(),
        run_id=run_id,
    )


def verdict_record(
    judge: Judge, call: Call, reply: JudgeReply, started_at: float, run_id: int | None
) -> CallRecord:
    """The store row of a verdict call's reply (made in one call: 10^6 of them in a large replay)."""
    p = call.presentation
    assert p is not None
    c = judge.config
    return CallRecord(  # positionally, in CallRecord's field order (a quarter faster than by keyword)
        call.key,
        call.kind,
        reply.status,
        call.judge,
        c.provider,
        c.model,
        p.prompt,
        p.first,
        p.second,
        p.condition,
        p.sample,
        reply.winner if reply.status == "ok" else None,
        reply.reasoning,
        reply.raw_reply,
        None,  # output_text
        reply.error,
        reply.latency_ms,
        reply.input_tokens,
        reply.output_tokens,
        reply.cost,
        reply.attempts,
        reply.http_429s,
        started_at,
        time.time(),
        run_id,
    )


def completion_record(
    judge: Judge, call: Call, reply: Completion, started_at: float, run_id: int | None
) -> CallRecord:
    """The store row of a generation's or paraphrase's reply."""
    record = _base_record(judge, call, reply, started_at, run_id)
    record.prompt, record.first = call.prompt, call.contestant
    text = (reply.text or "").strip() or None
    record.output_text = text if reply.status == "ok" else None
    return record
