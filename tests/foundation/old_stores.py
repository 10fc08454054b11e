"""A store file as an older elotui left it: the schema migrated up to a given version, nothing more."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from elotui.store import MIGRATIONS


def store_at_version(path: Path, version: int) -> sqlite3.Connection:
    """An autocommit connection to a new store at schema `version` (the caller fills it, then closes it)."""
    db = sqlite3.connect(path, isolation_level=None)
    for migrate in MIGRATIONS[:version]:
        migrate(db)
    db.execute(f"PRAGMA user_version = {version}")
    return db
