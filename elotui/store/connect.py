"""Opening a store's SQLite file: WAL and normal sync for a writable one (the switch retried while another process
creates the same file), read-only and immutable for an archived one or a read-only mount, so that reading
commands work on it; the errors a user can act on, with the file named."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast
from urllib.parse import quote

from elotui.errors import StoreError, UserError, store_problem

# Binding None costs Python 3.11's sqlite3 ~375 ns (it looks for an adapter, fails, and asks the PrepareProtocol type
# for `__adapt__`, building and clearing an AttributeError), against ~50 ns for an int: a replay verdict's call row
# binds eight (10^6 rows of 22 Nones: 8.3 s, 2.3 s with the adapter; the 10^6-verdict ingest ~0.7 s faster). With an
# adapter registered for None the lookup succeeds at once; the adapter, a C function that returns None for any key,
# hands None back, which is bound as NULL as before.
sqlite3.register_adapter(type(None), cast("Callable[[None], None]", {}.get))


class StoreConnection(sqlite3.Connection):
    """A store's connection; a writable one knows its write-ahead log (`wal`), checked after each commit."""

    wal: WalLog | None = None


class WalLog:
    """A writer's write-ahead log (`PATH-wal`), which must stay the file it committed to while the writer is open:
    SQLite deletes it only when the last connection closes. A process that cannot see this one's locks (on another
    machine sharing the folder; a tool that deletes it by hand) may delete or replace it, and the commits since the
    last checkpoint would be lost or mixed with another log: `check` finds that after the next commit."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self.path = Path(f"{store}-wal")
        # (device, inode) of the log this connection committed to
        self.identity: tuple[int, int] | None = None

    def check(self) -> None:
        """After a commit: raise StoreError (exit 5) if the log is gone or another file took its place."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            info = None
        identity = (info.st_dev, info.st_ino) if info is not None else None
        if identity is not None and self.identity in (None, identity):
            self.identity = identity
            return
        raise StoreError(
            f"{self.store}: its write-ahead log {self.path.name} vanished while this process was writing to it "
            f"({'gone' if identity is None else 'replaced by another file'}): another process deleted it, one "
            "that could not see this one's locks (another machine sharing the folder, or a tool). Stop every "
            "other process using the store and run again: answered calls are also in this machine's shared "
            "call cache, so few (if any) are paid again"
        )


def after_commit(db: sqlite3.Connection) -> None:
    """The checks a writer makes after each commit (the write-ahead log is still its own: WalLog)."""
    wal = getattr(db, "wal", None)
    if wal is not None:
        wal.check()


def connect(path: Path, *, reader: bool = False) -> tuple[sqlite3.Connection, bool]:
    """(connection, read_only). `reader`: an existing store is opened read-only (`watch`: a reader that closes
    last never checkpoints, truncates or deletes the write-ahead log of a writer it cannot see)."""
    exists = path.exists()
    read_only = exists and not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK))
    try:
        if not read_only:
            path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{path}: cannot create the store's folder {path.parent}: {exc.strerror}") from None
    try:
        if read_only or (reader and exists):
            mode = "ro&immutable=1" if read_only else "ro"  # immutable: an archived file no one writes
            uri = f"file:{quote(str(path.resolve()))}?mode={mode}"
            db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None, timeout=30)
        else:
            db = sqlite3.connect(
                path, check_same_thread=False, timeout=30, isolation_level=None, factory=StoreConnection
            )
            if switch_to_wal(db) == "wal":  # (a file system without shared memory keeps the rollback journal)
                db.wal = WalLog(path)
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA journal_size_limit=67108864")  # a checkpointed WAL shrinks back to 64 MiB
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA cell_size_check=ON")  # each page checked as it is read: a damaged one is an error
    except sqlite3.DatabaseError as exc:
        raise UserError(f"{path}: not a usable elotui store ({exc})") from None
    return db, read_only or (reader and exists)


# larger stores are checked page by page as they are read: a whole check would cost a run over a second at its start
QUICK_CHECK_MAX_BYTES = 256 << 20


def for_writing(db: sqlite3.Connection, path: Path) -> None:
    """A connection about to write a run's plan and calls: a 64 MiB page cache, so that inserts by random (hash)
    key stay in memory. Other connections keep SQLite's 2 MiB: reading the stored columns (~30 MB at 10^6
    verdicts, read once into arrays, elotui.store.columns) through a large cache copies them into fresh memory
    twice (at 10^6: 15.9k page faults and ~0.06 s, against 8.5k and ~0.03 s).

    A run does not write into a damaged file. Every connection checks each page as it reads it (`cell_size_check`,
    no measurable cost); a store of up to QUICK_CHECK_MAX_BYTES is also checked whole before the run writes
    (`PRAGMA quick_check`: the B-trees, the records' shapes, the free pages; ~5 ms a MB: 40 ms at 19,000 calls,
    0.65 s for a plan of 10^6 rows). A damaged page stops the run with StoreError (exit 5) naming the store."""
    try:
        db.execute("PRAGMA cache_size=-65536")
        if path.stat().st_size > QUICK_CHECK_MAX_BYTES:
            return
        found = [
            line
            for row in db.execute("PRAGMA quick_check(5)").fetchall()
            for line in str(row[0]).splitlines()
            if line and not line.startswith("***")  # "*** in database main ***": which file, said already
        ]
    except (sqlite3.DatabaseError, OSError) as exc:
        raise store_problem(path, exc) from None
    if found != ["ok"]:
        raise store_problem(
            path, sqlite3.DatabaseError(f"database disk image is malformed: {'; '.join(found)}")
        )


def end_read(db: sqlite3.Connection) -> None:
    """End a read transaction where one is open. A read whose reader stopped early (`elotui verdicts | head`) may
    be ended only after its store has closed: then there is nothing left to end, and nothing is said."""
    try:
        if db.in_transaction:
            db.execute("COMMIT")  # a read: nothing to keep or to undo
    except sqlite3.ProgrammingError:  # the connection is closed
        pass


def switch_to_wal(db: sqlite3.Connection) -> str:
    """Switch to WAL (the journal mode in force after: "wal" but where the file system has no shared memory). On a
    file another process is creating this very moment the switch can answer "locked" without waiting (SQLite does
    not call the busy handler for it): retry, for up to 30 s. (A store, and the shared call cache, which two runs
    starting together open at once.)"""
    for attempt in range(300):
        try:
            return str(db.execute("PRAGMA journal_mode=WAL").fetchone()[0]).lower()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == 299:
                raise
            time.sleep(0.1)
    raise AssertionError("unreachable: the last attempt returns or raises")
