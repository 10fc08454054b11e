"""Which calls are being paid for: a run claims a call before sending it, fenced by its run lease.

- **Claim** (`claim_many`, one transaction of the store): refused with `LeaseLost` when a newer run holds the
  lease (elotui.store.runs.fence: the run was forced out or paused past its lease, and sends nothing more);
  "answered" when the store already has the answer; "taken" when another run claimed it and that run's process
  may still be sending it (elotui.store.processes: on this host, while the process exists, paused or not); else
  "mine". A call that is the run's in the store is then claimed in this machine's shared call cache, the one
  claim space of every store (elotui.store.call_cache): "answered" there (copied into the store), or "taken" by a
  run of another store, or "mine" at last: only then is it sent.
- **Record** (`write_claimed`, in the transaction that writes the answers): the run's claims on them end. A run
  that lost its lease keeps a late answer only where the call is still unanswered (an error only where nothing is
  recorded): an answer that arrives after a takeover is never written over another, and never sent again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from elotui.records import CallRecord
from elotui.store import keysets, writes
from elotui.store.call_cache import Claim, store_name
from elotui.store.processes import may_still_send
from elotui.store.runs import fence
from elotui.vocab import CACHED_STATUSES

if TYPE_CHECKING:
    import sqlite3

    from elotui.store import Store

__all__ = ["Claim", "claim", "claim_many", "write_claimed"]


def claim(store: Store, key: str, run_id: int) -> Claim:
    """Claim a call before sending it: "mine" (send it), "answered" (its answer is in the store now), or "taken"
    (another run may be sending it); raises LeaseLost when the run no longer holds its lease."""
    return claim_many(store, [key], run_id)[key]


def claim_many(store: Store, keys: Sequence[str], run_id: int) -> dict[str, Claim]:
    """`claim` for several calls: one transaction of the store (a few statements for the lot), then one of the
    shared call cache for the calls that are the run's in the store."""
    result: dict[str, Claim] = {}
    name = store_name(store.path)
    store._transaction(lambda: result.update(_claim_in_store(store._db, name, keys, run_id)))
    _claim_in_cache(store, run_id, result)
    return result


def _claim_in_store(db: sqlite3.Connection, name: str, keys: Sequence[str], run_id: int) -> dict[str, Claim]:
    fence(db, run_id)
    now, result = time.time(), dict[str, Claim]()
    for chunk in keysets.chunks(list(keys)):
        marks = ",".join("?" for _ in chunk)
        result.update(
            (k, "answered")
            for (k,) in db.execute(
                f"SELECT key FROM calls WHERE key IN ({marks}) AND {keysets.ANSWERED}", chunk
            )
        )
        held = db.execute(
            f"SELECT c.key, c.run_id, r.host, r.pid, c.claimed_at FROM claims c JOIN runs r ON r.id = c.run_id "
            f"WHERE c.key IN ({marks}) AND c.run_id != ?",
            [*chunk, run_id],
        ).fetchall()
        result.update(
            (k, "taken")
            for k, run, host, pid, at in held
            if k not in result and may_still_send((name, run), host, pid, at, now)
        )
        mine = [k for k in chunk if k not in result]
        db.executemany(
            "INSERT OR REPLACE INTO claims (key, run_id, claimed_at) VALUES (?, ?, ?)",
            [(k, run_id, now) for k in mine],
        )
        result.update((k, "mine") for k in mine)
    return result


def _claim_in_cache(store: Store, run_id: int, result: dict[str, Claim]) -> None:
    """The calls that are the run's in the store, claimed in the shared call cache too: one answered there is
    copied into the store ("answered"), one claimed there by another run is "taken"; the store's claims on
    both end."""
    mine = [k for k, v in result.items() if v == "mine"]
    if store.cache is None or not mine:
        return
    got = store.cache.claim_many(mine, store_name(store.path), run_id)
    answered = [k for k in mine if got[k] == "answered"]
    copied = store.cached_keys(answered) if answered else set()
    given_up = [k for k in mine if got[k] != "mine"]
    for key in given_up:
        result[key] = "answered" if key in copied else "taken"
    if given_up:
        store._transaction(
            lambda: store._db.executemany(
                "DELETE FROM claims WHERE key = ? AND run_id = ?", [(k, run_id) for k in given_up]
            )
        )


def write_claimed(db: sqlite3.Connection, records: Sequence[CallRecord]) -> list[CallRecord]:
    """Write paid answers and end their runs' claims on them (inside the caller's transaction); returns the
    records written. A record of a run that lost its lease is written only where its call has no answer (an
    error only where nothing is recorded); one without a run (`run_id` None) ends every claim on its call."""
    stale = {r for r in {rec.run_id for rec in records} if r is not None and _superseded(db, r)}
    kept = list(records)
    if stale:
        late = list(dict.fromkeys(r.key for r in records if r.run_id in stale))
        answered = keysets.answered_keys(db, late)
        recorded = answered | _recorded(db, late)
        kept = [
            r
            for r in records
            if r.run_id not in stale
            or (r.key not in answered and (r.status in CACHED_STATUSES or r.key not in recorded))
        ]
    writes.write_calls(db, kept)
    db.executemany(
        "DELETE FROM claims WHERE key = ? AND (run_id = ? OR ? IS NULL)",
        [(r.key, r.run_id, r.run_id) for r in records],
    )
    return kept


def _superseded(db: sqlite3.Connection, run_id: int) -> bool:
    return db.execute("SELECT EXISTS (SELECT 1 FROM runs WHERE id > ?)", (run_id,)).fetchone()[0] == 1


def _recorded(db: sqlite3.Connection, keys: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for chunk in keysets.chunks(keys):
        marks = ",".join("?" for _ in chunk)
        found.update(k for (k,) in db.execute(f"SELECT key FROM calls WHERE key IN ({marks})", chunk))
    return found
