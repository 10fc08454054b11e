"""What a table's mixin of `Store` (elotui.store.texts.TextsTable, elotui.store.human_votes.HumanVotesTable) uses
of the store, declared once: `Store` supplies them."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any


class StoreTable:
    def _rows(self, kind: Callable[..., Any], sql: str, params: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

    def _transaction(self, body: Callable[[], object]) -> None:
        raise NotImplementedError

    @property
    def _db(self) -> sqlite3.Connection:
        raise NotImplementedError
