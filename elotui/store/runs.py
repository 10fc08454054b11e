"""Who is running a tournament, and which calls are being paid for: run leases with a fencing token, heartbeats.

Whatever the number of processes on one store (two terminals, a TUI and a headless run, a cron job), a call is
sent by at most one of them:
- **Run lease.** A run is started in one write transaction that first marks dead runs (lease expired, or the
  same host and a pid that no longer exists) as `died`, then refuses if another run holds a live lease
  (`RunActive`: who, where, since when), else inserts its own row with a lease. The writer renews the lease and
  publishes its progress in that row (a heartbeat, a few times per lease); a reader (`elotui watch`) reads it.
- **Fencing token.** A run's right to send is its row being the newest: every run, a takeover (`--force`, or after
  a lease expired) included, is a new row with a larger id, so the run id is the lease's generation number. Every
  claim (elotui.store.claims), every record of a paid answer and every heartbeat checks it in its own transaction
  (`fence`): a run that was forced out, paused past its lease (SIGSTOP) or cut off raises `LeaseLost` at its next
  claim, before it sends anything more. An expired lease that nobody took is still its holder's (no newer row).
- **Call claims** (elotui.store.claims) bind while the process that made them may still be sending the call, so
  the calls a run had in flight when it lost its lease are not sent again by the run that took over.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from typing import TYPE_CHECKING, Any

from elotui.errors import UserError
from elotui.store.call_cache import store_name
from elotui.store.processes import alive as _alive
from elotui.store.processes import began, ended, host_name

if TYPE_CHECKING:
    from elotui.store import Store

LEASE_S = float(os.environ.get("ELOTUI_LEASE_S") or 10.0)  # a run whose heartbeat is older than this is dead
HEARTBEAT_EVERY_S = min(1.0, LEASE_S / 4)
# A run's heartbeat starts once it has prepared (planned its calls, stored the plan, read a replay log: ~20 s at 10^6
# comparisons on a 2-core machine, in a thread and a long write transaction that no heartbeat could get past). The
# lease taken at its start covers that too, at this much per planned comparison (~5x what it takes), so that a
# second process does not find a preparing run's lease expired, declare it dead and run everything again beside it.
# A run that dies while it prepares is still found dead at once on its own host (its pid is gone).
PREPARE_S_PER_COMPARISON = 1e-4
LIVE_STATES = ("running", "paused", "budget")
LOST_LEASE = "lost its lease"  # what a run that another run took over says (LeaseLost)


class RunActive(UserError):
    """Another process holds this tournament's run lease."""

    def __init__(self, message: str, run: dict[str, Any]) -> None:
        super().__init__(message)
        self.run = run

    @classmethod
    def of(cls, store_path: object, run: dict[str, Any]) -> RunActive:
        return cls(
            f"{store_path}: this tournament is already being run ({describe(run)}); follow it with "
            "`elotui watch` (same tournament or --store), or wait for it to finish",
            run,
        )


class LeaseLost(Exception):
    """A newer run took this run's lease (`--force`, or after a pause past its lease): it may send nothing more."""

    def __init__(self, run_id: int, newer: dict[str, Any]) -> None:
        super().__init__(
            f"run {run_id} {LOST_LEASE}: {describe(newer)} took over this tournament; this run sends nothing "
            "more (the answers it had in flight are kept where still unanswered)"
        )
        self.run_id = run_id
        self.newer = newer


def fence(db: sqlite3.Connection, run_id: int) -> None:
    """Raise LeaseLost unless run `run_id` still holds the lease: no newer run began (inside the caller's
    transaction, so that what it then writes is written only by the holder)."""
    row = db.execute(
        "SELECT id, host, pid, started_at FROM runs WHERE id > ? ORDER BY id DESC LIMIT 1", (run_id,)
    ).fetchone()
    if row is not None:
        raise LeaseLost(run_id, dict(zip(("id", "host", "pid", "started_at"), row, strict=True)))


def holds_lease(store: Store, run_id: int) -> LeaseLost | None:
    """None while run `run_id` holds the lease, else why not (a read: the watchdog's check after a pause)."""
    with store._lock, store._guarded():
        try:
            fence(store._db, run_id)
        except LeaseLost as lost:
            return lost
    return None


def describe(run: dict[str, Any]) -> str:
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(run.get("started_at") or 0))
    return f"run {run['id']} by pid {run.get('pid')} on {run.get('host')} since {since}"


