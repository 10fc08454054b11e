"""Which of many call keys a `calls` table holds with an answer (status ok or invalid), shared by the store and the
machine-wide call cache.

Keys are hashes, so looking each one up probes a random page of the key index: fine for a few thousand, slow for a
million (a fresh 10^6-call plan spent 2.4 s asking an empty store and an empty cache about every key). When the
table has fewer rows than twice the keys wanted, one scan of its answered keys in index order (sequential pages)
and a set intersection answer the same question for less.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence

CHUNK = 900  # host parameters per statement (SQLite's default limit is 999 on old builds)
ANSWERED = "status IN ('ok', 'invalid')"
SCAN_RATIO = 2  # scan when the table's rows (an upper bound: its largest rowid) < this x the keys wanted


def chunks(keys: Sequence[str]) -> Iterator[Sequence[str]]:
    for i in range(0, len(keys), CHUNK):
        yield keys[i : i + CHUNK]


def answered_keys(db: sqlite3.Connection, wanted: Sequence[str]) -> set[str]:
    """The keys among `wanted` (distinct) that `db`'s `calls` table holds with status ok or invalid."""
    if not wanted:
        return set()
    rows = int(db.execute("SELECT coalesce(max(rowid), 0) FROM calls").fetchone()[0])
    if rows < SCAN_RATIO * len(wanted):
        stored = {key for (key,) in db.execute(f"SELECT key FROM calls WHERE {ANSWERED}")}
        return stored.intersection(wanted)
    found: set[str] = set()
    for chunk in chunks(wanted):
        marks = ",".join("?" for _ in chunk)
        found.update(
            k for (k,) in db.execute(f"SELECT key FROM calls WHERE key IN ({marks}) AND {ANSWERED}", chunk)
        )
    return found
