"""Free answers (a simulated or replay judge without a delay) go in large transactions, sent by one worker that
lets the event loop run every FREE_YIELD_EVERY calls; a pause or stop is honoured inside a batch, and what a
stopped run answered is exactly what the next run does not ask again."""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from elotui.judges.replay import ReplayJudge
from elotui.run import runner as runner_module
from elotui.run.events import Event, VerdictRecorded
from elotui.run.runner import Runner
from elotui.store import Store
from elotui.tournament.model import load_tournament
from tests.run.fakes import write_tournament

CONTESTANTS = [f"c{i}" for i in range(12)]
PROMPTS = {f"p{i}": f"question {i}" for i in range(15)}
TOTAL = 12 * 11 * 15  # both orders


def simulated(tmp_path: Path, delay_ms: float = 0.0):  # type: ignore[no-untyped-def]
    judge = {
        "id": "sim",
        "provider": "simulated",
        "max_concurrency": 16,
        "delay_ms": delay_ms,
        "simulation": {
            "noise": 40.0,
            "seed": 3,
            "qualities": {c: 1000.0 + 20 * i for i, c in enumerate(CONTESTANTS)},
        },
    }
    return load_tournament(
        write_tournament(tmp_path / "t.toml", contestants=CONTESTANTS, prompts=PROMPTS, judges=[judge])
    )


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Yield every 64 calls and commit at every yield; returns the sizes of the transactions."""
    monkeypatch.setattr(runner_module, "FREE_YIELD_EVERY", 64)
    monkeypatch.setattr(runner_module, "FREE_COMMIT_S", 0.0)
    sizes: list[int] = []
    record = Store.record_calls

    def spy(self, records, **kw):  # type: ignore[no-untyped-def]
        sizes.append(len(records))
        return record(self, records, **kw)

    monkeypatch.setattr(Store, "record_calls", spy)
    return sizes


async def test_free_answers_commit_in_large_transactions_and_let_the_loop_run(
    tmp_path: Path, small_batches: list[int]
) -> None:
    turns = 0

    async def other_task() -> None:  # what the TUI's event loop must keep doing during an ingest
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    with Store(tmp_path / "s.sqlite") as store:
        ticker = asyncio.create_task(other_task())
        result = await Runner(simulated(tmp_path), store).run()
        ticker.cancel()
        assert result.state == "finished" and result.done == TOTAL
        assert sum(small_batches) == TOTAL and max(small_batches) == 64  # a commit at every yield here
        assert turns >= TOTAL // 64  # the loop ran at each of them
        assert sum(1 for v in store.plan_verdicts() if v.status in ("ok", "invalid")) == TOTAL


async def test_one_transaction_per_second_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sizes: list[int] = []
    record = Store.record_calls
    monkeypatch.setattr(
        Store, "record_calls", lambda self, r, **kw: (sizes.append(len(r)), record(self, r, **kw))[1]
    )
    with Store(tmp_path / "s.sqlite") as store:
        assert (await Runner(simulated(tmp_path), store).run()).done == TOTAL
    assert sum(sizes) == TOTAL and len(sizes) <= 3  # 1,980 calls take well under a second or two


@pytest.mark.parametrize("how", ["stop", "pause"])
async def test_a_stop_or_pause_inside_a_batch_is_honoured(
    tmp_path: Path, small_batches: list[int], how: str
) -> None:
    t = simulated(tmp_path)
    with Store(tmp_path / "s.sqlite") as store:
        runner: Runner
        told: list[str] = []

        def on_event(event: Event) -> None:  # at the first verdict recorded, once
            if isinstance(event, VerdictRecorded) and not told:
                told.append(how)
                runner.stop() if how == "stop" else runner.pause()

        runner = Runner(t, store, on_event=on_event)
        task = asyncio.create_task(runner.run())
        if how == "stop":
            result = await task
            assert result.state == "stopped" and result.done == 64  # the first transaction, nothing after
        else:
            while not runner.paused:
                await asyncio.sleep(0)
            for _ in range(200):
                await asyncio.sleep(0)
            assert sum(small_batches) == 64  # paused: nothing sent since
            runner.resume()
            assert (await task).done == TOTAL
        answered = {v for v in store.plan_verdicts() if v.status != "missing"}
        assert len(answered) == sum(small_batches)
        rerun = Runner(t, store)  # the next run asks exactly for the rest
        assert (await rerun.run()).done == TOTAL and rerun.cached == len(answered)
    with Store(tmp_path / "fresh.sqlite") as fresh:  # and ends where one uninterrupted run ends
        await Runner(t, fresh).run()
        with Store(tmp_path / "s.sqlite") as store:
            assert store.plan_verdicts() == fresh.plan_verdicts()


async def test_the_plan_is_let_go_while_calls_are_sent(
    tmp_path: Path, small_batches: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the plan is stored its rows are not held (nor by the planning thread's finished future), and a call
    answered is not held either: at the last transaction only the last batch's calls are alive."""
    import gc

    monkeypatch.setattr(runner_module, "FREE_BATCH", 128)
    from elotui.plan.calls import Call
    from elotui.plan.verdict_calls import VerdictCalls
    from elotui.records import PlanRow

    seen: list[tuple[int, int, int]] = []
    record = Store.record_calls
    kinds = (VerdictCalls, PlanRow, Call)

    def alive() -> list[object]:
        gc.unfreeze()  # the run freezes what it plans: frozen objects are not listed
        try:
            return [o for o in gc.get_objects() if isinstance(o, kinds)]
        finally:
            gc.freeze()

    before = {id(o): o for o in alive()}  # what other tests left (held here, so no id is reused)

    def census(self, records, **kw):  # type: ignore[no-untyped-def]
        new = [o for o in alive() if id(o) not in before]
        seen.append(tuple(sum(1 for o in new if isinstance(o, kind)) for kind in kinds))  # type: ignore[arg-type]
        return record(self, records, **kw)

    with Store(tmp_path / "s.sqlite") as store:
        Store.record_calls = census  # type: ignore[method-assign]
        try:
            assert (await Runner(simulated(tmp_path), store).run()).done == TOTAL
        finally:
            Store.record_calls = record  # type: ignore[method-assign]
    assert len(seen) >= TOTAL // 64
    assert all(plans == 0 and rows == 0 for plans, rows, _ in seen)
    assert seen[-1][2] <= 128 and seen[0][2] >= TOTAL - 128  # the calls go as they are answered


async def test_a_progress_only_subscriber_gets_no_per_call_events(tmp_path: Path) -> None:
    """`per_call = False` (the headless progress line): no CallStarted or VerdictRecorded is made for it; the
    progress events still come and the run records the same."""
    from elotui.run.events import CallStarted, Progress

    class ProgressOnly:
        per_call = False

        def __init__(self) -> None:
            self.kinds: set[type] = set()

        def __call__(self, event: Event) -> None:
            self.kinds.add(type(event))

    quiet, everything = ProgressOnly(), []
    with Store(tmp_path / "a.sqlite") as a, Store(tmp_path / "b.sqlite") as b:
        assert (await Runner(simulated(tmp_path), a, on_event=quiet).run()).done == TOTAL
        assert (await Runner(simulated(tmp_path), b, on_event=everything.append).run()).done == TOTAL
        assert a.plan_verdicts() == b.plan_verdicts()
    assert Progress in quiet.kinds and not quiet.kinds & {CallStarted, VerdictRecorded}
    assert sum(isinstance(e, VerdictRecorded) for e in everything) == TOTAL


async def test_a_full_disk_while_batches_end_behind_stops_the_run_and_the_next_resumes(
    tmp_path: Path, small_batches: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Free batches end (answers rows, commit) behind the runner; a full disk there (SQLite's own SQLITE_FULL: the
    file capped a few pages above the stored plan) stops the run with the error, not "finished"; what was
    committed stays, and the next run, with room again, ends where an uninterrupted run ends."""
    from elotui.errors import StoreError

    behind: list[bool] = []
    spied = Store.record_calls

    def spy(self, records, **kw):  # type: ignore[no-untyped-def]
        behind.append(kw.get("behind", False))
        return spied(self, records, **kw)

    monkeypatch.setattr(Store, "record_calls", spy)
    set_plan = Store.set_plan

    def capped(self, rows, fingerprint=None, **kw):  # type: ignore[no-untyped-def]
        set_plan(self, rows, fingerprint, **kw)
        self.settle()  # the plan's end, written behind, is over
        pages = self._conn.execute("PRAGMA page_count").fetchone()[0]
        self._conn.execute(f"PRAGMA max_page_count = {pages + 40}")

    t = simulated(tmp_path)
    with Store(tmp_path / "s.sqlite") as store:
        monkeypatch.setattr(Store, "set_plan", capped)
        with pytest.raises(StoreError, match="no space left on the device"):
            await Runner(t, store).run()
        monkeypatch.setattr(Store, "set_plan", set_plan)
    assert sum(behind) >= 2  # batches did end behind before the disk filled
    with Store(tmp_path / "s.sqlite") as store:
        kept = sum(1 for v in store.plan_verdicts() if v.status != "missing")
        assert 0 < kept < TOTAL
        from elotui.store.runs import LEASE_S, reap

        reap(store, now=__import__("time").time() + LEASE_S + 1)  # the failed run's lease, lapsed
        rerun = Runner(t, store)
        assert (await rerun.run()).done == TOTAL and rerun.cached == kept
        with Store(tmp_path / "fresh.sqlite") as fresh:
            await Runner(t, fresh).run()
            assert store.plan_verdicts() == fresh.plan_verdicts()


async def test_the_heartbeat_comes_at_its_interval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run beats at its interval, never put off (a beat that meets a write being finished behind is queued
    after it, without waiting: runs.heartbeat, tests/foundation/test_store.py)."""
    import time

    monkeypatch.setattr(runner_module, "PROGRESS_INTERVAL_S", 0.02)
    monkeypatch.setattr(runner_module, "HEARTBEAT_EVERY_S", 0.1)
    beats: list[float] = []
    real = runner_module.heartbeat
    monkeypatch.setattr(
        runner_module, "heartbeat", lambda *a, **kw: (beats.append(time.monotonic()), real(*a, **kw))[1]
    )
    t = simulated(tmp_path, delay_ms=10.0)  # a run of about a second and a half (16 calls at a time)
    with Store(tmp_path / "s.sqlite") as store:
        assert (await Runner(t, store).run()).done == TOTAL
    gaps = [b - a for a, b in itertools.pairwise(beats)]
    assert len(beats) >= 3
    assert min(gaps) >= 0.1 - 0.02 and sorted(gaps)[len(gaps) // 2] < 0.2


async def test_a_free_judge_is_answered_at_once_with_the_verdicts_its_calls_would_give(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a delay a free judge's verdicts are taken from its `answer` at once (no coroutine per call:
    elotui.run.recording.verdict_now); with one, each is sent through `judge`. Both record the same verdicts and
    tell the same per-call events, with a latency for each."""
    from elotui.run.events import CallStarted

    at_once: list[str] = []
    now = runner_module.verdict_now
    monkeypatch.setattr(runner_module, "verdict_now", lambda a, c: (at_once.append(c.key), now(a, c))[1])
    stores, told = [], []
    for delay in (0.0, 0.01):
        events: list[Event] = []
        (tmp_path / f"d{delay}").mkdir()
        store = Store(tmp_path / f"d{delay}.sqlite")
        stores.append(store)
        result = await Runner(simulated(tmp_path / f"d{delay}", delay), store, on_event=events.append).run()
        assert result.done == TOTAL
        told.append([sum(isinstance(e, kind) for e in events) for kind in (CallStarted, VerdictRecorded)])
        assert all(e.latency_ms is not None for e in events if isinstance(e, VerdictRecorded))
        assert len(at_once) == TOTAL  # every call of the first run, none of the delayed one
        assert all(c.latency_ms is not None for c in store.calls())
    try:
        assert stores[0].plan_verdicts() == stores[1].plan_verdicts()
        assert told[0] == told[1] == [TOTAL, TOTAL]
    finally:
        for store in stores:
            store.close()


def test_a_judge_that_raises_when_asked_at_once_fails_the_call_as_when_sent() -> None:
    from elotui.judges.base import JudgeRequest, Presentation
    from elotui.plan.calls import Call
    from elotui.run.recording import ask_verdict, verdict_now

    class Raising:
        async def judge(self, request: JudgeRequest) -> None:
            raise RuntimeError("boom")

        def answer(self, request: JudgeRequest) -> None:
            raise RuntimeError("boom")

    call = Call("k", "verdict", "j", ("s",), ("u",), Presentation("p", "a", "b"))
    sent = asyncio.run(ask_verdict(Raising(), call))  # type: ignore[arg-type]
    taken = verdict_now(Raising().answer, call)  # type: ignore[arg-type]
    assert taken == sent and taken.status == "error" and taken.error == "RuntimeError: boom"


def _spy_answers(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether the collector was on at each free answer made (elotui.run.recording.verdict_now), in order."""
    import gc

    answering: list[bool] = []
    answer = runner_module.verdict_now

    def answer_spy(now, call):  # type: ignore[no-untyped-def]
        answering.append(gc.isenabled())
        return answer(now, call)

    monkeypatch.setattr(runner_module, "verdict_now", answer_spy)
    return answering


async def _between_stretches(answering: list[bool], probe: Callable[[], object], seen: list[Any]) -> None:
    """`probe()` noted each time the event loop runs others while the answers are being made (a task to cancel)."""
    while True:
        if 0 < len(answering) < TOTAL:
            seen.append(probe())
        await asyncio.sleep(0)


async def test_free_answers_are_made_and_recorded_with_the_collector_off_and_the_loop_runs_with_it_on(
    tmp_path: Path, small_batches: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Free answers are made, taken off the queue and committed with Python's cyclic collector off (elotui.runtime.heap:
    a million records and no cycles), but whatever else the event loop runs between two of its stretches (the
    TUI) runs with it on, and it is on again when the run is over. (While the plan is made in its thread, the
    collector is off throughout: elotui.runtime.heap.long_lived.)"""
    import gc

    answering = _spy_answers(monkeypatch)
    recording: list[bool] = []
    others: list[bool] = []  # while the calls are answered
    record = Store.record_calls

    def record_spy(self, records, **kw):  # type: ignore[no-untyped-def]
        recording.append(gc.isenabled())
        return record(self, records, **kw)

    monkeypatch.setattr(Store, "record_calls", record_spy)
    assert gc.isenabled()
    with Store(tmp_path / "s.sqlite") as store:
        ticker = asyncio.create_task(_between_stretches(answering, gc.isenabled, others))
        result = await Runner(simulated(tmp_path), store).run()
        ticker.cancel()
    assert result.state == "finished" and result.done == TOTAL
    assert len(answering) == TOTAL and not any(answering)
    assert len(recording) >= TOTAL // 64 and not any(recording)
    assert len(others) >= TOTAL // 64 and all(others)
    assert gc.isenabled()


async def test_what_free_answers_make_is_frozen_before_the_loop_runs_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replies and records a stretch of free answers makes are frozen (elotui.runtime.heap.long_lived) before the loop
    runs others with the collector on: otherwise every stretch hands the collector its thousands of young objects
    to walk (0.66 s of collections in a 10^6-verdict replay, 0.04 s frozen). They are thawed with the run's end."""
    import gc

    answering = _spy_answers(monkeypatch)
    frozen: list[int] = []  # the frozen objects' count, seen between two stretches of answers
    with Store(tmp_path / "s.sqlite") as store:
        ticker = asyncio.create_task(_between_stretches(answering, gc.get_freeze_count, frozen))
        result = await Runner(simulated(tmp_path), store).run()
        ticker.cancel()
    assert result.state == "finished" and result.done == TOTAL
    stretches = len(
        set(frozen)
    )  # the answers, kept until recorded at the batch's end, are not freed meanwhile
    assert stretches >= TOTAL // runner_module.FREE_YIELD_EVERY - 1
    assert frozen == sorted(frozen)
    assert frozen[-1] - frozen[0] >= (stretches - 1) * runner_module.FREE_YIELD_EVERY  # an object per answer
    assert gc.get_freeze_count() == 0  # thawed


def _replay_world(tmp_path: Path) -> Path:
    """A tournament of two prompts and one replay judge with a verdict for each of its four presentations."""
    log = tmp_path / "log.jsonl"
    rows = [(p, x, y) for p in ("p1", "p2") for x, y in (("a", "b"), ("b", "a"))]
    log.write_text(
        "".join(
            f'{{"prompt": "{p}", "first": "{x}", "second": "{y}", "judge": "r", "winner": "first"}}\n'
            for p, x, y in rows
        )
    )
    judge = {"id": "r", "provider": "replay", "path": "log.jsonl"}
    return write_tournament(tmp_path / "t.toml", contestants=["a", "b"], judges=[judge])


async def test_a_replay_log_is_read_off_the_event_loop_which_runs_on_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a 10^6-verdict log takes seconds: the TUI's event loop must not stop for it."""
    t = load_tournament(_replay_world(tmp_path))
    reading, turned = threading.Event(), threading.Event()
    readers: list[int] = []
    loop_turned_while_reading: list[bool] = []
    read = ReplayJudge.prepare

    def prepare(self: ReplayJudge) -> None:
        readers.append(threading.get_ident())
        reading.set()
        loop_turned_while_reading.append(turned.wait(2.0))
        read(self)

    monkeypatch.setattr(ReplayJudge, "prepare", prepare)

    async def other_task() -> None:  # the TUI
        while True:
            if reading.is_set():
                turned.set()
            await asyncio.sleep(0.001)

    with Store(tmp_path / "s.sqlite") as store:
        ticker = asyncio.create_task(other_task())
        result = await Runner(t, store).run()
        ticker.cancel()
    assert result.state == "finished" and result.done == result.total == 4
    # read in the planning thread (while the plan's end is written behind), then asked again before the first
    # call, which finds it read: never on the loop's thread, which turned meanwhile each time
    assert loop_turned_while_reading and all(loop_turned_while_reading)
    assert readers and threading.get_ident() not in readers


async def test_a_replay_log_is_read_while_the_plans_end_is_written_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan's key index, snapshot and commit (seconds of SQLite work at 10^6 rows, without Python's lock) are
    written behind while the replay judge reads its log (seconds of Python work), not one after the other."""
    from elotui.store import plan_table

    t = load_tournament(_replay_world(tmp_path))
    log_read = threading.Event()
    read_during_end: list[bool] = []
    read, end = ReplayJudge.prepare, plan_table.write_end

    def prepare(self: ReplayJudge) -> None:
        log_read.set()
        read(self)

    def write_end(*args: object) -> None:  # waits for the log read to start, at most 5 s
        read_during_end.append(log_read.wait(5.0))
        end(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(ReplayJudge, "prepare", prepare)
    monkeypatch.setattr(plan_table, "write_end", write_end)
    with Store(tmp_path / "s.sqlite") as store:
        result = await Runner(t, store).run()
        assert [v.status for v in store.plan_verdicts()] == ["ok"] * 4
    assert result.state == "finished" and result.done == result.total == 4
    assert read_during_end == [True]


async def test_a_judge_whose_calls_are_all_answered_reads_nothing_when_an_edited_tournament_is_planned_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit that changes no call (here the ranking threshold) makes the plan be computed and stored again; the
    answered calls are known before it is stored, so the replay judge, with nothing to answer, reads no log."""
    toml = _replay_world(tmp_path)
    reads: list[str] = []
    read = ReplayJudge.prepare

    def prepare(self: ReplayJudge) -> None:
        reads.append(self.id)
        read(self)

    monkeypatch.setattr(ReplayJudge, "prepare", prepare)
    with Store(tmp_path / "s.sqlite") as store:
        first = await Runner(load_tournament(toml), store).run()
        assert first.done == 4 and reads
        fingerprint = store.plan_fingerprint()
        reads.clear()
        toml.write_text(
            toml.read_text(encoding="utf-8") + "\n[ranking]\nthreshold = 0.75\npermutations = 7\n",
            encoding="utf-8",
        )
        again = await Runner(load_tournament(toml), store).run()
        assert store.plan_fingerprint() != fingerprint  # planned and stored again
        assert [v.status for v in store.plan_verdicts()] == ["ok"] * 4
    assert again.state == "finished" and again.done == again.total == 4
    assert reads == []


async def test_a_full_disk_while_the_plans_end_is_written_behind_stops_the_run_and_the_next_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan's end fails behind (a full disk): the run stops with the store's message (not a crash), nothing of
    the plan is half-stored, and the next run, with room again, plans and answers everything."""
    import sqlite3

    from elotui.errors import StoreError
    from elotui.store import plan_table

    t = load_tournament(_replay_world(tmp_path))
    end = plan_table.write_end

    def full(*args: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    with Store(tmp_path / "s.sqlite") as store:
        monkeypatch.setattr(plan_table, "write_end", full)
        with pytest.raises(StoreError, match="no space left on the device"):
            await Runner(t, store).run()
        monkeypatch.setattr(plan_table, "write_end", end)
    with Store(tmp_path / "s.sqlite") as store:
        assert store.plan() == [] and store.plan_fingerprint() is None  # rolled back whole
        from elotui.store.runs import LEASE_S, reap

        reap(store, now=__import__("time").time() + LEASE_S + 1)  # the failed run's lease, lapsed
        result = await Runner(t, store).run()
        assert [v.status for v in store.plan_verdicts()] == ["ok"] * 4
    assert result.state == "finished" and result.done == result.total == 4
