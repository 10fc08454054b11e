"""Asking a judge for one call and turning its reply into the record the store keeps (a judge never raises: if
one does, the call failed)."""

from __future__ import annotations

import time
from collections.abc import Callable

from elotui.judges.base import Completion, Judge, JudgeReply, JudgeRequest
from elotui.judges.wire_text import readable
from elotui.plan.calls import Call
from elotui.records import CallRecord
from elotui.run.events import VerdictRecorded


async def ask_verdict(judge: Judge, call: Call) -> JudgeReply:
    """The judge's verdict on the call (a judge never raises; if one does, the call failed)."""
    try:
        return await judge.judge(_request(call))
    except Exception as exc:  # noqa: BLE001 - a judge must not raise; if one does, the call failed
        return JudgeReply(status="error", error=_failure(exc))


def verdict_now(answer: Callable[[JudgeRequest], JudgeReply], call: Call) -> JudgeReply:
    """What `ask_verdict` gives for a free judge, from its `answer_now` (elotui.judges.offline.answers_now): at
    once, without the coroutines of a call sent (~1.5 us of each of 10^6 replayed verdicts)."""
    try:
        return answer(_request(call))
    except Exception as exc:  # noqa: BLE001 - as in ask_verdict
        return JudgeReply(status="error", error=_failure(exc))


def _request(call: Call) -> JudgeRequest:
    return JudgeRequest(
        call.key, call.system, call.user, call.presentation, call.first_text, call.second_text
    )


def _failure(exc: Exception) -> str:
    """The error of a call whose judge raised (a judge must not: the call failed)."""
    return readable(f"{type(exc).__name__}: {exc}")


async def ask_completion(judge: Judge, call: Call) -> Completion:
    """The judge's completion (generation, paraphrase); an empty text is a failure."""
    try:
        reply = await judge.complete(call.system, call.user)
    except Exception as exc:  # noqa: BLE001
        return Completion(status="error", error=_failure(exc))
    if reply.status == "ok" and not (reply.text or "").strip():
        reply.status, reply.error = "error", "empty completion"
    return reply


def _record(
    judge: Judge,
    call: Call,
    reply: JudgeReply | Completion,
    started_at: float,
    run_id: int | None,
    what: tuple[str | None, str | None, str | None, str | None, int | None],
    answer: tuple[str | None, str | None, str | None, str | None],
) -> CallRecord:
    """A call's store row: `what` = (prompt, first, second, condition, sample), `answer` = (winner, reasoning,
    raw_reply, output_text). Made positionally, in CallRecord's field order (10^6 of them in a large replay: half
    the time of keywords and attribute sets; tests/run/test_recording.py pins every field)."""
    prompt, first, second, condition, sample = what
    winner, reasoning, raw_reply, output_text = answer
    c = judge.config
    return CallRecord(
        call.key,
        call.kind,
        reply.status,
        call.judge,
        c.provider,
        c.model,
        prompt,
        first,
        second,
        condition,
        sample,
        winner,
        reasoning,
        raw_reply,
        output_text,
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
        reply.strength if isinstance(reply, JudgeReply) and reply.status == "ok" else None,
    )


def verdict_record(
    judge: Judge, call: Call, reply: JudgeReply, started_at: float, run_id: int | None
) -> CallRecord:
    """The store row of a verdict call's reply."""
    p = call.presentation
    assert p is not None
    winner = reply.winner if reply.status == "ok" else None
    return _record(
        judge,
        call,
        reply,
        started_at,
        run_id,
        (p.prompt, p.first, p.second, p.condition, p.sample),
        (winner, reply.reasoning, reply.raw_reply, None),
    )


def completion_record(
    judge: Judge, call: Call, reply: Completion, started_at: float, run_id: int | None
) -> CallRecord:
    """The store row of a generation's or paraphrase's reply."""
    text = (reply.text or "").strip() or None
    return _record(
        judge,
        call,
        reply,
        started_at,
        run_id,
        (call.prompt, call.contestant, None, None, None),
        (None, None, None, text if reply.status == "ok" else None),
    )


def verdict_recorded(call: Call, reply: JudgeReply) -> VerdictRecorded | None:
    """The event that tells a recorded verdict (to a subscriber of per-call events); None for a failed call."""
    p = call.presentation
    if reply.status == "error" or p is None:
        return None
    return VerdictRecorded(
        key=call.key,
        judge=call.judge,
        presentation=p,
        status=reply.status,  # type: ignore[arg-type]
        winner=reply.winner if reply.status == "ok" else None,
        reasoning=reply.reasoning,
        latency_ms=reply.latency_ms,
        input_tokens=reply.input_tokens,
        output_tokens=reply.output_tokens,
        cost=reply.cost,
        strength=reply.strength if reply.status == "ok" else None,
    )
