"""Reading the files a user names, all through one guard: only regular files (a FIFO would block forever, a device
never end, a folder is no file), of a sane size, a gzip read through a bound, text checked to be UTF-8, a lone
surrogate escape in JSON found; every message names the file (and the line where there is one)."""

from __future__ import annotations

import gzip
import io
import os
import re
import stat
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from elotui.errors import UserError

MAX_FILE_BYTES = 256 * 1024 * 1024  # a tournament file or a text it references: larger is a mistake
MAX_GUNZIPPED_BYTES = MAX_FILE_BYTES  # what a gzipped data file may hold once decompressed

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a plain file")


def open_regular(path: Path) -> IO[bytes]:
    """The file opened for reading in binary, refused at once (UserError naming it) when it is not a regular file.
    Opened without blocking and checked on the open descriptor: a FIFO is neither waited on nor read, and a path
    swapped for one between a check and the open is caught all the same."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise UserError(f"{path}: not a regular file ({_kind(mode)} cannot be read as a file)")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def check_regular(path: Path) -> str | None:
    """Why `path` cannot be read as a file (no such file, a FIFO, a folder, a device...), or None."""
    try:
        open_regular(path).close()
    except UserError as exc:
        return str(exc)
    return None


def read_regular_file(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file (`open_regular`), refusing one larger than `limit` (read up to `limit` bytes and
    no further, whatever size the file claims). Raises UserError naming the file."""
    with open_regular(path) as fh:
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    if len(data) > limit:
        raise UserError(f"{path}: larger than the {limit:,} bytes a file may have here")
    return data


def gunzip(path: Path, raw: bytes, limit: int = MAX_GUNZIPPED_BYTES) -> bytes:
    """The decompressed bytes of a gzip file's content, read through a bound: what would decompress to more than
    `limit` bytes (a small file holding gigabytes) is refused with the line where the bound was reached."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw), mode="rb") as fh:
            data = fh.read(limit + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise UserError(f"{path}: not a readable gzip file ({exc})") from None
    if len(data) > limit:
        line = data.count(b"\n") + 1
        raise UserError(
            f"{path}:{line}: decompresses to more than {limit:,} bytes: refused (a file this large, or a "
            "compressed one built to explode, is not a data file elotui reads)"
        )
    return data


def decode_text(path: Path, raw: bytes, *, bom: bool = False) -> str:
    """UTF-8 text, or UserError naming the file and the line of the first byte that is not UTF-8."""
    try:
        return raw.decode("utf-8-sig" if bom else "utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise UserError(f"{path}:{line}: not UTF-8 text (byte {exc.start})") from None


def read_text_file(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    """`read_regular_file` decoded as UTF-8 (`decode_text`)."""
    return decode_text(path, read_regular_file(path, limit))


# --- lone surrogates in JSON ---------------------------------------------------------------------------------
# JSON may spell a UTF-16 surrogate alone (`"\ud83d"`): json.loads turns it into a str that is no text (it cannot
# be encoded: not into the store, a request, the terminal). A file's text, decoded strictly from UTF-8, holds no
# surrogate, so only such an escape can bring one: the search for them runs only where the escape appears.

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def may_hold_surrogate(text: str) -> bool:
    """Whether JSON `text` spells a surrogate escape (paired or not): only then can a parsed value hold a lone one."""
    return "\\u" in text and _SURROGATE_ESCAPE.search(text) is not None


def lone_surrogate(value: Any) -> str | None:
    """`\\udXXX` for the first lone surrogate in a parsed JSON value (keys, strings, nested), or None."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                return f"\\u{ord(found.group()):04x}"
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return None


def surrogate_message(escape: str) -> str:
    return (
        f"a lone surrogate escape ({escape}) in a JSON string: half of a UTF-16 pair, not a character (write "
        "the whole pair or the character itself, or remove it)"
    )


# --- writing a file whole or not at all ----------------------------------------------------------------------


@contextmanager
def replaced_atomically(path: Path, *, newline: str = "\n") -> Iterator[IO[str]]:
    """A UTF-8 text file written under a temporary name in `path`'s folder, flushed to the disk and renamed over
    `path` once whole: a full disk, an error or Ctrl-C while writing leaves the previous file as it was (the
    temporary one removed). The file keeps the previous one's permissions (a new one: the umask's). What is no
    regular file (`-o /dev/null`, a FIFO) is written to directly; a symbolic link's target is replaced. An OSError
    while writing becomes UserError naming the file."""
    target = Path(os.path.realpath(path))
    if target.exists() and not target.is_file():
        with _writing(path), target.open("w", encoding="utf-8", newline=newline) as fh:
            yield fh
        return
    with _writing(path):
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    try:
        with _writing(path), os.fdopen(fd, "w", encoding="utf-8", newline=newline) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        with _writing(path):
            os.chmod(temporary, _mode_for(target))
            os.replace(temporary, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


def _mode_for(target: Path) -> int:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        mask = os.umask(0o022)
        os.umask(mask)
        return 0o666 & ~mask


@contextmanager
def _writing(path: Path) -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        raise UserError(
            f"{path}: cannot write: {exc.strerror or exc} (any previous {path.name} is left as it was)"
        ) from None


def unused_path(path: Path) -> Path:
    """`path`, or `stem-2.ext`, `stem-3.ext`, ... : never an existing file."""
    n, candidate = 1, path
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate
