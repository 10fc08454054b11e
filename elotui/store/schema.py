"""The store's schema: the tables (version 1) and each migration since, and the SQL of the plan joins.

`PRAGMA user_version` holds the schema version; `MIGRATIONS[i]` upgrades version i to i+1.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from elotui.errors import UserError, store_problem
from elotui.store.writes import transaction


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
        """,
    )


def _v2(db: sqlite3.Connection) -> None:
    """Version 2: per-call accounting (attempts, 429s, cost)."""
    _script(
        db,
        """
        ALTER TABLE calls ADD COLUMN cost REAL;
        ALTER TABLE calls ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE calls ADD COLUMN http_429s INTEGER NOT NULL DEFAULT 0;
        """,
    )


def _v3(db: sqlite3.Connection) -> None:
    """Version 3: a covering index for the outcome columns, so rankings read the plan join without the
    wide rows (reasoning, raw replies)."""
    _script(db, "CREATE INDEX IF NOT EXISTS calls_outcome ON calls(key, status, winner)")


def _v4(db: sqlite3.Connection) -> None:
    """Version 4: the plan records the keys of the texts each presentation shows (prompt, first, second), so the
    graph export joins instead of re-deriving them."""
    _script(
        db,
        """
        ALTER TABLE plan ADD COLUMN prompt_text_key TEXT;
        ALTER TABLE plan ADD COLUMN first_text_key TEXT;
        ALTER TABLE plan ADD COLUMN second_text_key TEXT
        """,
    )


def _v5(db: sqlite3.Connection) -> None:
    """Version 5: run leases and heartbeats (who runs the tournament, published progress) and call claims
    (elotui.store.runs)."""
    _script(
        db,
        """
        ALTER TABLE runs ADD COLUMN host TEXT;
        ALTER TABLE runs ADD COLUMN pid INTEGER;
        ALTER TABLE runs ADD COLUMN heartbeat_at REAL;
        ALTER TABLE runs ADD COLUMN lease_until REAL;
        ALTER TABLE runs ADD COLUMN progress TEXT;
        UPDATE runs SET state = 'died' WHERE state IN ('running', 'paused');
        CREATE TABLE claims (key TEXT PRIMARY KEY, run_id INTEGER NOT NULL, claimed_at REAL NOT NULL) WITHOUT ROWID;
        CREATE INDEX claims_run ON claims(run_id)
        """,
    )


def _v6(db: sqlite3.Connection) -> None:
    """Version 6: the columnar snapshot of the plan and its outcomes, and the answers log that keeps it current
    (elotui.store.columns), built here from the stored plan. Rankings no longer join `plan` with `calls`, so the
    covering index of version 3 goes (one B-tree less to update per call)."""
    from elotui.records import PlanRow
    from elotui.store.columns import write_plan

    _script(
        db,
        """
        CREATE TABLE snapshot (name TEXT PRIMARY KEY, data BLOB NOT NULL);
        CREATE TABLE answers (id INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER NOT NULL, outcome INTEGER NOT NULL);
        DROP INDEX IF EXISTS calls_outcome
        """,
    )
    rows = db.execute("SELECT seq, prompt, first, second, judge, condition, sample, key FROM plan").fetchall()
    if rows:
        write_plan(db, [PlanRow(*r) for r in rows], None)


PLAN_KEY_INDEX = "CREATE INDEX plan_key ON plan(key, seq)"


def _v7(db: sqlite3.Connection) -> None:
    """Version 7: the plan's index of call keys covers the seq, so the answers row written with every call
    (elotui.store.columns.ANSWER_SQL) finds its presentations in the index alone (half the ingest's lookups)."""
    _script(db, f"DROP INDEX plan_key; {PLAN_KEY_INDEX}")


