"""The base of the judges that answer without a network (replay, simulated): the configured delay and the measured
latency around their `answer`, and how a run takes a free one's verdicts at once. (Counting calls is the runner's
job: elotui.run.runner.)"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from elotui.judges.base import Judge, JudgeReply, JudgeRequest, answers_free
from elotui.tournament.model import EndpointConfig


class OfflineJudge:
    """A judge whose verdict is `answer(request)`, made at once from its own data. `judge` gives it after the
    configured delay, `answer_now` without one; `latency_ms` is the time it all took."""

    config: EndpointConfig

    def answer(self, request: JudgeRequest) -> JudgeReply:
        raise NotImplementedError

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        started = time.perf_counter()
        if self.config.delay_ms > 0:
            await asyncio.sleep(self.config.delay_ms / 1000.0)
        return self._answered_since(started, request)

    def answer_now(self, request: JudgeRequest) -> JudgeReply:
        """What `judge` gives when there is no delay, without a coroutine (a run's free verdicts: `answers_now`)."""
        return self._answered_since(time.perf_counter(), request)

    def _answered_since(self, started: float, request: JudgeRequest) -> JudgeReply:
        reply = self.answer(request)
        reply.latency_ms = (time.perf_counter() - started) * 1000.0
        return reply


def answers_now(judge: Judge) -> Callable[[JudgeRequest], JudgeReply] | None:
    """A free judge's `answer_now` (an offline judge without a delay: elotui.judges.base.answers_free), for a run to
    take its verdicts at once; None for any other judge."""
    return judge.answer_now if isinstance(judge, OfflineJudge) and answers_free(judge) else None
