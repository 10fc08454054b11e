"""The style cache entry (elotui.tournament.style_cache) of the style.jsonl `elotui import arena` writes, made from
the columns the file was written from: the first command that ranks with style control after the import reads the
counts back (~0.15 s at 10^6 battles) instead of reading the file's 2 * 10^6 rows (~0.9 s).

The entry is, byte for byte, the one the first reading of the written file would keep
(tests/importers/test_style_prefill.py): its rows are the file's rows (`BattleColumns._style_texts`), each prompt's
code its place among the import's prompts (prompts.jsonl's order) and each contestant's its place among the
contestants (`[[contestants]]`'s order), the counts as float64. Its name needs the SHA-256 of the file's bytes: they
are read back (from the page cache, a piece at a time) and hashed in a thread, while the import writes its store
snapshot; the import waits for that thread before it returns. An import whose counts a reading would not take as
they are (a negative count, a count past 2^53: not exact as a float64), in any battle, leaves the entry to that
reading.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from elotui.importers.battle_columns import STYLE_NAMES, BattleColumns
from elotui.importers.common import STYLE_FILE
from elotui.tournament import style_cache

_EXACT = 2**53  # counts up to this are exact as float64, however they are read


class Prefill:
    """The writing of an import's style cache entry (`start`): `join` waits for it."""

    def __init__(self, thread: threading.Thread | None) -> None:
        self._thread = thread

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()


def start(imported: object, out: Path) -> Prefill:
    """Start writing the style cache entry of the style.jsonl just written in `out`, in a thread, where `imported`
    is an import's battle columns that wrote one (other imports: nothing to write). Call it once the file is
    written whole (in place): the entry is named by the bytes found there, and holds the counts of `imported`. The
    caller joins it before it returns; the process would wait for it all the same (not a daemon)."""
    if not isinstance(imported, BattleColumns) or not imported.style_rows():
        return Prefill(None)
    thread = threading.Thread(target=prefill, args=(imported, out / STYLE_FILE), name="style-cache-prefill")
    thread.start()
    return Prefill(thread)


def prefill(battles: BattleColumns, path: Path) -> None:
    """Write the style cache entry of `path`, the style.jsonl written from `battles`."""
    counts = battles.columns.counts
    if counts.dtype != np.int64 or (counts.size and (counts.min() < 0 or counts.max() > _EXACT)):
        return  # a count a reading would not take as it is (any battle's: the written rows' are among them)
    digest = style_cache.file_digest(path)
    if digest is None:
        return
    prompt, contestant, rows = style_rows(battles)
    contestants = list(battles.contestants)
    keys, first = style_cache.first_rows(prompt, contestant, len(contestants))
    taken = rows[first]  # each response's first row, as sides
    sides = counts.reshape(-1, len(STYLE_NAMES))
    columns = [sides[:, j][taken] for j in range(len(STYLE_NAMES))]
    style_cache.keep(
        digest, battles.prompt_ids, contestants, style_cache.encode(keys, columns, len(contestants))
    )


def style_rows(battles: BattleColumns) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.int64]]:
    """The rows of the style file written from `battles`, in its order: each row's prompt code and contestant code
    (their places among the import's prompts and contestants), and the battles' side it was written from (2 *
    battle + side: its counts are `battles.columns.counts.reshape(-1, 4)[side]`)."""
    rows = battles._style_rows
    return battles.columns.prompt[rows // 2], battles._sides[rows], rows
