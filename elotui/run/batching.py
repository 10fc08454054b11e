"""A batch judge's calls sent through its provider's batch API (docs/batch.md; the wire: elotui.judges.batch_api).

`send_batches(runner, jid, queue)` replaces the endpoint's workers: first it takes back the batches the store
holds open for this judge (a run that was stopped, killed or left with `--no-wait` submitted them): their calls
are claimed again and the batch polled, never submitted twice. Then it submits the rest of the queue, up to
`batch_max_requests` calls a batch, each call claimed first exactly like a call sent live, and the batch recorded
in the store before it is submitted and given its provider id as soon as the submit returns. With a budget, a
batch takes only the calls that fit (the calls of open batches count as in flight); the rest wait for a batch to
end, and none is submitted past the budget.

Each open batch is polled with backoff (BATCH_FIRST_POLL_S, doubling up to BATCH_MAX_POLL_S) until it ends; its
replies are recorded through the runner's own path (the store, the shared call cache, the counts), one per
planned call; a request missing from the results, errored, expired or cancelled is a failed call of this run
(retried by the next). A batch that fails as a whole frees all its calls. A call already answered when its batch
is read (a results file read twice) is not recorded again.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from elotui.judges.base import Judge, JudgeReply
from elotui.judges.batch_api import BatchAPI, BatchFailed, BatchState, batch_api, failed_reply
from elotui.judges.live import LiveJudge
from elotui.plan.calls import estimated_call_cost
from elotui.run.events import BatchProgress
from elotui.store.batches import BatchRow, add_batch, open_batches, update_batch
from elotui.terminal import one_line

if TYPE_CHECKING:
    from elotui.plan.calls import Call
    from elotui.run.accounting import Accounting
    from elotui.store import Store

BATCH_FIRST_POLL_S = float(os.environ.get("ELOTUI_BATCH_FIRST_POLL_S") or 5.0)
BATCH_MAX_POLL_S = float(os.environ.get("ELOTUI_BATCH_MAX_POLL_S") or 60.0)
Taken = list[tuple["Call", float]]
Answer = Callable[[Judge, Taken, bool], Awaitable[None]]


class Runner(Protocol):
    """What of the runner (elotui.run.runner.Runner) sending batches takes: its judges, store, budget, claims,
    recording path and progress."""

    judges: dict[str, Judge]
    store: Store
    run_id: int | None
    batches: dict[int, BatchProgress]
    wait_batches: bool
    _budget_hit: bool
    _stopping: bool
    _resume: asyncio.Event
    _settled: asyncio.Event
    _acct: Accounting
    _progress_dirty: bool

    @property
    def stopping(self) -> bool: ...

    def _take(self, queue: deque[Call], judge: Judge, batch: int) -> Taken: ...

    def _claimed(self, taken: Taken) -> Taken: ...

    async def _held_back(self) -> bool: ...

    def _record_verdicts(
        self,
        judge: Judge,
        answered: list[tuple[Call, JudgeReply, float]],
        paid: bool,
        *,
        behind: bool = False,
    ) -> None: ...


def batched(judge: Judge) -> bool:
    """Whether the judge's calls go through its provider's batch API."""
    return judge.kind == "live" and bool(getattr(judge.config, "batch", False))


async def send_batches(runner: Runner, jid: str, queue: deque[Call]) -> None:
    judge = runner.judges[jid]
    assert isinstance(judge, LiveJudge)
    api = batch_api(judge)
    followers = [
        asyncio.create_task(_follow(runner, api, row, taken)) for row, taken in _resumed(runner, jid, queue)
    ]
    limit = min(judge.config.batch_max_requests or api.max_requests, api.max_requests)  # type: ignore[attr-defined]
    try:
        while queue and not runner.stopping and not runner._budget_hit:
            await runner._resume.wait()
            taken = runner._take(queue, judge, limit)
            if not taken:  # over the budget: wait for a batch to end, if one is open
                if all(task.done() for task in followers) or not await runner._held_back():
                    break
                continue
            mine = runner._claimed(taken)
            for _, estimate in mine:  # in flight from now: the next batch's budget counts them
                runner._acct.sent(estimate)
            if mine:
                followers.append(asyncio.create_task(_submit_and_follow(runner, api, mine)))
        await asyncio.gather(*followers)
    finally:
        for task in followers:
            task.cancel()


def answering(runner: Runner, answer: Answer) -> Answer:
    """`answer` (the runner's live path) for the calls another run released while this one waited for them, but
    a batch judge's, which go in a batch of their own."""

    async def either(judge: Judge, taken: Taken, free: bool) -> None:
        if not batched(judge):
            return await answer(judge, taken, free)
        assert isinstance(judge, LiveJudge)
        for _, estimate in taken:
            runner._acct.sent(estimate)
        await _submit_and_follow(runner, batch_api(judge), taken)

    return either


def _resumed(runner: Runner, jid: str, queue: deque[Call]) -> list[tuple[BatchRow, Taken]]:
    """The store's open batches of this judge whose calls the run still wants: taken off `queue` and claimed
    again. A batch whose submit never returned an id is let go (its calls go in a new batch)."""
    wanted = {call.key: call for call in queue}
    resumed: list[tuple[BatchRow, Taken]] = []
    for row in open_batches(runner.store, jid):
        if row.batch_id is None:
            update_batch(runner.store, row.id, state="failed", status="never submitted")
            continue
        calls = [wanted.pop(key) for key in row.keys if key in wanted]
        if not calls and len(runner.store.cached_keys(row.keys)) == len(row.keys):  # all answered already
            update_batch(runner.store, row.id, state="collected")
        elif calls:
            config = runner.judges[jid].config
            mine = runner._claimed([(call, estimated_call_cost(config, call)) for call in calls])
            for _, estimate in mine:
                runner._acct.sent(estimate)
            resumed.append((row, mine))
    if len(wanted) < len(queue):
        kept = [call for call in queue if call.key in wanted]
        queue.clear()
        queue.extend(kept)
    return resumed


async def _submit_and_follow(runner: Runner, api: BatchAPI, taken: Taken) -> None:
    judge = api.judge
    keys = [call.key for call, _ in taken]
    row_id = add_batch(runner.store, judge.id, judge.config.provider, keys, runner.run_id)
    requests = [(call.key, api.body(call.system, call.user)) for call, _ in taken]
    try:
        batch_id = await api.submit(requests)
    except BatchFailed as exc:
        update_batch(runner.store, row_id, state="failed", status="submit failed")
        _record(runner, api, taken, {}, str(exc))
        return
    update_batch(runner.store, row_id, batch_id=batch_id, state="open", status="submitted")
    row = BatchRow(
        row_id,
        judge.id,
        judge.config.provider,
        batch_id,
        tuple(keys),
        "open",
        None,
        0,
        0,
        time.time(),
        None,
        runner.run_id,
    )
    await _follow(runner, api, row, taken)


async def _follow(runner: Runner, api: BatchAPI, row: BatchRow, taken: Taken) -> None:
    """Poll the batch until it ends, then record its replies (or, told not to wait, leave it open)."""
    assert row.batch_id is not None
    shown = runner.batches[row.id] = BatchProgress(
        row.judge, row.batch_id, len(row.keys), submitted_at=row.submitted_at
    )
    runner._progress_dirty = True
    if not runner.wait_batches:
        return
    delay = BATCH_FIRST_POLL_S
    while True:
        await asyncio.sleep(delay)
        if runner._stopping:  # stopped (Ctrl-C, quit): the batch stays open for the next run to collect
            return
        delay = min(delay * 2, BATCH_MAX_POLL_S)
        try:
            state = await api.poll(row.batch_id)
        except BatchFailed as exc:  # tried again at the next poll, unless asking again will not help
            if exc.lasting:
                update_batch(runner.store, row.id, state="failed", status="poll refused")
                runner.batches.pop(row.id, None)
                _record(runner, api, taken, {}, f"batch {row.batch_id} could not be polled: {exc}")
                return
            continue
        shown.status, shown.done, shown.failed = state.status, state.done, state.failed
        runner._progress_dirty = True
        update_batch(runner.store, row.id, status=state.status, counts=(state.done, state.failed))
        if state.ended:
            break
    await _collect(runner, api, row, taken, state)


async def _collect(runner: Runner, api: BatchAPI, row: BatchRow, taken: Taken, state: BatchState) -> None:
    why = f"batch {row.batch_id} ended {state.status}"
    try:
        replies = {} if state.whole_failure else await api.results(state, row.keys)
    except BatchFailed as exc:
        replies, why = {}, f"{why}; its results could not be read: {exc}"
    _record(runner, api, taken, replies, f"{why}; no result for this request")
    update_batch(runner.store, row.id, state="failed" if state.whole_failure else "collected")
    runner.batches.pop(row.id, None)


def _record(
    runner: Runner, api: BatchAPI, taken: Taken, replies: dict[str, JudgeReply], missing: str
) -> None:
    """Each call's reply (a failure where the results have none), recorded like live answers; the budget's
    in-flight estimates end."""
    now = time.time()
    answered = [(call, replies.get(call.key) or failed_reply(api.judge, missing), now) for call, _ in taken]
    for _, estimate in taken:
        runner._acct.ended(estimate)
    runner._record_verdicts(api.judge, answered, paid=True)
    runner._settled.set()


async def cancel_open_batches(judges: dict[str, Judge], store: Store) -> list[str]:
    """Cancel every open batch in the store at its provider (its cancel endpoint) and let its calls go (the next
    run sends them); a line for each, said as it went."""
    said: list[str] = []
    for row in open_batches(store):
        judge = judges.get(row.judge)
        if row.batch_id is None or not isinstance(judge, LiveJudge) or not batched(judge):
            update_batch(store, row.id, state="failed", status="not cancellable here")
            said.append(
                one_line(f"{row.judge}: batch {row.batch_id or '(never submitted)'} dropped from the store")
            )
            continue
        try:
            await batch_api(judge).cancel(row.batch_id)
        except BatchFailed as exc:
            said.append(one_line(f"{row.judge}: batch {row.batch_id} could not be cancelled: {exc}"))
            continue
        update_batch(store, row.id, state="cancelled", status="cancelling")
        said.append(one_line(f"{row.judge}: batch {row.batch_id} cancelled ({len(row.keys)} requests freed)"))
    for judge in judges.values():
        await judge.aclose()
    return said
