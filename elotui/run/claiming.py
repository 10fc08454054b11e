"""A run's claims on the calls it pays for, and its run lease's watchdog (the store's side: elotui.store.claims).

- Every call is claimed right before it is sent (`ClaimedCalls.claim`): that claim is the run's lease check before
  each send. A run that lost its lease (another run took it: `--force`, or after this process was paused past it)
  gets none: it stops sending; the answers it has in flight are recorded where their calls are still unanswered.
- A call that another run (of this store, or of another store through the shared call cache) may be sending is
  waited for (`wait`): claimed again every CLAIM_POLL_S until it is answered (counted as cached), released (this
  run sends it) or CLAIM_WAIT_S pass without any of the awaited calls answered: the rest are skipped this run.
- The watchdog (`watch`): the run's ticker measures its own sleeps on the monotonic clock; one that
  overslept by half a lease (the process was stopped, SIGSTOP/SIGCONT, or the machine suspended) checks the lease
  at once, as does a heartbeat that found a newer run (elotui.store.runs.heartbeat), so that a paused run notices
  on waking even with no call to claim.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

from elotui.store.claims import claim_many
from elotui.store.runs import LEASE_S, LeaseLost, holds_lease

if TYPE_CHECKING:
    from elotui.judges.base import Judge
    from elotui.plan.calls import Call
    from elotui.store import Store

CLAIM_WAIT_S = float(
    os.environ.get("ELOTUI_CLAIM_WAIT_S") or 120.0
)  # with none of the awaited calls answered
CLAIM_POLL_S = 0.1
Taken = list[tuple["Call", float]]  # calls with their cost estimates (elotui.run.runner)


class ClaimedCalls:
    """One run's claims: the calls other runs are sending (`waiting`), those skipped this run, a lost lease."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.lost: LeaseLost | None = None  # set once: the run sends nothing more
        self.waiting: Taken = []
        self.skipped = (
            0  # presentations whose calls another run was still sending when this one gave up waiting
        )
        self.fenced = threading.Event()  # set by a heartbeat that found a newer run (from any thread)

    def claim(self, run_id: int, taken: Taken) -> tuple[Taken, int]:
        """(the calls this run may send now, the presentations found answered); the calls another run is sending
        are kept in `waiting`. None once the lease is lost."""
        if self.lost is not None:
            return [], 0
        try:
            got = claim_many(self.store, [call.key for call, _ in taken], run_id)
        except LeaseLost as lost:
            self.lost = lost
            return [], 0
        mine: Taken = []
        answered = 0
        for call, estimate in taken:
            if got[call.key] == "answered":
                answered += call.rows
            elif got[call.key] == "taken":
                self.waiting.append((call, estimate))
            else:
                mine.append((call, estimate))
        return mine, answered

    async def wait(
        self,
        claim: Callable[[Taken], Taken],
        answer: Callable[[Judge, Taken, bool], Awaitable[None]],
        judges: Mapping[str, Judge],
        stopping: Callable[[], bool],
    ) -> None:
        """Wait for the calls other runs were sending: `claim` them again (answered ones counted by it, the others
        back in `waiting`) and `answer` those released (paid: `free` False; a judge's at a time), until none is left, the run stops, or CLAIM_WAIT_S pass with
        none answered; the ones left are skipped this run (`skipped`: the next run finds them answered or sends
        them)."""
        quiet_since = time.monotonic()
        while self.waiting and not stopping():
            await asyncio.sleep(CLAIM_POLL_S)
            retry, self.waiting = self.waiting, []
            mine = claim(retry)
            for jid in dict.fromkeys(call.judge for call, _ in mine):  # each judge's, in turn
                await answer(
                    judges[jid], [(call, estimate) for call, estimate in mine if call.judge == jid], False
                )
            if len(self.waiting) < len(retry):
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= CLAIM_WAIT_S:
                break
        if not stopping():
            self.skipped += sum(call.rows for call, _ in self.waiting)
        self.waiting = []

    def watch(self, run_id: int | None, overslept_s: float, lose: Callable[[str], None]) -> None:
        """The watchdog, after a sleep of the run's ticker that took `overslept_s` longer than asked (monotonic):
        the lease is checked in the store when a heartbeat found a newer run or the sleep overran by half a lease,
        and `lose(why)` called if it was lost (now or before)."""
        if run_id is not None and self.lost is None and (self.fenced.is_set() or overslept_s > LEASE_S / 2):
            self.lost = holds_lease(self.store, run_id)
        if self.lost is not None:
            lose(str(self.lost))
