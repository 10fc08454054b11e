"""Work in a thread stops at its next checkpoint once its awaiting task is cancelled or its stop event is set, and
only there: code not run through `checkpoints.to_thread` never stops."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from elotui.runtime.checkpoints import EVERY, Stopped, checkpoint, to_thread
from elotui.verdict_log import read_verdicts


def _loop_until_stopped(started: threading.Event, outcome: list[str]) -> None:
    """Checks in a loop for at most ~5 s; notes whether a checkpoint stopped it."""
    started.set()
    try:
        for _ in range(50_000):
            checkpoint()
            threading.Event().wait(0.0001)
    except Stopped:
        outcome.append("stopped")
        raise
    finally:
        outcome.append("ended")


async def test_cancelling_the_awaiting_task_stops_the_thread_at_its_next_checkpoint() -> None:
    started, outcome = threading.Event(), list[str]()
    task = asyncio.create_task(to_thread(_loop_until_stopped, started, outcome))
    while not started.is_set():
        await asyncio.sleep(0.001)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(5000):  # the thread's end (not a timing: a bound against a hang)
        if "ended" in outcome:
            break
        await asyncio.sleep(0.001)
    assert outcome == ["stopped", "ended"]


async def test_a_stop_event_set_by_its_holder_stops_the_thread_and_the_caller_gets_stopped() -> None:
    started, outcome, stop = threading.Event(), list[str](), threading.Event()
    task = asyncio.create_task(to_thread(_loop_until_stopped, started, outcome, stop=stop))
    while not started.is_set():
        await asyncio.sleep(0.001)
    stop.set()
    with pytest.raises(Stopped):
        await task
    assert outcome == ["stopped", "ended"]


async def test_work_runs_to_its_end_when_nothing_stops_it_and_a_checkpoint_elsewhere_never_stops() -> None:
    assert await to_thread(sum, [1, 2, 3]) == 6
    checkpoint()  # not in a thread started by to_thread: nothing to stop
    stop = threading.Event()
    stop.set()
    await asyncio.to_thread(checkpoint)  # a plain thread does not see another work's stop event


async def test_a_verdict_log_read_stops_at_a_checkpoint(tmp_path: Path) -> None:
    """A replay judge's log (seconds at 10^6 lines) is read with a checkpoint every EVERY lines."""
    log = tmp_path / "log.jsonl"
    row = '{"prompt": "p", "first": "a", "second": "b", "judge": "j", "winner": "first"}\n'
    log.write_text(row * (EVERY + 1))
    stop = threading.Event()
    assert len(await to_thread(lambda: list(read_verdicts(log)), stop=stop)) == EVERY + 1
    stop.set()
    with pytest.raises(Stopped):
        await to_thread(lambda: list(read_verdicts(log)), stop=stop)
