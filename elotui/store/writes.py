"""How the store writes calls: one transaction (`transaction`), the call rows in key order with the answers rows
of exactly those calls (`write_calls`), and a write whose end (answers rows, commit, compaction) is finished
*behind* the caller in a helper thread (`Behind`).

A batch of free answers (a replay or simulated judge: 10^4-10^5 calls about once a second) spends about half its
store time in work that SQLite does without Python's lock: the answers rows (one INSERT ... SELECT), the commit
and the compaction of the columns. Finished behind, that half overlaps the answering of the next batch. A new
plan's end (its key index built again, its snapshot, the commit: elotui.store.plan_table.write_end) is finished
behind the same way, while a replay judge reads its log (elotui.run.prepare). The store hands its connection to
nobody else until that end is over: every use of the connection first waits for it (`Behind.wait`) and raises
what it raised, so a full disk is reported at the next write, never lost.
"""

from __future__ import annotations

import functools
import operator
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from elotui.records import CALL_COLUMNS, CallRecord
from elotui.store.columns import ANSWER_SQL
from elotui.store.connect import after_commit

_by_key = operator.attrgetter("key")
# The columns of `calls` whose default is not NULL: always written, as they always were (a None there is stored as
# the default: OR REPLACE resolves a NOT NULL conflict so).
DEFAULTED_CALL_COLUMNS = frozenset({"attempts", "http_429s"})


def transaction(db: sqlite3.Connection, body: Callable[[], object]) -> None:
    """Run `body` in one write transaction (BEGIN IMMEDIATE ... COMMIT), rolled back if it raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        body()
        db.execute("COMMIT")
    except BaseException:
        rollback(db)
        raise
    after_commit(db)


def rollback(db: sqlite3.Connection) -> None:
    """Undo the open transaction, if any (a failing rollback never hides the error that caused it)."""
    if db.in_transaction:
        try:
            db.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # the first error is the one to report


def write_call_rows(db: sqlite3.Connection, records: Sequence[CallRecord]) -> int:
    """Insert or replace the calls (inside a transaction), sorted by key (stable: of one key, the last written
    wins): 65,536 inserts walk the key index in order instead of probing random pages. Returns the largest rowid
    before them: the calls written are those above it (see `log_answers`)."""
    (last,) = db.execute("SELECT COALESCE(MAX(rowid), 0) FROM calls").fetchone()
    ordered = sorted(records, key=_by_key)
    written = _columns_with_values(ordered)
    db.executemany(_insert_calls(written), list(map(operator.attrgetter(*written), ordered)))
    return int(last)


def _columns_with_values(records: Sequence[CallRecord]) -> tuple[str, ...]:
    """The columns to write: all but those (with a NULL default) that are None in every record, which the insert
    leaves to their default: the same row, without binding a None per column and row (a replay verdict has eight:
    ~1 us a row of 2.9, 10^6 rows in a large replay). Checked on the columns the first record leaves empty, all
    at once, then one by one where some record has a value."""
    if not records:
        return CALL_COLUMNS
    first = records[0]
    empty = tuple(c for c in CALL_COLUMNS if getattr(first, c) is None and c not in DEFAULTED_CALL_COLUMNS)
    if not empty:
        return CALL_COLUMNS
    nothing: object = (None,) * len(empty) if len(empty) > 1 else None
    values: list[object] = list(map(operator.attrgetter(*empty), records))
    if values.count(nothing) != len(records):
        empty = tuple(
            c for c in empty if list(map(operator.attrgetter(c), records)).count(None) == len(records)
        )
    return tuple(c for c in CALL_COLUMNS if c not in empty)


@functools.lru_cache(maxsize=64)
def _insert_calls(written: tuple[str, ...]) -> str:
    return f"INSERT OR REPLACE INTO calls ({', '.join(written)}) VALUES ({', '.join('?' for _ in written)})"


def log_answers(db: sqlite3.Connection, last: int) -> None:
    """The answers rows of the calls written after rowid `last`, for the columnar snapshot (columns.ANSWER_SQL)."""
    db.execute(ANSWER_SQL, (last,))


def finish_calls(db: sqlite3.Connection, last: int) -> None:
    """The end of the transaction `write_call_rows` wrote in: the answers rows and the commit (rolled back if
    either fails)."""
    commit_after(db, lambda: log_answers(db, last))


def commit_after(db: sqlite3.Connection, body: Callable[[], object]) -> None:
    """The end of an open transaction: `body`, then the commit (the transaction rolled back if either fails)."""
    try:
        body()
        db.execute("COMMIT")
    except BaseException:
        rollback(db)
        raise
    after_commit(db)


def write_calls(db: sqlite3.Connection, records: Sequence[CallRecord]) -> None:
    """The calls and the presentations they answer (inside a transaction)."""
    log_answers(db, write_call_rows(db, records))


class Behind:
    """At most one piece of work at a time, run in a helper thread while its starter goes on. `wait` returns once
    it is over; if it failed, `wait` raises its error then and at every later call (the store is not to be used
    as if the lost write had happened: a heartbeat that meets the error first must not hide it from the run)."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._pending: Future[None] | None = None
        self._failed: BaseException | None = None

    def start(self, work: Callable[[], None]) -> None:
        self.wait()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="elotui-store")
        self._pending = self._pool.submit(work)

    def then(self, work: Callable[[], None]) -> bool:
        """`work` queued to run in the helper thread once the work in hand is over, and the caller goes on (`wait`
        waits for both; if the work in hand fails, `work` does not run and `wait` raises that failure). False,
        nothing queued, when no work is in hand: the caller does `work` itself."""
        pending = self._pending
        if pending is None or pending.done() or self._pool is None:
            return False

        def after() -> None:
            failed = pending.exception()  # over by now: the one helper thread runs its work in turn
            if failed is not None:
                raise failed
            work()

        self._pending = self._pool.submit(after)
        return True

    @property
    def busy(self) -> bool:
        """The work is still running (`wait` would block)."""
        return self._pending is not None and not self._pending.done()

    def wait(self) -> None:
        if self._failed is not None:
            raise self._failed
        pending = self._pending
        if pending is None:
            return
        failed = pending.exception()  # every thread that asks waits until the work is over
        self._pending = None
        if failed is not None:
            self._failed = failed
            raise failed

    def close(self) -> None:
        """Wait for the work (raising its error if no `wait` did) and stop the helper thread."""
        try:
            if self._failed is None:
                self.wait()
        finally:
            if self._pool is not None:
                self._pool.shutdown()
                self._pool = None
