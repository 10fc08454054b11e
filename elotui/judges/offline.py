"""The call body of the judges that answer without a network (replay, simulated): the configured delay, the
in-flight count while waiting, the measured latency and the counters."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from elotui.judges.base import JudgeCounters, JudgeReply


async def answer_offline(
    counters: JudgeCounters, delay_ms: float, answer: Callable[[], JudgeReply]
) -> JudgeReply:
    """`answer()` after `delay_ms`, counted in `counters`, with `latency_ms` set to the time it all took."""
    started = time.perf_counter()
    counters.in_flight += 1
    try:
        if delay_ms > 0:
            await asyncio.sleep(delay_ms / 1000.0)
        reply = answer()
    finally:
        counters.in_flight -= 1
    reply.latency_ms = (time.perf_counter() - started) * 1000.0
    counters.count(reply.status, reply.latency_ms)
    return reply
