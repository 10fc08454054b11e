"""A tournament's data files merged (elotui.tournament.data_files), kept on disk by what they were merged from.

Merging 10^4 response rows (reading them, matching them to prompts and contestants, checking coverage) takes
~80 ms in every command that loads the tournament file; reading the merge back takes ~1 ms. It is kept
(elotui.runtime.disk_cache, kind `data`) in a file named by what the merge depends on besides the data files: the
tournament file's bytes, its folder, and the code that merges; the file holds the SHA-256 of every data file the
merge read (DataReport.files), and is used only while each of them still has those bytes (hashing them costs ~1
ms a MB), else merged again and written over. A merge that found problems is not kept: it is reported from the
files themselves every time. So the merged prompts are always those the files give. Every edit of a tournament
file makes a new merge: the folder keeps those used last, up to KEEP_BYTES.
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
from pathlib import Path
from typing import Any

from elotui.errors import UserError
from elotui.runtime import disk_cache
from elotui.tournament import data_files, data_rows, data_turns, plain_prompts, prompt_columns
from elotui.tournament import user_files as files
from elotui.tournament.data_files import DataReport, data_path, merge_data_files
from elotui.tournament.prompt_columns import PromptColumns

KIND = "data"
KEEP_BYTES = 256 << 20  # the merges used last, up to this much (one is kept whatever its size)
_FORMAT = "elotui data merge 1"


def merged(data: dict[str, Any], base_dir: Path, source: bytes) -> DataReport | None:
    """`merge_data_files(data, base_dir)` (in place, the same report) for the tournament file whose bytes are
    `source`, read from the cache where it holds this merge and the data files are unchanged."""
    if not data_files.uses_data_files(data):
        return None
    name = _name(base_dir, source)
    found = disk_cache.read(KIND, name, refresh=True) if name is not None else None
    if found is not None:
        kept = _decoded(found)
        if kept is not None and _unchanged(base_dir, kept[1].files):
            data["prompts"] = kept[0]
            return kept[1]
    report = merge_data_files(data, base_dir)
    if isinstance(data.get("prompts"), PromptColumns):
        return report
    if name is not None and report is not None and not (report.toml_problems or report.file_problems):
        try:
            body = marshal.dumps((_FORMAT, data["prompts"], dataclasses.astuple(report)))
        except ValueError:  # a value marshal does not keep (a TOML date in an inline prompt)
            return report
        disk_cache.write(KIND, name, body, keep_bytes=KEEP_BYTES)
    return report


def _name(base_dir: Path, source: bytes) -> str | None:
    """The cache file's name: the hash of the tournament file, its folder and the merging code (None where that
    code cannot be read: then nothing is kept)."""
    try:
        code = b"".join(
            Path(m.__file__ or "").read_bytes()
            for m in (data_files, data_rows, data_turns, files, plain_prompts, prompt_columns)
        )
    except OSError:
        return None
    digest = hashlib.sha256(code + b"\0" + str(base_dir.resolve()).encode() + b"\0" + source).hexdigest()
    return disk_cache.name_of(_FORMAT + "\0" + digest, ".marshal")


def _decoded(body: bytes) -> tuple[list[Any], DataReport] | None:
    try:
        form, prompts, fields = marshal.loads(body)
        if form != _FORMAT or not isinstance(prompts, list):
            return None
        return prompts, DataReport(*fields)
    except (ValueError, EOFError, TypeError):
        return None


def _unchanged(base_dir: Path, digests: dict[str, str]) -> bool:
    """Whether every data file the merge read still has the bytes it had."""
    for relative, digest in digests.items():
        try:
            if hashlib.sha256(files.read_regular_file(data_path(base_dir, relative))).hexdigest() != digest:
                return False
        except UserError:  # gone, no longer a regular file, unreadable: merged again, which says so
            return False
    return True
