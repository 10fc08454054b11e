"""This machine's shared call cache: every answered call (status ok or invalid) of every tournament store, by its
content key (provider, model, settings, the rendered prompt, the sample: elotui.plan.keys).

Stores are kept one per tournament file (by path), so that rankings read exactly that file's plan; the answers
they hold are also written here, and a store reads through this cache before deciding a call must be sent. So a
copied, renamed or moved tournament file, a colleague's clone of the same repository, or another tournament that
asks exactly the same call, pays for nothing that this machine already paid for. It lives in the user data
directory (`<data dir>/call-cache.sqlite`; `ELOTUI_HOME` relocates it); `ELOTUI_NO_SHARED_CACHE=1` turns it off.
A cache that cannot be opened or written (a read-only home, a full disk) is skipped: it only ever saves calls. A
cache another process is creating at the same moment is waited for (two copies of a tournament started together
must share it, or each pays for every call).

It is also this machine's one claim space for the calls it shares: a run claims a call here too (`claim_many`)
after claiming it in its own store (elotui.store.claims), so that two tournaments asking the same call at the same
time (two copies of one file, two stores) pay for it once: the second finds it claimed and waits for its answer. A
claim binds while the process that made it may still be sending the call (elotui.store.processes); it ends when
the answer is put here, or when its run ends (`release`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Literal, TypeVar

from elotui.records import CALL_COLUMNS, CallRecord, call_row
from elotui.store.connect import switch_to_wal
from elotui.store.keysets import answered_keys, chunks
from elotui.store.processes import host_name, may_still_send

Claim = Literal["mine", "answered", "taken"]
_T = TypeVar("_T")
CLAIMS_TABLE = (
    "CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, store TEXT NOT NULL, run_id INTEGER NOT NULL, "
    "host TEXT, pid INTEGER, claimed_at REAL NOT NULL) WITHOUT ROWID"
)


def store_name(path: Path) -> str:
    """How a store is named in the cache's claims (its real path: one store, one name)."""
    return os.path.realpath(path)


def _add_missing_columns(db: sqlite3.Connection) -> None:
    """The `calls` columns an older cache lacks, added (empty: NULL)."""
    have = {row[1] for row in db.execute("PRAGMA table_info(calls)")}
    for column in CALL_COLUMNS:
        if column not in have:
            db.execute(f"ALTER TABLE calls ADD COLUMN {column}")


class CallCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, check_same_thread=False, timeout=30, isolation_level=None)
            switch_to_wal(db)  # two runs starting together: the second waits, never goes on without the cache
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA cache_size=-65536")
            columns = ", ".join(f"{c} {'TEXT PRIMARY KEY' if c == 'key' else ''}" for c in CALL_COLUMNS)
            db.execute(f"CREATE TABLE IF NOT EXISTS calls ({columns})")
            _add_missing_columns(db)  # an older elotui's cache lacks the newer ones (a graded strength)
            db.execute(CLAIMS_TABLE)  # (a cache written by an older elotui gains it here)
            self._db = db
        except (OSError, sqlite3.Error):
            self._db = None

    @classmethod
    def default(cls) -> CallCache | None:
        if os.environ.get("ELOTUI_NO_SHARED_CACHE"):
            return None
        from elotui.errors import UserError
        from elotui.locations import data_dir

        try:
            return cls(data_dir() / "call-cache.sqlite")
        except (
            OSError,
            UserError,
        ):  # no usable data folder: the cache only ever saves calls; the store says why
            return None

    def put(self, rec: CallRecord) -> None:
        self.put_many([rec])

    def put_many(self, records: list[CallRecord]) -> None:
        """Keep these answered calls and end the claims on them (one transaction)."""
        if self._db is None or not records:
            return
        marks = ", ".join("?" for _ in CALL_COLUMNS)

        def put(db: sqlite3.Connection) -> None:
            db.executemany(
                f"INSERT OR REPLACE INTO calls ({', '.join(CALL_COLUMNS)}) VALUES ({marks})",
                list(map(call_row, records)),
            )
            db.executemany("DELETE FROM claims WHERE key = ?", [(r.key,) for r in records])

        self._write(put, None)

    def claim_many(self, keys: Sequence[str], store: str, run_id: int) -> dict[str, Claim]:
        """Claim these calls for run `run_id` of `store` (`store_name`), in one transaction: "answered" (the cache has
        the answer: read it with `get_many`), "taken" (another run, of this store or another, claimed it and its
        process may still be sending it) or "mine". A cache that cannot be used answers "mine": it coordinates what
        it can, and never stops a run."""
        mine: dict[str, Claim] = dict.fromkeys(keys, "mine")

        def claim(db: sqlite3.Connection) -> dict[str, Claim]:
            now, result = time.time(), dict(mine)
            for chunk in chunks(list(keys)):
                result.update((k, "answered") for k in answered_keys(db, chunk))
                marks = ",".join("?" for _ in chunk)
                held = db.execute(
                    f"SELECT key, store, run_id, host, pid, claimed_at FROM claims WHERE key IN ({marks}) "
                    "AND NOT (store = ? AND run_id = ?)",
                    [*chunk, store, run_id],
                ).fetchall()
                result.update(
                    (k, "taken")
                    for k, name, run, host, pid, at in held
                    if result[k] == "mine" and may_still_send((name, run), host, pid, at, now)
                )
            rows = [
                (k, store, run_id, host_name(), os.getpid(), now) for k, v in result.items() if v == "mine"
            ]
            db.executemany("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?, ?)", rows)
            return result

        return self._write(claim, mine)

    def release(self, store: str, run_id: int, keys: Iterable[str] | None = None) -> None:
        """End run `run_id`'s claims (of `store`): on these calls, or all of them."""

        def release(db: sqlite3.Connection) -> None:
            if keys is None:
                db.execute("DELETE FROM claims WHERE store = ? AND run_id = ?", (store, run_id))
            else:
                sql = "DELETE FROM claims WHERE key = ? AND store = ? AND run_id = ?"
                db.executemany(sql, [(k, store, run_id) for k in keys])

        self._write(release, None)

    def _write(self, body: Callable[[sqlite3.Connection], _T], failed: _T) -> _T:
        """`body(db)` in one write transaction; `failed` if the cache is not there or the write fails (a full disk
        or a read-only cache must never stop a run)."""
        if self._db is None:
            return failed
        try:
            with self._lock:
                self._db.execute("BEGIN IMMEDIATE")
                out = body(self._db)
                self._db.execute("COMMIT")
                return out
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
            return failed

    def get_many(self, keys: Iterable[str]) -> list[CallRecord]:
        if self._db is None:
            return []
        out: list[CallRecord] = []
        try:
            with self._lock:
                found = sorted(answered_keys(self._db, list(keys)))  # the caller's keys are distinct
                for chunk in chunks(found):
                    marks = ",".join("?" for _ in chunk)
                    rows = self._db.execute(
                        f"SELECT {', '.join(CALL_COLUMNS)} FROM calls WHERE key IN ({marks})", chunk
                    ).fetchall()
                    out += [CallRecord(*r) for r in rows]
        except sqlite3.Error:
            return []
        return out

    def close(self) -> None:
        if self._db is not None:
            with self._lock:
                self._db.close()
            self._db = None
