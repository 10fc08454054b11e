"""The typed event stream of a run. The headless CLI and the TUI consume the same events.

The runner calls `on_event(event)` on the event loop that runs it; consumers must not block.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from elotui.judges.base import Presentation, RetryNotice
from elotui.records import JudgeCounts
from elotui.terminal import one_line
from elotui.vocab import CallKind, Strength

RunState = Literal["running", "paused", "finished", "stopped", "budget"]


@dataclass(frozen=True)
class RunStarted:
    total: int  # planned judge calls in this plan
    cached: int  # of which already answered in the store
    run_id: int


@dataclass(frozen=True)
class CallStarted:
    key: str
    judge: str
    kind: CallKind
    presentation: Presentation | None = None


@dataclass(frozen=True)
class VerdictRecorded:
    key: str
    judge: str
    presentation: Presentation
    status: Literal["ok", "invalid"]
    winner: Literal["first", "second", "tie"] | None
    reasoning: str | None
    latency_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    # a graded verdict's strength (`[judge_prompt] scale = "graded"`, or a replayed log's "strength"): 2 strong
    # (`A>>B`), 1 clear (`A>B`); None for a tie, a binary verdict or an invalid one (the store's `calls.strength`)
    strength: Strength | None = None


@dataclass(frozen=True)
class CallFailed:
    """A call that failed for good (the event; the judge layer's exception is elotui.judges.http.GaveUp)."""

    key: str
    judge: str
    kind: CallKind
    error: str
    attempts: int
    presentation: Presentation | None = None


@dataclass(frozen=True)
class CallRetried:
    notice: RetryNotice


@dataclass(frozen=True)
class Progress:
    done: int  # answered calls of the plan (cached included)
    total: int
    cached: int
    failed: int
    invalid: int
    in_flight: int
    rate_per_s: float  # new calls per second over the recent window
    eta_s: float | None
    input_tokens: int
    output_tokens: int
    cost: float
    estimated_total_cost: float | None
    elapsed_s: float
    judges: Mapping[str, JudgeCounts] = field(
        default_factory=dict
    )  # a copy of the runner's per-endpoint counts
    adaptive: str | None = (
        None  # plan = "adaptive": how settled the ranking is and the share of the plan bought
    )
    run_cost: float = 0.0  # of `cost` (the plan's calls, earlier runs included), what this run paid for
    batches: str | None = None  # the open batches of batch judges, in one line (`batches_line`)
    open_batches: tuple[BatchProgress, ...] = ()  # the same, one each (copies: the runner updates its own)


@dataclass
class BatchProgress:
    """One open batch of a batch judge (elotui.run.batching) as the provider last reported it."""

    judge: str
    batch_id: str
    requests: int
    done: int = 0
    failed: int = 0
    status: str = "submitted"
    submitted_at: float = 0.0


def age_text(seconds: float) -> str:
    """A batch's age: `45s`, `3m12s`, `2h05m`."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def batch_text(b: BatchProgress, now: float) -> str:
    """One open batch in a line (headless progress): `batch j1 batch_abc: in_progress, 40/50 done, 2 failed, age 3m12s`
    (the provider's id and status neutralised: a terminal shows them)."""
    return (
        f"batch {one_line(b.judge, 40)} {one_line(b.batch_id, 80)}: {one_line(b.status, 40)}, {b.done}/{b.requests} done, "
        f"{b.failed} failed, age {age_text(now - b.submitted_at)}"
    )


def batches_line(batches: Iterable[BatchProgress], now: float) -> str | None:
    """`batches: 2 open · j1 batch_1 in_progress 40/50 done, 2 failed, 3m · ...`; None with none open."""
    shown = list(batches)
    if not shown:
        return None
    each = [  # the provider's id and status: neutralised (a terminal shows them)
        f"{b.judge} {one_line(b.batch_id, 80)} {one_line(b.status, 40)} {b.done}/{b.requests} done, {b.failed} failed, "
        f"{max(0, int(now - b.submitted_at)) // 60}m"
        for b in shown
    ]
    return f"batches: {len(shown)} open · " + " · ".join(each[:3]) + (" · …" if len(each) > 3 else "")


@dataclass(frozen=True)
class RunStateChanged:
    state: RunState
    reason: str = ""


@dataclass(frozen=True)
class JudgeStopped:
    """An endpoint taken out of this run (its calls left unsent, unrecorded: the next run tries them): unreachable,
    or the same error that will not go away (bad model, key or request) on `stop_after_errors` calls in a row."""

    judge: str
    reason: str  # one line, neutralised: the status and the server's message
    left: int  # plan rows not sent


@dataclass(frozen=True)
class RunFinished:
    state: RunState  # "finished", "stopped" (Ctrl-C / quit) or "budget" (max_cost reached)
    done: int
    total: int
    failed: list[str] = field(default_factory=list)  # human-readable descriptions of calls failed for good
    cost: float = 0.0  # the plan's recorded cost, earlier runs included (the tournament's)
    adaptive: str | None = None  # plan = "adaptive": why it stopped (settled, open gaps, budget)
    run_cost: float = 0.0  # what this run paid for (answers from the store or the shared cache: $0)
    failed_calls: int = 0  # plan rows whose call failed for good in this run
    invalid: int = 0  # plan rows answered with an unparseable reply (this run and earlier ones)
    stopped_judges: list[JudgeStopped] = field(default_factory=list)


Event = (
    RunStarted
    | CallStarted
    | VerdictRecorded
    | CallFailed
    | CallRetried
    | Progress
    | RunStateChanged
    | JudgeStopped
    | RunFinished
)
