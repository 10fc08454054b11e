"""The SQLite verdict store: round trips, the plan join, migrations, and survival of kill -9."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from elotui.commands.verdicts import log_rows
from elotui.errors import UserError
from elotui.records import TextRow
from elotui.store import MIGRATIONS, SCHEMA_VERSION, CallRecord, PlanRow, Store, writes
from elotui.verdict_log import FIELDS
from tests.foundation.old_stores import store_at_version


def verdict(
    key: str,
    winner: str | None = "first",
    status: str = "ok",
    reasoning: str | None = "because",
    **kw: object,
) -> CallRecord:
    return CallRecord(
        key=key,
        kind="verdict",
        status=status,
        winner=winner,
        judge="j",
        prompt="p",
        first="a",
        second="b",
        condition="clean",
        sample=0,
        reasoning=reasoning,
        **kw,
    )  # type: ignore[arg-type]


def test_record_and_read_back(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        store.record_call(verdict("k1", input_tokens=10, output_tokens=5, latency_ms=12.5))
        got = store.get_call("k1")
        assert got is not None and got.winner == "first" and got.input_tokens == 10 and got.finished_at
        assert store.get_call("nope") is None


def test_cached_keys_are_answered_calls_only(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        store.record_call(verdict("ok"))
        store.record_call(verdict("inv", winner=None, status="invalid", raw_reply="??"))
        store.record_call(verdict("err", winner=None, status="error", error="HTTP 500"))
        assert store.cached_keys(["ok", "inv", "err", "missing"]) == {"ok", "inv"}
        many = [f"x{i}" for i in range(2500)] + ["ok"]
        assert store.cached_keys(many) == {"ok"}


def test_one_batch_written_in_key_order_keeps_the_last_of_a_key(tmp_path: Path) -> None:
    """A batch is written sorted by key; of two records of one key the later still wins, in `calls` and in the
    columns (its answers row is the later one)."""
    with Store(tmp_path / "s.sqlite") as store:
        store.set_plan(
            [
                PlanRow(0, "p", "a", "b", "j", "clean", 0, "zz"),
                PlanRow(1, "p", "b", "a", "j", "clean", 0, "aa"),
            ]
        )
        batch = [
            verdict("zz", winner=None, status="error", error="boom"),
            verdict("aa", winner="second"),
            verdict("zz", winner="first"),
            verdict("aa", winner=None, status="invalid"),
        ]
        store.record_calls(batch, claimed=False, share=False)
        assert [(c.key, c.status) for c in sorted(store.calls(), key=lambda c: c.key)] == [
            ("aa", "invalid"),
            ("zz", "ok"),
        ]
        assert [(r.status, r.winner) for r in store.plan_verdicts()] == [("ok", "first"), ("invalid", None)]


def test_none_binds_as_null_and_a_write_logs_the_answers_of_its_own_calls(tmp_path: Path) -> None:
    """None is bound through the registered adapter (elotui.store.connect) and is still NULL; a write's answers rows
    are those of the calls it wrote (one per presentation a call answers), none for calls written before it."""
    with Store(tmp_path / "s.sqlite") as store:
        db = store._db
        assert (type(None), sqlite3.PrepareProtocol) in sqlite3.adapters
        assert db.execute("SELECT typeof(?), ? IS NULL", (None, None)).fetchone() == ("null", 1)
        store.set_plan(
            [
                PlanRow(0, "p", "a", "b", "j", "clean", 0, "k1"),
                PlanRow(1, "q", "a", "b", "j", "clean", 0, "k1"),  # one call, two presentations
                PlanRow(2, "p", "b", "a", "j", "clean", 0, "k2"),
            ]
        )
        store.record_calls([verdict("k1")], claimed=False, share=False)
        store.record_calls([verdict("k2", winner="second"), verdict("k9")], claimed=False, share=False)
        assert db.execute("SELECT COUNT(*) FROM calls WHERE error IS NULL AND cost IS NULL").fetchone() == (
            3,
        )
        answers = db.execute("SELECT seq, outcome FROM answers ORDER BY id").fetchall()
        assert sorted(seq for seq, _ in answers[:2]) == [0, 1] and [seq for seq, _ in answers[2:]] == [2]
        assert [(r.status, r.winner) for r in store.plan_verdicts()] == [
            ("ok", "first"),
            ("ok", "first"),
            ("ok", "second"),
        ]


def test_columns_empty_in_a_whole_batch_are_left_to_their_null_default(tmp_path: Path) -> None:
    """A batch writes only the columns some record fills (elotui.store.writes): what is read back is every field of
    every record all the same, a column empty in the first record but filled in a later one included; the columns
    with a default other than NULL are always written, as before."""
    with Store(tmp_path / "s.sqlite") as store:
        db = store._db
        defaults = {name: default for _, name, _, _, default, _ in db.execute("PRAGMA table_info(calls)")}
        assert {c for c, d in defaults.items() if d is not None} == writes.DEFAULTED_CALL_COLUMNS
        lean = [verdict(f"a{i}", reasoning=None) for i in range(3)]
        mixed = [verdict("b0", reasoning=None), verdict("b1", reasoning=None, cost=0.5, error="late")]
        mixed.append(verdict("b2", reasoning="only here", input_tokens=7))
        for batch in (lean, mixed, [verdict("c0", cost=1.0)]):
            store.record_calls(batch, claimed=False, share=False)
            for rec in batch:
                assert store.get_call(rec.key) == rec
        filled = [c for c in writes.CALL_COLUMNS if getattr(lean[0], c) is not None]
        assert "reasoning" not in filled and writes._columns_with_values(lean) == tuple(filled)
        assert "reasoning" in writes._columns_with_values(mixed) and "cost" in writes._columns_with_values(
            mixed
        )
        store.record_calls([verdict("d0", attempts=None)], claimed=False, share=False)
        got = store.get_call("d0")  # OR REPLACE puts a NOT NULL column's default for a None, as it always did
        assert got is not None and got.attempts == 1


def test_plan_join_reports_missing_and_only_current_plan(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        store.record_call(verdict("k1"))
        store.record_call(verdict("k2", winner=None, status="error", error="boom"))
        store.record_call(verdict("stale", winner="second"))
        store.set_plan(
            [
                PlanRow(0, "p", "a", "b", "j", "clean", 0, "k1"),
                PlanRow(1, "p", "b", "a", "j", "clean", 0, "k2"),
                PlanRow(2, "p", "a", "c", "j", "clean", 0, "k3"),
            ]
        )
        rows = store.plan_verdicts()
        assert rows == [
            ("p", "a", "b", "j", "clean", 0, "ok", "first"),
            ("p", "b", "a", "j", "clean", 0, "error", None),
            ("p", "a", "c", "j", "clean", 0, "missing", None),
        ]
        log = [dict(zip(FIELDS, r, strict=True)) for r in log_rows(store)]
        assert [r["status"] for r in log] == ["ok", "error"]
        assert log[0]["reasoning"] == "because"
        assert log[1]["winner"] is None  # a failed call's winner is not the log's
        stats = store.judge_stats()["j"]
        assert stats.planned == 3 and stats.done == 2 and stats.error == 1


def test_texts_and_runs(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        store.put_text(
            "t1", "lexical", "A.I. text", prompt="p", contestant="a", condition="lexical", base_key="b"
        )
        assert store.get_text("t1") == "A.I. text"
        assert store.texts("lexical")[0].base_key == "b"
        store.put_text("t1", "lexical", "replaced", prompt="p")  # put_text replaces the row of its key
        assert store.get_text("t1") == "replaced"
        # add_texts stores what is new, in one transaction, and leaves the row of a key held already as it is
        store.add_texts(
            [
                TextRow("t1", "prompt", "q", None, None, None, "ignored", 1.0),
                TextRow("t2", "prompt", "q", None, None, None, "new", 2.0),
            ]
        )
        assert store.get_text("t1") == "replaced" and store.get_text("t2") == "new"
        assert store.texts("prompt") == [TextRow("t2", "prompt", "q", None, None, None, "new", 2.0)]
        run_id = store.start_run({"elotui": "x", "judges": []})
        store.finish_run(run_id, "finished")
        assert store.runs()[0].state == "finished"


def test_a_read_left_unfinished_ends_quietly_after_its_store_has_closed(tmp_path: Path) -> None:
    """A reader that stops early (an exception on the way out, `| head`) may leave the store's read to be ended
    only after the store has closed: there is nothing left to end then, and nothing to say."""
    with Store(tmp_path / "s.sqlite") as store:
        store.set_plan([PlanRow(i, "p", f"c{i}", "b", "j", "clean", 0, f"k{i}") for i in range(10)])
        store.record_calls([verdict(f"k{i}") for i in range(10)])
        rows = store.each_recorded_verdict(batch=2)
        assert next(rows)[1] == "c0"
    rows.close()  # before: StoreError (ProgrammingError: Cannot operate on a closed database)


def test_the_run_listing_counts_each_runs_calls_and_cost(tmp_path: Path) -> None:
    """`elotui runs`: each run's recorded calls and their cost, 0 for a run that recorded none, as joining the
    runs to the calls counts them (the listing counts them in one pass over the calls instead)."""
    from elotui.store.runs import run_table

    with Store(tmp_path / "s.sqlite") as store:
        costs = {1: [0.25, None, 1.5], 2: [], 3: [None, None], 4: [0.125]}
        for run, spent in costs.items():
            run_id = store.start_run({"elotui": "x", "judges": []})
            assert run_id == run
            store.record_calls([verdict(f"r{run}-{i}", cost=c, run_id=run) for i, c in enumerate(spent)])
            store.finish_run(run_id, "finished")
        joined = store._db.execute(
            "SELECT r.id, COUNT(c.key), COALESCE(SUM(c.cost), 0) FROM runs r LEFT JOIN calls c "
            "ON c.run_id = r.id GROUP BY r.id ORDER BY r.id"
        ).fetchall()
        listed = [(r["id"], r["calls"], r["cost"]) for r in run_table(store)]
        assert listed == joined == [(1, 3, 1.75), (2, 0, 0), (3, 2, 0), (4, 1, 0.125)]


def test_only_a_run_gives_the_store_a_large_page_cache(tmp_path: Path) -> None:
    # A reader (export, watch) reads the stored columns once into arrays: a 64 MiB cache would only copy them
    # into fresh memory a second time. A run's inserts by random key want it.
    def cache(store: Store) -> int:
        return int(store._db.execute("PRAGMA cache_size").fetchone()[0])

    with Store(tmp_path / "s.sqlite") as store:
        assert cache(store) == -2000  # SQLite's default: 2000 KiB
        store.start_run({"elotui": "x", "judges": []})
        assert cache(store) == -65536
    with Store(tmp_path / "s.sqlite") as again:
        assert cache(again) == -2000


def test_migration_from_version_1_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    MIGRATIONS[0](db)
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO calls (key, kind, status, winner) VALUES ('old', 'verdict', 'ok', 'tie')")
    db.commit()
    db.close()
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION == 11
        got = store.get_call("old")
        assert got is not None and got.winner == "tie" and got.attempts == 1 and got.http_429s == 0


V7_ROWS = [  # seq, prompt, first, second, judge, condition, sample, key, the three text keys (None: blocked)
    (0, "p1", "a", "b", "j", "clean", 0, "k0", "text:p1", "text:p1a", "text:p1b"),
    (1, "p1", "b", "a", "j", "clean", 0, "k1", "text:p1", "text:p1b", "text:p1a"),
    (2, "p1", "a", "b", "j", "paraphrase", 0, "k2", "para-p1", "text:p1a", "text:p1b"),
    (3, "p2", "a", "b", "j", "clean", 0, "gen-key", None, None, None),
]


def test_migration_to_version_8_numbers_the_text_keys(tmp_path: Path) -> None:
    """A version-7 store's plan, text keys and answers read the same after the move to numbered text keys."""
    path = tmp_path / "v7.sqlite"
    db = store_at_version(path, 7)
    db.executemany(f"INSERT INTO plan VALUES ({', '.join('?' * 11)})", V7_ROWS)
    db.execute("INSERT INTO calls (key, kind, status, winner) VALUES ('k1', 'verdict', 'ok', 'first')")
    db.close()
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION == 11
        assert store.plan() == [PlanRow(*r) for r in V7_ROWS]
        (detail,) = list(store.each_recorded_detail())
        assert (detail.plan_key, detail.prompt_text_key, detail.first_text_key, detail.second_text_key) == (
            "k1",
            "text:p1",
            "text:p1b",
            "text:p1a",
        )
        numbered = store._db.execute("SELECT key FROM text_keys ORDER BY id").fetchall()
        assert [k for (k,) in numbered] == sorted({k for r in V7_ROWS for k in r[8:] if k is not None})
        assert store._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert [r[2] for r in store._db.execute("PRAGMA index_info(plan_key)")] == ["key", "seq"]


