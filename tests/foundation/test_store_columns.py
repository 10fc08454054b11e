"""The columnar snapshot (elotui.store.columns) always says what `plan LEFT JOIN calls` says: after calls,
replacements, copies from the shared cache, plan changes and compactions, from this connection and from another
one, and after a migration from schema version 5. And the verdict table built from it is the one built from
named rows."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from elotui.rating.table import VerdictTable
from elotui.records import PlanVerdict
from elotui.store import SCHEMA_VERSION, CallRecord, PlanRow, Store, columns
from elotui.store.call_cache import CallCache
from tests.foundation.old_stores import store_at_version

JOIN = """
    SELECT p.prompt, p.first, p.second, p.judge, p.condition, p.sample,
           COALESCE(c.status, 'missing'), CASE WHEN c.status = 'ok' THEN c.winner END
    FROM plan p LEFT JOIN calls c ON c.key = p.key ORDER BY p.seq
"""


def reference(path: Path) -> list[PlanVerdict]:
    """The join, read as the ratings read it: an "ok" verdict without a winner is invalid (vocab.outcome_code)."""
    with sqlite3.connect(path) as db:
        rows = [PlanVerdict(*r) for r in db.execute(JOIN)]
    return [r._replace(status="invalid") if r.status == "ok" and r.winner is None else r for r in rows]


def plan(rng: random.Random, keys: int, rows: int = 60) -> list[PlanRow]:
    names = ["a", "b", "c", "d"]
    out = []
    for seq in range(rows):
        first, second = rng.sample(names, 2)
        key = f"k{rng.randrange(keys)}"  # several presentations may share one call
        out.append(PlanRow(seq, f"p{seq % 5}", first, second, f"j{seq % 3}", "clean", seq % 2, key))
    return out


def call(rng: random.Random, key: str) -> CallRecord:
    status = rng.choice(["ok", "ok", "ok", "invalid", "error"])
    winner = rng.choice(["first", "second", "tie", None]) if status == "ok" else None
    return CallRecord(key=key, kind="verdict", status=status, winner=winner)


@pytest.mark.parametrize("seed", range(6))
def test_columns_follow_every_write(tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(columns, "COMPACT_EVERY", 7)  # compactions happen in the middle of the sequence
    rng = random.Random(seed)
    path = tmp_path / "s.sqlite"
    cache = CallCache(tmp_path / "cache.sqlite")
    other_cache = CallCache(tmp_path / "cache.sqlite")
    with Store(path, cache=cache) as store, Store(path) as reader:
        store.set_plan(plan(rng, 40))
        for step in range(80):
            move = rng.random()
            if move < 0.55:
                store.record_calls([call(rng, f"k{rng.randrange(45)}") for _ in range(rng.randint(1, 4))])
            elif move < 0.7:  # answered in another store: copied in from the shared cache
                other_cache.put(
                    CallRecord(key=f"k{rng.randrange(45)}", kind="verdict", status="ok", winner="tie")
                )
                store.cached_keys([f"k{i}" for i in range(45)])
            elif move < 0.8:
                store.set_plan(plan(rng, 45, rows=rng.randint(30, 70)))
            elif move < 0.9:
                store.compact()
            else:
                store.record_call(call(rng, f"k{rng.randrange(45)}"))
            want = reference(path)
            assert store.plan_verdicts() == want, f"step {step}"
            assert reader.plan_verdicts() == want, f"step {step} (another connection)"
    other_cache.close()


def test_a_version_5_store_gets_its_snapshot_on_open(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = store_at_version(path, 5)
    rows = plan(random.Random(1), 30)
    db.executemany(
        "INSERT OR REPLACE INTO plan (seq, prompt, first, second, judge, condition, sample, key) VALUES (?,?,?,?,?,?,?,?)",
        [tuple(r)[:8] for r in rows],
    )
    db.executemany(
        "INSERT INTO calls (key, kind, status, winner) VALUES (?, 'verdict', ?, ?)",
        [(f"k{i}", "ok" if i % 4 else "invalid", "first" if i % 3 else "tie") for i in range(0, 30, 2)],
    )
    db.close()
    want = reference(path)
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        db = store._db  # since version 7: an answer finds its presentations in the index of keys alone
        assert [r[2] for r in db.execute("PRAGMA index_info(plan_key)")] == ["key", "seq"]
        steps = " ".join(r[3] for r in db.execute(f"EXPLAIN QUERY PLAN {columns.ANSWER_SQL}", (0,)))
        assert "COVERING INDEX plan_key" in steps
        assert "INTEGER PRIMARY KEY (rowid>?)" in steps  # the calls just written, not a scan of them all
        assert store.plan_verdicts() == want
        assert {r.status for r in want} >= {"ok", "invalid", "missing"}


def test_the_table_from_columns_is_the_table_from_rows(tmp_path: Path) -> None:
    rng = random.Random(3)
    with Store(tmp_path / "s.sqlite") as store:
        rows = plan(rng, 50, rows=200)
        rows.append(PlanRow(200, "p9", "zed", "a", "j9", "lexical", 3, "k1"))  # undeclared names
        store.set_plan(rows)
        store.record_calls([call(rng, f"k{i}") for i in range(0, 50, 3)])
        cols = store.verdict_columns()
        named = store.plan_verdicts()
    declared = {"contestants": ["d", "c", "b", "a"], "prompts": ["p4", "p0"], "judges": ["j2"]}
    for include_missing in (True, False):
        got = VerdictTable(**declared)
        got.extend_columns(cols, include_missing)
        want = VerdictTable.from_rows(
            [r for r in named if include_missing or r.status != "missing"], **declared
        )
        # the same codes (a name only in unanswered rows may be coded too when they are left out)
        for book in ("prompts", "judges", "conditions", "contestants"):
            assert getattr(got, book)[: len(getattr(want, book))] == getattr(want, book)
        for name in ("prompt", "first", "second", "judge", "condition", "sample", "outcome"):
            assert np.array_equal(got.column(name), want.column(name)), name


def test_columns_added_twice_are_the_rows_added_twice(tmp_path: Path) -> None:
    """The first read's columns become the table's own (no copy); a second read appends after them, and the
    snapshot's arrays are left as they were."""
    rng = random.Random(5)
    with Store(tmp_path / "s.sqlite") as store:
        store.set_plan(plan(rng, 30, rows=80))
        store.record_calls([call(rng, f"k{i}") for i in range(0, 30, 2)])
        cols = store.verdict_columns()
        named = store.plan_verdicts()
    before = {name: getattr(cols, name).copy() for name in ("prompt", "first", "outcome", "sample")}
    got = VerdictTable(contestants=["a", "b", "c", "d"])
    got.extend_columns(cols)
    got.extend_columns(cols, include_missing=False)
    got.extend_columns(cols)
    present = [r for r in named if r.status != "missing"]
    want = VerdictTable.from_rows([*named, *present, *named], contestants=["a", "b", "c", "d"])
    for name in ("prompt", "first", "second", "judge", "condition", "sample", "outcome"):
        assert np.array_equal(got.column(name), want.column(name)), name
    for name, values in before.items():
        assert np.array_equal(getattr(cols, name), values), name


