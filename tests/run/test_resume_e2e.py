"""Kill a real `elotui run --headless` process (SIGKILL) mid-run and resume it: against a loopback server that
counts requests, no call whose verdict was stored is ever sent again."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.run.fakes import write_tournament
from tests.servers.fake_llm import FakeLLMServer, Slow

CONTESTANTS = ["a", "b", "c", "d", "e", "f"]
PROMPTS = {"p1": "What is AI?", "p2": "Name a prime number.", "p3": "Why is the sky blue?"}
TOTAL = len(PROMPTS) * 15 * 2
STALL_S = 2.0  # the requests after the first few take this long: the run cannot end before the test stops it


def stall_after(server: FakeLLMServer, requests: int) -> None:
    """Answer the first `requests` requests at once, then every one STALL_S late: on a loaded machine the test
    might otherwise see its 10 or 20 stored verdicts only after the whole run has ended."""
    server.script(*[Slow(0.0)] * requests, *[Slow(STALL_S)] * TOTAL)


def kill_when(proc: subprocess.Popen[bytes], ready: Callable[[], bool], timeout_s: float) -> None:
    """SIGKILL the running `proc` as soon as `ready()` (failing if it ends first or `timeout_s` passes)."""
    deadline = time.monotonic() + timeout_s
    while not ready():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    assert proc.returncode == -signal.SIGKILL


def interruptible(cmd: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    """`cmd` started as from a terminal, where Ctrl-C delivers SIGINT: with SIGINT's default disposition even when
    this test process ignores it (a suite started as a background job, `cmd &` in a non-interactive shell, inherits
    SIG_IGN, and so would the child: Python then installs no KeyboardInterrupt handler and the run would ignore
    the signal). A Python-level handler here becomes the default one in the exec'd child."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, previous)


def stored_ok(store: Path) -> set[tuple[str, str, str]]:
    if not store.exists():
        return set()
    try:
        with sqlite3.connect(store, timeout=5) as db:
            rows = db.execute("SELECT prompt, first, second FROM calls WHERE status = 'ok'").fetchall()
    except sqlite3.OperationalError:  # tables not created yet
        return set()
    return {tuple(r) for r in rows}  # type: ignore[misc]


def shown(request: object, texts: dict[str, tuple[str, str]]) -> tuple[str, str, str]:
    pair = request.responses  # type: ignore[attr-defined]
    assert pair is not None
    first, second = (texts[t] for t in pair)
    assert first[0] == second[0]
    return first[0], first[1], second[1]


