"""Files kept under the user's cache folder (`elotui.locations.cache_dir()`), each in a folder of its kind and
named by what it was made from (a hash): the machine code of the Elo kernels (elotui.rating.native.kernel_cache), a
tournament's data files merged (elotui.tournament.data_cache).

A file is written whole (a temporary file renamed over it) and starts with the SHA-256 of what it holds; a file
that does not match (cut short, damaged) reads as absent, and is written again by the next one to make it. A
folder that cannot be written (read-only, full disk) only means making the thing every time. A kind whose files
multiply as the user edits (the data merges) is pruned to a size, the files used longest ago first. Files are the
user's own (created 0600 in the user's cache folder): reading one trusts that folder as the user's installed
packages are trusted.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from elotui.errors import UserError

_DIGEST = 32  # bytes of SHA-256 at the head of a file


def name_of(recipe: str, suffix: str) -> str:
    """The file name of what is made from `recipe` (everything it is made from, as text)."""
    return hashlib.sha256(recipe.encode("utf-8")).hexdigest() + suffix


def read(kind: str, name: str, *, refresh: bool = False) -> bytes | None:
    """What the file `name` of this kind holds, or None: absent, damaged, or no cache folder. `refresh`: mark it
    used now (for a kind whose folder is pruned, `write`'s `keep_bytes`)."""
    folder = _folder(kind)
    if folder is None:
        return None
    try:
        data = (folder / name).read_bytes()
    except OSError:
        return None
    digest, body = data[:_DIGEST], data[_DIGEST:]
    if len(digest) < _DIGEST or not body or hashlib.sha256(body).digest() != digest:
        return None  # damaged: made again and written over
    if refresh:
        try:
            os.utime(folder / name)  # used now: the last to go when the folder is pruned
        except OSError:
            pass
    return body


def write(kind: str, name: str, body: bytes, *, keep_bytes: int | None = None) -> None:
    """Keep `body` as the file `name` of this kind (nothing where the folder cannot be written). With
    `keep_bytes`, the files of this kind used longest ago then go until the rest hold at most that many bytes
    (the newest is always kept): a folder that grows with every edit of a file stays bounded."""
    folder = _folder(kind)
    if folder is None:
        return
    _put(folder, name, body)
    if keep_bytes is not None:
        _prune(folder, keep_bytes)


def _put(folder: Path, name: str, body: bytes) -> None:
    try:
        fd, scratch = tempfile.mkstemp(dir=folder, prefix=".made-", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(hashlib.sha256(body).digest() + body)
        os.replace(scratch, folder / name)
    except OSError:  # a full disk: made again next time
        try:
            os.unlink(scratch)
        except OSError:
            pass


def _prune(folder: Path, keep_bytes: int) -> None:
    found = []
    try:
        for path in folder.iterdir():
            if not path.name.startswith("."):  # not another process's file being written
                info = path.stat()
                found.append((info.st_mtime_ns, info.st_size, path))
    except OSError:  # gone meanwhile (another process pruned): pruned next time
        return
    held = 0
    for _, size, path in sorted(found, reverse=True):  # the newest first
        held += size
        if held > keep_bytes and held > size:
            try:
                path.unlink()
            except OSError:
                pass


def _folder(kind: str) -> Path | None:
    from elotui.locations import cache_dir

    try:
        folder = cache_dir() / kind
        folder.mkdir(exist_ok=True)
    except (OSError, UserError):
        return None
    return folder
