"""The app during a run: the real Runner with replay judges (pause stops new calls, quit leaves the store
consistent), and synthetic event bursts (coalescing, failures as notifications and counts)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.message import Message

from elotui.judges.base import Presentation, RetryNotice
from elotui.records import JudgeCounts
from elotui.run.events import CallFailed, CallRetried, CallStarted, Progress, VerdictRecorded
from elotui.run.runner import Runner
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from elotui.tui.messages import VerdictsArrived
from elotui.tui.widgets.judges_table import JudgesTable
from elotui.tui.widgets.leaderboard_table import LeaderboardTable
from elotui.tui.widgets.status_bar import StatusBar
from tests.run.fakes import FakeWorld
from tests.tui.conftest import SIZE, settle
from tests.tui.crafted import crafted, write_tournament


def answered(store: Store) -> int:
    return sum(1 for row in store.plan_verdicts() if row[6] in ("ok", "invalid"))


async def wait_for(condition, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


async def test_pause_stops_new_calls_and_quit_keeps_the_store(tmp_path: Path) -> None:
    """A judge held at a gate: pause while one call is in flight, open the gate, hand the loop to the workers
    many times; an unpaused runner would start a new call on its next turn, a paused one starts none."""
    tournament = load_tournament(write_tournament(tmp_path / "t", delay_ms=0, max_concurrency=1))
    store = Store(tmp_path / "store.sqlite")
    world = FakeWorld(quality={"A": 3, "C": 2, "B": 1})
    world.gate = asyncio.Event()

    def runner(t, s, *, on_event, max_cost):  # type: ignore[no-untyped-def]
        return Runner(t, s, on_event=on_event, max_cost=max_cost, judge_factory=world.factory)

    app = make_app(tournament, store, runner_factory=runner)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: world.in_flight >= 1)  # calls wait at the gate
        await pilot.press("p")
        assert app.runner.paused
        sent = len(world.sent)
        world.gate.set()  # the call in flight finishes and is stored
        await wait_for(lambda: world.in_flight == 0 and app.runner.in_flight == 0)
        stored = answered(store)
        assert stored > 0
        for _ in range(100):  # with the gate open, every turn of the loop would start a call if not paused
            await asyncio.sleep(0)
        assert len(world.sent) == sent and answered(store) == stored
        await pilot.pause()
        assert "PAUSED" in app.query_one(StatusBar).content.plain  # type: ignore[union-attr]
        assert sent < 36
        await pilot.press("p")
        await wait_for(lambda: app.monitor.result is not None)
        await settle(pilot)
        assert answered(store) == 36
        assert app.query_one(LeaderboardTable).order() == ["A", "C", "B"]
        assert "FINISHED" in app.query_one(StatusBar).content.plain  # type: ignore[union-attr]
        await pilot.press("q")
    assert app.return_value == 0
    store.close()


async def test_quit_during_a_run_waits_for_calls_in_flight(tmp_path: Path) -> None:
    tournament = load_tournament(write_tournament(tmp_path / "t", delay_ms=40, max_concurrency=1))
    store = Store(tmp_path / "store.sqlite")
    app = make_app(tournament, store)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: answered(store) >= 2)
        await pilot.press("q")
        await wait_for(lambda: app.monitor.result is not None)
    assert app.monitor.result is not None and app.monitor.result.state == "stopped"
    assert app.runner.in_flight == 0
    runs = store.runs()
    assert runs[-1].state == "stopped"  # the run was closed in the store
    assert 2 <= answered(store) < 36
    store.close()


def verdict(i: int, judge: str = "j1") -> VerdictRecorded:
    pres = Presentation(prompt="p1", first="B", second="A", condition="clean", sample=i)
    return VerdictRecorded(
        key=f"x{i}",
        judge=judge,
        presentation=pres,
        status="ok",
        winner="first",
        reasoning="fine",
        latency_ms=5.0,
    )


async def test_a_burst_of_verdicts_is_one_message_and_one_ranking(tmp_path: Path) -> None:
    tournament, store = crafted(tmp_path)
    seen: list[Message] = []
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        before = app.ranking.version
        for i in range(2000):  # B beats A 2000 times, as fast as a runner could report
            app.on_run_event(verdict(i))
        await settle(pilot)
        arrived = [m for m in seen if isinstance(m, VerdictsArrived)]
        assert len(arrived) == 1
        assert app.ranking.version == before + 1  # one append for the whole burst
        assert len(app.ranking) == 35 + 1 + 2000
        app._refresh_status()
        await settle(pilot)
        assert app.board_version == app.ranking.version
        await pilot.press("5")  # every verdict its own game (at 0.5 they are votes on one presentation)
        await settle(pilot)
        assert app.query_one(LeaderboardTable).order()[0] == "B"
    store.close()


async def test_repeated_failures_are_notifications_and_counts(tmp_path: Path) -> None:
    tournament, store = crafted(tmp_path)
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for i in range(12):
            app.on_run_event(CallStarted(key=f"f{i}", judge="j2", kind="verdict"))
            app.on_run_event(
                CallRetried(
                    RetryNotice(judge="j2", attempt=1, reason="HTTP 429", wait_s=0.1, status_code=429)
                )
            )
            app.on_run_event(
                CallFailed(
                    key=f"f{i}",
                    judge="j2",
                    kind="verdict",
                    error="HTTP 500 [bold]boom[/bold]\x1b[2J",
                    attempts=5,
                )
            )
        # the counts are the runner's: it publishes a frozen copy in its Progress events, the app shows them
        counts = JudgeCounts(in_flight=0, failed=12, retries=12, http_429s=12)
        app.on_run_event(
            Progress(
                done=0,
                total=12,
                cached=0,
                failed=12,
                invalid=0,
                in_flight=0,
                rate_per_s=0.0,
                eta_s=None,
                input_tokens=0,
                output_tokens=0,
                cost=0.0,
                estimated_total_cost=None,
                elapsed_s=1.0,
                judges={"j2": counts},
            )
        )
        await settle(pilot)
        app._show_judges()
        await pilot.pause()
        notes = [n.message for n in app._notifications if "judge j2" in n.message]
        assert len(notes) == 3  # at 1, 3 and 10 failures, not 12 times
        assert all("\x1b" not in n for n in notes)
        assert any("[bold]boom[/bold]" in n for n in notes)
        table = app.query_one(JudgesTable)
        cell = dict(zip([str(c.key.value) for c in table.ordered_columns], table.get_row("j2"), strict=True))
        assert str(cell["failed"]) == "12" and str(cell["retries"]) == "12" and str(cell["429s"]) == "12"
        assert str(cell["in flight"]) == "0"
        assert app.is_running
    store.close()