def test_sigkill_mid_run_then_resume_repeats_no_stored_call(tmp_path: Path, fake_llm_factory) -> None:  # type: ignore[no-untyped-def]
    server: FakeLLMServer = fake_llm_factory(latency_s=0.03)
    judge = server.judge_config("openai-compatible", id="j1", max_concurrency=2)
    path = write_tournament(tmp_path / "t.toml", contestants=CONTESTANTS, prompts=PROMPTS, judges=[judge])
    from elotui.tournament.model import load_tournament

    t = load_tournament(path)
    texts = {text: (pid, cid) for (pid, cid), text in t.responses.items()}
    store = tmp_path / "store.sqlite"
    cmd = [sys.executable, "-m", "elotui.cli", "run", str(path), "--headless", "--store", str(store)]
    env = {**os.environ, "ELOTUI_HOME": str(tmp_path / "home")}
    stall_after(server, 24)

    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    kill_when(proc, lambda: len(stored_ok(store)) >= 20, timeout_s=60)
    # let the server take in and answer whatever the killed process had already sent
    seen, quiet_since = -1, time.monotonic()
    while time.monotonic() - quiet_since < 0.3 or server.in_flight:
        if len(server.requests) != seen:
            seen, quiet_since = len(server.requests), time.monotonic()
        time.sleep(0.02)
    before = stored_ok(store)
    first_run = len(server.requests)
    assert 20 <= len(before) < TOTAL
    assert first_run - len(before) <= 2  # at most the calls in flight were lost (max_concurrency = 2)
    server.clear_script()

    done = subprocess.run(cmd, check=False, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    resumed = [shown(r, texts) for r in server.requests[first_run:]]
    assert len(resumed) == TOTAL - len(before)
    assert not set(resumed) & before  # nothing with a stored verdict was sent again
    assert len(set(resumed)) == len(resumed)
    assert stored_ok(store) == before | set(resumed) and len(stored_ok(store)) == TOTAL
    assert done.stdout.splitlines()[0].startswith("test — elo")
    with sqlite3.connect(store) as db:
        states = [r[0] for r in db.execute("SELECT state FROM runs ORDER BY id")]
    assert states == ["died", "finished"]  # the killed run never wrote its end: the next run marked it died


def test_ctrl_c_stops_cleanly_and_the_next_run_finishes(tmp_path: Path, fake_llm_factory) -> None:  # type: ignore[no-untyped-def]
    server: FakeLLMServer = fake_llm_factory(latency_s=0.03)
    judge = server.judge_config("openai-compatible", id="j1", max_concurrency=2)
    path = write_tournament(tmp_path / "t.toml", contestants=CONTESTANTS, prompts=PROMPTS, judges=[judge])
    store = tmp_path / "store.sqlite"
    cmd = [sys.executable, "-m", "elotui.cli", "run", str(path), "--headless", "--store", str(store)]
    env = {**os.environ, "ELOTUI_HOME": str(tmp_path / "home")}
    stall_after(server, 14)
    proc = interruptible(cmd, env)
    deadline = time.monotonic() + 60
    while len(stored_ok(store)) < 10:
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert (
        "stopping: waiting for" in err and "elotui: stopped (Ctrl-C)" in err
    )  # the calls in flight end first
    with sqlite3.connect(store) as db:
        assert [r[0] for r in db.execute("SELECT state FROM runs")] == ["stopped"]
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
    assert integrity == "ok"
    answered = len(stored_ok(store))
    assert 10 <= answered < TOTAL
    server.clear_script()
    before = len(server.requests)
    done = subprocess.run(cmd, check=False, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(stored_ok(store)) == TOTAL
    assert len(server.requests) - before == TOTAL - answered


def test_sigkill_while_free_batches_commit_behind_keeps_the_store_whole_and_the_rerun_finishes(
    tmp_path: Path,
) -> None:
    """A simulated judge without a delay (free answers: 65,536 at a time, each batch's commit finished in a helper
    thread while the next is answered) killed after its first commit: the store is intact, what was committed
    stays, and the next run answers exactly the rest."""
    contestants = [f"c{i:02d}" for i in range(35)]
    prompts = {f"p{i:03d}": f"question {i}" for i in range(101)}
    total = 35 * 34 * 101  # 120,190 presentations: two batches at least
    judge = {
        "id": "sim",
        "provider": "simulated",
        "simulation": {
            "noise": 40.0,
            "seed": 5,
            "qualities": {c: 1000.0 + 7 * i for i, c in enumerate(contestants)},
        },
    }
    path = write_tournament(tmp_path / "t.toml", contestants=contestants, prompts=prompts, judges=[judge])
    store = tmp_path / "store.sqlite"
    cmd = [sys.executable, "-m", "elotui.cli", "run", str(path), "--headless", "--store", str(store)]
    env = {**os.environ, "ELOTUI_HOME": str(tmp_path / "home")}

    def answered() -> int:
        try:
            with sqlite3.connect(store, timeout=5) as db:
                return int(db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])
        except sqlite3.OperationalError:  # not created yet
            return 0

    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    kill_when(proc, lambda: answered() > 0, timeout_s=120)
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    kept = answered()
    assert 0 < kept < total, kept
    from elotui.store import Store
    from elotui.store.runs import LEASE_S, reap

    with Store(store) as s:  # the killed run's lease, as a later process would find it
        reap(s, now=time.time() + LEASE_S + 1)
    done = subprocess.run(cmd, check=False, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with Store(store) as s:
        verdicts = s.plan_verdicts()
        assert len(verdicts) == total and all(v.status != "missing" for v in verdicts)
        assert len(s.calls()) == total  # each presentation's call once: nothing answered twice, nothing lost
