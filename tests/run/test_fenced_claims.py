"""Never pay twice when a run loses its lease or another tournament asks the same calls — against a loopback server
that counts the requests for each call (a request is counted, paid, when it arrives): a `--force` takeover mid-run,
a run paused (SIGSTOP) past its lease while a second run starts, then woken (SIGCONT), and two copies of one
tournament file (two stores) run at once on one machine's shared call cache. Each scenario five times, with the
moment of the takeover or the pause moved on each time. Leases are short (ELOTUI_LEASE_S) so that the tests run
fast; every wait is for a condition, bounded; no wall-clock assert."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import pytest

from elotui.records import CallRecord
from elotui.store import Store
from tests.run.fakes import write_tournament
from tests.servers.fake_llm import Action, FakeLLMServer, Request, Slow

CONTESTANTS = ["a", "b", "c", "d"]
PROMPTS = {"p1": "What is AI?", "p2": "Name a prime number.", "p3": "Why is the sky blue?"}
TOTAL = len(PROMPTS) * 6 * 2  # prompts x pairs x orders
TRIALS = range(5)
LEASE = {"ELOTUI_LEASE_S": "1", "ELOTUI_CLAIM_WAIT_S": "60"}


def until(condition, timeout: float = 60.0, what: str = "condition") -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def held_after(answered: int, gate: threading.Event) -> Callable[[Request], Action | None]:
    """A verdict function: the first `answered` requests are answered at once, the later ones held at the server
    (asked again every 20 ms) until `gate` is set: the moment of a takeover or a pause is the test's, however
    loaded the machine."""

    arrived: dict[int, int] = {}  # each request's place in the order of arrival (asked again while held)

    def verdict(request: Request) -> Action | None:
        if gate.is_set() or arrived.setdefault(id(request), len(arrived)) < answered:
            return None
        return Slow(0.02)

    return verdict


def tournament(folder: Path, server: FakeLLMServer) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    judge = server.judge_config("openai-compatible", id="j1", max_concurrency=2)
    return write_tournament(folder / "t.toml", contestants=CONTESTANTS, prompts=PROMPTS, judges=[judge])


def headless(path: Path, store: Path | None, home: Path, *extra: str) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "elotui.cli", "run", str(path), "--headless", *extra]
    if store is not None:
        cmd += ["--store", str(store)]
    env = {**os.environ, "ELOTUI_HOME": str(home), **LEASE}
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def query(path: Path, sql: str) -> int:
    """One number read from a SQLite file another process writes (0 while it has no such table yet)."""
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return int(db.execute(sql).fetchone()[0] or 0)
    except sqlite3.Error:
        return 0


def paid_once_each(server: FakeLLMServer) -> None:
    """Every planned call was sent, and none twice."""
    counts = Counter(r.user for r in server.requests)
    twice = sum(1 for n in counts.values() if n > 1)
    assert not twice, (
        f"{twice} call(s) paid more than once: {sum(counts.values())} requests for {TOTAL} calls"
    )
    assert len(counts) == TOTAL


def complete(out: str) -> bool:
    """The leaderboard a headless run prints says every planned presentation has its verdict."""
    return "failed 0 · missing 0" in out and f"verdicts used {TOTAL}" in out


@pytest.mark.parametrize("trial", TRIALS)
def test_a_forced_takeover_mid_run_pays_no_call_twice(tmp_path: Path, fake_llm_factory, trial: int) -> None:  # type: ignore[no-untyped-def]
    """`--force` while a run has calls in flight: the first run is fenced out at its next claim (exit 2, naming the
    new run); the calls it had in flight are waited for by the second (their claims bind while it lives) and
    recorded by the first; the second completes the tournament."""
    from elotui.store.runs import run_table

    gate = threading.Event()
    server: FakeLLMServer = fake_llm_factory(latency_s=0.02, verdict_fn=held_after(2 + 3 * trial, gate))
    path = tournament(tmp_path, server)
    store, home = tmp_path / "store.sqlite", tmp_path / "home"
    first = headless(path, store, home)
    until(lambda: len(server.requests) >= 4 + 3 * trial, what="the first run's calls, two of them held")
    second = headless(path, store, home, "--force")
    until(lambda: query(store, "SELECT MAX(id) FROM runs") == 2 or second.poll() is not None, what="takeover")
    gate.set()
    (out2, err2), (_, err1) = second.communicate(timeout=120), first.communicate(timeout=120)
    paid_once_each(server)
    assert second.returncode == 0 and complete(out2), err2
    assert first.returncode == 2 and "lost its lease: run 2 by pid" in err1, err1
    with Store(store) as s:
        runs = run_table(s)
        assert [r["state"] for r in runs] == ["taken over", "finished"]
        late = [c for c in s.calls() if c.run_id == runs[0]["id"] and c.finished_at > runs[1]["started_at"]]
        assert len(late) == 2  # the two calls in flight at the takeover: answered once, recorded by the first


@pytest.mark.parametrize("trial", TRIALS)
def test_a_run_paused_past_its_lease_pays_no_call_twice(tmp_path: Path, fake_llm_factory, trial: int) -> None:  # type: ignore[no-untyped-def]
    """SIGSTOP while calls are in flight, until the lease has expired; a second run starts (no --force: the first
    looks dead) and sends; SIGCONT: the first notices on waking (the lease is another run's), sends nothing more,
    records the answers it had in flight (still unanswered: the second run waited for them), and exits 2."""
    from elotui.store.runs import latest_run, run_table

    gate = threading.Event()
    server: FakeLLMServer = fake_llm_factory(latency_s=0.02, verdict_fn=held_after(2 + 3 * trial, gate))
    path = tournament(tmp_path, server)
    store, home = tmp_path / "store.sqlite", tmp_path / "home"
    first = headless(path, store, home)
    until(lambda: len(server.requests) >= 4 + 3 * trial, what="the first run's calls, two of them held")
    first.send_signal(signal.SIGSTOP)
    try:
        gate.set()  # (its two calls are answered while it sleeps)
        with Store(store) as s:
            until(
                lambda: (latest_run(s) or {}).get("state") == "died", what="the paused run's lease to expire"
            )
        sent = len(server.requests)
        second = headless(path, store, home)
        deadline = time.monotonic() + 60  # (bounded: the first is woken in any case)
        while len(server.requests) < sent + 3 and second.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        first.send_signal(signal.SIGCONT)
    (out2, err2), (_, err1) = second.communicate(timeout=120), first.communicate(timeout=120)
    paid_once_each(server)
    assert second.returncode == 0 and complete(out2), err2
    assert first.returncode == 2 and "lost its lease: run 2 by pid" in err1, err1
    with Store(store) as s:
        runs = run_table(s)
        assert [r["state"] for r in runs] == ["taken over", "finished"]
        late = [c for c in s.calls() if c.run_id == runs[0]["id"] and c.finished_at > runs[1]["started_at"]]
        assert len(late) == 2  # the two calls in flight at the pause, recorded on waking: the second waited


@pytest.mark.parametrize("trial", TRIALS)
def test_two_copies_on_one_shared_cache_at_once_pay_each_call_once(
    tmp_path: Path, fake_llm_factory, trial: int
) -> None:  # type: ignore[no-untyped-def]
    """Two copies of one tournament file (two stores), run at the same time on one machine: every call is claimed
    in the shared call cache too, so each is paid once; each run waits for the other's answers and completes.
    The server holds its answers until both runs have claimed a call to send in the cache: both really run."""
    gate = threading.Event()
    server: FakeLLMServer = fake_llm_factory(latency_s=0.02, verdict_fn=held_after(trial, gate))
    path = tournament(tmp_path / "a", server)
    copy = tmp_path / "b" / "copy.toml"
    copy.parent.mkdir()
    shutil.copy(path, copy)
    home = tmp_path / "home"
    runs = [headless(path, None, home), headless(copy, None, home)]
    if trial % 2:
        runs.reverse()
    cache = home / "data" / "call-cache.sqlite"
    until(lambda: cache.exists() or any(p.poll() is not None for p in runs), what="the shared cache")
    claimants = "SELECT COUNT(DISTINCT store) FROM claims"
    # both runs claim in the shared cache (a run that opened it while the other was creating it used to go on
    # without it, and pay for every call again: tests/run/test_shared_cache_open.py)
    until(lambda: query(cache, claimants) == 2 or any(p.poll() is not None for p in runs), what="both runs")
    gate.set()
    results = [p.communicate(timeout=120) for p in runs]
    paid_once_each(server)
    for p, (out, err) in zip(runs, results, strict=True):
        assert p.returncode == 0 and complete(out), err
    stores = [p for p in home.rglob("*.sqlite") if p.name != "call-cache.sqlite"]
    paid = [query(s, "SELECT COUNT(*) FROM calls WHERE run_id IS NOT NULL") for s in stores]
    assert len(paid) == 2 and sum(paid) == TOTAL  # each call paid by one of the two
    assert min(paid) >= 1  # both paid, for different calls: both ran at once


def record(
    key: str, run_id: int, status: Literal["ok", "invalid", "error"] = "ok", winner: str | None = "first"
) -> CallRecord:
    return CallRecord(key=key, kind="verdict", status=status, winner=winner, run_id=run_id)


def test_a_late_answer_is_kept_where_unanswered_and_never_written_over_another(tmp_path: Path) -> None:
    """Answers arriving at a run that lost its lease: kept where the call has no answer (an error only where
    nothing is recorded), dropped where the new run answered it; the new run's answers are written as always."""
    from elotui.store.claims import claim_many
    from elotui.store.runs import begin_run

    with Store(tmp_path / "s.sqlite") as store:
        old = begin_run(store, {"n": 1})
        assert set(claim_many(store, ["k1", "k2", "k3", "k4"], old).values()) == {"mine"}
        store.record_call(record("k4", old, "error", None))
        new = begin_run(store, {"n": 2}, force=True)
        store.record_call(
            record("k2", new, winner="second")
        )  # (k2: released by the old run below, in a test)
        store.record_calls(
            [
                record("k1", old),
                record("k2", old),
                record("k3", old, "error", None),
                record("k4", old, "error", None),
            ]
        )
        got = {c.key: (c.status, c.winner, c.run_id) for c in store.calls()}
        assert got == {
            "k1": ("ok", "first", old),  # unanswered: the late answer is kept
            "k2": ("ok", "second", new),  # answered by the new run: the late answer is dropped
            "k3": ("error", None, old),  # nothing recorded: the late error is kept
            "k4": ("error", None, old),
        }
        assert store._db.execute("SELECT COUNT(*) FROM claims WHERE run_id = ?", (old,)).fetchone()[0] == 0
        store.record_call(record("k4", old))  # a late answer replaces the run's own error
        store.record_call(record("k1", new, winner="second"))  # the holder writes as always
        got = {c.key: (c.status, c.winner, c.run_id) for c in store.calls()}
        assert got["k4"] == ("ok", "first", old) and got["k1"] == ("ok", "second", new)


def test_the_watchdog_checks_the_lease_after_a_pause_or_a_refused_heartbeat(tmp_path: Path) -> None:
    """A tick that slept past half a lease (the process was stopped) or a heartbeat that found a newer run makes
    the run check its lease at once, with no call to claim; an ordinary tick reads nothing."""
    from elotui.run.claiming import ClaimedCalls
    from elotui.store import runs
    from elotui.store.runs import LEASE_S, begin_run, heartbeat

    with Store(tmp_path / "s.sqlite") as store:
        told: list[str] = []
        old = begin_run(store, {"n": 1})
        watched = ClaimedCalls(store)
        watched.watch(old, LEASE_S, told.append)  # a pause, the lease still its own
        assert told == [] and watched.lost is None
        new = begin_run(store, {"n": 2}, force=True)
        watched.watch(old, 0.1, told.append)  # an ordinary tick: the next claim would find it
        assert told == []
        watched.watch(old, LEASE_S, told.append)  # woken from a pause past its lease
        assert len(told) == 1 and told[0].startswith(f"run {old} lost its lease: run {new} by pid")

        refused = ClaimedCalls(store)
        heartbeat(store, new, "running", None, refused.fenced)
        assert not refused.fenced.is_set()
        heartbeat(store, old, "running", {"done": 3}, refused.fenced)  # not renewed: a newer run holds it
        assert refused.fenced.is_set()
        refused.watch(old, 0.1, told.append)
        assert len(told) == 2 and refused.lost is not None and refused.lost.newer["id"] == new
        assert runs.latest_run(store)["id"] == new  # type: ignore[index]
        assert store._db.execute("SELECT progress FROM runs WHERE id = ?", (old,)).fetchone() == (None,)


def test_the_shared_cache_is_one_claim_space_for_every_store(tmp_path: Path) -> None:
    """A call claimed by a run of one store is "taken" for a run of another store on the same cache (its store
    claim given back), "answered" once recorded (copied in); the claims of a run that ended bind no more."""
    from elotui.store.call_cache import CallCache
    from elotui.store.claims import claim
    from elotui.store.runs import begin_run, finish_run

    cache = tmp_path / "call-cache.sqlite"
    with (
        Store(tmp_path / "one.sqlite", cache=CallCache(cache)) as one,
        Store(tmp_path / "two.sqlite", cache=CallCache(cache)) as two,
    ):
        first, second = begin_run(one, {"n": 1}), begin_run(two, {"n": 1})
        assert claim(one, "k", first) == "mine" and claim(one, "k", first) == "mine"  # (its own claim again)
        assert claim(two, "k", second) == "taken"
        assert two._db.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0  # given back in its store
        one.record_call(record("k", first, winner="second"))
        assert claim(two, "k", second) == "answered"
        copied = two.get_call("k")
        assert copied is not None and (copied.winner, copied.run_id) == ("second", None)
        assert claim(one, "k2", first) == "mine" and claim(two, "k2", second) == "taken"
        finish_run(one, first, "stopped")  # its claims end with it, in the cache too
        assert claim(two, "k2", second) == "mine"
        assert claim(one, "k3", begin_run(one, {"n": 2})) == "mine" and claim(two, "k3", second) == "taken"


def test_a_lease_that_expired_with_nobody_taking_it_is_still_the_runs_own(tmp_path: Path) -> None:
    """A run paused past its lease while no other run started still holds it (no newer run): a reader marks it
    `died`, its claims stay (its process lives), its next heartbeat makes it `running` again, and it claims on."""
    from elotui.store.claims import claim
    from elotui.store.runs import LEASE_S, heartbeat, latest_run, live_run, reap

    with Store(tmp_path / "s.sqlite") as store:
        run = store.start_run({"n": 1})
        assert claim(store, "k", run) == "mine"
        assert reap(store, now=time.time() + LEASE_S + 1) == [run]
        assert store._db.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 1
        assert latest_run(store)["state"] == "died"  # type: ignore[index]
        lost = threading.Event()
        heartbeat(store, run, "running", {"done": 1}, lost)
        assert not lost.is_set() and live_run(store)["id"] == run  # type: ignore[index]
        assert claim(store, "k2", run) == "mine"


async def test_a_runner_taken_over_sends_nothing_more_and_says_so(tmp_path: Path, fake_llm_factory) -> None:  # type: ignore[no-untyped-def]
    """In process: another run takes the lease while two calls are in flight; the runner sends nothing more,
    records those two answers (unanswered: kept), ends `stopped` (its row `taken over`), and the TUI's monitor
    turns its state event into a warning."""
    import asyncio

    from elotui.run.events import Event, RunStateChanged
    from elotui.run.runner import Runner
    from elotui.store.runs import begin_run, run_table
    from elotui.tournament.model import load_tournament
    from elotui.tui.run_monitor import RunMonitor

    gate = threading.Event()
    server: FakeLLMServer = fake_llm_factory(latency_s=0.0, verdict_fn=held_after(4, gate))
    spec = load_tournament(tournament(tmp_path, server))
    events: list[Event] = []
    with Store(tmp_path / "s.sqlite") as store:
        runner = Runner(spec, store, on_event=events.append)
        running = asyncio.create_task(runner.run())
        deadline = time.monotonic() + 60
        while len(server.requests) < 6:
            assert time.monotonic() < deadline and not running.done()
            await asyncio.sleep(0.01)
        newer = begin_run(store, {"n": 2}, force=True)
        gate.set()
        result = await asyncio.wait_for(running, 60)
        assert result.state == "stopped" and runner.claims.lost is not None
        assert runner.claims.lost.newer["id"] == newer == runner.run_id + 1  # type: ignore[operator]
        assert len(server.requests) == 6  # nothing sent after the takeover
        assert [c.run_id for c in store.calls()] == [runner.run_id] * 6  # the two late answers kept
        assert [r["state"] for r in run_table(store)] == ["taken over", "running"]
    monitor = RunMonitor()
    notices = [n for e in events if isinstance(e, RunStateChanged) for n in monitor.handle(e)]
    assert [n.title for n in notices] == ["run taken over"] and "lost its lease" in notices[0].message


def test_a_claim_binds_while_its_process_lives_not_once_it_exited_or_its_pid_is_reused(
    tmp_path: Path,
) -> None:
    """Another process of this host made the claims: they bind while it exists (stopped or not); not once it is a
    zombie (killed, not yet waited for), nor when the process behind that pid started after the claim."""
    from elotui.store.claims import claim
    from elotui.store.processes import _stat
    from elotui.store.runs import begin_run

    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        with Store(tmp_path / "s.sqlite") as store:
            old = begin_run(store, {"n": 1})
            assert {claim(store, k, old) for k in ("k1", "k2")} == {"mine"}
            store._db.execute("UPDATE runs SET pid = ? WHERE id = ?", (other.pid, old))  # (as if made there)
            store._db.execute(
                "UPDATE claims SET claimed_at = claimed_at - 3600 WHERE key = 'k2'"
            )  # pid reused
            new = begin_run(store, {"n": 2}, force=True)
            other.send_signal(signal.SIGSTOP)
            assert claim(store, "k1", new) == "taken" and claim(store, "k2", new) == "mine"
            other.kill()
            until(lambda: _stat(other.pid)[0] == "Z", what="a zombie")
            assert claim(store, "k1", new) == "mine"
    finally:
        other.kill()
        other.wait()


def test_calls_another_store_is_sending_are_waited_for_then_skipped_never_sent(
    tmp_path: Path,
    fake_llm_factory,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every call of the plan is claimed in the shared cache by another live process that never answers: the run
    waits (ELOTUI_CLAIM_WAIT_S without progress: 0.3 s here), then skips them, sends none, and says so; once that
    process is gone, the next run sends each call once."""
    import asyncio

    from elotui.commands.headless import _claims_note
    from elotui.run import claiming
    from elotui.run.events import Event, RunStarted
    from elotui.run.runner import Runner
    from elotui.store.call_cache import CallCache
    from elotui.store.processes import host_name
    from elotui.tournament.model import load_tournament

    monkeypatch.setattr(claiming, "CLAIM_WAIT_S", 0.3)
    server: FakeLLMServer = fake_llm_factory()
    spec = load_tournament(tournament(tmp_path, server))
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        with Store(tmp_path / "s.sqlite", cache=CallCache(tmp_path / "cache.sqlite")) as store:
            planner = Runner(spec, store)

            def stop_once_planned(event: Event) -> None:
                if isinstance(event, RunStarted):
                    planner.stop()

            planner.on_event = stop_once_planned
            asyncio.run(planner.run())  # (the plan stored, nothing sent)
            keys = sorted({row.key for row in store.plan()})
            assert len(keys) == TOTAL and not server.requests
            with sqlite3.connect(tmp_path / "cache.sqlite") as cache:  # another store's run, in that process
                cache.executemany(
                    "INSERT INTO claims VALUES (?, '/elsewhere/other.sqlite', 1, ?, ?, ?)",
                    [(k, host_name(), other.pid, time.time()) for k in keys],
                )
            waiting = Runner(spec, store)
            result = asyncio.run(waiting.run())
            assert not server.requests and waiting.claims.skipped == TOTAL and result.done == 0
            assert _claims_note(waiting) is None
            assert (
                f"{TOTAL} planned comparison(s) were still being answered by another run"
                in capsys.readouterr().err
            )
            other.kill()
            other.wait()
            again = Runner(spec, store)
            assert asyncio.run(again.run()).done == TOTAL and again.claims.skipped == 0
        paid_once_each(server)
    finally:
        other.kill()
        other.wait()