def _v8(db: sqlite3.Connection) -> None:
    """Version 8: the keys of the texts a presentation shows are numbered once in `text_keys`, and the plan holds
    their numbers (three 69-character keys were 207 of a plan row's ~340 bytes, for ~10^4 distinct texts in a 10^6
    plan: a 10^6-verdict store is 504 MB instead of 720, and its plan is written in about a third less time). On a
    10^6-row plan this migration takes ~20 s, once."""
    db.execute("CREATE TABLE text_keys (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE)")
    db.execute(  # UNION: each key once
        "INSERT INTO text_keys (key) SELECT k FROM (SELECT prompt_text_key AS k FROM plan UNION "
        "SELECT first_text_key FROM plan UNION SELECT second_text_key FROM plan) WHERE k IS NOT NULL ORDER BY k"
    )
    db.execute(
        """CREATE TABLE plan_v8 (
            seq INTEGER NOT NULL, prompt TEXT NOT NULL, first TEXT NOT NULL, second TEXT NOT NULL,
            judge TEXT NOT NULL, condition TEXT NOT NULL, sample INTEGER NOT NULL, key TEXT NOT NULL,
            prompt_text INTEGER, first_text INTEGER, second_text INTEGER,
            PRIMARY KEY (prompt, first, second, judge, condition, sample)
        ) WITHOUT ROWID"""
    )
    number = "(SELECT id FROM text_keys WHERE key = p.{column})"
    db.execute(
        "INSERT INTO plan_v8 SELECT p.seq, p.prompt, p.first, p.second, p.judge, p.condition, p.sample, p.key, "
        + ", ".join(number.format(column=c) for c in ("prompt_text_key", "first_text_key", "second_text_key"))
        + " FROM plan p"
    )
    _script(db, f"DROP TABLE plan; ALTER TABLE plan_v8 RENAME TO plan; {PLAN_KEY_INDEX}")


def _v9(db: sqlite3.Connection) -> None:
    """Version 9: the batches submitted to a provider's batch API (elotui.store.batches), so that a later run
    collects a batch a stopped or killed process left open instead of paying for its calls again."""
    _script(
        db,
        """
        CREATE TABLE batches (
            id INTEGER PRIMARY KEY AUTOINCREMENT, judge TEXT NOT NULL, provider TEXT NOT NULL,
            batch_id TEXT, keys TEXT NOT NULL, state TEXT NOT NULL, status TEXT,
            done INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0,
            submitted_at REAL NOT NULL, ended_at REAL, run_id INTEGER
        );
        CREATE INDEX batches_state ON batches(state)
        """,
    )


def _v10(db: sqlite3.Connection) -> None:
    """Version 10: human votes cast from the pairs pane (elotui.store.human_votes), one per voter and pair."""
    _script(
        db,
        """
        CREATE TABLE human_votes (
            id INTEGER PRIMARY KEY AUTOINCREMENT, prompt TEXT NOT NULL, first TEXT NOT NULL,
            second TEXT NOT NULL, winner TEXT NOT NULL, voter TEXT NOT NULL, cast_at REAL NOT NULL, shown TEXT,
            UNIQUE (voter, prompt, first, second)
        )
        """,
    )


def _v11(db: sqlite3.Connection) -> None:
    """Version 11: a graded verdict's strength (2 strong, 1 clear; `[judge_prompt] scale = "graded"`), and an index
    of the strong ones alone, which `[ranking] strong_weight` reads (a store of binary verdicts indexes nothing)."""
    _script(db, f"ALTER TABLE calls ADD COLUMN strength INTEGER; {STRONG_INDEX}")


STRONG_INDEX = "CREATE INDEX IF NOT EXISTS calls_strong ON calls(key) WHERE strength = 2"
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _v1,
    _v2,
    _v3,
    _v4,
    _v5,
    _v6,
    _v7,
    _v8,
    _v9,
    _v10,
    _v11,
]
SCHEMA_VERSION = len(MIGRATIONS)

