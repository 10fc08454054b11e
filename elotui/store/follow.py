"""What a reader of a store another process is writing needs (`elotui watch`, elotui.tui.state.watch): whether anything
was committed since it last looked, and the verdicts recorded since then."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from elotui.records import PlanVerdict
from elotui.store import columns

if TYPE_CHECKING:
    from elotui.store import Store


def data_version(store: Store) -> int:
    """Changes when another connection commits (PRAGMA data_version): a cheap "anything new?" for readers."""
    with store._lock:
        return int(store._db.execute("PRAGMA data_version").fetchone()[0])


def answered_since(store: Store, rowid: int) -> tuple[list[PlanVerdict], int]:
    """The planned presentations answered (ok or invalid) by calls recorded after call row `rowid`, and the
    newest call row: what a reader (`elotui watch`) appends as a writer records verdicts."""
    rows = store._rows(
        lambda *r: (PlanVerdict(*r[:8]), r[8]),
        "SELECT p.prompt, p.first, p.second, p.judge, p.condition, p.sample, c.status, "
        "CASE WHEN c.status = 'ok' THEN c.winner END, c.rowid FROM calls c JOIN plan p ON p.key = c.key "
        "WHERE c.rowid > ? AND c.status IN ('ok', 'invalid') ORDER BY c.rowid",
        (rowid,),
    )
    newest = max((r[1] for r in rows), default=rowid)
    return [r[0] for r in rows], max(newest, newest_call(store))


def newest_call(store: Store) -> int:
    return int(store._rows(int, "SELECT COALESCE(MAX(rowid), 0) FROM calls")[0])


def plan_identity(store: Store) -> tuple[int, str | None]:
    """(rows, fingerprint) of the stored plan, from its snapshot's description (not a count of the plan table:
    a scan of ~400 MB at 10^6 rows): changes when a writer stores another plan, not when it records verdicts."""
    with store._lock, store._guarded():
        meta = columns.description(store._db) or {}  # a damaged description: read as no plan until rewritten
    return int(meta.get("n", 0)), meta.get("fingerprint")


def planned_for(store: Store) -> dict[str, Any] | None:
    """The tournament (`name`, `path`) of the newest run recorded in the store, the one whose plan it holds; None
    where no run is recorded or its manifest cannot be read (a damaged row: nothing to compare with)."""
    rows = store._rows(lambda manifest: manifest, "SELECT manifest FROM runs ORDER BY id DESC LIMIT 1")
    try:
        manifest = json.loads(rows[0]) if rows and isinstance(rows[0], (str, bytes)) else None
    except (ValueError, RecursionError):
        return None
    found = manifest.get("tournament") if isinstance(manifest, dict) else None
    if not isinstance(found, dict) or not isinstance(found.get("name"), str):
        return None
    return {"name": found["name"], "path": found.get("path") if isinstance(found.get("path"), str) else None}
