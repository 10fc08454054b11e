"""Where a graded verdict's strength is kept: a store of schema 10 gains the column and the index of the strong
calls (its verdicts read as before, without a strength); the strong verdicts of the current plan are read through
that index; a shared call cache written before the column gains it, and carries strengths from store to store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from elotui.records import CallRecord, PlanRow
from elotui.store import SCHEMA_VERSION, Store
from elotui.store.call_cache import CallCache
from elotui.store.schema import STRONG_SQL
from tests.foundation.old_stores import store_at_version


def verdict(key: str, winner: str, strength: int | None, status: str = "ok") -> CallRecord:
    return CallRecord(key=key, kind="verdict", status=status, winner=winner, strength=strength)  # type: ignore[arg-type]


def test_a_schema_10_store_gains_the_strength_and_its_index(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = store_at_version(path, 10)
    db.execute("INSERT INTO calls (key, kind, status, winner) VALUES ('k0', 'verdict', 'ok', 'first')")
    db.close()
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION == 11
        old = store.get_call("k0")
        assert old is not None and old.winner == "first" and old.strength is None
        indexes = {row[1] for row in store._db.execute("PRAGMA index_list(calls)")}
        assert "calls_strong" in indexes
        plan = [PlanRow(i, "p", "a", "b", "j", "clean", i, f"k{i}") for i in range(4)]
        store.set_plan(plan)
        store.record_calls(
            [
                verdict("k1", "first", 2),
                verdict("k2", "second", 1),
                verdict("k3", "second", 2, status="invalid"),
            ]
        )
        store.settle()
        assert store.get_call("k1").strength == 2  # type: ignore[union-attr]
        # only an ok verdict of the current plan with strength 2 is strong
        assert store.strong_verdicts() == [("p", "a", "b", "j", "clean", 1)]
        steps = " ".join(str(r) for r in store._db.execute(f"EXPLAIN QUERY PLAN {STRONG_SQL}"))
        assert "calls_strong" in steps


def test_an_older_shared_cache_gains_the_strength_column(tmp_path: Path) -> None:
    path = tmp_path / "call-cache.sqlite"
    db = sqlite3.connect(path)
    older = [c for c in CallRecord.__dataclass_fields__ if c != "strength"]
    db.execute(
        f"CREATE TABLE calls ({', '.join(f'{c} TEXT PRIMARY KEY' if c == 'key' else c for c in older)})"
    )
    db.execute("INSERT INTO calls (key, kind, status, winner) VALUES ('old', 'verdict', 'ok', 'tie')")
    db.commit()
    db.close()
    cache = CallCache(path)
    cache.put_many([verdict("new", "first", 2)])
    got = {r.key: (r.winner, r.strength) for r in cache.get_many(["old", "new"])}
    assert got == {"old": ("tie", None), "new": ("first", 2)}
    cache.close()
