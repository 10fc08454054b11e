"""The TUI in a real terminal (tmux), judging with a slow loopback server: Ctrl-C stops it (the calls in flight
finish and are stored, exit 130), a rerun sends none of them again; `q` does the same with exit 0; a second Ctrl-C
while it waits abandons them and exits at once. After it closes the exit summary is on the terminal, with the
store's path and the command that resumes. No wall-clock asserts: waits are for conditions, bounded."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from elotui.store import Store
from tests.run.fakes import write_tournament
from tests.servers.fake_llm import FakeLLMServer

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (CI installs it)")

CONTESTANTS = ["a", "b", "c", "d"]
PROMPTS = {"p1": "What is AI?", "p2": "Name a prime number."}
TOTAL = len(PROMPTS) * 6 * 2


def until(condition, timeout: float = 60.0, what: str = "condition") -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class Terminal:
    """`elotui run T` in a detached tmux session on a private tmux server; the pane stays after it exits."""

    def __init__(self, tmp_path: Path) -> None:
        self.socket = f"elotui-test-{os.getpid()}-{tmp_path.name}"
        self.rc = tmp_path / "rc"

    def tmux(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True)
        return out.stdout

    def start(self, tmp_path: Path, *args: str) -> None:
        env = {k: os.environ[k] for k in ("ELOTUI_HOME", "PATH", "HOME") if k in os.environ}
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        cmd = " ".join(shlex.quote(a) for a in (sys.executable, "-m", "elotui.cli", "run", *args))
        script = tmp_path / "run.sh"
        script.write_text(
            f"cd {shlex.quote(str(tmp_path))}\nexport {exports} TERM=xterm-256color\n{cmd}\n"
            f"echo $? > {shlex.quote(str(self.rc))}\nsleep 600\n"
        )
        self.tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "40", f"bash {shlex.quote(str(script))}")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "t", *keys)

    def exit_code(self, timeout: float = 60.0) -> int:
        until(lambda: self.rc.exists() and self.rc.read_text().strip() != "", timeout, "the app to exit")
        return int(self.rc.read_text())

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "t", "-S", "-100")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, check=False)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    term = Terminal(tmp_path)
    yield term
    term.close()


def world(tmp_path: Path, server: FakeLLMServer) -> tuple[Path, Path]:
    judge = server.judge_config("openai-compatible", id="j1", max_concurrency=3)
    path = write_tournament(tmp_path / "t.toml", contestants=CONTESTANTS, prompts=PROMPTS, judges=[judge])
    return path, tmp_path / "s.sqlite"


def answered(store_path: Path) -> int:
    with Store(store_path) as store:
        return sum(1 for row in store.plan_verdicts() if row[6] in ("ok", "invalid"))


@pytest.mark.parametrize(("key", "code"), [("C-c", 130), ("q", 0)])
def test_stopping_keeps_the_calls_in_flight_and_a_rerun_sends_none_of_them(
    tmp_path: Path, fake_llm_factory, terminal: Terminal, key: str, code: int
) -> None:  # type: ignore[no-untyped-def]
    server: FakeLLMServer = fake_llm_factory(latency_s=1.0)
    path, store = world(tmp_path, server)
    terminal.start(tmp_path, "t.toml", "--store", str(store))
    until(lambda: server.in_flight >= 2, what="calls in flight")
    terminal.keys(key)
    assert terminal.exit_code() == code
    sent = len(server.requests)
    assert 2 <= sent < TOTAL
    assert answered(store) == sent  # every call in flight was answered and stored
    screen = terminal.screen()
    how = "stopped (Ctrl-C)" if key == "C-c" else "stopped (q)"
    assert f"elotui: {how} · {sent}/{TOTAL} calls answered" in screen, screen
    assert f"store: {store}" in screen and "`elotui run t.toml --store" in screen and "resumes" in screen
    rerun = subprocess.run(
        [sys.executable, "-m", "elotui.cli", "run", str(path), "--headless", "--store", str(store)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert rerun.returncode == 0, rerun.stderr
    counts = Counter(r.user for r in server.requests)
    assert len(counts) == TOTAL and set(counts.values()) == {1}  # none of them sent twice


def test_a_second_ctrl_c_while_stopping_exits_at_once(
    tmp_path: Path, fake_llm_factory, terminal: Terminal
) -> None:  # type: ignore[no-untyped-def]
    server: FakeLLMServer = fake_llm_factory(
        latency_s=600.0
    )  # calls in flight that would never end by themselves
    _, store = world(tmp_path, server)
    terminal.start(tmp_path, "t.toml", "--store", str(store))
    until(lambda: server.in_flight >= 2, what="calls in flight")
    terminal.keys("C-c")
    until(lambda: "stopping: waiting for" in terminal.screen(), what="the app to say it stops")
    terminal.keys("C-c")
    assert terminal.exit_code(timeout=60) == 130  # not after the server's 600 s
    assert answered(store) == 0  # abandoned: nothing stored, the next run sends them
    with Store(store) as s:
        assert s.runs()[-1].state == "stopped"  # closed: the next run need not wait for its lease to end
