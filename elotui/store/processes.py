"""Who holds a lease or a claim, and whether that process may still be sending a call it claimed.

A claim on a call stays binding for as long as the process that made it may still be waiting for its answer: that
call may already be paid for at the provider, so another run sending it again would pay twice. On this host that
is known exactly: the process exists (a paused one too, SIGSTOP), is not a zombie, and started before the claim
(else its pid was reused: the claimant is gone); in this very process, the run that made it has not ended (`began`,
`ended`: a run that failed, a full disk say, sends nothing more). A process on another host
(a store or a home folder on a shared disk) cannot be asked: its claim binds for CLAIM_HOLD_S after it was made
(a bound on one call's time, retries included), then the call is given to whoever claims it next.
"""

from __future__ import annotations

import functools
import os
import socket

# How long a claim made by a process on another host binds once that process's run no longer holds its lease.
CLAIM_HOLD_S = float(os.environ.get("ELOTUI_CLAIM_HOLD_S") or 600.0)


_RUNNING: set[tuple[str, int]] = set()  # this process's runs not yet ended: (store name, run id)


def began(store: str, run_id: int) -> None:
    """Run `run_id` of `store` (elotui.store.call_cache.store_name) began in this process."""
    _RUNNING.add((store, run_id))


def ended(store: str, run_id: int) -> None:
    """Run `run_id` of `store` ended in this process: its claims bind no more."""
    _RUNNING.discard((store, run_id))


def host_name() -> str:
    return socket.gethostname()


REUSED_AFTER_S = 2.0  # a process that started this long after a claim (or run) is not the one that made it


def alive(pid: int | None, since: float | None = None) -> bool:
    """Whether process `pid` exists on this host (paused included; a zombie, exited but not yet waited for, is
    not) and, with `since` (a time.time()), started before then: a process started later has only reused the pid."""
    if not pid or type(pid) is not int:  # none, or not a process id (a damaged row)
        return False
    if not isinstance(since, int | float):  # (a damaged start time: the pid alone decides)
        since = None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, another user's
        pass
    state, started = _stat(pid)
    if state == "Z":
        return False
    return since is None or started is None or started <= since + REUSED_AFTER_S


def _stat(pid: int) -> tuple[str | None, float | None]:
    """A process's state letter and start time (time.time()), from /proc (None, None where there is none)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            fields = f.read().rpartition(")")[2].split()  # (the name, in parentheses, may hold spaces)
        ticks = int(fields[19])  # field 22: the start, in clock ticks after boot
        return fields[0], _boot_time() + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):  # no /proc (macOS), gone meanwhile, or unreadable
        return None, None


@functools.cache
def _boot_time() -> float:
    with open("/proc/stat", encoding="ascii") as f:
        return float(next(line.split()[1] for line in f if line.startswith("btime ")))


def may_still_send(
    run: tuple[str, int], host: str | None, pid: int | None, claimed_at: float | None, now: float
) -> bool:
    """Whether the process that claimed a call for `run` (store name, run id) on `host`, as `pid`, at `claimed_at`
    may still be sending it."""
    if host == host_name():
        return run in _RUNNING if pid == os.getpid() else alive(pid, since=claimed_at)
    return (claimed_at or 0.0) + CLAIM_HOLD_S >= now
