"""Files kept under the user's cache folder (`elotui.locations.cache_dir()`), each in a folder of its kind and
named by what it was made from (a hash): the machine code of the Elo kernels (elotui.rating.kernel_cache), a
tournament's data files merged (elotui.data_cache).

A file is written whole (a temporary file renamed over it) and starts with the SHA-256 of what it holds; a file
that does not match (cut short, damaged) reads as absent, and is written again by the next one to make it. A
folder that cannot be written (read-only, full disk) only means making the thing every time. Files are the
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


def read(kind: str, name: str) -> bytes | None:
    """What the file `name` of this kind holds, or None: absent, damaged, or no cache folder."""
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
    return body


def write(kind: str, name: str, body: bytes) -> None:
    """Keep `body` as the file `name` of this kind (nothing where the folder cannot be written)."""
    folder = _folder(kind)
    if folder is None:
        return
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


def _folder(kind: str) -> Path | None:
    from elotui.locations import cache_dir

    try:
        folder = cache_dir() / kind
        folder.mkdir(exist_ok=True)
    except (OSError, UserError):
        return None
    return folder
