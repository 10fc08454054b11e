"""Retries and rate limits for the network judges: the backoff policy, a token bucket with reservations (exact:
never more than its rate over any window), and `Retry-After` parsing."""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True)
class RetryPolicy:
    """Backoff with equal jitter: attempt n (1-based) waits uniform(c/2, c) with c = min(cap, base * 2**(n-1)),
    unless the server says when (`Retry-After`; one beyond the judge's `max_retry_after_s` is not waited for: the
    call goes back to the next run, elotui.judges.http).
    """

    base_s: float = 0.5
    cap_s: float = 30.0
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep  # how a retry waits (tests inject a recorder)
    wall_clock: Callable[[], float] = time.time  # "now", for a Retry-After given as an HTTP date

    def backoff(self, attempt: int, rng: random.Random) -> float:
        ceiling = min(self.cap_s, self.base_s * (2 ** (attempt - 1)))
        return ceiling * (0.5 + 0.5 * rng.random())


class TokenBucket:
    """A token bucket with reservations: `reserve(cost)` takes tokens now (possibly into debt) and
    returns how long the caller must wait before acting, so concurrent callers queue in order."""

    def __init__(
        self, per_second: float, capacity: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = per_second
        self.capacity = max(capacity, 1e-9)
        self.tokens = self.capacity
        self._clock = clock
        self._updated = clock()

    def reserve(self, cost: float) -> float:
        now = self._clock()
        self.tokens = min(self.capacity, self.tokens + (now - self._updated) * self.rate)
        self._updated = now
        self.tokens -= min(cost, self.capacity)
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate

    def refund(self, amount: float) -> None:
        """Give back over-estimated tokens (e.g. the estimate was above the real usage)."""
        if amount > 0:
            self.tokens = min(self.capacity, self.tokens + amount)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` header: delta-seconds or an HTTP date. None if absent/garbled."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = datetime.now(UTC).timestamp() if now is None else now
    return max(0.0, when.timestamp() - current)
