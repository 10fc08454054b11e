"""A run stopped while it prepares (quit in the TUI, Ctrl-C headless) stops preparing at its next checkpoint
(elotui.runtime.checkpoints) instead of planning, storing the plan and reading the replay log to the end first (11-19 s at
10^6 verdicts before the process could exit); a plan half-written is rolled back, the old one stays whole, and
the next run plans and answers everything."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from elotui.run import prepare as prepare_module
from elotui.run.events import RunFinished
from elotui.run.runner import Runner
from elotui.runtime.checkpoints import Stopped, to_thread
from elotui.store import Store
from elotui.tournament.model import Tournament, load_tournament
from tests.run.test_free_batches import _replay_world


def _planning_held(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event, list[str]]:
    """Planning waits (at most 10 s) for `go` once `planning` is set, then plans for real; `outcome` says how its
    real planning ended."""
    planning, go, outcome = threading.Event(), threading.Event(), list[str]()
    real = prepare_module.verdict_calls

    def held(*args: Any, **kwargs: Any) -> Any:
        planning.set()
        go.wait(10.0)
        try:
            found = real(*args, **kwargs)
        except Stopped:
            outcome.append("stopped")
            raise
        outcome.append("planned")
        return found

    monkeypatch.setattr(prepare_module, "verdict_calls", held)
    return planning, go, outcome


async def _until(done: Callable[[], bool]) -> None:
    for _ in range(10_000):  # a bound against a hang, not a timing
        if done():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("never happened")


async def stopped_while_planning(
    t: Tournament, store: Store, monkeypatch: pytest.MonkeyPatch, meanwhile: Callable[[], None] = lambda: None
) -> tuple[RunFinished, list[str]]:
    """A run stopped (quit in the TUI) while it plans, once `meanwhile` has looked at it planning; and how its
    planning ended."""
    planning, go, outcome = _planning_held(monkeypatch)
    runner = Runner(t, store)
    task = asyncio.create_task(runner.run())
    await _until(planning.is_set)
    meanwhile()
    runner.stop()
    go.set()
    return await task, outcome


async def test_a_run_stopped_while_it_plans_stops_planning_stores_no_plan_and_the_next_run_answers_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = load_tournament(_replay_world(tmp_path))
    with Store(tmp_path / "s.sqlite") as store:
        result, outcome = await stopped_while_planning(t, store, monkeypatch)
        assert result.state == "stopped" and result.done == 0
        assert outcome == ["stopped"]  # planning stopped at its first checkpoint, not run to its end
        assert store.plan() == [] and store.plan_fingerprint() is None
        assert store.runs()[-1].state == "stopped"
        monkeypatch.undo()  # planning as usual
        again = await Runner(t, store).run()
        assert [v.status for v in store.plan_verdicts()] == ["ok"] * 4
    assert again.state == "finished" and again.done == again.total == 4


async def test_a_run_cancelled_while_it_plans_ctrl_c_ends_its_planning_thread_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Headless, Ctrl-C cancels the run's task; the process then waits for the planning thread, which must end at
    its next checkpoint rather than plan, store and read everything first."""
    t = load_tournament(_replay_world(tmp_path))
    planning, go, outcome = _planning_held(monkeypatch)
    with Store(tmp_path / "s.sqlite") as store:
        task = asyncio.create_task(Runner(t, store).run())
        await _until(planning.is_set)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        go.set()
        await _until(lambda: bool(outcome))
        assert outcome == ["stopped"]
        assert store.runs()[-1].state == "stopped"
    with Store(tmp_path / "s.sqlite") as store:
        assert store.plan() == []


async def test_a_plan_write_stopped_at_a_checkpoint_is_rolled_back_and_the_old_plan_stays_whole(
    tmp_path: Path,
) -> None:
    t = load_tournament(_replay_world(tmp_path))
    with Store(tmp_path / "s.sqlite") as store:
        assert (await Runner(t, store).run()).done == 4
        old, fingerprint = store.plan(), store.plan_fingerprint()
        new = [r._replace(key=r.key[::-1]) for r in old]  # every row changed
        stop = threading.Event()
        stop.set()
        with pytest.raises(Stopped):
            await to_thread(lambda: store.set_plan(new, "other", behind=True), stop=stop)
        store.settle()
        assert store.plan() == old and store.plan_fingerprint() == fingerprint
        assert [v.status for v in store.plan_verdicts()] == ["ok"] * 4
        store.set_plan(new, "other")  # the store is usable afterwards
        assert store.plan() == new


async def test_a_run_preparing_longer_than_a_lease_is_not_taken_for_dead_by_a_second_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its heartbeat starts once it has prepared (~20 s at 10^6 comparisons): the lease taken at its start covers
    the preparation, so a second `elotui run` meanwhile refuses (RunActive) and a watcher sees it running, instead
    of declaring it dead and running everything again beside it (what happened at 14 s into a 10^6 run)."""
    from elotui.store import runs

    monkeypatch.setattr(runs, "LEASE_S", 0.05)
    monkeypatch.setattr(
        runs, "PREPARE_S_PER_COMPARISON", 30.0, raising=False
    )  # this plan's 4 comparisons: 2 minutes
    t = load_tournament(_replay_world(tmp_path))
    planning, go, _ = _planning_held(monkeypatch)
    with Store(tmp_path / "s.sqlite") as store, Store(tmp_path / "s.sqlite") as other:
        task = asyncio.create_task(Runner(t, store).run())
        await _until(planning.is_set)
        await asyncio.sleep(0.2)  # past the plain lease
        with pytest.raises(runs.RunActive):
            runs.begin_run(other, {"second": "process"})
        seen = runs.latest_run(other)
        assert seen is not None and seen["state"] == "running"
        go.set()
        result = await task
    assert result.state == "finished" and result.done == 4


async def test_the_plan_made_again_after_the_generations_is_made_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After its generation calls a run plans and stores again (as long as the first planning at 10^6
    comparisons): in a thread, so that the heartbeat that keeps its lease and the TUI run on meanwhile."""
    from elotui.run import runner as runner_module
    from tests.run.fakes import FakeWorld
    from tests.run.test_runner import make, run

    threads: list[int] = []
    real = runner_module.replan

    def replan(*args: Any) -> Any:
        threads.append(threading.get_ident())
        return real(*args)

    monkeypatch.setattr(runner_module, "replan", replan)
    gen = {"id": "g", "generator": {"provider": "openai-compatible", "model": "m", "base_url": "http://x"}}
    t = make(tmp_path, ["a", "b"], extra_contestants=[gen])
    with Store(tmp_path / "s.sqlite") as store:
        result = await run(t, store, FakeWorld())
    assert result.state == "finished" and result.done == result.total == 2 * 3 * 2 + 2
    assert threads and threading.get_ident() not in threads
