"""The verdict store: one SQLite database (WAL) per tournament.

Tables
- `calls`: one row per model call, keyed by a hash of everything that determines its answer (see
  `elotui.plan.keys`). Verdicts, contestant generations and paraphrases all live here (`kind`).
  Each call is committed the moment it is recorded, so `kill -9` loses at most the calls in flight.
- `plan`: the current comparison plan, one row per presentation (prompt, first, second, judge, condition,
  sample) with the key of the call that answers it. A run replaces it, so an edited tournament ranks exactly
  what it now asks, while every still-valid verdict is reused.
- `snapshot`, `answers`: the plan as int-coded columns with each presentation's outcome, kept current by an
  answers row written with every call (elotui.store.columns). Rankings read these, never `plan JOIN calls`.
- `texts`: derived texts (perturbed responses, paraphrases, generations) by key. `human_votes`: store.human_votes.
- `runs`: one manifest per run (elotui version, file hash, judge settings, templates; never a key).

`PRAGMA user_version` holds the schema version; `MIGRATIONS[i]` upgrades version i to i+1 (elotui.store.schema).
"""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, TypeVar

from elotui.errors import store_problem
from elotui.records import CALL_COLUMNS, CallRecord, JudgeStats, PairDetail, PlanRow, PlanVerdict, RunRow
from elotui.store import claims, columns, keysets, plan_table, schema, writes
from elotui.store.call_cache import CallCache
from elotui.store.columns import VerdictColumns
from elotui.store.connect import connect, end_read, for_writing
from elotui.store.human_votes import HumanVotesTable
from elotui.store.schema import DETAIL_SQL, JUDGE_STATS_SQL, MIGRATIONS, PLAN_SQL, SCHEMA_VERSION, upgrade
from elotui.store.texts import TextsTable
from elotui.vocab import CACHED_STATUSES

if TYPE_CHECKING:
    from elotui.tournament.model import Tournament

__all__ = ["CACHED_STATUSES", "MIGRATIONS", "SCHEMA_VERSION", "CallRecord", "PlanRow", "Store"]
__all__ += ["VerdictColumns", "default_store_path", "store_path_of"]


def tuple_of(*row: Any) -> tuple[Any, ...]:
    return row


def _factory(kind: Callable[..., Any]) -> Callable[[sqlite3.Cursor, tuple[Any, ...]], Any]:
    """A sqlite3 row factory building `kind(*row)` (a NamedTuple: no dict per row)."""
    return lambda _cursor, row: kind(*row)


def default_store_path(tournament: Tournament) -> Path:
    """One database per tournament file (by its absolute path), under the user data dir."""
    return store_path_of(tournament.path, tournament.slug)


def store_path_of(tournament_file: Path, slug: str) -> Path:
    """`default_store_path` of the tournament file at this absolute path, whose name has this slug."""
    from elotui.locations import stores_dir

    digest = hashlib.sha256(str(tournament_file).encode()).hexdigest()[:10]
    return stores_dir() / f"{slug}-{digest}.sqlite"


_Made = TypeVar("_Made")  # what the start of a write finished behind hands its end


