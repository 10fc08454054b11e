"""What a run counts as its calls are answered (the `Runner` builds on it): per endpoint (elotui.records.JudgeCounts,
owned by the runner, published as copies), in all (done, cached, failed, invalid), its cost
(elotui.run.accounting) and its circuit breakers (elotui.run.breaker); and the calls another process answered or is
sending meanwhile (claimed in the store first: elotui.store.runs)."""

from __future__ import annotations

from elotui.judges.base import Completion, JudgeReply, RetryNotice, RetryObserver
from elotui.plan.calls import Call
from elotui.records import JudgeCounts
from elotui.run.accounting import Accounting, RateMeter
from elotui.run.breaker import EndpointBreaker
from elotui.run.claiming import ClaimedCalls
from elotui.run.control import RunLifecycle
from elotui.run.events import CallFailed, CallRetried
from elotui.store import Store
from elotui.vocab import CACHED_STATUSES


class RunCounting(RunLifecycle):
    """The counting half of a run (elotui.run.runner.Runner sets these up)."""

    store: Store
    run_id: int | None
    done: int
    cached: int
    failed: int
    invalid: int
    claims: ClaimedCalls
    _ledgers: dict[str, JudgeCounts]
    _breakers: dict[str, EndpointBreaker]
    _acct: Accounting
    _meter: RateMeter
    _failures: list[str]
    _progress_dirty: bool

    def judge_counts(self) -> dict[str, JudgeCounts]:
        """A copy of every endpoint's counts in this run (the runner keeps updating its own)."""
        return {jid: ledger.snapshot() for jid, ledger in self._ledgers.items()}

    def _claimed(self, taken: list[tuple[Call, float]]) -> list[tuple[Call, float]]:
        """The calls this run may send, claimed before paying for them (elotui.run.claiming): another process may
        have answered one since the plan was read, or be sending it now; none once the run lost its lease."""
        assert self.run_id is not None
        mine, answered = self.claims.claim(self.run_id, taken)
        self.done += answered
        self.cached += answered
        self._progress_dirty = True
        if self.claims.lost is not None:
            self.lose_lease(str(self.claims.lost))
        return mine

    def _count(self, call: Call, reply: JudgeReply | Completion) -> bool:
        """Account for a recorded call; emits CallFailed for a failure. True when it was answered."""
        ledger = self._ledgers[call.judge]
        self._acct.add(reply, ledger, call.judge)
        self._breakers[call.judge].observe(reply)
        self._meter.completed()
        self._progress_dirty = True
        if reply.status in CACHED_STATUSES:
            ledger.done += 1
            self.done += call.rows
            if reply.status == "invalid":
                ledger.invalid += 1
                self.invalid += call.rows
            return True
        error = reply.error or "failed"
        ledger.add_error(error)
        self.failed += call.rows
        self._failures.append(f"{call.describe()}: {error}")
        self._emit(CallFailed(call.key, call.judge, call.kind, error, reply.attempts, call.presentation))
        return False

    def _observer(self, jid: str) -> RetryObserver:
        def observe(notice: RetryNotice) -> None:
            ledger = self._ledgers[jid]
            ledger.retries += 1
            if notice.status_code == 429:
                ledger.http_429s += 1
            self._progress_dirty = True
            self._emit(CallRetried(notice))

        return observe
