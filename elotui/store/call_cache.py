"""This machine's shared call cache: every answered call (status ok or invalid) of every tournament store, by its
content key (provider, model, settings, the rendered prompt, the sample: elotui.run.keys).

Stores are kept one per tournament file (by path), so that rankings read exactly that file's plan; the answers
they hold are also written here, and a store reads through this cache before deciding a call must be sent. So a
copied, renamed or moved tournament file, a colleague's clone of the same repository, or another tournament that
asks exactly the same call, pays for nothing that this machine already paid for. It lives in the user data
directory (`<data dir>/call-cache.sqlite`; `ELOTUI_HOME` relocates it); `ELOTUI_NO_SHARED_CACHE=1` turns it off.
A cache that cannot be opened or written (a read-only home, a full disk) is skipped: it only ever saves calls.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

from elotui.records import CALL_COLUMNS, CallRecord, call_row
from elotui.store.keysets import answered_keys, chunks


class CallCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, check_same_thread=False, timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA cache_size=-65536")
            columns = ", ".join(f"{c} {'TEXT PRIMARY KEY' if c == 'key' else ''}" for c in CALL_COLUMNS)
            db.execute(f"CREATE TABLE IF NOT EXISTS calls ({columns})")
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
        """Keep these answered calls (one transaction)."""
        if self._db is None or not records:
            return
        marks = ", ".join("?" for _ in CALL_COLUMNS)
        try:
            with self._lock:
                self._db.execute("BEGIN")
                self._db.executemany(
                    f"INSERT OR REPLACE INTO calls ({', '.join(CALL_COLUMNS)}) VALUES ({marks})",
                    list(map(call_row, records)),
                )
                self._db.execute("COMMIT")
        except sqlite3.Error:  # a full disk or a read-only cache must never stop a run
            with contextlib.suppress(sqlite3.Error):
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")

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
