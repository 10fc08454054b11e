"""Open batches shown live: while a batch judge's batches are open at a loopback fake of the provider's batch API
(tests.servers.fake_batch), the leaderboard pane lists each (judge, the provider's id shortened, requests,
done/failed as the server reports them, age, the server's status); once collected a batch leaves the table.
Headless progress says the same, a line per batch when the provider reports something new of it."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from elotui.commands.headless import HeadlessReporter
from elotui.run import batching
from elotui.run.events import BatchProgress, Progress
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from elotui.tui.widgets.batches_table import BatchesPanel, short_id
from tests.run.fakes import write_tournament
from tests.servers.fake_batch import FakeBatchServer
from tests.servers.fake_llm import prefer_longer

pytest.importorskip("openai")
pytest.importorskip("anthropic")

CONTESTANTS = ["a", "b", "c", "d"]
PROMPTS = {f"p{i}": f"Question number {i}?" for i in range(1, 4)}
TOTAL = len(PROMPTS) * 6 * 2  # 36 verdict calls
PAUSES = 2000  # at most this many pauses of the UI waiting for the run (a bound, not a clock)


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batching, "BATCH_FIRST_POLL_S", 0.01)
    monkeypatch.setattr(batching, "BATCH_MAX_POLL_S", 0.02)
    monkeypatch.setenv("ELOTUI_FAKE_KEY", "sk-fake-batch")


def batch_tournament(folder: Path, server: FakeBatchServer, provider: str) -> Path:
    base = server.url + {"openai": "/v1", "anthropic": ""}[provider]
    judge = {
        "id": "j1",
        "provider": provider,
        "model": "fake-model",
        "base_url": base,
        "api_key_env": "ELOTUI_FAKE_KEY",
        "batch": True,
        "batch_max_requests": 20,  # 20 + 16: two batches
    }
    return write_tournament(folder / "t.toml", contestants=CONTESTANTS, prompts=PROMPTS, judges=[judge])


async def until(pilot: Pilot[object], ok: Callable[[], bool], what: str) -> None:
    for _ in range(PAUSES):
        if ok():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never: {what}")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_open_batches_are_listed_with_the_servers_counts_until_collected(
    tmp_path: Path, provider: str
) -> None:
    with FakeBatchServer(verdict_fn=prefer_longer, hold=True) as server:
        tournament = load_tournament(batch_tournament(tmp_path, server, provider))
        with Store(tmp_path / "s.sqlite") as store:
            app = make_app(tournament, store, no_delay=True)
            async with app.run_test(size=(160, 45)) as pilot:
                panel = app.query_one(BatchesPanel)
                await until(
                    pilot, lambda: server.created == 2 and len(panel.rows()) == 2, "two batches listed"
                )
                ids = sorted(server.batches)
                first = ids[0]
                held = server.batches[first]
                held["done"], held["failed"] = 7, 2  # the server's counts so far (OpenAI's request_counts)
                left = len(held["lines"]) - 9  # Anthropic's: processing, succeeded, errored
                held["counts"] = {"processing": left, "succeeded": 7, "errored": 2}
                listed = lambda: {r[1]: r for r in panel.rows()}  # noqa: E731 - by the id shown
                await until(
                    pilot, lambda: listed().get(short_id(first), [""] * 7)[3] == "7", "the counts shown"
                )
                row = listed()[short_id(first)]
                assert row[0] == "j1" and row[2] in ("20", "16") and row[4] == "2"
                assert row[6] == server.batches[first]["status"]  # the server's status, as it reports it
                assert sum(int(r[2]) for r in panel.rows()) == TOTAL
                assert panel.display and "Open batches (2)" in str(app.query_one("#batches-title").render())
                server.release()
                await until(pilot, lambda: app.monitor.state == "finished", "the run finished")
                await until(pilot, lambda: panel.rows() == [], "the batches left the table")
                assert not panel.display
                assert app.monitor.plan.done == TOTAL and set(server.submitted.values()) == {1}
                assert server.problems == []


def progress(*batches: BatchProgress) -> Progress:
    return Progress(0, 10, 0, 0, 0, 0, 0.0, None, 0, 0, 0.0, None, 0.0, open_batches=batches)


def test_headless_writes_a_line_per_batch_when_the_provider_reports_something_new() -> None:
    out = io.StringIO()
    reporter = HeadlessReporter(out, interval_s=3600.0)  # the progress line once: the batch lines are apart
    b = BatchProgress("j1", "batch_\x1b[31mabc", 50, submitted_at=0.0)
    reporter(progress(b))
    reporter(progress(b))  # nothing new: no line
    b2 = BatchProgress(
        "j1", "batch_\x1b[31mabc", 50, done=40, failed=2, status="in_progress", submitted_at=0.0
    )
    reporter(progress(b2))
    reporter(progress())
    lines = [line for line in out.getvalue().splitlines() if line.startswith("batch ")]
    assert len(lines) == 3 and all("\x1b" not in line for line in lines)  # the provider's id neutralised
    assert lines[0].startswith("batch j1 batch_") and ": submitted, 0/50 done, 0 failed, age " in lines[0]
    assert ": in_progress, 40/50 done, 2 failed, age " in lines[1] and lines[1].endswith("(50 requests)")
    assert lines[2].endswith(": ended, its requests recorded")


def test_a_watched_runs_progress_keeps_its_open_batches() -> None:
    """`elotui watch T` reads the run's progress from the store's heartbeat (JSON): its batches come back whole."""
    import dataclasses
    import json

    from elotui.tui.state.watch import progress_of

    b = BatchProgress("j1", "batch_1", 50, done=3, failed=1, status="in_progress", submitted_at=5.0)
    published = json.loads(json.dumps(dataclasses.asdict(progress(b))))
    seen = progress_of({"progress": published})
    assert seen is not None and seen.open_batches == (b,)


def test_headless_progress_lists_each_batch_then_says_it_ended(tmp_path: Path) -> None:
    """`elotui run T --headless` against the fake server: a line per batch when its status or counts change (as
    the progress events, a few a second, see them), with its requests, and a line when it is collected."""
    import os
    import subprocess
    import sys

    with FakeBatchServer(verdict_fn=prefer_longer) as server:
        path = batch_tournament(tmp_path, server, "openai")
        env = {
            **os.environ,
            "ELOTUI_HOME": str(tmp_path / "home"),
            "ELOTUI_BATCH_FIRST_POLL_S": "0.01",
            "ELOTUI_BATCH_MAX_POLL_S": "0.02",
        }
        args = [
            sys.executable,
            "-m",
            "elotui.cli",
            "run",
            str(path),
            "--headless",
            "--store",
            str(tmp_path / "s"),
        ]
        done = subprocess.run(args, env=env, capture_output=True, text=True, check=False, timeout=120)
        assert done.returncode == 0, done.stderr
        ids = sorted(server.batches)
    lines = [line for line in done.stderr.splitlines() if line.startswith("batch j1 ")]
    for batch_id in ids:
        mine = [line for line in lines if line.startswith(f"batch j1 {batch_id}: ")]
        assert mine[-1] == f"batch j1 {batch_id}: ended, its requests recorded"
        statuses = {
            line.split(": ")[1].split(",")[0] for line in mine[:-1]
        }  # as the progress events saw them
        assert mine[:-1] and statuses <= {"submitted", "validating", "in_progress", "finalizing", "completed"}
        assert all(line.endswith(("(20 requests)", "(16 requests)")) for line in mine[:-1])
        assert len(set(mine)) == len(mine)  # a line only when something changed
