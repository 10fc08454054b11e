"""The data cache's entry of an arena import's prompts file (elotui.tournament.prompt_index), written by the import
itself: the first command to open the imported tournament then reads its prompts back (~0.3 s at 10^6 prompts)
instead of reading the file's rows (~1.4 s).

The entry is the one that first load would keep, byte for byte: made by the same code from the same values. The
import holds those values — the prompt ids, each prompt's category and contestants (every response empty) — and
the merge's own reading decides the rest (elotui.tournament.data_files.merge_plain: the tournament file's keys,
the coverage check and its notes, run on columns made of the import's values); the prompts file's SHA-256 is that
of its bytes as written, read back and hashed in a thread meanwhile (both let go of the interpreter). An import
whose prompts the load would not read column-wise (an id with blanks around it; an import with a responses file)
keeps nothing: its first load merges it.
"""

from __future__ import annotations

import hashlib
import mmap
import threading
import tomllib
from pathlib import Path
from typing import Any

import msgspec

from elotui.errors import UserError
from elotui.importers.battle_columns import BattleColumns
from elotui.importers.common import ImportResult
from elotui.tournament import data_cache, data_files, plain_prompts
from elotui.tournament.prompt_columns import Coded, PromptColumns
from elotui.tournament.user_files import read_regular_file

# concept → key of the rows BattleColumns writes in prompts.jsonl (its `_prompt_texts`)
ROW_KEYS = {"prompt_id": "id", "text": "text", "category": "category", "responses": "responses"}


def prefill_prompts(imported: ImportResult, out: Path) -> None:
    """Keep the data cache's entry of the prompts file the import wrote in `out` (nothing where its prompts are
    not read column-wise, or the files cannot be read back)."""
    if not isinstance(imported, BattleColumns) or not imported.text_prefix.strip():
        return
    try:
        source = read_regular_file(out / "tournament.toml")
        data = tomllib.loads(source.decode("utf-8"))
        written = _Written(out / "prompts.jsonl")
        got = data_files.merge_plain(data, out, lambda path, keys: _columns(imported, written, path, keys))
    except (UserError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return
    if got is not None:
        data_cache.keep(out, data, *got)


class _Written:
    """The prompts file as written, hashed in a thread from the start (its bytes are not kept); its rows decoded
    when asked for (elotui.tournament.prompt_columns.RowSource: nothing here asks)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._digest: list[str | OSError] = []
        self._thread = threading.Thread(target=self._hash)
        self._thread.start()

    def _hash(self) -> None:
        """Hashed as mapped in memory: one release of the interpreter for the whole file, where a piece at a time
        waits for it after every piece (the import's own work holds it meanwhile), and no copy of its bytes."""
        try:
            with self.path.open("rb") as fh:
                try:
                    with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                        digest = hashlib.sha256(mapped)
                except (ValueError, OSError):  # an empty file, a file system that does not map
                    digest = hashlib.file_digest(fh, "sha256")
            self._digest.append(digest.hexdigest())
        except OSError as exc:
            self._digest.append(exc)

    def digest(self) -> str:
        self._thread.join()
        got = self._digest[0]
        if isinstance(got, OSError):
            raise UserError(f"{self.path}: cannot read it back: {got.strerror}")
        return got

    def all(self) -> list[Any]:
        return plain_prompts.decode_rows(read_regular_file(self.path), ROW_KEYS)

    def first(self) -> Any:
        return self.all()[0]


def _columns(
    imported: BattleColumns, written: _Written, path: Path, keys: dict[str, str]
) -> tuple[PromptColumns | None, Any]:
    """The prompts the column-wise reading would give of the file written (its checks that the import does not
    make sure of by itself: the ids), made of the import's columns."""
    ids = imported.prompt_ids
    if path != written.path or keys != ROW_KEYS or not plain_prompts.plain_ids(ids, distinct=True):
        return None, written.digest
    c = imported.columns
    categories = Coded([k or None for k in imported.categories], c.category)
    codes, tables = imported._response_tables()  # each prompt's table as JSON members: `"m1":"","m2":""`
    responses = Coded([msgspec.json.decode(f"{{{t}}}") for t in tables], codes)
    return PromptColumns(written, ids, keys=keys, categories=categories, responses=responses), written.digest