# The plan as stored: its key columns, then the numbers of its three text keys (in `text_keys`).
PLAN_COLUMNS: tuple[str, ...] = ("seq", "prompt", "first", "second", "judge", "condition", "sample", "key")
PLAN_COLUMNS += ("prompt_text", "first_text", "second_text")
# A PlanRow's fields (the text keys read back from their numbers), and the joins they need.
_PLAN_ROW = (
    "p.seq, p.prompt, p.first, p.second, p.judge, p.condition, p.sample, p.key, tp.key, tf.key, ts.key"
)
_TEXT_KEYS = (
    "LEFT JOIN text_keys tp ON tp.id = p.prompt_text LEFT JOIN text_keys tf ON tf.id = p.first_text "
    "LEFT JOIN text_keys ts ON ts.id = p.second_text"
)
PLAN_SQL = f"SELECT {_PLAN_ROW} FROM plan p {_TEXT_KEYS}"
DETAIL_SQL = (
    f"SELECT {_PLAN_ROW}, c.key, c.kind, "
    "COALESCE(c.status, 'missing'), c.provider, c.model, c.winner, c.reasoning, c.raw_reply, c.output_text, c.error, "
    "c.latency_ms, c.input_tokens, c.output_tokens, c.cost, c.attempts, c.http_429s, c.started_at, c.finished_at, "
    f"c.run_id, CASE WHEN c.status = 'ok' THEN c.strength END FROM plan p {_TEXT_KEYS} LEFT JOIN calls c ON c.key = p.key"
)
# the verdict log's columns (elotui.verdict_log.FIELDS) of every recorded presentation, in plan order (a winner
# only where the call is ok): the plan's part comes from its covering index (plan_key), and only these columns
# are sorted (DETAIL_SQL's 31 columns took ~4 times as long at 10^6: 10 s)
LOG_SQL = (
    "SELECT p.prompt, p.first, p.second, p.judge, p.condition, p.sample, "
    "CASE WHEN c.status = 'ok' THEN c.winner END, c.reasoning, c.status "
    "FROM plan p JOIN calls c ON c.key = p.key ORDER BY p.seq"
)
# ... and then an ok verdict's strength (a graded verdict's; the raw text NULL unless asked for)
LOG_GRADED_SQL = LOG_SQL.replace(
    "c.status FROM",
    "c.status, CASE WHEN ?1 AND c.status = 'invalid' THEN c.raw_reply END, "
    "CASE WHEN c.status = 'ok' THEN c.strength END FROM",
)
# the presentations of the current plan whose verdict is strong, from the partial index of the strong calls
STRONG_SQL = (
    "SELECT p.prompt, p.first, p.second, p.judge, p.condition, p.sample FROM calls c INDEXED BY calls_strong "
    "JOIN plan p ON p.key = c.key WHERE c.strength = 2 AND c.status = 'ok' ORDER BY p.seq"
)
LOG_RAW_SQL = LOG_SQL.replace(  # ... and the raw text of an invalid (unparseable) reply
    "c.status FROM", "c.status, CASE WHEN c.status = 'invalid' THEN c.raw_reply END FROM"
)
JUDGE_STATS_SQL = """
    SELECT p.judge, COUNT(c.key), SUM(c.status = 'ok'), SUM(c.status = 'invalid'),
           SUM(c.status = 'error'), COALESCE(SUM(c.input_tokens), 0), COALESCE(SUM(c.output_tokens), 0),
           COALESCE(SUM(c.cost), 0), AVG(c.latency_ms), COALESCE(SUM(c.attempts - 1), 0),
           COALESCE(SUM(c.http_429s), 0), COUNT(*)
    FROM plan p LEFT JOIN calls c ON c.key = p.key GROUP BY p.judge
"""


def version_of(db: sqlite3.Connection) -> int:
    """The store's schema version (`PRAGMA user_version`)."""
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def upgrade(db: sqlite3.Connection, path: Path, *, read_only: bool) -> None:
    """Upgrade the store at `path` to SCHEMA_VERSION, one version per transaction. The version is read again after
    the write lock is taken, so two processes opening a fresh store at once both succeed (the second finds it
    done)."""
    try:
        version = version_of(db)
        if read_only and version < SCHEMA_VERSION:
            raise UserError(
                f"{path}: a read-only store of schema version {version} (this elotui reads "
                f"{SCHEMA_VERSION}): copy it somewhere writable, where it is upgraded on open"
            )
        if version > SCHEMA_VERSION:
            raise UserError(
                f"{path}: store schema version {version} is newer than this elotui understands "
                f"({SCHEMA_VERSION}); upgrade elotui"
            )
        while version < SCHEMA_VERSION:

            def step() -> None:
                current = version_of(db)  # under the write lock: another process may have migrated
                if current < SCHEMA_VERSION:
                    MIGRATIONS[current](db)
                    db.execute(f"PRAGMA user_version = {current + 1}")

            transaction(db, step)
            version = version_of(db)
    except sqlite3.DatabaseError as exc:
        raise store_problem(path, exc) from None
