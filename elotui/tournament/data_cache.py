"""A tournament's data files merged (elotui.tournament.data_files), kept on disk by what they were merged from.

Merging 10^4 response rows (reading them, matching them to prompts and contestants, checking coverage) takes
~80 ms in every command that loads the tournament file; reading the merge back takes ~1 ms. It is kept
(elotui.runtime.disk_cache, kind `data`) in a file named by what the merge depends on besides the data files: what
it reads of the tournament file (its `[data]`, `[[contestants]]`, `[comparison]` and `[[prompts]]`, as parsed: a
comment or `[ranking] bootstrap = 0` leaves the name as it was), its folder, and the code that merges; the file
holds the SHA-256 of every data file the merge read (DataReport.files), and is used only while each of them still
has those bytes (hashing them costs ~1 ms a MB), else merged again and written over. A merge that found problems is
not kept: it is reported from the files themselves every time. So the merged prompts are always those the files
give. Every edit of what the merge reads makes a new merge: the folder keeps those used last, up to KEEP_BYTES.

A prompts file read column-wise (10^6 plain rows: ~1.4 s) is kept as its index instead
(elotui.tournament.prompt_index: ids, categories, turns, the report; ~12 MB at 10^6 prompts), read back with the
prompts file's bytes — read and hashed in a thread meanwhile — in ~0.3 s; its rows are decoded from those bytes
only when a text or a response is asked for. `elotui import arena` writes that entry itself (`keep`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
import threading
from functools import partial
from pathlib import Path
from typing import Any

from elotui.errors import UserError
from elotui.runtime import disk_cache
from elotui.tournament import data_files, data_rows, data_turns, plain_prompts, prompt_columns, prompt_index
from elotui.tournament import user_files as files
from elotui.tournament.data_files import DataReport, data_path, merge_data_files
from elotui.tournament.prompt_columns import PromptColumns
from elotui.tournament.user_files import gunzip

KIND = "data"
KEEP_BYTES = 256 << 20  # the merges used last, up to this much (one is kept whatever its size)
_FORMAT = "elotui data merge 1"


def merged(data: dict[str, Any], base_dir: Path) -> DataReport | None:
    """`merge_data_files(data, base_dir)` (in place, the same report) for the parsed tournament file `data`, read
    from the cache where it holds this merge and the data files are unchanged."""
    if not data_files.uses_data_files(data):
        return None
    digest = _digest(base_dir, data)
    if digest is not None:
        kept = _plain(digest, base_dir) or _rows(digest, base_dir)
        if kept is not None:
            data["prompts"] = kept[0]
            return kept[1]
    cfg = data.get("data")
    prompts_file = cfg.get("prompts") if isinstance(cfg, dict) else None
    report = merge_data_files(data, base_dir)
    if digest is not None and report is not None:
        _keep(digest, data["prompts"], report, prompts_file)
    return report


def keep(base_dir: Path, data: dict[str, Any], prompts: PromptColumns, report: DataReport) -> None:
    """Keep `prompts`, read column-wise from the prompts file of the parsed tournament file `data` (as parsed, not
    merged) with `report`, as `merged` would: for an import that holds the prompts it wrote
    (elotui.importers.prompts_prefill)."""
    digest = _digest(base_dir, data)
    if digest is not None:
        _keep(digest, prompts, report, data["data"]["prompts"])


def _keep(digest: str, prompts: Any, report: DataReport, prompts_file: Any) -> None:
    """A merge that found problems is not kept; prompts held column-wise (read from `prompts_file`) are kept as
    their index (elotui.tournament.prompt_index), other merges whole."""
    if report.toml_problems or report.file_problems:
        return
    if isinstance(prompts, PromptColumns):
        body = prompt_index.entry(prompts_file, prompts, report)
        disk_cache.write(KIND, _plain_name(digest), body, keep_bytes=KEEP_BYTES)
        return
    try:
        body = marshal.dumps((_FORMAT, prompts, dataclasses.astuple(report)))
    except ValueError:  # a value marshal does not keep (a TOML date in an inline prompt)
        return
    disk_cache.write(KIND, _rows_name(digest), body, keep_bytes=KEEP_BYTES)


# what a merge reads of the tournament file (elotui.tournament.data_files, data_turns): not [ranking], [tournament]
# or [[judges]], whose edits (`bootstrap = 0`) leave it as it was
MERGE_TABLES = ("data", "contestants", "comparison", "prompts")


def _digest(base_dir: Path, data: dict[str, Any]) -> str | None:
    """What names the cache files of a merge: the hash of what the merge reads of the parsed tournament file (as
    parsed: the same file, the same text), its folder and the merging code (None where that code cannot be read:
    then nothing is kept)."""
    try:
        code = b"".join(
            Path(m.__file__ or "").read_bytes()
            for m in (data_files, data_rows, data_turns, files, plain_prompts, prompt_columns, prompt_index)
        )
    except OSError:
        return None
    read = repr([data.get(table) for table in MERGE_TABLES]).encode("utf-8", "surrogatepass")
    return hashlib.sha256(code + b"\0" + str(base_dir.resolve()).encode() + b"\0" + read).hexdigest()


def _rows_name(digest: str) -> str:
    return disk_cache.name_of(_FORMAT + "\0" + digest, ".marshal")


def _plain_name(digest: str) -> str:
    return disk_cache.name_of(prompt_index.FORMAT + "\0" + digest, ".columns")


def _rows(digest: str, base_dir: Path) -> tuple[list[Any], DataReport] | None:
    """A merge kept whole, where its data files are unchanged."""
    found = disk_cache.read(KIND, _rows_name(digest), refresh=True)
    kept = _decoded(found) if found is not None else None
    if kept is None or _unchanged(base_dir, kept[1].files) is None:
        return None
    return kept


def _plain(digest: str, base_dir: Path) -> tuple[PromptColumns, DataReport] | None:
    """Prompts kept as their index, where the prompts file is unchanged: their rows decoded from its bytes when
    first asked for. The file is read and hashed in a thread (both let go of the interpreter) while the index is
    decoded."""
    found = disk_cache.read(KIND, _plain_name(digest), refresh=True)
    kept = prompt_index.stored(found) if found is not None else None
    head = kept.head() if kept is not None else None
    if kept is None or head is None:
        return None
    report = head.data_report()
    reading: list[dict[str, bytes] | None] = []
    thread = threading.Thread(target=lambda: reading.append(_unchanged(base_dir, report.files)))
    thread.start()
    decoded = kept.columns()
    thread.join()
    read = reading[0] if reading else None
    if decoded is None or read is None or head.file not in read:
        return None
    path = data_path(base_dir, head.file)
    gunzipped = partial(gunzip, path) if path.suffix.lower() == ".gz" else None
    columns = prompt_index.columns_of(
        head, decoded, plain_prompts.RowsOfFile(read[head.file], head.keys, gunzipped)
    )
    return None if columns is None else (columns, report)


def _decoded(body: bytes) -> tuple[list[Any], DataReport] | None:
    try:
        form, prompts, fields = marshal.loads(body)
        if form != _FORMAT or not isinstance(prompts, list):
            return None
        return prompts, DataReport(*fields)
    except (ValueError, EOFError, TypeError):
        return None


def _unchanged(base_dir: Path, digests: dict[str, str]) -> dict[str, bytes] | None:
    """The bytes of every data file the merge read (path as the tournament file names it → bytes), where each still
    has the bytes it had; else None."""
    read: dict[str, bytes] = {}
    for relative, digest in digests.items():
        try:
            raw = files.read_regular_file(data_path(base_dir, relative))
        except UserError:  # gone, no longer a regular file, unreadable: merged again, which says so
            return None
        if hashlib.sha256(raw).hexdigest() != digest:
            return None
        read[relative] = raw
    return read