def test_plans_replaced_keep_their_text_keys(tmp_path: Path) -> None:
    """A plan stored, replaced by one that shows other texts, and by the first again: each reads back as written
    (a text key is numbered once, whichever plan brings it)."""
    first = [PlanRow(*r) for r in V7_ROWS]
    second = [r._replace(first_text_key="text:new", second_text_key=r.prompt_text_key) for r in first]
    with Store(tmp_path / "s.sqlite") as store:
        for rows in (first, second, first, second[:2]):
            store.set_plan(rows)
            assert store.plan() == rows
        assert store._db.execute("SELECT count(*) FROM text_keys").fetchone()[0] == 5


def test_plan_changes_are_those_of_keying_the_rows_by_presentation(monkeypatch: pytest.MonkeyPatch) -> None:
    """`plan_table.changes` (worked out on the keys' ranks with numpy) gives what keying the rows by their primary
    keys gives: the new plan with a presentation given twice once (where it came first, as last given), the keys
    of the old rows it drops, and the rows to write (new, or different from the stored row) sorted by key. Plans
    whose key fields vary in every combination (a field the same in every row included), samples past 9 and 10,
    repeats, old plans that overlap, equal or differ; the rows read out a few at a time here."""
    import random

    from elotui.store import plan_table
    from elotui.store.plan_table import _pk, changes

    monkeypatch.setattr(plan_table, "_SLICE", 7)

    def keyed(
        rows: list[PlanRow], old_rows: list[PlanRow]
    ) -> tuple[list[PlanRow], list[tuple], list[PlanRow]]:
        unique = {_pk(r): r for r in rows}
        old = {_pk(r): r for r in old_rows}
        gone = [k for k in old if k not in unique]
        changed = sorted((r for k, r in unique.items() if old.get(k) != r), key=_pk)
        return list(unique.values()), gone, changed

    rng = random.Random(5)
    for trial in range(60):
        fields = [
            [f"q{i}" for i in range(rng.randint(1, 12))],
            ["a", "b", "ab", "B", "é", "m10", "m9"][: rng.randint(1, 7)],
            ["a", "b", "ab", "B", "é", "m10", "m9"][: rng.randint(1, 7)],
            ["j", "judge-2", "J"][: rng.randint(1, 3)],
            ["clean", "lexical", "instructed"][: rng.randint(1, 3)],
            list(range(rng.randint(1, 12))),
        ]
        keys = [tuple(rng.choice(f) for f in fields) for _ in range(rng.randint(0, 300))]
        rows = [PlanRow(seq, *key, f"k{rng.randint(0, 3)}") for seq, key in enumerate(keys)]  # repeats, too
        old = list({_pk(r): r for r in rows if rng.random() < 0.5}.values())  # a stored plan: a key once
        old = [r._replace(key="other") if rng.random() < 0.3 else r for r in old]
        old += [
            PlanRow(900 + i, "gone", f"c{i}", "x", "j", "clean", i, "k") for i in range(rng.randint(0, 3))
        ]
        rng.shuffle(rows)
        once = list({_pk(r): r for r in rows}.values())
        for given, stored in ((rows, []), (rows, old), ([], old), (rows, once), (once, once), (old, old)):
            change = changes(given, stored)
            assert (change.rows, change.gone, change.changed) == keyed(given, stored), trial