def reap(store: Store, now: float | None = None) -> list[int]:
    """Mark runs whose lease expired, or whose process on this host is gone, as `died` (inside a transaction
    of the caller's, or on its own), and drop the claims of those whose process is gone. Returns their ids."""
    now = time.time() if now is None else now
    here = host_name()
    rows = store._db.execute(
        f"SELECT id, host, pid, lease_until, started_at FROM runs WHERE state IN ({','.join('?' * len(LIVE_STATES))})",
        LIVE_STATES,
    ).fetchall()
    dead = []
    for rid, host, pid, lease, started in rows:
        gone = host == here and not _alive(pid, since=started)
        if _seconds(lease) < now or gone:
            dead.append(rid)
            store._db.execute(
                "UPDATE runs SET state = 'died', finished_at = COALESCE(lease_until, heartbeat_at, started_at) "
                "WHERE id = ?",
                (rid,),
            )
        if gone:  # a paused process keeps its claims: the calls it sent may still be answered (store.claims)
            store._db.execute("DELETE FROM claims WHERE run_id = ?", (rid,))
    return dead


def _live_runs(store: Store, now: float) -> list[dict[str, Any]]:
    """The runs holding a live lease, oldest first (inside the caller's transaction, after `reap`)."""
    rows = store._db.execute(
        "SELECT id, host, pid, started_at, lease_until FROM runs WHERE state IN ('running', 'paused', 'budget') "
        "AND lease_until >= ? ORDER BY id",
        (now,),
    ).fetchall()
    return [dict(zip(("id", "host", "pid", "started_at", "lease_until"), r, strict=True)) for r in rows]


def live_run(store: Store) -> dict[str, Any] | None:
    """The run holding a live lease on this store (dead ones are marked died first), or None."""
    found: list[dict[str, Any]] = []

    def body() -> None:
        now = time.time()
        reap(store, now)
        found.extend(_live_runs(store, now))

    store._transaction(body)
    return found[-1] if found else None


def begin_run(store: Store, manifest: dict[str, Any], *, force: bool = False, comparisons: int = 0) -> int:
    """Take the tournament's run lease, long enough for a run of that many planned `comparisons` to prepare
    (PREPARE_S_PER_COMPARISON; the heartbeat renews it after), and record the run; raises RunActive when another
    live run holds it. With `force`, that run's lease is taken over: it is fenced out (`fence`) at its next claim,
    and its claims bind while its process may still be sending them (elotui.store.claims)."""
    out: list[int] = []
    lease = LEASE_S + PREPARE_S_PER_COMPARISON * comparisons

    def body() -> None:
        now = time.time()
        reap(store, now)
        live = _live_runs(store, now)
        if live and not force:
            raise RunActive.of(store.path, live[-1])
        for run in live:
            store._db.execute(
                "UPDATE runs SET state = 'taken over', finished_at = ? WHERE id = ?", (now, run["id"])
            )
        cur = store._db.execute(
            "INSERT INTO runs (started_at, state, manifest, host, pid, heartbeat_at, lease_until) "
            "VALUES (?, 'running', ?, ?, ?, ?, ?)",
            (now, json.dumps(manifest, sort_keys=True), host_name(), os.getpid(), now, now + lease),
        )
        out.append(int(cur.lastrowid or 0))

    store._transaction(body)
    began(store_name(store.path), out[0])
    return out[0]


def heartbeat(
    store: Store,
    run_id: int,
    state: str,
    progress: dict[str, Any] | None,
    lost: threading.Event | None = None,
) -> None:
    """Renew the lease and publish the progress (a JSON object) for readers, if the run still holds the lease (no
    newer run: `fence`; a run marked `died` by a reader while nobody took over is alive again), else set `lost`
    (from whichever thread wrote the beat). While a write is being finished behind
    (elotui.store.writes.Behind), the beat is written in the helper thread right after it, and the caller goes
    on: a run's beats had waited for those writes (at 10^6 replayed verdicts, 2.2 s of ~14 s of answering, the
    event loop blocked meanwhile)."""
    published = json.dumps(progress) if progress is not None else None

    def beat(db: sqlite3.Connection) -> None:
        now = time.time()
        renewed = db.execute(
            "UPDATE runs SET heartbeat_at = ?, lease_until = ?, state = ?, progress = ? WHERE id = ? "
            "AND state != 'taken over' AND NOT EXISTS (SELECT 1 FROM runs newer WHERE newer.id > ?)",
            (now, now + LEASE_S, state, published, run_id, run_id),
        ).rowcount
        if not renewed and lost is not None:
            lost.set()

    store._after_behind(beat)


