"""The call body of the judges that answer without a network (replay, simulated): the configured delay and the
measured latency. (Counting calls is the runner's job: elotui.run.runner.)"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from elotui.judges.base import JudgeReply


async def answer_offline(delay_ms: float, answer: Callable[[], JudgeReply]) -> JudgeReply:
    """`answer()` after `delay_ms`, with `latency_ms` set to the time it all took."""
    started = time.perf_counter()
    if delay_ms > 0:
        await asyncio.sleep(delay_ms / 1000.0)
    reply = answer()
    reply.latency_ms = (time.perf_counter() - started) * 1000.0
    return reply