@pytest.mark.parametrize("read", ["each_recorded_detail", "each_recorded_verdict"])
def test_recorded_details_stream_from_one_snapshot(tmp_path: Path, read: str) -> None:
    """The graph's and the verdict log's rows come a batch at a time, all from the store as it was when reading
    began: calls that another process records meanwhile are in the next read, not half in this one."""
    path = tmp_path / "s.sqlite"
    with Store(path) as store, Store(path) as other:
        each = getattr(store, read)
        store.set_plan([PlanRow(i, "p", f"c{i}", "b", "j", "clean", 0, f"k{i}") for i in range(10)])
        store.record_calls([verdict(f"k{i}") for i in range(0, 10, 2)])
        before = list(each())
        first = 2 if read == "each_recorded_detail" else 1  # after `seq` and `prompt`, or after `prompt`
        assert [d[first] for d in before] == ["c0", "c2", "c4", "c6", "c8"]
        rows = each(batch=2)
        got = [next(rows), next(rows)]
        other.record_calls([verdict(f"k{i}") for i in range(1, 10, 2)])  # a writer goes on meanwhile
        got += list(rows)
        assert got == before
        assert not store._db.in_transaction  # the read ended with the rows
        assert len(list(each())) == 10


def test_the_log_rows_are_the_recorded_details_fields(tmp_path: Path) -> None:
    """`each_recorded_verdict` reads the log's columns alone; its rows are the recorded details' fields, in plan
    order (not the plan's key order), with a winner only where the call is ok, a call shared by two planned
    presentations in both, and nothing for a presentation not yet called."""
    rng = random.Random(7)
    with Store(tmp_path / "s.sqlite") as store:
        calls = []
        for i in range(60):
            status = rng.choice(["ok", "ok", "invalid", "error"])
            winner = rng.choice(["first", "second", "tie", None]) if status != "error" else None
            calls.append(
                verdict(f"k{i}", winner=winner, status=status, reasoning=rng.choice([None, f"r{i}"]))
            )
        store.record_calls(calls)
        seqs = rng.sample(range(200), 80)  # plan order differs from the primary key's
        plan = [
            PlanRow(seq, f"p{i % 7}", f"a{i}", f"b{i % 3}", "j", "clean", i % 2, f"k{rng.randrange(70)}")
            for i, seq in enumerate(seqs)
        ]
        store.set_plan(plan)
        details = list(store.each_recorded_detail(batch=5))
        expected = [
            (d.prompt, d.first, d.second, d.judge, d.condition, d.sample)
            + (d.winner if d.status == "ok" else None, d.reasoning, d.status)
            for d in details
        ]
        assert list(store.each_recorded_verdict(batch=5)) == expected
        assert len(expected) == sum(row.key in {c.key for c in calls} for row in plan) > 40
        assert any(row[6] is None and row[8] == "invalid" for row in expected)
        assert len({row.key for row in plan}) < len(plan)  # some calls answer two presentations


