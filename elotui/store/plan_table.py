"""Replacing the stored comparison plan (`Store.set_plan`): only the rows that changed are written, in primary-key
order (B-tree appends, not random inserts); a change to most of a large plan drops the index on the call keys and
builds it again after the inserts (one sorted build instead of a random insert per row); then the columnar
snapshot is rewritten (elotui.store.columns.write_plan)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, cast

import numpy as np

from elotui.records import PlanRow
from elotui.runtime.checkpoints import EVERY, checkpoint
from elotui.store import columns
from elotui.store.schema import PLAN_COLUMNS, PLAN_KEY_INDEX

BULK_PLAN_ROWS = (
    50_000  # a change this large, and to at least half the plan, rebuilds the key index at the end
)
_PK = "prompt = ? AND first = ? AND second = ? AND judge = ? AND condition = ? AND sample = ?"


@dataclass(frozen=True)
class PlanChange:
    rows: list[PlanRow]  # the new plan, one row per presentation
    gone: list[tuple[Any, ...]]  # primary keys of the rows to delete
    changed: list[tuple[Any, ...]]  # rows to insert or replace, in primary-key order

    @property
    def nothing(self) -> bool:
        return not self.gone and not self.changed


# A plan row's primary key (prompt, first, second, judge, condition, sample): its fields 1-6, taken in C.
_pk = itemgetter(1, 2, 3, 4, 5, 6)


def changes(rows: Iterable[PlanRow], old_rows: Iterable[PlanRow]) -> PlanChange:
    """What turns the stored plan `old_rows` (a row per presentation) into `rows` (the last row of a presentation
    given twice wins; the plan keeps the place of its first). Worked out on the primary keys' ranks (`_key_ranks`)
    with numpy: the new and old rows sorted together by key, a presentation's rows are neighbours, the new ones
    first (the sort is stable). No tuple or dict entry per row: for a new plan of 10^6 rows 71 MB of transient
    memory instead of 159, and half the time of keying two dicts by the rows' key tuples, then sorting the
    changed rows."""
    new, old = list(rows), list(old_rows)
    both = new + old
    if not both:
        return PlanChange([], [], [])
    ranks = _key_ranks(both)
    order = np.lexsort(ranks) if ranks else np.arange(len(both))
    start = np.zeros(len(both), dtype=bool)  # where a presentation begins, in key order
    start[0] = True
    for rank in ranks:
        in_order = rank[order]
        start[1:] |= in_order[1:] != in_order[:-1]
        del in_order
    del ranks
    first = np.flatnonzero(start)
    last = np.append(first[1:], len(both)) - 1
    del start
    is_new = order < len(new)
    has_new, ends_old = is_new[first], ~is_new[last]
    gone = [_pk(both[i]) for i in np.sort(order[last[~has_new]]).tolist()]
    first, last, ends_old = first[has_new], last[has_new], ends_old[has_new]
    latest = order[last - ends_old]  # a presentation's last new row (its old row, if any, is after it)
    stored = np.where(ends_old, order[last], -1)  # its old row, or -1
    unique = new
    if len(latest) < len(new):  # presentations given twice: each once, where it came first, as last given
        unique = [new[i] for i in latest[np.argsort(order[first], kind="stable")].tolist()]
    del order, first, last, ends_old
    # the rows to write, in key order (the indices read out a slice at a time: not 10^6 Python ints at once)
    changed: list[tuple[Any, ...]] = []
    for lo in range(0, len(latest), _SLICE):
        pairs = zip(latest[lo : lo + _SLICE].tolist(), stored[lo : lo + _SLICE].tolist(), strict=True)
        changed += [both[i] for i, was in pairs if was < 0 or both[was] != both[i]]
    return PlanChange(unique, gone, changed)


def _key_ranks(rows: list[PlanRow]) -> list[np.ndarray[Any, np.dtype[np.int32]]]:
    """For each primary-key field that varies, every row's rank among the field's distinct values (a field has few:
    prompts, contestants, judges, conditions, samples), the last field first: `np.lexsort` of them orders the rows
    as sorting their key tuples does."""
    ranks = []
    for field in range(6, 0, -1):  # np.lexsort sorts by its last key first: the prompt
        values = list(map(itemgetter(field), rows))
        distinct = set(values)
        if len(distinct) > 1:
            rank = {v: n for n, v in enumerate(sorted(distinct))}
            ranks.append(np.fromiter(map(rank.__getitem__, values), dtype=np.int32, count=len(rows)))
        del values, distinct
    return ranks


_SLICE = 65_536


def write(db: sqlite3.Connection, change: PlanChange, fingerprint: str | None) -> None:
    """Apply `change` and rewrite the snapshot (inside the caller's transaction)."""
    write_end(db, columns.code_plan(change.rows), fingerprint, write_rows(db, change))


def write_rows(db: sqlite3.Connection, change: PlanChange) -> bool:
    """The first part of `write`: the rows deleted and inserted. Returns whether the key index was dropped, for
    `write_end` to build again."""
    rebuild = len(change.changed) >= BULK_PLAN_ROWS and 2 * len(change.changed) >= len(change.rows)
    db.executemany(f"DELETE FROM plan WHERE {_PK}", change.gone)
    if rebuild:
        db.execute("DROP INDEX plan_key")
    marks = ", ".join("?" for _ in PLAN_COLUMNS)
    db.executemany(
        f"INSERT OR REPLACE INTO plan ({', '.join(PLAN_COLUMNS)}) VALUES ({marks})",
        _numbered(db, change.changed),
    )
    return rebuild


def write_end(
    db: sqlite3.Connection, plan: columns.CodedPlan, fingerprint: str | None, rebuild: bool
) -> None:
    """The rest of `write`, which needs no plan row: the key index built again (`rebuild`; one SQLite statement
    that runs without Python's lock: 3.5 s at 10^6 rows) and the snapshot of the coded plan rewritten (it joins
    the calls to the plan by key)."""
    if rebuild:
        db.execute(PLAN_KEY_INDEX)
    columns.write_snapshot(db, plan, fingerprint)


def _numbered(db: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """The rows as stored: their three text keys replaced by their numbers in `text_keys` (new keys numbered
    now), made one at a time as they are inserted (10^6 rows: no second list of them). A run stopped meanwhile
    stops the inserts at a checkpoint (elotui.runtime.checkpoints): the transaction is rolled back."""
    keys: set[str | None] = set()
    for field in (8, 9, 10):  # each text key field of every row, taken in C
        keys.update(map(itemgetter(field), rows))
    keys.discard(None)
    wanted = cast("set[str]", keys)
    db.executemany("INSERT OR IGNORE INTO text_keys (key) VALUES (?)", [(k,) for k in sorted(wanted)])
    number: dict[str | None, int | None] = {None: None}
    number.update((k, i) for i, k in db.execute("SELECT id, key FROM text_keys") if k in wanted)
    return _stored(rows, number)


def _stored(rows: list[tuple[Any, ...]], number: dict[str | None, int | None]) -> Iterator[tuple[Any, ...]]:
    for start in range(0, len(rows), EVERY):
        checkpoint()
        yield from ((*r[:8], number[r[8]], number[r[9]], number[r[10]]) for r in rows[start : start + EVERY])
