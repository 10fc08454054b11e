"""The store's texts table: the prompts, responses and derived texts (perturbed variants, paraphrases,
generations) that presentations show, by key (elotui.plan.calls.Texts)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from elotui.records import TextRow
from elotui.store.table_base import StoreTable


class TextsTable(StoreTable):
    """What `Store` reads and writes of the texts table (a base of Store, which supplies `_rows`, `_transaction`
    and `_db`)."""

    def put_text(
        self,
        key: str,
        kind: str,
        text: str,
        *,
        prompt: str | None = None,
        contestant: str | None = None,
        condition: str | None = None,
        base_key: str | None = None,
    ) -> None:
        """Store a text (replacing the row of its key, if any)."""
        self._put_texts(
            "REPLACE", [TextRow(key, kind, prompt, contestant, condition, base_key, text, time.time())]
        )

    def add_texts(self, rows: Sequence[TextRow]) -> None:
        """Store the texts not stored yet (the row of a key held already stays), in one transaction."""
        self._put_texts("IGNORE", rows)

    def _put_texts(self, conflict: str, rows: Sequence[TextRow]) -> None:
        sql = f"INSERT OR {conflict} INTO texts VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        self._transaction(lambda: self._db.executemany(sql, rows))

    def get_text(self, key: str) -> str | None:
        return next(iter(self._rows(str, "SELECT text FROM texts WHERE key = ?", (key,))), None)

    def texts(self, kind: str | None = None) -> list[TextRow]:
        return self._rows(TextRow, "SELECT * FROM texts WHERE ? IS NULL OR kind = ?", (kind, kind))

    def generated_text(self, prompt: str, contestant: str) -> str | None:
        """The latest generated response of a contestant to a prompt, if any."""
        rows = self._rows(
            str,
            "SELECT text FROM texts WHERE kind = 'generation' AND prompt = ? AND contestant = ? "
            "ORDER BY created_at DESC LIMIT 1",
            (prompt, contestant),
        )
        return rows[0] if rows else None
