"""The native Elo kernels' machine code, kept on disk by what it was made from.

Compiling the kernels' IR for this processor takes LLVM ~0.2 s a module (the `online` function, then the order
functions of each word width), in every process that rates by Elo: a one-shot `elotui export` of a small
tournament is bound by it, and on a 2-core machine it competes with the store read of a large one. The object
code LLVM emits is a pure function of the IR, the processor's name and features, the target triple and the
LLVM and llvmlite versions, so it is kept under the cache folder (`elotui.locations.cache_dir()/kernels`) in a
file named by the SHA-256 of all of these: a file can never be stale, only absent. Loading one takes ~3 ms.

A file is written whole (a temporary file renamed over it) and starts with the SHA-256 of the object code it
holds; a file that does not match (cut short, damaged) is ignored and written again. A folder that cannot be
written (read-only, full disk) only means compiling every time. Files are the user's own (created 0600 in the
user's cache folder): loading one trusts that folder as the user's installed packages are trusted.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from elotui.errors import UserError

_DIGEST = 32  # bytes of SHA-256 at the head of a file


def cached_object(recipe: str, make: Callable[[], bytes]) -> bytes:
    """The object code for `recipe` (everything it is made from, as text): read from the cache, or made by
    `make` and kept there."""
    name = _name(recipe)
    folder = _folder()
    if folder is not None:
        found = _read(folder / name)
        if found is not None:
            return found
    code = make()
    if folder is not None:
        _write(folder, name, code)
    return code


def is_cached(recipe: str) -> bool:
    """Whether the object code for `recipe` is in the cache, whole (`cached_object` would read it, not make it)."""
    folder = _folder()
    return folder is not None and _read(folder / _name(recipe)) is not None


def _name(recipe: str) -> str:
    return hashlib.sha256(recipe.encode("utf-8")).hexdigest() + ".o"


def _folder() -> Path | None:
    from elotui.locations import cache_dir

    try:
        folder = cache_dir() / "kernels"
        folder.mkdir(exist_ok=True)
    except (OSError, UserError):
        return None
    return folder


def _read(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    digest, code = data[:_DIGEST], data[_DIGEST:]
    if len(digest) < _DIGEST or not code or hashlib.sha256(code).digest() != digest:
        return None  # damaged: made again and written over
    return code


def _write(folder: Path, name: str, code: bytes) -> None:
    try:
        fd, scratch = tempfile.mkstemp(dir=folder, prefix=".kernels-", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(hashlib.sha256(code).digest() + code)
        os.replace(scratch, folder / name)
    except OSError:  # a full disk: compiled again next time
        try:
            os.unlink(scratch)
        except OSError:
            pass
