"""The verdict store: one SQLite database (WAL) per tournament.

Tables
- `calls`: one row per model call, keyed by a hash of everything that determines its answer (see
  `elotui.run.keys`). Verdicts, contestant generations and paraphrases all live here (`kind`).
  Each call is committed the moment it is recorded, so `kill -9` loses at most the calls in flight.
- `plan`: the current comparison plan, one row per presentation (prompt, first, second, judge, condition,
  sample) with the key of the call that answers it. A run replaces it; rankings read `plan JOIN calls`,
  so an edited tournament ranks exactly what it now asks, while every still-valid verdict is reused.
- `texts`: derived texts (perturbed responses, paraphrased prompts, generated responses) by key.
- `runs`: one manifest per run (elotui version, file hash, judge settings, templates; never a key).

`PRAGMA user_version` holds the schema version; `MIGRATIONS[i]` upgrades version i to i+1.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from elotui.errors import UserError

if TYPE_CHECKING:
    from elotui.config import Tournament

CACHED_STATUSES = ("ok", "invalid")  # a call with one of these was answered: never paid for twice


@dataclass
class CallRecord:
    key: str
    kind: str  # "verdict" | "generation" | "paraphrase"
    status: str  # "ok" | "invalid" | "error"
    judge: str | None = None
    provider: str | None = None
    model: str | None = None
    prompt: str | None = None
    first: str | None = None
    second: str | None = None
    condition: str | None = None
    sample: int | None = None
    winner: str | None = None
    reasoning: str | None = None
    raw_reply: str | None = None
    output_text: str | None = None
    error: str | None = None
    latency_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    attempts: int = 1
    http_429s: int = 0
    started_at: float | None = None
    finished_at: float | None = None
    run_id: int | None = None


CALL_COLUMNS = tuple(f.name for f in fields(CallRecord))


@dataclass(frozen=True)
class PlanRow:
    seq: int
    prompt: str
    first: str
    second: str
    judge: str
    condition: str
    sample: int
    key: str


def _script(db: sqlite3.Connection, sql: str) -> None:
    """Run statements one by one (executescript would commit the migration's transaction)."""
    for statement in sql.split(";"):
        if statement.strip():
            db.execute(statement)


def _v1(db: sqlite3.Connection) -> None:
    _script(
        db,
        """
        CREATE TABLE calls (
            key TEXT PRIMARY KEY, kind TEXT NOT NULL, status TEXT NOT NULL,
            judge TEXT, provider TEXT, model TEXT,
            prompt TEXT, first TEXT, second TEXT, condition TEXT, sample INTEGER,
            winner TEXT, reasoning TEXT, raw_reply TEXT, output_text TEXT, error TEXT,
            latency_ms REAL, input_tokens INTEGER, output_tokens INTEGER,
            started_at REAL, finished_at REAL, run_id INTEGER
        );
        CREATE TABLE plan (
            seq INTEGER NOT NULL, prompt TEXT NOT NULL, first TEXT NOT NULL, second TEXT NOT NULL,
            judge TEXT NOT NULL, condition TEXT NOT NULL, sample INTEGER NOT NULL, key TEXT NOT NULL,
            PRIMARY KEY (prompt, first, second, judge, condition, sample)
        ) WITHOUT ROWID;
        CREATE INDEX plan_key ON plan(key);
        CREATE TABLE texts (
            key TEXT PRIMARY KEY, kind TEXT NOT NULL, prompt TEXT, contestant TEXT, condition TEXT,
            base_key TEXT, text TEXT NOT NULL, created_at REAL
        );
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT, started_at REAL, finished_at REAL, state TEXT,
            manifest TEXT NOT NULL
        );
        """
    )


def _v2(db: sqlite3.Connection) -> None:
    """Version 2: per-call accounting (attempts, 429s, cost)."""
    _script(
        db,
        """
        ALTER TABLE calls ADD COLUMN cost REAL;
        ALTER TABLE calls ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE calls ADD COLUMN http_429s INTEGER NOT NULL DEFAULT 0;
        """
    )


def _v3(db: sqlite3.Connection) -> None:
    """Version 3: a covering index for the outcome columns, so rankings read the plan join without the
    wide rows (reasoning, raw replies)."""
    _script(db, "CREATE INDEX IF NOT EXISTS calls_outcome ON calls(key, status, winner)")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_v1, _v2, _v3]
SCHEMA_VERSION = len(MIGRATIONS)


# Rankings read only the outcome columns: the covering index keeps the wide rows (reasoning, raw replies) unread.
PLAN_VERDICTS_SQL = """
    SELECT p.prompt, p.first, p.second, p.judge, p.condition, p.sample,
           COALESCE(c.status, 'missing'), CASE WHEN c.status = 'ok' THEN c.winner END
    FROM plan p LEFT JOIN calls c INDEXED BY calls_outcome ON c.key = p.key
    ORDER BY p.seq
"""


def default_store_path(tournament: Tournament) -> Path:
    """One database per tournament file (by its absolute path), under the user data dir."""
    from elotui.locations import stores_dir

    digest = hashlib.sha256(str(tournament.path).encode()).hexdigest()[:10]
    return stores_dir() / f"{tournament.slug}-{digest}.sqlite"


class Store:
    """Thread-safe (one lock) access to a tournament's SQLite store."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as exc:
            raise UserError(f"{self.path}: not a usable elotui store ({exc})") from None
        self._lock = threading.RLock()
        self._migrate()

    @classmethod
    def open_for(cls, tournament: Tournament, store_path: str | Path | None = None) -> Store:
        return cls(Path(store_path) if store_path else default_store_path(tournament))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- schema -------------------------------------------------------------------------------------

    @property
    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        with self._lock:
            try:
                version = self.schema_version
            except sqlite3.DatabaseError as exc:
                raise UserError(f"{self.path}: not a usable elotui store ({exc})") from None
            if version > SCHEMA_VERSION:
                raise UserError(
                    f"{self.path}: store schema version {version} is newer than this elotui "
                    f"understands ({SCHEMA_VERSION}); upgrade elotui"
                )
            while version < SCHEMA_VERSION:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    MIGRATIONS[version](self._db)
                    version += 1
                    self._db.execute(f"PRAGMA user_version = {version}")
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise

    # --- calls ------------------------------------------------------------------------------------------

    def record_call(self, rec: CallRecord) -> None:
        """Insert or replace one call and commit at once."""
        if rec.finished_at is None:
            rec.finished_at = time.time()
        values = {c: getattr(rec, c) for c in CALL_COLUMNS}  # not asdict: no deep copy per call
        cols = ", ".join(CALL_COLUMNS)
        marks = ", ".join("?" for _ in CALL_COLUMNS)
        with self._lock:
            self._db.execute(
                f"INSERT OR REPLACE INTO calls ({cols}) VALUES ({marks})", [values[c] for c in CALL_COLUMNS]
            )

    def get_call(self, key: str) -> CallRecord | None:
        with self._lock:
            cur = self._db.execute(f"SELECT {', '.join(CALL_COLUMNS)} FROM calls WHERE key = ?", (key,))
            row = cur.fetchone()
        return CallRecord(**dict(zip(CALL_COLUMNS, row, strict=True))) if row else None

    def cached_keys(self, keys: Iterable[str]) -> set[str]:
        """The keys among `keys` that already have an answer (status ok or invalid)."""
        wanted = list(dict.fromkeys(keys))
        found: set[str] = set()
        with self._lock:
            for i in range(0, len(wanted), 900):
                chunk = wanted[i : i + 900]
                marks = ",".join("?" for _ in chunk)
                cur = self._db.execute(
                    f"SELECT key FROM calls WHERE key IN ({marks}) AND status IN ('ok', 'invalid')", chunk
                )
                found.update(r[0] for r in cur)
        return found

    def calls(self, where: str = "", params: Sequence[Any] = ()) -> list[CallRecord]:
        """Calls matching an SQL condition over the calls table's columns (for reports and tests)."""
        sql = f"SELECT {', '.join(CALL_COLUMNS)} FROM calls" + (f" WHERE {where}" if where else "")
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        return [CallRecord(**dict(zip(CALL_COLUMNS, r, strict=True))) for r in rows]

    # --- plan -------------------------------------------------------------------------------------------

    def set_plan(self, rows: Iterable[PlanRow]) -> None:
        """Replace the current plan in one transaction."""
        data = [(r.seq, r.prompt, r.first, r.second, r.judge, r.condition, r.sample, r.key) for r in rows]
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM plan")
                self._db.executemany("INSERT INTO plan VALUES (?, ?, ?, ?, ?, ?, ?, ?)", data)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def plan(self) -> list[PlanRow]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, prompt, first, second, judge, condition, sample, key FROM plan ORDER BY seq"
            ).fetchall()
        return [PlanRow(*r) for r in rows]

    def plan_verdicts(self) -> list[tuple[str, str, str, str, str, int, str, str | None]]:
        """(prompt, first, second, judge, condition, sample, status, winner) for every planned presentation.

        status is "ok", "invalid", "error" or "missing" (no call recorded yet); winner is set only for "ok".
        """
        with self._lock:
            return self._db.execute(PLAN_VERDICTS_SQL).fetchall()

    def verdict_tally(self, prompts: Sequence[str] | None = None) -> list[tuple[str, str, str, str | None, int]]:
        """The current plan's verdicts counted by (first, second, status, winner): `(first, second, status,
        winner, count)` rows, status and winner as in `plan_verdicts`; `prompts` restricts to those prompts.

        A few hundred rows instead of one per verdict, for the rankings that only need the multiset of games
        (the No-Threshold games: every valid verdict is one game), e.g. `elotui export --threshold none`.
        """
        where, params = "", tuple(prompts or ())
        if prompts is not None:
            where = "WHERE p.prompt IN (" + ", ".join("?" for _ in params) + ")" if params else "WHERE 0"
        with self._lock:
            return self._db.execute(
                f"""
                SELECT p.first, p.second, COALESCE(c.status, 'missing'), CASE WHEN c.status = 'ok' THEN c.winner END,
                       COUNT(*)
                FROM plan p LEFT JOIN calls c INDEXED BY calls_outcome ON c.key = p.key {where}
                GROUP BY 1, 2, 3, 4
                """,
                params,
            ).fetchall()

    def plan_details(self, where: str = "", params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Plan rows joined with their call (reasoning, raw reply, error, latency...), filtered by SQL over
        the plan's columns prefixed `p.` (e.g. `p.prompt = ? AND p.first IN (?, ?)`)."""
        cols = [f"c.{c}" for c in CALL_COLUMNS if c not in {"prompt", "first", "second", "judge", "condition",
                                                             "sample"}]
        sql = (
            "SELECT p.seq, p.prompt, p.first, p.second, p.judge, p.condition, p.sample, p.key, "
            + ", ".join(cols)
            + " FROM plan p LEFT JOIN calls c ON c.key = p.key"
            + (f" WHERE {where}" if where else "")
            + " ORDER BY p.seq"
        )
        names = ["seq", "prompt", "first", "second", "judge", "condition", "sample", "plan_key"]
        names += [c.removeprefix("c.") for c in cols]
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        out = []
        for r in rows:
            d = dict(zip(names, r, strict=True))
            if d["status"] is None:
                d["status"] = "missing"
            out.append(d)
        return out

    def verdict_log_rows(self) -> list[dict[str, Any]]:
        """Every answered or failed presentation of the current plan, as canonical verdict-log rows."""
        rows = self.plan_details("c.key IS NOT NULL")
        return [
            {
                "prompt": d["prompt"],
                "first": d["first"],
                "second": d["second"],
                "judge": d["judge"],
                "condition": d["condition"],
                "sample": d["sample"],
                "winner": d["winner"] if d["status"] == "ok" else None,
                "reasoning": d["reasoning"],
                "status": d["status"],
            }
            for d in rows
        ]

    # --- derived texts ------------------------------------------------------------------------------------

    def put_text(self, key: str, kind: str, text: str, *, prompt: str | None = None,
                 contestant: str | None = None, condition: str | None = None, base_key: str | None = None) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO texts VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key, kind, prompt, contestant, condition, base_key, text, time.time()),
            )

    def get_text(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT text FROM texts WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def texts(self, kind: str | None = None) -> list[dict[str, Any]]:
        names = ["key", "kind", "prompt", "contestant", "condition", "base_key", "text", "created_at"]
        with self._lock:
            if kind is None:
                rows = self._db.execute("SELECT * FROM texts").fetchall()
            else:
                rows = self._db.execute("SELECT * FROM texts WHERE kind = ?", (kind,)).fetchall()
        return [dict(zip(names, r, strict=True)) for r in rows]

    # --- runs ---------------------------------------------------------------------------------------------

    def start_run(self, manifest: dict[str, Any]) -> int:
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO runs (started_at, state, manifest) VALUES (?, 'running', ?)",
                (time.time(), json.dumps(manifest, sort_keys=True)),
            )
            return int(cur.lastrowid or 0)

    def finish_run(self, run_id: int, state: str) -> None:
        with self._lock:
            self._db.execute("UPDATE runs SET finished_at = ?, state = ? WHERE id = ?", (time.time(), state, run_id))

    def runs(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT id, started_at, finished_at, state, manifest FROM runs ORDER BY id").fetchall()
        return [
            {"id": r[0], "started_at": r[1], "finished_at": r[2], "state": r[3], "manifest": json.loads(r[4])}
            for r in rows
        ]

    # --- accounting -----------------------------------------------------------------------------------------

    def judge_stats(self) -> dict[str, dict[str, float]]:
        """Per judge over the current plan: done, ok, invalid, error, tokens, cost, latency, retries, 429s."""
        with self._lock:
            rows = self._db.execute(
                """
                SELECT p.judge, COUNT(c.key), SUM(c.status = 'ok'), SUM(c.status = 'invalid'),
                       SUM(c.status = 'error'), COALESCE(SUM(c.input_tokens), 0), COALESCE(SUM(c.output_tokens), 0),
                       COALESCE(SUM(c.cost), 0), AVG(c.latency_ms), COALESCE(SUM(c.attempts - 1), 0),
                       COALESCE(SUM(c.http_429s), 0), COUNT(*)
                FROM plan p LEFT JOIN calls c ON c.key = p.key GROUP BY p.judge
                """
            ).fetchall()
        names = ["done", "ok", "invalid", "error", "input_tokens", "output_tokens", "cost", "mean_latency_ms",
                 "retries", "http_429s", "planned"]
        return {r[0]: {n: (v if v is not None else 0) for n, v in zip(names, r[1:], strict=True)} for r in rows}