def finish_run(store: Store, run_id: int, state: str, progress: dict[str, Any] | None = None) -> None:
    """Close the run (its lease ends) with its final state (`taken over` if a newer run took its lease) and, for
    readers, its final progress; its claims end, in the store and in the shared call cache."""
    ended(store_name(store.path), run_id)  # (first: a run that cannot write its end sends nothing more)
    store.compact()  # a reader of the finished run replays no answers
    with store._lock, store._guarded():
        store._db.execute(
            "UPDATE runs SET finished_at = ?, lease_until = NULL, progress = COALESCE(?, progress), state = CASE "
            "WHEN EXISTS (SELECT 1 FROM runs newer WHERE newer.id > runs.id) THEN 'taken over' ELSE ? END "
            "WHERE id = ?",
            (time.time(), json.dumps(progress) if progress is not None else None, state, run_id),
        )
        store._db.execute("DELETE FROM claims WHERE run_id = ?", (run_id,))
    if store.cache is not None:
        store.cache.release(store_name(store.path), run_id)


def latest_run(store: Store) -> dict[str, Any] | None:
    """The newest run with its state as a reader should show it (a live-looking run whose lease expired is
    `died`), host, pid, heartbeat and published progress."""
    row = store._db.execute(
        "SELECT id, started_at, finished_at, state, host, pid, heartbeat_at, lease_until, progress, manifest "
        "FROM runs ORDER BY id DESC LIMIT 1"
    ).fetchone()
    if row is None:
        return None
    names = (
        "id",
        "started_at",
        "finished_at",
        "state",
        "host",
        "pid",
        "heartbeat_at",
        "lease_until",
        "progress",
        "manifest",
    )
    run = dict(zip(names, row, strict=True))
    run["progress"] = _object(run["progress"])
    run["manifest"] = _object(run["manifest"]) or {}
    gone = run["host"] == host_name() and not _alive(run["pid"])  # this machine's process has exited
    if run["state"] in LIVE_STATES and (_seconds(run["lease_until"]) < time.time() or gone):
        run["state"] = "died"
    return run


def run_table(store: Store) -> list[dict[str, Any]]:
    """Every run: id, state (a live-looking one past its lease is `died`), start, end, calls recorded, cost, the
    elotui version, host and pid."""
    now = time.time()
    rows = store._db.execute(
        "SELECT id, started_at, finished_at, state, host, pid, lease_until, manifest FROM runs ORDER BY id"
    ).fetchall()
    # the calls counted per run in one pass over them: joined to the runs, SQLite built an index on the calls' run
    # ids for every listing (1.7 s at 10^6 calls, against 0.4 s)
    recorded = {
        run: (calls, cost)
        for run, calls, cost in store._db.execute(
            "SELECT run_id, COUNT(*), COALESCE(SUM(cost), 0) FROM calls GROUP BY run_id"
        )
    }
    out = []
    for rid, started, finished, state, host, pid, lease, manifest in rows:
        calls, cost = recorded.get(rid, (0, 0))
        if state in LIVE_STATES and _seconds(lease) < now:
            state = "died"
        version = _version(manifest)
        out.append(
            {
                "id": rid,
                "state": state,
                "started_at": started,
                "finished_at": finished,
                "calls": calls,
                "cost": cost,
                "version": version,
                "host": host,
                "pid": pid,
            }
        )
    return out


def _seconds(stored: object) -> float:
    """A stored time (a lease's end), 0 where there is none or it is not a number (a damaged row: expired)."""
    return float(stored) if isinstance(stored, (int, float)) and not isinstance(stored, bool) else 0.0


def _object(stored: object) -> dict[str, Any] | None:
    """A stored JSON object (a manifest, a run's progress); None where there is none or it cannot be read (a
    damaged row is shown without it rather than failing the reader)."""
    try:
        found = json.loads(stored) if isinstance(stored, (str, bytes)) and stored else None
    except (ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


def _version(manifest: object) -> str | None:
    """The elotui version a run's manifest names (None where it names none, or cannot be read)."""
    found = (_object(manifest) or {}).get("elotui_version")
    return found if isinstance(found, str) else None


def run_summaries(store: Store) -> list[dict[str, Any]]:
    """Every run of this store, light: id, state, start and end (no per-call counts)."""
    rows = store._db.execute("SELECT id, state, started_at, finished_at FROM runs ORDER BY id").fetchall()
    return [{"id": i, "state": s, "started_at": a, "finished_at": b} for i, s, a, b in rows]
