"""A run's control state (`Runner` builds on it): running, paused, stopped or at the budget, the workers to cancel,
and the events that say so (elotui.run.events) to `on_event`."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

from elotui.run.events import Event, RunState, RunStateChanged


class RunLifecycle:
    """Running, paused, stopped or at the budget: the switches and the state events every run has (the TUI needs
    them through elotui.tui.run_monitor.RunControl)."""

    def __init__(self, on_event: Callable[[Event], None] | None) -> None:
        self.on_event = on_event
        # A subscriber that says `per_call = False` (the headless progress line) is not sent CallStarted and
        # VerdictRecorded: at 10^6 calls that is 2x10^6 events made for nobody.
        self._per_call = on_event is not None and getattr(on_event, "per_call", True)
        self.state: RunState = "running"
        self._resume = asyncio.Event()  # set: running (clear: paused)
        self._resume.set()
        self._stopping = self._budget_hit = False
        self._halt = threading.Event()  # set by `stop`: the run's work in threads ends at its next checkpoint
        self._workers: list[asyncio.Task[None]] = []

    @property
    def paused(self) -> bool:
        return not self._resume.is_set() and not self._stopping

    def _going_on(self) -> bool:
        """Free answers are committed behind (overlapping the next answers) unless a pause or stop waits for it."""
        return not (self._stopping or self.paused)

    def _over_budget(self, cost: float, max_cost: float | None) -> bool:
        """Whether a cost in all (spent, in flight, about to be) passes `max_cost`; the first time, the run goes
        to the budget state: no new calls."""
        over = max_cost is not None and cost > max_cost
        if over and not self._budget_hit:
            self._budget_hit = True
            reason = (
                f"max_cost {max_cost:g} would be exceeded: no new calls (raise it and run again to continue)"
            )
            self._set_state("budget", reason)
        return over

    @property
    def stopping(self) -> bool:  # stopped (Ctrl-C, quit) or at the budget: no new calls
        return self._stopping or self._budget_hit

    def pause(self) -> None:
        """Stop taking new calls; the calls in flight finish and are recorded."""
        if self._stopping or not self._resume.is_set():
            return
        self._resume.clear()
        self._set_state("paused", "paused by the user")

    def resume(self) -> None:
        if self._stopping or self._resume.is_set():
            return
        self._resume.set()
        self._set_state("running", "resumed")

    def stop(self, *, cancel: bool = False) -> None:
        """End the run: no new calls; with `cancel`, abandon the calls in flight (they are not recorded)."""
        if not self._stopping:
            self._stopping = True
            self._set_state("stopped", "stopped by the user")
        self._halt.set()  # planning or a log read in a thread stops too (elotui.runtime.checkpoints), not only new calls
        self._resume.set()
        if cancel:
            for task in self._workers:
                task.cancel()

    def lose_lease(self, reason: str) -> None:
        """Another run took this run's lease (elotui.run.claiming): no new calls; the calls in flight finish and
        are recorded where their calls are still unanswered. The run ends `stopped`, with `reason` said."""
        if not self._stopping:
            self._stopping = True
            self._set_state("stopped", reason)
        self._halt.set()
        self._resume.set()

    def _set_state(self, state: RunState, reason: str, *, force: bool = False) -> None:
        if state != self.state or force:
            self.state = state
            self._emit(RunStateChanged(state, reason))

    def _emit(self, event: Event) -> None:
        if self.on_event is not None:
            self.on_event(event)
