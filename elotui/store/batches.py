"""The batches a run submitted to a provider's batch API (docs/batch.md), one row each: the judge, the provider's
batch id, the call keys it holds (its requests' `custom_id`s), its state here and the provider's status and counts.

A row is written before the batch is submitted ("submitting") and given the provider's id the moment the submit
call returns ("open"), so a process killed after submitting leaves it for the next run to poll and collect
("collected"), or for `--cancel-batches` ("cancelled"). A batch that failed as a whole is "failed"; its calls are
free again. States: submitting, open, collected, failed, cancelled.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from elotui.store import Store

OPEN_STATES = ("submitting", "open")


@dataclass(frozen=True)
class BatchRow:
    id: int
    judge: str
    provider: str
    batch_id: str | None
    keys: tuple[str, ...]
    state: str
    status: str | None
    done: int
    failed: int
    submitted_at: float
    ended_at: float | None
    run_id: int | None


def _row(*values: object) -> BatchRow:
    fields = list(values)
    fields[4] = tuple(json.loads(str(fields[4])))
    return BatchRow(*fields)  # type: ignore[arg-type]


_COLUMNS = "id, judge, provider, batch_id, keys, state, status, done, failed, submitted_at, ended_at, run_id"


def add_batch(store: Store, judge: str, provider: str, keys: list[str], run_id: int | None) -> int:
    """A batch about to be submitted ("submitting"); its row id."""
    made: list[int] = []

    def body() -> None:
        cur = store._db.execute(
            "INSERT INTO batches (judge, provider, keys, state, submitted_at, run_id) VALUES (?, ?, ?, ?, ?, ?)",
            (judge, provider, json.dumps(keys), "submitting", time.time(), run_id),
        )
        made.append(int(cur.lastrowid or 0))

    store._transaction(body)
    return made[0]


def update_batch(
    store: Store,
    row_id: int,
    *,
    batch_id: str | None = None,
    state: str | None = None,
    status: str | None = None,
    counts: tuple[int, int] | None = None,
) -> None:
    """Set what is given: the provider's id, the state here (an ending state stamps `ended_at`), the provider's
    status, its (done, failed) counts."""
    sets: list[str] = []
    values: list[object] = []
    for column, value in (("batch_id", batch_id), ("state", state), ("status", status)):
        if value is not None:
            sets.append(f"{column} = ?")
            values.append(value)
    if counts is not None:
        sets += ["done = ?", "failed = ?"]
        values += list(counts)
    if state is not None and state not in OPEN_STATES:
        sets.append("ended_at = ?")
        values.append(time.time())
    if sets:
        store._transaction(
            lambda: store._db.execute(f"UPDATE batches SET {', '.join(sets)} WHERE id = ?", [*values, row_id])
        )


def open_batches(store: Store, judge: str | None = None) -> list[BatchRow]:
    """The batches not collected yet (of `judge`, if given), oldest first."""
    where = "state IN ('submitting', 'open')" + (" AND judge = ?" if judge is not None else "")
    return store._rows(
        _row, f"SELECT {_COLUMNS} FROM batches WHERE {where} ORDER BY id", [judge] if judge else []
    )


def all_batches(store: Store) -> list[BatchRow]:
    return store._rows(_row, f"SELECT {_COLUMNS} FROM batches ORDER BY id")
