"""What a run has counted so far besides the per-endpoint counts (elotui.records.JudgeCounts, owned by the runner):
its tokens and cost, and its rate."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

from elotui.judges.base import Completion, JudgeReply
from elotui.records import JudgeCounts
from elotui.run.events import Progress, batches_line
from elotui.tournament.model import EndpointConfig

if TYPE_CHECKING:
    from elotui.plan.calls import Call


@dataclass
class Accounting:
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0  # recorded cost of the current plan's calls, earlier runs included
    run_cost: float = (
        0.0  # of which spent by this run (an answer from the store or the shared cache: nothing)
    )
    in_flight_cost: float = 0.0  # the estimates of the calls in flight
    in_flight_calls: int = 0
    paid: dict[str, tuple[float, int]] = field(
        default_factory=dict
    )  # per endpoint: cost and calls of this run

    def add(self, reply: JudgeReply | Completion, ledger: JudgeCounts, endpoint: str = "") -> None:
        """A recorded reply's tokens and cost, and its latency in its endpoint's counts."""
        self.input_tokens += reply.input_tokens or 0
        self.output_tokens += reply.output_tokens or 0
        self.cost += reply.cost or 0.0
        self.run_cost += reply.cost or 0.0
        if reply.cost is not None:
            spent, n = self.paid.get(endpoint, (0.0, 0))
            self.paid[endpoint] = (spent + reply.cost, n + 1)
        if reply.latency_ms is not None:
            ledger.latency_sum_ms += reply.latency_ms
            ledger.latency_n += 1

    def sent(self, estimate: float) -> None:
        self.in_flight_cost += estimate
        self.in_flight_calls += 1

    def ended(self, estimate: float) -> None:
        self.in_flight_calls -= 1
        self.in_flight_cost = self.in_flight_cost - estimate if self.in_flight_calls else 0.0

    def estimate(self, endpoint: str, static: float) -> float:
        """What the endpoint's next call is expected to cost: the mean of what its calls cost in this run, once
        one has been paid for; before, `static` (elotui.plan.calls.estimated_call_cost, whose output estimate is
        min(max_tokens, 512) tokens: several times a short verdict's)."""
        spent, n = self.paid.get(endpoint, (0.0, 0))
        return spent / n if n else static

    def take(
        self, queue: deque[Call], endpoint: str, config: EndpointConfig, batch: int, max_cost: float
    ) -> tuple[list[tuple[Call, float]], float | None]:
        """Up to `batch` calls off the queue with their estimates, while what was spent, the calls in flight and
        these calls stay within `max_cost` (the rest of the plan is never counted). When the next call does not
        fit: with calls in flight, none is taken and the caller waits (they may cost less than estimated); with
        none, the cost that passes `max_cost` is returned too: the budget is reached."""
        from elotui.plan.calls import estimated_call_cost

        planned, taken = 0.0, cast("list[tuple[Call, float]]", [])
        while queue and len(taken) < batch:
            estimate = self.estimate(endpoint, estimated_call_cost(config, queue[0]))
            committed = self.cost + self.in_flight_cost + planned + estimate
            if committed > max_cost:
                return taken, committed if self.in_flight_calls == 0 and not taken else None
            planned += estimate
            taken.append((queue.popleft(), estimate))
        return taken, None


RATE_WINDOW_S = 20.0


class RateMeter:
    """Calls per second over the last RATE_WINDOW_S of the current phase, and the ETA of what remains."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._completions: deque[float] = deque()
        self._started = self._phase_started = clock()

    def new_phase(self) -> None:
        self._phase_started = self._clock()

    def completed(self) -> None:
        self._completions.append(self._clock())

    def elapsed(self) -> float:
        return self._clock() - self._started

    def rate_and_eta(self, remaining: int) -> tuple[float, float | None]:
        now = self._clock()
        while self._completions and now - self._completions[0] > RATE_WINDOW_S:
            self._completions.popleft()
        span = min(RATE_WINDOW_S, max(now - self._phase_started, 1e-6))
        rate = len(self._completions) / span
        settled = (
            span >= 1.0
        )  # an ETA from a phase's first few calls is noise: none until a second has passed
        eta = 0.0 if remaining == 0 else (remaining / rate if rate > 0 and settled else None)
        return rate, eta


def progress_of(run: Any) -> Progress:
    """The run's progress now (elotui.run.runner.Runner.progress)."""
    remaining = max(run.total - run.done - run.failed, 0)
    rate, eta = run._meter.rate_and_eta(remaining)
    new = run.done - run.cached + run.failed
    estimated = None
    if run._acct.run_cost > 0 and new > 0:
        estimated = run._acct.cost + run._acct.run_cost / new * remaining
    return Progress(
        done=run.done,
        total=run.total,
        cached=run.cached,
        failed=run.failed,
        invalid=run.invalid,
        in_flight=run.in_flight,
        rate_per_s=rate,
        eta_s=eta,
        input_tokens=run._acct.input_tokens,
        output_tokens=run._acct.output_tokens,
        cost=run._acct.cost,
        estimated_total_cost=estimated,
        elapsed_s=run._meter.elapsed(),
        judges=run.judge_counts(),
        adaptive=run.adaptive_status,
        run_cost=run._acct.run_cost,
        batches=batches_line(run.batches.values(), time.time()),
        open_batches=tuple(replace(b) for b in run.batches.values()),
    )
