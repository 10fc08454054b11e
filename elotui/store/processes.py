"""Who holds a lease or a claim, and whether that process may still be sending a call it claimed.

A claim on a call stays binding for as long as the process that made it may still be waiting for its answer: that
call may already be paid for at the provider, so another run sending it again would pay twice. On this host that
is known exactly: the process exists (a paused one too, SIGSTOP) and is not a zombie; in this very process, the
run that made it has not ended (`began`, `ended`: a run that failed, a full disk say, sends nothing more). A process on another host
(a store or a home folder on a shared disk) cannot be asked: its claim binds for CLAIM_HOLD_S after it was made
(a bound on one call's time, retries included), then the call is given to whoever claims it next.
"""

from __future__ import annotations

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


def alive(pid: int | None) -> bool:
    """Whether process `pid` exists on this host (paused included; a zombie, exited but not yet waited for, is
    not)."""
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, another user's
        return True
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
    except OSError:  # no /proc (macOS) or gone meanwhile: os.kill said it exists
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


def may_still_send(
    run: tuple[str, int], host: str | None, pid: int | None, claimed_at: float | None, now: float
) -> bool:
    """Whether the process that claimed a call for `run` (store name, run id) on `host`, as `pid`, at `claimed_at`
    may still be sending it."""
    if host == host_name():
        return run in _RUNNING if pid == os.getpid() else alive(pid)
    return (claimed_at or 0.0) + CLAIM_HOLD_S >= now