def test_newer_schema_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(UserError, match="newer than this elotui"):
        Store(path)


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(UserError, match="not a usable elotui store"):
        Store(path)


WRITER = r"""
import sys, time
from elotui.store import CallRecord, Store
store = Store(sys.argv[1])
i = 0
while True:
    store.record_call(CallRecord(key=f"k{i}", kind="verdict", status="ok", winner="first", reasoning="r" * 200))
    print(i, flush=True)
    i += 1
"""


def test_store_survives_kill_9(tmp_path: Path) -> None:
    """Every call reported as recorded before SIGKILL is in the store afterwards, and the store is intact."""
    path = tmp_path / "kill.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    last = -1
    deadline = time.monotonic() + 60
    while last < 300 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        last = int(line)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert last >= 300, "the writer did not get going"
    with Store(path) as store:
        assert store._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        keys = {c.key for c in store.calls()}
    assert {f"k{i}" for i in range(last + 1)} <= keys


def _full_disk(db: sqlite3.Connection, last: int) -> None:
    """writes.finish_calls on a disk that is full (its transaction rolled back, SQLite's message)."""
    writes.rollback(db)
    raise sqlite3.OperationalError("database or disk is full")


def test_a_write_finished_behind_is_seen_by_the_next_use_and_its_failure_is_said_at_every_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """record_calls(behind=True) (free answers): the answers rows, commit and compaction end in a helper thread;
    the store's next use waits for them, another connection sees them once settled, and a failed end is raised at
    the next use and every one after (a heartbeat meeting it first must not hide it), the batch rolled back."""
    from elotui.errors import StoreError

    path = tmp_path / "s.sqlite"
    rows = [PlanRow(i, f"p{i}", "a", "b", "j", "clean", 0, f"k{i}") for i in range(6)]
    with Store(path) as store, Store(path) as other:
        store.set_plan(rows)
        with pytest.raises(ValueError, match="free answers"):
            store.record_calls([verdict("k0")], behind=True)  # claimed and shared calls are never behind
        store.record_calls([verdict("k0"), verdict("k1")], claimed=False, share=False, behind=True)
        assert [r.status for r in store.plan_verdicts()][:3] == ["ok", "ok", "missing"]  # waited for
        store.settle()
        assert [r.status for r in other.plan_verdicts()][:3] == ["ok", "ok", "missing"]

        real = writes.finish_calls

        monkeypatch.setattr(writes, "finish_calls", _full_disk)
        store.record_calls([verdict("k2")], claimed=False, share=False, behind=True)
        for _ in range(2):
            with pytest.raises(StoreError, match="no space left on the device"):
                store.plan_verdicts()
        monkeypatch.setattr(writes, "finish_calls", real)
        with pytest.raises(StoreError):
            store.record_calls([verdict("k3")], claimed=False, share=False)
        assert [r.status for r in other.plan_verdicts()][:4] == ["ok", "ok", "missing", "missing"]
    with Store(path) as store:  # closed without raising it again; reopened, the store is as committed
        assert store.get_call("k2") is None and store.get_call("k1") is not None


