"""While a run prepares (plans its calls, stores the plan: ~20 s at 10^6 verdicts) the header says so instead of
"0/0 calls", and quitting stops the preparation at its next checkpoint (elotui.runtime.checkpoints): the app exits without
planning to the end, the run is recorded as stopped and no half plan is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from elotui.run.control import RunLifecycle
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from elotui.tui.widgets.status_bar import StatusBar
from elotui.vocab import OUTCOME_MISSING
from tests.run.test_free_batches import _replay_world
from tests.run.test_stop_while_preparing import _planning_held, _until


async def test_the_header_says_preparing_and_quitting_stops_the_preparation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = load_tournament(_replay_world(tmp_path))
    planning, go, outcome = _planning_held(monkeypatch)
    stop = RunLifecycle.stop

    def stop_then_go(self: RunLifecycle, *, cancel: bool = False) -> None:
        stop(self, cancel=cancel)
        go.set()

    monkeypatch.setattr(RunLifecycle, "stop", stop_then_go)
    with Store(tmp_path / "s.sqlite") as store:
        app = make_app(t, store, no_delay=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await _until(planning.is_set)  # the run plans
            app._update_status()
            header = str(app.query_one(StatusBar).content)
            assert "PREPARING" in header and "planning the calls" in header and "0/0" not in header
            await pilot.press("q")  # the stop lets planning go on: it meets the stop at its first checkpoint
        assert outcome == ["stopped"]
        assert store.runs()[-1].state == "stopped"
        assert store.plan() == []


def test_a_watcher_says_the_writer_prepares_until_its_first_heartbeat() -> None:
    """The writer publishes its progress with its first heartbeat, once it has prepared: until then a watcher's
    header says it prepares (not RUNNING 0/0 calls, nor WRITER GONE: its lease covers the preparation)."""
    from elotui.tui.state.watch import StoreWatcher

    run = {"id": 1, "pid": 7, "host": "h", "state": "running", "progress": None}
    assert StoreWatcher.describe(run) == ("watching · preparing", "run 1 · pid 7 on h")
    assert StoreWatcher.describe({**run, "progress": {"done": 0}})[0] == "watching · running"
    assert StoreWatcher.describe({**run, "state": "paused"})[0] == "watching · paused"


async def test_the_header_of_a_watcher_of_a_preparing_run_says_planning() -> None:
    from textual.app import App, ComposeResult

    from elotui.tui.widgets.status_bar import StatusInfo

    class BarApp(App[None]):
        def compose(self) -> ComposeResult:
            yield StatusBar()

    app = BarApp()
    async with app.run_test(size=(80, 5)):
        bar = app.query_one(StatusBar)
        bar.show(StatusInfo("t", "0.5", "Elo", "all", "watching · preparing", ["replay"]))
        shown = str(bar.content)
        assert "WATCHING · PREPARING" in shown and "planning the calls" in shown and "0/0" not in shown


async def test_a_run_paused_while_it_prepares_says_so_and_stays_paused_once_prepared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """p during the preparation: PAUSED; p again: back to PREPARING (not RUNNING 0/0); paused when the preparation
    ends: the header says PAUSED (it said RUNNING while the run waited) and no call is made until p."""
    t = load_tournament(_replay_world(tmp_path))
    planning, go, _ = _planning_held(monkeypatch)

    def header() -> str:
        app._update_status()
        return str(app.query_one(StatusBar).content)

    with Store(tmp_path / "s.sqlite") as store:
        app = make_app(t, store, no_delay=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await _until(planning.is_set)
            await pilot.press("p")
            assert "PAUSED" in header()
            await pilot.press("p")
            assert "PREPARING" in header() and "0/0" not in header()
            await pilot.press("p")
            go.set()
            await _until(lambda: app.monitor.started)
            await pilot.pause(0.05)
            assert "PAUSED" in header() and app.monitor.state == "paused"
            assert (
                store.verdict_columns().outcome.tolist() == [OUTCOME_MISSING] * 4
            )  # nothing asked meanwhile
            await pilot.press("p")
            await _until(lambda: app.monitor.result is not None)
            assert app.monitor.result is not None and app.monitor.result.state == "finished"
            assert app.monitor.result.done == 4
