"""What the TUI knows of a run, from its typed events (elotui.run.events): the verdicts not yet ranked, the plan's
counts, the run state, the latest progress (with the runner's frozen per-judge counts) and the notices to show.

No Textual here: the App feeds it every event and shows what it returns.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from elotui.records import JudgeCounts, PlanVerdict
from elotui.run.events import (
    CallFailed,
    Event,
    JudgeStopped,
    Progress,
    RunFinished,
    RunStarted,
    RunStateChanged,
    VerdictRecorded,
)
from elotui.store import Store
from elotui.store.runs import LOST_LEASE
from elotui.tournament.model import Tournament
from elotui.tui.sanitize import one_line
from elotui.vocab import (
    OUTCOME_FAILED,
    OUTCOME_FIRST,
    OUTCOME_INVALID,
    OUTCOME_MISSING,
    OUTCOME_SECOND,
    OUTCOME_TIE,
)

FAILURE_NOTICES = (1, 3, 10, 30, 100, 300, 1000)  # repeated failures: notify at these counts, count always


class RunControl(Protocol):
    """What the App needs of a run (elotui.run.runner.Runner implements it)."""

    @property
    def paused(self) -> bool: ...
    async def run(self) -> RunFinished: ...
    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def stop(self, *, cancel: bool = False) -> None: ...


class RunnerFactory(Protocol):
    def __call__(
        self, tournament: Tournament, store: Store, *, on_event: Any, max_cost: float | None
    ) -> RunControl: ...


# an import's replay of this many verdicts or more waits for `p` in the TUI (at 10^6: ~5 min and ~7 GB)
HOLD_REPLAY_VERDICTS = 100_000


def replay_waits(store: Store) -> int | None:
    """The imported verdicts whose replay the TUI leaves to the user: their count where the store holds only an
    import's snapshot (no run's plan) of HOLD_REPLAY_VERDICTS verdicts or more, else None (the run starts)."""
    if not store.only_imported():
        return None
    n = len(store.verdict_columns().outcome)
    return n if n >= HOLD_REPLAY_VERDICTS else None


@dataclass(frozen=True)
class Notice:
    """A notification for the user (shown literally: never markup)."""

    message: str
    title: str = ""
    severity: str = "information"
    timeout: float = 5.0


@dataclass
class PlanCounts:
    total: int = 0
    done: int = 0
    failed: int = 0
    invalid: int = 0

    @classmethod
    def of(cls, outcome: NDArray[np.int8]) -> PlanCounts:
        """The counts of a plan's outcome column (elotui.store.columns)."""
        tally = np.bincount(outcome, minlength=OUTCOME_MISSING + 1)
        invalid = int(tally[OUTCOME_INVALID])
        done = int(tally[OUTCOME_FIRST] + tally[OUTCOME_SECOND] + tally[OUTCOME_TIE]) + invalid
        return cls(total=len(outcome), done=done, failed=int(tally[OUTCOME_FAILED]), invalid=invalid)


