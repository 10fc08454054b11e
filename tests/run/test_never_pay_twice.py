"""Never pay twice, whatever the user does — against a loopback server that counts requests per prompt:
two terminals on one tournament, a TUI run plus a headless run, a copied and renamed file, a killed writer,
concurrent fresh stores. No wall-clock asserts: every wait is for a condition, bounded."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from elotui.store import SCHEMA_VERSION, Store
from elotui.tournament.model import load_tournament
from tests.run.fakes import write_tournament
from tests.servers.fake_llm import FakeLLMServer, Slow

CONTESTANTS = ["a", "b", "c", "d", "e"]
PROMPTS = {"p1": "What is AI?", "p2": "Name a prime number.", "p3": "Why is the sky blue?"}
TOTAL = len(PROMPTS) * 10 * 2  # prompts x pairs x orders


def until(condition, timeout: float = 60.0, what: str = "condition") -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def per_presentation(server: FakeLLMServer) -> Counter[str]:
    return Counter(r.user for r in server.requests)


def tournament(tmp_path: Path, server: FakeLLMServer, name: str = "t.toml") -> Path:
    judge = server.judge_config("openai-compatible", id="j1", max_concurrency=2)
    return write_tournament(tmp_path / name, contestants=CONTESTANTS, prompts=PROMPTS, judges=[judge])


def headless(path: Path, store: Path | None, home: Path) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "elotui.cli", "run", str(path), "--headless"]
    if store is not None:
        cmd += ["--store", str(store)]
    env = {**os.environ, "ELOTUI_HOME": str(home), "ELOTUI_LEASE_S": "3"}
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_headless_runs_together_pay_every_call_once(tmp_path: Path, fake_llm_factory) -> None:  # type: ignore[no-untyped-def]
    server: FakeLLMServer = fake_llm_factory(latency_s=0.03)
    path = tournament(tmp_path, server)
    store = tmp_path / "store.sqlite"
    procs = [headless(path, store, tmp_path / "home") for _ in range(2)]
    results = [p.communicate(timeout=120) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 2], results
    loser = next(err for p, (_, err) in zip(procs, results, strict=True) if p.returncode == 2)
    assert "already being run" in loser and "pid" in loser and "elotui watch" in loser
    counts = per_presentation(server)
    assert len(counts) == TOTAL and set(counts.values()) == {1}  # every planned call answered exactly once


def test_a_tui_run_on_a_running_tournament_watches_it(tmp_path: Path, fake_llm_factory) -> None:  # type: ignore[no-untyped-def]
    """A headless run is going; `elotui run T` in the TUI opens as its watcher: it sends nothing, and its screen
    follows the writer to the end."""
    import asyncio

    from elotui.tui.launch import make_app
    from elotui.tui.widgets.status_bar import StatusBar

    server: FakeLLMServer = fake_llm_factory(latency_s=0.05)
    path = tournament(tmp_path, server)
    store_path = tmp_path / "store.sqlite"
    writer = headless(path, store_path, tmp_path / "home")
    until(lambda: len(server.requests) >= 3, what="the writer's first calls")

    async def watch() -> list[str]:
        seen = []
        store = Store(store_path)
        app = make_app(load_tournament(path), store)  # would start a run: the lease makes it a watcher
        async with app.run_test(size=(140, 40)) as pilot:
            deadline = asyncio.get_running_loop().time() + 60
            while "RUN FINISHED" not in (text := app.query_one(StatusBar).content.plain):  # type: ignore[union-attr]
                assert asyncio.get_running_loop().time() < deadline
                seen.append(text)
                await pilot.pause(0.1)
            seen.append(text)
        store.close()
        return seen

    screens = asyncio.run(watch())
    out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    counts = per_presentation(server)
    assert len(server.requests) == TOTAL, (out, err[-2000:], screens[-1])
    assert len(counts) == TOTAL and set(counts.values()) == {1}
    progress = [
        int(t.split(" calls (")[0].rsplit(" ", 1)[1].split("/")[0]) for t in screens if " calls (" in t
    ]
    assert progress[-1] == TOTAL and len(set(progress)) > 1  # the count on screen rose to the end
    assert any("WATCHING · RUNNING" in t for t in screens) and "RUN FINISHED" in screens[-1]


def test_a_copied_and_renamed_file_sends_nothing_again(tmp_path: Path, fake_llm_factory) -> None:  # type: ignore[no-untyped-def]
    server: FakeLLMServer = fake_llm_factory()
    (tmp_path / "a").mkdir()
    path = tournament(tmp_path / "a", server)
    home = tmp_path / "home"
    first = headless(path, None, home)
    first.communicate(timeout=60)
    assert first.returncode == 0 and len(server.requests) == TOTAL
    elsewhere = tmp_path / "b" / "clone"
    elsewhere.mkdir(parents=True)
    copy = elsewhere / "renamed-tournament.toml"
    shutil.copy(path, copy)
    dry = subprocess.run(
        [sys.executable, "-m", "elotui.cli", "run", str(copy), "--dry-run"],
        env={**os.environ, "ELOTUI_HOME": str(home)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert f"{TOTAL} already cached, 0 to send" in dry.stdout, dry.stdout + dry.stderr
    second = headless(copy, None, home)
    out, err = second.communicate(timeout=60)
    assert second.returncode == 0, err
    assert len(server.requests) == TOTAL  # the copy paid for nothing
    assert out.splitlines()[0].startswith("test — elo")


def test_a_killed_writer_is_shown_gone_and_marked_died(tmp_path: Path, fake_llm_factory) -> None:  # type: ignore[no-untyped-def]
    from elotui.store.runs import latest_run, run_table
    from elotui.tui.state.watch import StoreWatcher

    server: FakeLLMServer = fake_llm_factory(latency_s=0.05)
    path = tournament(tmp_path, server)
    store_path = tmp_path / "store.sqlite"
    server.script(
        *[Slow(0.0)] * 8, *[Slow(2.0)] * TOTAL
    )  # the run cannot end before the kill, however loaded
    writer = headless(path, store_path, tmp_path / "home")
    until(lambda: len(server.requests) >= 4, what="the writer's first calls")
    with Store(store_path) as store:
        watcher = StoreWatcher(store)
        until(lambda: (latest_run(store) or {}).get("progress") is not None, what="a heartbeat")
        assert watcher.poll() is not None and watcher.describe(latest_run(store))[0] == "watching · running"
        writer.send_signal(signal.SIGKILL)
        writer.wait(10)
        until(lambda: watcher.describe(latest_run(store))[0] == "writer gone", timeout=10, what="writer gone")
        assert "no heartbeat since its lease expired" in watcher.describe(latest_run(store))[1]
    server.clear_script()
    again = headless(path, store_path, tmp_path / "home")
    again.communicate(timeout=60)
    assert again.returncode == 0
    with Store(store_path) as store:
        assert [r["state"] for r in run_table(store)] == ["died", "finished"]
    counts = per_presentation(server)
    assert (
        len(counts) == TOTAL and sum(counts.values()) - TOTAL <= 2
    )  # at most the calls in flight at the kill


def _open(path: str) -> None:
    Store(path).close()


def test_concurrent_fresh_store_opens_all_succeed(tmp_path: Path) -> None:
    script = "import sys; from elotui.store import Store; Store(sys.argv[1]).close()"
    for i in range(10):
        target = str(tmp_path / f"fresh-{i}.sqlite")
        procs = [
            subprocess.Popen([sys.executable, "-c", script, target], stderr=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        errors = [p.communicate(timeout=60)[1] for p in procs]
        assert [p.returncode for p in procs] == [0, 0], errors
        with sqlite3.connect(target) as db:
            assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_run_taken_over_claims_nothing_and_its_claims_bind_while_it_may_send(tmp_path: Path) -> None:
    """A forced takeover fences the first run out: its next claim raises LeaseLost; the calls it claimed before
    bind the new run while the first may still be sending them (here: it has not ended), and no more after."""
    from elotui.store.claims import claim
    from elotui.store.runs import LeaseLost, begin_run, finish_run, run_table

    with Store(tmp_path / "s.sqlite") as store:
        first = begin_run(store, {"n": 1})
        assert claim(store, "k", first) == "mine"
        second = begin_run(store, {"n": 2}, force=True)
        with pytest.raises(LeaseLost, match=f"run {first} lost its lease: run {second} by pid"):
            claim(store, "k2", first)
        assert claim(store, "k", second) == "taken"  # in flight in the first run: not sent again
        assert claim(store, "k2", second) == "mine"
        third = begin_run(store, {"n": 3}, force=True)
        assert claim(store, "k2", third) == "taken" and claim(store, "k3", third) == "mine"
        finish_run(store, first, "stopped")
        finish_run(store, second, "stopped")
        assert claim(store, "k", third) == "mine" and claim(store, "k2", third) == "mine"
        states = [r["state"] for r in run_table(store)]
        assert states == ["taken over", "taken over", "running"]