def test_a_failure_behind_that_no_use_met_is_raised_by_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from elotui.errors import StoreError

    store = Store(tmp_path / "s.sqlite")
    store.set_plan([PlanRow(0, "p", "a", "b", "j", "clean", 0, "k0")])
    monkeypatch.setattr(writes, "finish_calls", _full_disk)
    store.record_calls([verdict("k0")], claimed=False, share=False, behind=True)
    with pytest.raises(StoreError, match="no space left"):
        store.close()
    with pytest.raises(sqlite3.ProgrammingError):  # closed all the same
        store._conn.execute("SELECT 1")


def test_a_heartbeat_during_a_write_behind_is_written_after_it_without_waiting_and_hides_no_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run's heartbeat that meets a write being finished behind does not wait for it (the event loop, and the
    free answers, would stop meanwhile): the beat is written in the helper thread right after the write, and the
    next use of the store sees both. If the write fails, the beat is not written and the failure is said at the
    next use, as without a beat."""
    import json
    import threading

    from elotui.errors import StoreError
    from elotui.store.runs import heartbeat

    real = writes.finish_calls
    release = threading.Event()

    def held(db: sqlite3.Connection, last: int) -> None:  # the write's end, held until released
        assert release.wait(10)
        real(db, last)

    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        store.set_plan([PlanRow(i, f"p{i}", "a", "b", "j", "clean", 0, f"k{i}") for i in range(3)])
        run_id = store.start_run({"elotui": "x", "judges": []})
        monkeypatch.setattr(writes, "finish_calls", held)
        store.record_calls([verdict("k0")], claimed=False, share=False, behind=True)
        started = time.monotonic()
        heartbeat(store, run_id, "running", {"done": 1})
        assert time.monotonic() - started < 1.0 and store._behind.busy  # queued, not waited for
        release.set()
        (progress,) = store._rows(str, "SELECT progress FROM runs WHERE id = ?", (run_id,))
        assert json.loads(progress) == {"done": 1}
        assert [r.status for r in store.plan_verdicts()] == ["ok", "missing", "missing"]

        monkeypatch.setattr(writes, "finish_calls", _full_disk)
        store.record_calls([verdict("k1")], claimed=False, share=False, behind=True)
        heartbeat(store, run_id, "running", {"done": 2})
        for _ in range(2):
            with pytest.raises(StoreError, match="no space left on the device"):
                store.plan_verdicts()
    with Store(path) as store:  # the failed write and the beat queued after it: neither is there
        (progress,) = store._rows(str, "SELECT progress FROM runs WHERE id = ?", (run_id,))
        assert json.loads(progress) == {"done": 1} and store.get_call("k1") is None


def test_a_plan_whose_end_is_written_behind_is_whole_at_the_next_use_and_a_failed_end_keeps_the_old_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """set_plan(behind=True): the rows now, the key index (rebuilt for a bulk change), the snapshot and the commit
    in the helper thread. The next use waits for them: it sees the whole plan with its outcomes and fingerprint,
    the index is there again; another connection sees it once settled. A failed end (a full disk) is raised at the
    next use, and the transaction is rolled back: the plan before it stays, whole."""
    from elotui.errors import StoreError
    from elotui.store import plan_table

    monkeypatch.setattr(plan_table, "BULK_PLAN_ROWS", 4)  # the index dropped and built again, as at 10^6 rows
    path = tmp_path / "s.sqlite"
    old = [PlanRow(i, f"p{i}", "a", "b", "j", "clean", 0, f"k{i}") for i in range(6)]
    new = [PlanRow(i, f"q{i}", "a", "b", "j", "clean", 0, f"k{i}") for i in range(8)]
    with Store(path) as store, Store(path) as other:
        store.record_calls([verdict("k1")])
        store.set_plan(old, "old", behind=True)
        assert store.plan() == old and store.plan_fingerprint() == "old"  # waited for
        assert [r.status for r in store.plan_verdicts()][:3] == ["missing", "ok", "missing"]
        indexes = {r[1] for r in store._conn.execute("PRAGMA index_list(plan)")}
        assert "plan_key" in indexes
        store.settle()
        assert other.plan() == old and other.plan_fingerprint() == "old"

        real = plan_table.write_end

        def full(*args: object) -> None:
            real(*args)  # type: ignore[arg-type]
            raise sqlite3.OperationalError("database or disk is full")

        monkeypatch.setattr(plan_table, "write_end", full)
        store.set_plan(new, "new", behind=True)
        with pytest.raises(StoreError, match="no space left on the device"):
            store.plan()
        monkeypatch.setattr(plan_table, "write_end", real)
        assert other.plan() == old and other.plan_fingerprint() == "old"
        assert [r.status for r in other.plan_verdicts()][:3] == ["missing", "ok", "missing"]
        assert "plan_key" in {r[1] for r in other._conn.execute("PRAGMA index_list(plan)")}