@dataclass
class RunMonitor:
    state: str = "stored"  # "stored" (no run in this process), "preparing" (until RunStarted), or a RunState
    started: bool = False  # RunStarted came: the run has prepared (planned and stored its plan)
    progress: Progress | None = None
    result: RunFinished | None = None
    last_invalid_key: str | None = None
    plan: PlanCounts = field(default_factory=PlanCounts)
    pending: list[PlanVerdict] = field(default_factory=list)
    invalid_seen: dict[str, int] = field(default_factory=dict)
    failed_seen: dict[str, int] = field(default_factory=dict)
    reload_wanted: bool = False  # the run (re)stored its plan: read the store again

    @property
    def judge_counts(self) -> dict[str, JudgeCounts]:
        counts = dict(self.progress.judges) if self.progress is not None else {}
        if self.result is not None:  # nothing is in flight once the run has ended
            counts = {j: dataclasses.replace(c, in_flight=0) for j, c in counts.items()}
        return counts

    def handle(self, event: Event) -> list[Notice]:
        if isinstance(event, VerdictRecorded):
            return self._verdict(event)
        if isinstance(event, CallFailed):
            n = self.failed_seen[event.judge] = self.failed_seen.get(event.judge, 0) + 1
            if n in FAILURE_NOTICES:
                return [
                    Notice(
                        f"judge {one_line(event.judge, 40)}: a call failed after {event.attempts} attempt(s): "
                        f"{one_line(event.error, 200)} ({n} failed so far)",
                        "judge failing",
                        "error",
                        10,
                    )
                ]
        elif isinstance(event, Progress):
            self.progress = event
        elif isinstance(event, JudgeStopped):
            message = f"judge {one_line(event.judge, 40)}: {one_line(event.reason, 300)}; {event.left} call(s) not sent"
            return [Notice(message + " (the next run tries them)", "judge stopped", "error", 30)]
        elif isinstance(event, RunStateChanged):  # resumed before it has prepared: it still prepares
            self.state = event.state if self.started or event.state != "running" else "preparing"
            if event.state == "budget":
                return [Notice(one_line(event.reason, 300), "budget reached", "warning", 30)]
            if event.state == "stopped" and LOST_LEASE in event.reason:  # --force from another process
                return [Notice(one_line(event.reason, 300), "run taken over", "warning", 30)]
        elif isinstance(event, RunStarted):
            self.state, self.started = "running", True
            self.reload_wanted = True
        elif isinstance(event, RunFinished):
            return self.finished(event)
        return []

    def _verdict(self, event: VerdictRecorded) -> list[Notice]:
        p = event.presentation
        self.pending.append(
            PlanVerdict(
                p.prompt,
                p.first,
                p.second,
                event.judge,
                p.condition,
                p.sample,
                event.status,
                event.winner if event.status == "ok" else None,
            )
        )
        if event.status != "invalid":
            return []
        self.last_invalid_key = event.key
        n = self.invalid_seen[event.judge] = self.invalid_seen.get(event.judge, 0) + 1
        if n in FAILURE_NOTICES:
            return [
                Notice(
                    f"judge {one_line(event.judge, 40)} gave an unparseable reply ({n} so far); "
                    "press i to read it",
                    severity="warning",
                )
            ]
        return []

    def finished(self, result: RunFinished) -> list[Notice]:
        if self.result is not None:
            return []
        self.result, self.state, self.reload_wanted = result, result.state, True
        notices = []
        if result.adaptive:
            notices.append(Notice(result.adaptive, "adaptive plan", "information", 15))
        if result.failed:
            notices.append(
                Notice(
                    f"{len(result.failed)} call(s) failed for good; they are retried on the next run",
                    "run finished",
                    "warning",
                    15,
                )
            )
        return notices

    def take_pending(self) -> list[PlanVerdict]:
        rows, self.pending = self.pending, []
        for r in rows:
            self.plan.done += r.status in ("ok", "invalid")
            self.plan.invalid += r.status == "invalid"
        return rows

    @property
    def exit_code(self) -> int:
        """3 when a finished run left calls that failed for good or stopped a judge, else 0."""
        r = self.result
        return 3 if r is not None and (r.failed or r.stopped_judges) and r.state == "finished" else 0


FIRST_BOARD_WAIT_S = 2.0  # a run starts once the first leaderboard is shown, or after this long


async def runner_after_first_board(
    shown: Callable[[], bool], make: Callable[[], RunControl], wait_s: float = FIRST_BOARD_WAIT_S
) -> RunControl:
    """`make()` in a thread (a runner lays out the whole plan: ~1 s at 10^6 comparisons) once `shown()` (the first
    leaderboard is on the screen) or after `wait_s`: planning competes with ranking and drawing that leaderboard
    for the interpreter lock."""
    for _ in range(int(wait_s * 100)):
        if shown():
            break
        await asyncio.sleep(0.01)
    return await asyncio.to_thread(make)
