"""The async, cache-first tournament run (docs/run.md says it in full).

`Runner(tournament, store).run()` takes the tournament's run lease (elotui.store.runs: one run per store at a
time), builds the judges and records a manifest; stores the plan; sends the missing generation and paraphrase
calls, stores the plan again with every key resolved; then sends every verdict call with no answer in the store,
in plan order, each claimed in the store first. Every reply is committed the moment it arrives, so Ctrl-C or
`kill -9` loses at most the calls in flight (replay and simulated judges without a delay answer for free:
unclaimed, in large transactions, each finished behind while the next batch is answered: FREE_BATCH). One queue
per endpoint, drained by `max_concurrency` workers; the judge layer adds rate limits and retries. `pause()`,
`resume()`, `stop(cancel=...)`. With `max_cost`, a call starts only if the cost so far, the calls in flight and
its own estimate stay within it (elotui.run.accounting). An endpoint whose calls keep failing with the same
lasting error is stopped for the run (elotui.run.breaker). The runner alone counts per endpoint (JudgeCounts) and
publishes copies in its Progress events and, once a second, in the store's heartbeat (`elotui watch`); events go
to `on_event`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections import deque
from collections.abc import Callable

from elotui.errors import StoreError
from elotui.judges.base import (
    Completion,
    Judge,
    JudgeReply,
    MayGiveUp,
    answers_free,
    concurrency,
)
from elotui.judges.offline import answers_now
from elotui.plan.calls import Call, endpoints
from elotui.plan.presentations import build_plan
from elotui.plan.prompts import PromptBuilder
from elotui.plan.verdict_calls import VerdictCalls
from elotui.records import JudgeCounts
from elotui.run.accounting import Accounting, RateMeter, progress_of
from elotui.run.batching import answering, batched, send_batches
from elotui.run.breaker import EndpointBreaker
from elotui.run.claiming import ClaimedCalls
from elotui.run.counting import RunCounting
from elotui.run.events import (
    BatchProgress,
    CallStarted,
    Event,
    JudgeStopped,
    Progress,
    RunFinished,
    RunStarted,
    RunState,
)
from elotui.run.prepare import prepare, replan, sends_all
from elotui.run.recording import (
    ask_completion,
    ask_verdict,
    completion_record,
    verdict_now,
    verdict_record,
    verdict_recorded,
)
from elotui.run.setup import JudgeFactory, build_judges, default_judge_factory, manifest, ready_judges
from elotui.runtime.checkpoints import Stopped, to_thread
from elotui.runtime.heap import collector_off, long_lived, thaw
from elotui.store import Store
from elotui.store.runs import HEARTBEAT_EVERY_S, heartbeat
from elotui.tournament.model import Tournament

PROGRESS_INTERVAL_S = 0.5
FREE_BATCH = 65_536  # calls a replay or simulated judge without a delay is given at a time (one worker)
FREE_YIELD_EVERY = 512  # ... letting the event loop (the TUI) run between every so many answers
FREE_COMMIT_S = 1.0  # ... and committing what it answered about once a second (and at the batch's end)
Answered = tuple[Call, JudgeReply, float]  # a verdict call, its reply, when it was sent


class Runner(RunCounting):
    def __init__(
        self,
        tournament: Tournament,
        store: Store,
        *,
        on_event: Callable[[Event], None] | None = None,
        max_cost: float | None = None,
        judge_factory: JudgeFactory | None = None,
        no_delay: bool = False,
        force: bool = False,
    ) -> None:
        super().__init__(on_event)
        self.tournament = tournament
        self.store = store
        self.force = force  # take over a live run's lease (elotui.store.runs)
        self.claims = ClaimedCalls(store)  # what is claimed, awaited, skipped; the lease's watchdog
        self._breakers = {
            jid: EndpointBreaker(c.stop_after_errors) for jid, c in endpoints(tournament).items()
        }
        self.stopped_judges: list[JudgeStopped] = []
        self._settled = asyncio.Event()  # a call in flight ended: a call the budget held back may go now
        self._queues: dict[str, deque[Call]] = {}  # the calls each endpoint's workers take (in `_execute`)
        self.max_cost = max_cost if max_cost is not None else tournament.spec.comparison.max_cost
        self.judge_factory = judge_factory or default_judge_factory(tournament, no_delay=no_delay)
        self.plan = build_plan(tournament)
        self.builder = PromptBuilder(tournament)
        self.total = self.plan.total_calls
        self.done = self.cached = self.failed = self.invalid = self.in_flight = 0
        self.run_id: int | None = None
        self._ledgers: dict[str, JudgeCounts] = {jid: JudgeCounts() for jid in endpoints(tournament)}
        self.judges: dict[str, Judge] = {}
        self._acct = Accounting()
        self._failures: list[str] = []
        self._meter = RateMeter()
        self._last_progress = 0.0
        self._progress_dirty = True
        self.adaptive_status: str | None = None  # plan = "adaptive" (elotui.run.adaptive_run)
        self.batches: dict[int, BatchProgress] = {}  # the open batches of batch judges, by store row
        self.wait_batches = True  # False (`--no-wait`): submit the batches and end; a later run collects them

    # --- the run ------------------------------------------------------------------------------------------

    async def run(self) -> RunFinished:
        if not self.plan.comparisons:  # a second run of this runner: the first let them go (below)
            self.plan = build_plan(self.tournament)
        self.judges = build_judges(self.tournament, self.judge_factory, self._observer)
        final_state: RunState = "stopped"
        ticker: asyncio.Task[None] | None = None
        try:
            self.run_id = self.store.start_run(  # a lease long enough to prepare (elotui.store.runs)
                manifest(self.tournament, self.judges, self.builder, self.plan, self.max_cost),
                force=self.force,
                comparisons=len(self.plan.comparisons),
            )
            # Planned in a thread: the loop (the TUI) runs on; a stop ends it at its next checkpoint. Popped: the
            # finished future keeps its result.
            prereqs, verdicts, answered = (await to_thread(self._prepare, stop=self._halt)).pop()
            self._emit(RunStarted(total=self.total, cached=self.cached, run_id=self.run_id))
            self._set_state("paused" if self.paused else "running", "started", force=True)
            ticker = asyncio.create_task(self._tick())
            self._meter.new_phase()
            pending_prereqs = [c for c in prereqs if c.key not in answered]
            if pending_prereqs:
                verdicts, answered = await self._produce_texts(pending_prereqs, prereqs)
            if not sends_all(self.tournament) and not self.stopping:
                from elotui.run.screening import run_partial  # adaptive planning or screening

                self.adaptive_status = await run_partial(self, verdicts, answered)
            elif not self.stopping:
                pending = [c for c in verdicts.calls if c.key not in answered]
                del verdicts  # the plan is stored: its rows and answered calls go (10^6 rows: ~300 MB)
                await self._execute(pending, release=True)
            final_state = "stopped" if self._stopping else "budget" if self._budget_hit else "finished"
        except Stopped:  # stopped while it prepared (elotui.runtime.checkpoints): what it began is undone
            final_state = "stopped"
        except (asyncio.CancelledError, KeyboardInterrupt):
            final_state = "stopped"
            raise
        finally:
            await self._close(ticker, final_state)
            # The comparisons go (`total` keeps their count): a process that keeps the runner (the TUI) would keep
            # 10^6 objects that every full collection walks once thawed (~200 ms, now and then after a key).
            self.plan = dataclasses.replace(self.plan, comparisons=())
            thaw()  # what the run froze (elotui.runtime.heap), foreign objects included, is collectable again
        self._emit_progress(force=True)
        result = RunFinished(
            state=final_state,
            done=self.done,
            total=self.total,
            failed=list(self._failures),
            cost=self._acct.cost,
            adaptive=self.adaptive_status,
            run_cost=self._acct.run_cost,
            failed_calls=self.failed,
            invalid=self.invalid,
            stopped_judges=list(self.stopped_judges),
        )
        self._set_state(final_state, "run ended")
        self._emit(result)
        return result

    async def execute(self, calls: list[Call]) -> None:  # the adaptive loop's batches (see _execute)
        await self._execute(calls)
        self._emit_progress(force=True)

    def _prepare(self) -> list[tuple[list[Call], VerdictCalls, set[str]]]:
        """The prerequisite and verdict calls, the plan stored (or reused: elotui.run.prepare), and which calls
        the store already answered (in a list of one, for the caller to take out); the judges with calls to answer
        read their logs meanwhile."""
        with long_lived():
            t, read_ahead = self.tournament, sends_all(self.tournament)
            ready = prepare(t, self.plan, self.builder, self.judges, self.store, read_ahead=read_ahead)
        self.cached = self.done = ready.cached
        self._acct.cost = self.store.recorded_cost(c.key for c in ready.prereqs) + self.store.plan_cost()
        return [(ready.prereqs, ready.verdicts, ready.answered)]

    async def _produce_texts(self, pending: list[Call], prereqs: list[Call]) -> tuple[VerdictCalls, set[str]]:
        """Send the missing generation and paraphrase calls, then plan and store again with every key resolved (in
        a thread, as at the start: the loop, its heartbeat and the TUI run on; a stop ends it)."""
        await self._execute(pending)
        parts = self.tournament, self.plan, self.builder, self.judges, self.store
        verdicts, answered, rows = (await to_thread(lambda: [replan(*parts, prereqs)], stop=self._halt)).pop()
        self.done += rows  # e.g. the same text was judged before under another generation
        self.cached += rows
        for key, count in verdicts.blocked.items():  # waiting for a generation/paraphrase that failed
            self.failed += count
            self._failures.append(f"{count} comparison(s) not judged: prerequisite call {key[:12]} failed")
        return verdicts, answered

    async def _close(self, ticker: asyncio.Task[None] | None, final_state: RunState) -> None:
        if ticker is not None:
            ticker.cancel()
        for task in self._workers:
            task.cancel()
        if self.run_id is not None:
            with contextlib.suppress(StoreError):  # a full disk: the error that stopped the run is reported
                self.store.finish_run(self.run_id, final_state, dataclasses.asdict(self.progress()))
        for judge in self.judges.values():  # closing a client must not hide the run's outcome
            with contextlib.suppress(Exception):
                await judge.aclose()

    async def _execute(self, calls: list[Call], *, release: bool = False) -> None:
        """Send `calls` through one queue per endpoint. `release`: empty `calls` once queued, so that each call is
        freed when it is answered (a 10^6-call run does not hold every call to its end)."""
        queues = self._queues = {}
        for call in calls:
            queues.setdefault(call.judge, deque()).append(call)
        if release:
            calls.clear()
        queues.update({j: deque() for j, judge in self.judges.items() if batched(judge) and j not in queues})
        await ready_judges((self.judges[jid] for jid in queues), self._halt)  # a log: read now, off the loop
        self._workers = [
            asyncio.create_task(self._worker(jid, queue))
            for jid, queue in queues.items()
            if not batched(self.judges[jid])
            for _ in range(min(concurrency(self.judges[jid]), len(queue)))
        ]
        self._workers += [  # a batch judge's queue goes as batches (elotui.run.batching)
            asyncio.create_task(send_batches(self, jid, queue))
            for jid, queue in queues.items()
            if batched(self.judges[jid])
        ]
        try:
            results = await asyncio.gather(*self._workers, return_exceptions=True)
        finally:
            self._workers = []
        for result in results:  # a worker cancelled by stop(cancel=True) is fine; a bug is not
            if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                raise result
        await self.claims.wait(
            self._claimed, answering(self, self._answer), self.judges, lambda: self.stopping
        )  # others' calls

    async def _worker(self, jid: str, queue: deque[Call]) -> None:
        """Take calls off the endpoint's queue, claim, send and record them one at a time; a replay or simulated
        judge without a delay answers for free: FREE_BATCH calls at a time, unclaimed (see `_answer`)."""
        judge = self.judges[jid]
        free = answers_free(judge)
        try:
            await self._drain(jid, judge, free, queue)
        finally:
            if free:  # the last commit, finished behind, is over (a failure said) before the run ends
                self.store.settle()

    async def _drain(self, jid: str, judge: Judge, free: bool, queue: deque[Call]) -> None:
        breaker = self._breakers[jid]
        gives_up = judge if isinstance(judge, MayGiveUp) else None  # a capability the judge declares (base)
        while queue:
            await self._resume.wait()
            if self._stopping or self._budget_hit or not queue:
                return
            if gives_up is not None and gives_up.unreachable:
                breaker.stop(gives_up.unreachable)
            if free:  # FREE_BATCH pairs: see `_answer`
                with collector_off():
                    taken = self._take(queue, judge, FREE_BATCH)
                if taken:
                    await self._answer(judge, taken, free)
                elif not await self._held_back():
                    return
            elif not await breaker.admit():  # stopped: its calls are left unsent (the next run tries them)
                if not self._ledgers[
                    jid
                ].in_flight:  # said once its calls in flight are back, each one counted
                    self._give_up_on(jid, breaker, queue)
                return
            else:
                try:
                    if not await self._send_one(judge, queue):
                        return
                finally:
                    breaker.done()

    async def _send_one(self, judge: Judge, queue: deque[Call]) -> bool:
        """Claim and send the next call of the queue, if the run goes on and its budget allows it (when only calls
        in flight hold it back, wait for one of them to end first); False: this worker is done."""
        if self._stopping or self._budget_hit or not queue:
            return False
        if self.paused:  # paused while it waited for the breaker: back to wait for `resume`
            return True
        taken = self._take(queue, judge, 1)
        if taken:
            await self._answer(judge, self._claimed(taken), False)
            return True
        return await self._held_back()

    async def _held_back(self) -> bool:
        """No call fitted the budget: False when it is reached, else (only calls in flight held it back) True once
        one of them has ended."""
        if self._budget_hit:
            return False
        self._settled.clear()
        await self._settled.wait()
        return True

    async def _answer(self, judge: Judge, taken: list[tuple[Call, float]], free: bool) -> None:
        """Send the calls and record the verdicts: together at the end, or, for free answers, about once a
        second (committing 10^4-10^5 rows at once: a transaction per 10^3 rewrites the random-key index pages
        each time), the event loop let run every FREE_YIELD_EVERY calls, a pause or stop honoured there. Free
        answers are made with the collector off, then frozen (elotui.runtime.heap.long_lived), before the loop runs others
        with it on: a 10^6-verdict replay's collections took 4.0 s, 0.66 s unfrozen, 0.04 s now."""
        answered: list[Answered] = []
        began, now, n = time.monotonic(), answers_now(judge), 0
        while n < len(taken):
            call, estimate = taken[n]
            if now is not None and call.kind == "verdict":  # at once, up to the next turn of the loop
                with long_lived():  # (elotui.run.recording.verdict_now)
                    stop = min(len(taken), (n // FREE_YIELD_EVERY + 1) * FREE_YIELD_EVERY)
                    while n < stop and (call := taken[n][0]).kind == "verdict":
                        started_at = self._started(call)
                        answered.append((call, verdict_now(now, call), started_at))
                        n += 1
            else:
                n += 1
                self._acct.sent(estimate)
                try:
                    got = await self._send(judge, call)
                finally:
                    self._acct.ended(estimate)
                    self._settled.set()
                if got is not None:
                    answered.append(got)
            if free and n % FREE_YIELD_EVERY == 0:
                await asyncio.sleep(0)
                if self._stopping or self.paused or time.monotonic() - began >= FREE_COMMIT_S:
                    with collector_off():
                        self._record_verdicts(judge, answered, paid=False, behind=self._going_on())
                    answered, began = [], time.monotonic()
                    await self._resume.wait()
                if self._stopping:
                    return
        with collector_off() if free else contextlib.nullcontext():
            self._record_verdicts(judge, answered, paid=not free, behind=free and self._going_on())

    def _take(self, queue: deque[Call], judge: Judge, batch: int) -> list[tuple[Call, float]]:
        """Up to `batch` calls off the queue with their cost estimates (none needed without a budget: 0), as long
        as the budget allows them (elotui.run.accounting.Accounting.take); none, and the budget reached, when the
        next call does not fit with nothing in flight."""
        if self.max_cost is None:
            return [(queue.popleft(), 0.0) for _ in range(min(batch, len(queue)))]
        taken, over = self._acct.take(queue, judge.id, judge.config, batch, self.max_cost)
        if over is not None:
            self._over_budget(over, self.max_cost)
        return taken

    def _give_up_on(self, jid: str, breaker: EndpointBreaker, queue: deque[Call]) -> None:
        """A stopped endpoint: said once, in one line; its calls left unsent (unrecorded: the next run tries them)."""
        left = sum(c.rows for c in queue)
        queue.clear()
        if not any(s.judge == jid for s in self.stopped_judges):
            stopped = breaker.stopped(jid, left)
            self.stopped_judges.append(stopped)
            self._emit(stopped)

    async def _send(self, judge: Judge, call: Call) -> Answered | None:
        """Ask for one call; a completion is recorded at once, a verdict returned for `_record_verdicts`."""
        ledger = self._ledgers[call.judge]
        self.in_flight += 1
        ledger.in_flight += 1
        started_at = self._started(call)
        try:
            if call.kind == "verdict":
                reply = await ask_verdict(judge, call)
            else:
                completion = await ask_completion(judge, call)
        finally:
            self.in_flight -= 1
            ledger.in_flight -= 1
        answer = reply if call.kind == "verdict" else completion
        if answer.given_back:  # unsent: the judge stopped (`_give_up_on` counts it)
            self._queues[call.judge].append(call)
            return None
        if call.kind == "verdict":
            return call, reply, started_at
        self._record_completion(judge, call, completion, started_at)
        return None

    def _started(self, call: Call) -> float:
        """When a call is sent, said to a subscriber of per-call events."""
        self._progress_dirty = True
        if self._per_call:
            self._emit(CallStarted(call.key, call.judge, call.kind, call.presentation))
        return time.time()

    def _record_verdicts(
        self, judge: Judge, answered: list[Answered], paid: bool, *, behind: bool = False
    ) -> None:
        """Commit the verdicts in one transaction (paid ones into the shared cache too), count them, tell.
        `behind`: free answers whose commit ends in the store's helper thread (Store.record_calls)."""
        records = [verdict_record(judge, c, r, t, self.run_id) for c, r, t in answered]
        self.store.record_calls(records, claimed=paid, share=paid, behind=behind)
        if not behind:
            self.store.settle()  # a write finished behind before this one failed: said now, not at the end
        for call, reply, _ in answered:
            if self._count(call, reply) and self._per_call and (told := verdict_recorded(call, reply)):
                self._emit(told)
        self._emit_progress()

    def _record_completion(self, judge: Judge, call: Call, reply: Completion, started_at: float) -> None:
        text = (reply.text or "").strip() or None
        self.store.record_call(completion_record(judge, call, reply, started_at, self.run_id))
        if call.kind == "generation" and text and reply.status == "ok":
            self.store.put_text(call.key, "generation", text, prompt=call.prompt, contestant=call.contestant)
        self._count(call, reply)
        self._emit_progress()

    # --- events -------------------------------------------------------------------------------------------

    async def _tick(self) -> None:
        last_beat = 0.0
        while True:
            asleep = time.monotonic()
            await asyncio.sleep(PROGRESS_INTERVAL_S)
            self._emit_progress()
            now = time.monotonic()
            self.claims.watch(self.run_id, now - asleep - PROGRESS_INTERVAL_S, self.lose_lease)  # (overslept)
            since, run_id = now - last_beat, self.run_id
            if run_id is None or since < HEARTBEAT_EVERY_S:
                continue  # (a beat that meets a write finished behind is queued after it: runs.heartbeat)
            last_beat = now
            heartbeat(self.store, run_id, self.state, dataclasses.asdict(self.progress()), self.claims.fenced)

    def progress(self) -> Progress:
        return progress_of(self)

    def _emit_progress(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and (not self._progress_dirty or now - self._last_progress < PROGRESS_INTERVAL_S):
            return
        self._last_progress = now
        self._progress_dirty = False
        self._emit(self.progress())