class Store(TextsTable, HumanVotesTable):
    """Thread-safe (one lock) access to a tournament's SQLite store. Reads are named for what they return; no
    caller writes SQL."""

    def __init__(self, path: str | Path, *, cache: CallCache | None = None, reader: bool = False) -> None:
        self.path = Path(path)  # `reader`: read only (elotui.store.connect.connect), as `watch` does
        self.cache = cache
        self._conn, self.read_only = connect(self.path, reader=reader)
        self._lock = threading.RLock()
        # the end of a write (free answers, a new plan) finished in a helper thread
        self._behind = writes.Behind()
        self._answers_written = 0  # answers rows written since this process last compacted (store.columns)
        self._columns: tuple[tuple[int, int], tuple[VerdictColumns, int]] | None = None  # the last read
        self._migrate()

    @classmethod
    def open_for(
        cls, tournament: Tournament, store_path: str | Path | None = None, *, reader: bool = False
    ) -> Store:
        """The tournament's store (by default one per file under the user data dir), reading through this
        machine's shared call cache, so that a copied, renamed or moved file pays for no call twice."""
        path = Path(store_path) if store_path else default_store_path(tournament)
        return cls(path, cache=CallCache.default(), reader=reader)

    @property
    def _db(self) -> sqlite3.Connection:
        """The connection, once the end of a write finished behind (`record_calls(behind=True)`) is over; what
        that end raised (a full disk: StoreError) is raised here, at the store's next use."""
        self._behind.wait()
        return self._conn

    def close(self) -> None:
        with self._lock:
            try:
                self._behind.close()
            finally:
                self._conn.close()
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _guarded(self) -> Iterator[None]:
        """SQLite errors become what they mean for the user (a full disk, a damaged file: StoreError, exit 5)."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise store_problem(self.path, exc) from None

    def _rows(self, kind: Callable[..., Any], sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock, self._guarded():
            cur = self._db.cursor()
            cur.row_factory = _factory(kind)
            return cur.execute(sql, params).fetchall()

    def _transaction(self, body: Callable[[], object]) -> None:
        """Run `body` in one write transaction (BEGIN IMMEDIATE ... COMMIT, rolled back if it raises: the rollback
        never hides the real cause)."""
        with self._lock, self._guarded():
            writes.transaction(self._db, body)

    @property
    def schema_version(self) -> int:
        return schema.version_of(self._db)

    def _migrate(self) -> None:
        with self._lock:
            upgrade(self._db, self.path, read_only=self.read_only)

    # --- calls ----------------------------------------------------------------------------------------------------

    def record_call(self, rec: CallRecord) -> None:
        """Insert or replace one call and commit at once."""
        self.record_calls([rec])

    def record_calls(
        self,
        records: Sequence[CallRecord],
        *,
        claimed: bool = True,
        share: bool = True,
        behind: bool = False,
    ) -> None:
        """Insert or replace calls in one transaction with their answers rows and the end of their claims (a run that
        lost its lease writes only where unanswered: store.claims), then copy the answered ones into the shared call
        cache. Free answers (replay, simulated): `claimed=False, share=False`, neither claimed nor shared; `behind`:
        their transaction ends (answers rows, commit, compaction) in a helper thread (elotui.store.writes)."""
        if not records:
            return
        now = time.time()
        for rec in records:
            if rec.finished_at is None:
                rec.finished_at = now
        if behind and (claimed or share):
            raise ValueError("only free answers (claimed=False, share=False) are written behind")
        if behind:
            self._write_behind(records)
            return
        kept = list(records)

        def body() -> None:
            if claimed:
                kept[:] = claims.write_claimed(self._db, records)
            else:
                writes.write_calls(self._db, records)

        self._transaction(body)
        self._after_answers(len(kept))
        if self.cache is not None and share:
            self.cache.put_many([r for r in kept if r.status in CACHED_STATUSES])

    def settle(self) -> None:
        """Wait for the end of a write finished behind (raising what it raised)."""
        with self._lock:
            self._behind.wait()

    def _write_behind(self, records: Sequence[CallRecord]) -> None:
        """The call rows now, the rest of their transaction behind (answers rows, commit, compaction)."""
        count = len(records)  # the end holds the count, not the records

        def rest(db: sqlite3.Connection, last: int) -> None:
            writes.finish_calls(db, last)
            self._after_answers(count, db)

        self._begin_behind(lambda db: writes.write_call_rows(db, records), rest)

    def _begin_behind(
        self, now: Callable[[sqlite3.Connection], _Made], rest: Callable[[sqlite3.Connection, _Made], object]
    ) -> None:
        """One write transaction begun now: `now(db)` in the caller's thread (rolled back if it raises), then
        `rest(db, what now made)`, which ends the transaction, in the helper thread while the caller goes on. The
        store's next use waits for it and raises what it raised (elotui.store.writes.Behind)."""
        with self._lock, self._guarded():
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                made = now(db)
            except BaseException:
                writes.rollback(db)
                raise
            self._behind.start(functools.partial(self._end_behind, rest, made))

    def _end_behind(self, rest: Callable[[sqlite3.Connection, _Made], object], made: _Made) -> None:
        """In the helper thread, which has the connection to itself until this returns (so: `_conn`, no lock)."""
        with self._guarded():
            rest(self._conn, made)

    def _after_behind(self, work: Callable[[sqlite3.Connection], object]) -> None:
        """`work(db)` after the write finished behind (writes.Behind.then: the caller goes on), or now if none."""
        with self._lock:  # no other thread swaps the write in hand meanwhile
            if not self._behind.then(functools.partial(self._end_behind, lambda db, _: work(db), None)):
                with self._guarded():
                    work(self._db)

    def _after_answers(self, count: int, db: sqlite3.Connection | None = None) -> None:
        """Fold the answers log into the snapshot once COMPACT_EVERY rows have gathered (a writer's job); `db`: the
        connection of the helper thread finishing a write behind."""
        self._answers_written += count
        if self._answers_written >= columns.COMPACT_EVERY:
            self.compact(db)

    def compact(self, db: sqlite3.Connection | None = None) -> None:
        """Fold the answers log into the snapshot's outcomes (a read then replays nothing)."""
        self._answers_written = 0
        if self.read_only:
            return
        if db is None:
            self._transaction(lambda: columns.compact(self._db))
        else:
            writes.transaction(db, lambda: columns.compact(db))

    def get_call(self, key: str) -> CallRecord | None:
        rows = self._rows(CallRecord, f"SELECT {', '.join(CALL_COLUMNS)} FROM calls WHERE key = ?", (key,))
        return rows[0] if rows else None

    def _chunks(self, keys: Iterable[str]) -> Iterable[Sequence[str]]:
        return keysets.chunks(list(dict.fromkeys(keys)))

    def cached_keys(self, keys: Iterable[str]) -> set[str]:
        """The keys among `keys` that already have an answer (status ok or invalid), in this store or in the shared
        call cache (whose answers are then copied into this store, so that its rankings see them)."""
        wanted = list(dict.fromkeys(keys))
        with self._lock, self._guarded():
            found = keysets.answered_keys(self._db, wanted)
        if self.cache is not None:
            copied = self.cache.get_many([k for k in wanted if k not in found])
            if copied:
                self._copy_in(copied)
                found.update(r.key for r in copied)
        return found

    def _copy_in(self, records: list[CallRecord]) -> None:
        for r in records:
            r.run_id = None  # answered by a run of another store

        self._transaction(lambda: writes.write_calls(self._db, records))
        self._after_answers(len(records))

    def recorded_cost(self, keys: Iterable[str]) -> float:
        """The total recorded cost of the calls with these keys."""
        total = 0.0
        for chunk in self._chunks(keys):
            marks = ",".join("?" for _ in chunk)
            total += self._rows(
                float, f"SELECT COALESCE(SUM(cost), 0) FROM calls WHERE key IN ({marks})", chunk
            )[0]
        return total

    def plan_cost(self) -> float:
        """The recorded cost of the answered calls of the current plan."""
        return float(
            self._rows(
                float,
                "SELECT COALESCE(SUM(c.cost), 0) FROM calls c WHERE c.cost > 0 AND c.status IN ('ok', 'invalid') "
                "AND EXISTS (SELECT 1 FROM plan p WHERE p.key = c.key)",
            )[0]
        )

    def calls(self, keys: Iterable[str] | None = None) -> list[CallRecord]:
        """Every recorded call, or those with the given keys (for reports and tests)."""
        sql = f"SELECT {', '.join(CALL_COLUMNS)} FROM calls"
        if keys is None:
            return self._rows(CallRecord, sql)
        out: list[CallRecord] = []
        for chunk in self._chunks(keys):
            out += self._rows(CallRecord, f"{sql} WHERE key IN ({','.join('?' for _ in chunk)})", chunk)
        return out

    # --- plan -----------------------------------------------------------------------------------------------------

    def set_plan(
        self, rows: Iterable[PlanRow], fingerprint: str | None = None, *, behind: bool = False
    ) -> None:
        """Make `rows` the current plan in one transaction, writing only the rows that changed (an unchanged plan
        writes nothing, so a re-run needs no free disk for it), and its columnar snapshot. `fingerprint`: what the
        plan was computed from (`plan_fingerprint` finds it again, so that an unchanged tournament is not planned
        twice). `behind`: the rows are written now, the end of the transaction (the key index built again, the
        snapshot, the commit: elotui.store.plan_table.write_end) in the helper thread while the caller goes on,
        as for free answers (`record_calls`): the store's next use waits for it. elotui.store.plan_table."""
        change = plan_table.changes(rows, self.plan())
        if change.nothing and (fingerprint is None or fingerprint == self.plan_fingerprint()):
            return
        if not behind:
            self._transaction(lambda: plan_table.write(self._db, change, fingerprint))
            return

        def now(
            db: sqlite3.Connection,
        ) -> tuple[columns.CodedPlan, bool]:  # the end needs no row: they can go
            return columns.code_plan(change.rows), plan_table.write_rows(db, change)

        def rest(db: sqlite3.Connection, made: tuple[columns.CodedPlan, bool]) -> None:
            writes.commit_after(db, lambda: plan_table.write_end(db, made[0], fingerprint, made[1]))

        self._begin_behind(now, rest)

    def plan(self) -> list[PlanRow]:
        return self._rows(PlanRow, f"{PLAN_SQL} ORDER BY p.seq")

    def set_recorded(self, plan: columns.CodedPlan, outcome: Any) -> bool:
        """Store the snapshot of imported verdicts before any run (elotui.store.columns.write_recorded); False
        where the store holds a run's plan."""
        written: list[bool] = []
        self._transaction(lambda: written.append(columns.write_recorded(self._db, plan, outcome)))
        return written[0]

    def set_sealed_recorded(
        self, snapshot: columns.SealedRecorded, before_commit: Callable[[], object] | None = None
    ) -> bool:
        """`set_recorded` of a snapshot sealed ahead (elotui.store.columns.seal_recorded); `before_commit` is called
        before the transaction commits (what it raises rolls it back: an import's files that could not be
        written)."""
        written: list[bool] = []

        def body() -> None:
            written.append(columns.write_sealed_recorded(self._db, snapshot))
            if before_commit is not None:
                before_commit()

        self._transaction(body)
        return written[0]

    def only_imported(self) -> bool:
        """Whether the store holds an import's snapshot and no run's plan (elotui.store.columns.write_recorded):
        rankings read its verdicts, which no call row holds yet."""
        with self._lock, self._guarded():
            planned = int(self._db.execute("SELECT EXISTS (SELECT 1 FROM plan)").fetchone()[0])
        return not planned and len(self.verdict_columns()) > 0

    def plan_fingerprint(self) -> str | None:
        """The fingerprint the current plan was stored with (None: none given, or no plan)."""
        with self._lock, self._guarded():
            meta = columns.description(self._db)  # None where damaged: the plan is then stored again
        return meta.get("fingerprint") if meta is not None else None

    def verdict_columns(self, *, keep: bool = True) -> VerdictColumns:
        """The current plan, int-coded, with every presentation's outcome (elotui.store.columns): numpy arrays
        read from the snapshot plus the answers recorded since, without a Python object per verdict. `keep=False`:
        a one-shot command's last read, not kept for a next one (its memory goes with the caller's last reference)."""
        read = self.verdict_columns_since()[0]
        if not keep:
            with self._lock:
                self._columns = None
        return read

    def verdict_columns_since(self) -> tuple[VerdictColumns, int]:
        """`verdict_columns()` and the last answers id it includes (a reader follows the answers after it). The
        last read is returned again (outcomes read-only) while nothing was committed since, by this connection or
        any other (`PRAGMA data_version`)."""
        with self._lock, self._guarded():
            version = (int(self._db.execute("PRAGMA data_version").fetchone()[0]), self._db.total_changes)
            if self._columns is None or self._columns[0] != version:
                self._db.execute("BEGIN")
                try:
                    self._columns = (version, columns.read(self._db))
                finally:
                    self._db.execute("COMMIT")
                self._columns[1][0].outcome.flags.writeable = False
            return self._columns[1]

    def plan_verdicts(self) -> list[PlanVerdict]:
        """The outcome of every planned presentation, in plan order, as named rows (status "missing": no call
        recorded yet; winner set only for "ok"): `verdict_columns()` decoded."""
        return self.verdict_columns().rows()

    def pair_details(self, prompt: str, a: str, b: str) -> list[PairDetail]:
        """Every planned presentation of one pair on one prompt (both orders), joined with its call."""
        return self._rows(
            PairDetail,
            f"{DETAIL_SQL} WHERE p.prompt = ? AND ((p.first = ? AND p.second = ?) OR (p.first = ? AND p.second = ?)) "
            "ORDER BY p.seq",
            (prompt, a, b, b, a),
        )

    def plan_reasoning(self) -> list[tuple[str, str, str, str]]:
        """(prompt, first, second, reasoning) of every planned presentation whose call gave a reasoning."""
        return self._db.execute(
            "SELECT p.prompt, p.first, p.second, c.reasoning FROM plan p JOIN calls c ON c.key = p.key "
            "WHERE c.reasoning IS NOT NULL AND c.reasoning != ''"
        ).fetchall()

    def each_recorded_detail(self, batch: int = 4096) -> Iterator[PairDetail]:
        """Every planned presentation that has a recorded call (ok, invalid or error), in plan order, a `batch` at a
        time (10^6 of them with a bounded memory), all read in one read transaction: one consistent plan and its
        calls while other processes write. Read to the end."""
        return self._each(PairDetail, f"{DETAIL_SQL} WHERE c.key IS NOT NULL ORDER BY p.seq", batch)

    def each_recorded_verdict(
        self, batch: int = 4096, raw: bool = False, strength: bool = False
    ) -> Generator[tuple[Any, ...]]:
        """`each_recorded_detail()` as verdict-log rows: (prompt, first, second, judge, condition, sample, winner
        (where ok), reasoning, status[, with `raw` an invalid reply's raw text]) as tuples of these columns alone;
        with `strength`, always the raw text (None unless `raw`) and then an ok verdict's graded strength."""
        if strength:
            return self._each(None, schema.LOG_GRADED_SQL, batch, (int(raw),))
        return self._each(None, schema.LOG_RAW_SQL if raw else schema.LOG_SQL, batch)

    def each_plan_row(self, batch: int = 4096) -> Iterator[PlanRow]:
        """`plan()` a `batch` at a time, from one read transaction. Read to the end."""
        return self._each(PlanRow, f"{PLAN_SQL} ORDER BY p.seq", batch)

    def strong_verdicts(self) -> list[tuple[str, str, str, str, str, int]]:
        """(prompt, first, second, judge, condition, sample) of each planned presentation whose verdict is strong
        (a graded `>>`: `calls.strength` 2), read through the index of the strong ones alone."""
        return self._rows(tuple_of, schema.STRONG_SQL)

    def recorded_judges(self) -> list[str]:
        """The judges of the recorded presentations, in plan order of each one's first."""
        sql = "SELECT p.judge FROM plan p JOIN calls c ON c.key = p.key GROUP BY p.judge ORDER BY MIN(p.seq)"
        return self._rows(str, sql)

    def _each(
        self, kind: Callable[..., Any] | None, sql: str, batch: int, params: Sequence[Any] = ()
    ) -> Generator[Any, None, None]:
        with self._lock, self._guarded():
            cur = self._db.cursor()
            cur.row_factory = None if kind is None else _factory(kind)
            cur.execute("BEGIN")  # deferred: a read snapshot, no write lock
            try:
                cur.execute(sql, params)
                while rows := cur.fetchmany(batch):
                    yield from rows
            finally:
                end_read(self._db)

    def last_invalid(self) -> PairDetail | None:
        """The planned presentation whose call most recently came back invalid (unparseable)."""
        rows = self._rows(
            PairDetail,
            f"{DETAIL_SQL} WHERE c.status = 'invalid' ORDER BY c.finished_at DESC, p.seq DESC LIMIT 1",
        )
        return rows[0] if rows else None

    def detail_for_call(self, key: str) -> PairDetail | None:
        """The (first) planned presentation that call `key` answers."""
        rows = self._rows(PairDetail, f"{DETAIL_SQL} WHERE p.key = ? ORDER BY p.seq LIMIT 1", (key,))
        return rows[0] if rows else None

    # --- runs -----------------------------------------------------------------------------------------------------

    def start_run(self, manifest: dict[str, Any], *, force: bool = False, comparisons: int = 0) -> int:
        """Take the run lease and record the run (elotui.store.runs.begin_run; raises RunActive)."""
        from elotui.store.runs import begin_run

        for_writing(self._db, self.path)
        return begin_run(self, manifest, force=force, comparisons=comparisons)

    def finish_run(self, run_id: int, state: str, progress: dict[str, Any] | None = None) -> None:
        from elotui.store.runs import finish_run

        finish_run(self, run_id, state, progress)

    def runs(self) -> list[RunRow]:
        sql = "SELECT id, started_at, finished_at, state, manifest FROM runs ORDER BY id"
        return self._rows(lambda *r: RunRow(r[0], r[1], r[2], r[3], json.loads(r[4])), sql)

    def judge_stats(self) -> dict[str, JudgeStats]:
        """Per judge over the current plan: done, ok, invalid, error, tokens, cost, latency, retries, 429s."""

        def row(judge: str, *values: Any) -> tuple[str, JudgeStats]:
            return judge, JudgeStats(*(v if v is not None else 0 for v in values))

        return dict(self._rows(row, JUDGE_STATS_SQL))