def test_a_read_replays_at_most_compact_every_answers(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        store.set_plan(
            [PlanRow(i, "p", "a", "b", "j", "clean", i, f"k{i}") for i in range(3 * columns.COMPACT_EVERY)]
        )
        store.record_calls(
            [
                CallRecord(key=f"k{i}", kind="verdict", status="ok", winner="first")
                for i in range(columns.COMPACT_EVERY + 5)
            ]
        )
        with store._lock:
            assert columns.pending_answers(store._db) < columns.COMPACT_EVERY
        assert int((store.verdict_columns().outcome == 0).sum()) == columns.COMPACT_EVERY + 5


def test_a_repeated_read_is_reused_until_anyone_commits(tmp_path: Path) -> None:
    # The columns are kept between reads while nothing is committed (PRAGMA data_version + this connection's
    # changes); a write by this store, by another store on the file, or by a plain sqlite3 connection shows.
    path = tmp_path / "s.sqlite"
    rng = random.Random(1)
    rows = plan(rng, 40)
    with Store(path) as store, Store(path) as other:
        store.set_plan(rows)
        first = store.verdict_columns()
        assert store.verdict_columns() is first  # nothing committed: the same read
        assert not first.outcome.flags.writeable  # shared, so nobody may change it in place
        other.record_call(CallRecord(key=rows[0].key, kind="verdict", status="ok", winner="first"))
        second = store.verdict_columns()
        assert second is not first and second.rows() == reference(path)
        store.record_call(CallRecord(key=rows[1].key, kind="verdict", status="ok", winner="tie"))
        third = store.verdict_columns()
        assert third is not second and third.rows() == reference(path)
        with sqlite3.connect(path) as db:
            db.execute("UPDATE calls SET winner = 'second' WHERE key = ?", (rows[1].key,))
            db.execute(
                "INSERT INTO answers (seq, outcome) SELECT seq, 1 FROM plan WHERE key = ?", (rows[1].key,)
            )
        assert store.verdict_columns().rows() == reference(path)
