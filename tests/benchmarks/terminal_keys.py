"""What a user sees after a key, in a real terminal: `elotui run T --store S` in a pseudo-terminal of 80x24, its
output read by a terminal emulator (pyte, `pip install -e '.[bench]'`). After start-up (until the app has been
idle for 3 s: no CPU to speak of, no change on the screen), the threshold and method keys are written one at a
time; for each, the time from writing the key until the first output that changes the emulated screen (the time
stamp is the output's arrival, before the emulator parses it).
Part of `bench_tui.py T STORE`; `python -m tests.benchmarks.terminal_keys T STORE` runs it alone."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import statistics
import struct
import subprocess
import sys
import termios
import time

KEYS = ["1", "2", "3", "5", "m", "1", "4", "m", "2", "5"] * 3
SETTLE_S = 3  # start-up is over when the app has been idle this many seconds in a row: ...
IDLE_CPU_S = 0.05  # ... each with less CPU than this (its workers ranking every view are done) ...
SETTLE_MAX_S = 300.0  # ... and no change on the screen; or after this long
WINDOW_S = 0.8  # a key's screen changes are looked for this long


def key_latencies(tournament: str, store: str, size: tuple[int, int] = (80, 24)) -> list[float]:
    """Seconds from each key to the first screen change it caused (keys that changed nothing are left out)."""
    import pyte

    columns, lines = size
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(lines)}
    command = [sys.executable, "-m", "elotui.cli", "run", tournament, "--store", store]
    proc = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    screen = pyte.Screen(columns, lines)
    stream = pyte.ByteStream(screen)

    def changes(window: float) -> list[float]:
        """Arrival times (from now) of the output that changed the screen, for `window` s."""
        start, shown, seen = time.perf_counter(), list(screen.display), []
        while (left := window - (time.perf_counter() - start)) > 0:
            ready, _, _ = select.select([master], [], [], left)
            if not ready:
                continue
            try:
                data = os.read(master, 1 << 16)
            except OSError:  # the app ended
                break
            arrived = time.perf_counter() - start
            stream.feed(data)
            if (now := list(screen.display)) != shown:
                seen.append(arrived)
                shown = now
        return seen

    try:
        quiet, deadline = 0, time.perf_counter() + SETTLE_MAX_S
        while quiet < SETTLE_S and time.perf_counter() < deadline:  # start-up: until the app is idle
            cpu = cpu_seconds(proc.pid)
            changed = changes(1.0)
            quiet = 0 if changed or cpu_seconds(proc.pid) - cpu > IDLE_CPU_S else quiet + 1
        latencies = []
        for key in KEYS:
            os.write(master, key.encode())
            if seen := changes(WINDOW_S):
                latencies.append(seen[0])
        return latencies
    finally:
        with contextlib.suppress(OSError):  # the app may have ended already
            os.write(master, b"q")
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        os.close(master)


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system, all threads) of a running process, from /proc."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def report(tournament: str, store: str) -> None:
    try:
        import pyte  # noqa: F401
    except ImportError:
        print("terminal: skipped (pyte is not installed: pip install -e '.[bench]')")
        return
    got = key_latencies(tournament, store)
    if not got:
        print("terminal: no key changed the screen")
        return
    print(
        f"terminal (pty 80x24, pyte): key -> screen changed, {len(got)} keys: median "
        f"{1000 * statistics.median(got):.1f} ms, max {1000 * max(got):.1f} ms"
    )


if __name__ == "__main__":
    report(sys.argv[1], sys.argv[2])
