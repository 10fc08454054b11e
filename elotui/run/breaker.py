"""The circuit breaker: an endpoint whose calls keep failing with the same error that will not go away (a mistyped
model, a wrong key, a request body the server refuses: elotui.judges.http.lasting_error) is taken out of the run
after `stop_after_errors` such calls in a row, instead of sending every call of the plan into the same wall.

Until the endpoint has answered once, at most `stop_after_errors` of its calls are out (in flight or failed in
that way), so a wrong model costs that many requests, not `max_concurrency` of them; once it has answered, its
calls go at its full concurrency. A retryable failure (elotui.judges.http.RETRYABLE_STATUS, a timeout), retried by
the judge layer, breaks the streak. The run's other endpoints go on; the next run tries the stopped one again.
"""

from __future__ import annotations

import asyncio
import re

from elotui.judges.base import Completion, JudgeReply
from elotui.run.events import JudgeStopped
from elotui.terminal import one_line
from elotui.vocab import CACHED_STATUSES

REASON_CHARS = 200  # the server's message, as shown in the one line that says an endpoint was stopped
_NUMBER = re.compile(r"\d+")


def _signature(error: str) -> str:
    """Two errors are the same if they differ only in numbers (request ids, token counts, timestamps)."""
    return _NUMBER.sub("#", error)


class EndpointBreaker:
    """One endpoint's breaker: `admit()` before a call is sent, `observe(reply)` once it is answered, `done()`
    after (answered or not)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.answered = False  # a reply that was not a lasting error came: full concurrency from now on
        self.out = 0  # calls admitted and not done yet
        self.streak = 0  # lasting errors in a row, all with the same signature
        self.signature: str | None = None
        self.tripped: str | None = None  # why the endpoint is stopped (one line), once it is
        self._changed = asyncio.Event()

    async def admit(self) -> bool:
        """Wait until a call may go out; False when the endpoint is stopped (send nothing more)."""
        while not self.tripped and not self.answered and self.out + self.streak >= self.limit:
            self._changed.clear()
            await self._changed.wait()
        if self.tripped:
            return False
        self.out += 1
        return True

    def done(self) -> None:
        self.out -= 1
        self._changed.set()

    def observe(self, reply: JudgeReply | Completion) -> str | None:
        """Count a reply; the reason, once, when it trips the breaker."""
        lasting = reply.lasting_error if reply.status not in CACHED_STATUSES else None
        if lasting is None:
            self.streak, self.signature = 0, None
            self.answered = self.answered or reply.status in CACHED_STATUSES
            self._changed.set()
            return None
        signature = _signature(lasting)
        self.streak = self.streak + 1 if signature == self.signature else 1
        self.signature = signature
        if self.streak < self.limit or self.tripped:
            return None
        self.tripped = one_line(lasting, REASON_CHARS)
        self._changed.set()
        return self.tripped

    def stop(self, reason: str) -> None:
        """Stopped for another reason (the endpoint is unreachable): nothing more is admitted."""
        self.tripped = self.tripped or reason
        self._changed.set()

    def stopped(self, jid: str, left: int) -> JudgeStopped:
        """The event that says the endpoint was stopped, with `left` plan rows not sent."""
        reason = self.tripped or "stopped"
        if self.streak >= self.limit:
            reason = f"stopped after {self.streak} calls in a row failed with {reason}"
        return JudgeStopped(jid, reason, left)
