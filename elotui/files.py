"""Reading the files a user names: only regular files, of a sane size, with a message that names the file."""

from __future__ import annotations

import stat
from pathlib import Path

from elotui.errors import UserError

MAX_FILE_BYTES = 256 * 1024 * 1024  # a tournament file or a text it references: larger is a mistake


def read_regular_file(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file, refusing at once what is not one (a FIFO would block forever, a device never
    end) and what is larger than `limit`. Raises UserError naming the file."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise UserError(f"{path}: not a regular file (a FIFO, device or folder cannot be read as a file)")
    if info.st_size > limit:
        raise UserError(f"{path}: {info.st_size:,} bytes, larger than the {limit:,} a file may have here")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None


def unused_path(path: Path) -> Path:
    """`path`, or `stem-2.ext`, `stem-3.ext`, ... : never an existing file."""
    n, candidate = 1, path
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate
