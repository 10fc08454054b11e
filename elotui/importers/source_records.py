"""Reading an importer's source files record by record: a JSON list or JSON Lines (gzip or not, with or without a
byte order mark), each record with the line it starts on; and the fast reading of JSON Lines (`Typed`): a block of
lines decoded at once into typed records, or line by line, typed where a line can be, else the general way, with
the same records, messages and line numbers either way."""

from __future__ import annotations

import json
import mmap
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import msgspec
import numpy as np

from elotui.errors import UserError
from elotui.tournament.user_files import gunzip, open_regular, read_regular_file

# A source file may be larger than a tournament's own files: Chatbot Arena's battle logs of 10^6 battles are ~0.7 GB
# (a plain JSON Lines file is mapped and read a block at a time; another is read whole)
MAX_SOURCE_BYTES = 4 * 1024**3


class BadRecord(Exception):
    """A record the importer cannot read (its message says why); exit 2 naming file:line, or counted with
    `--skip-bad`."""


class Reading(Protocol):
    """What reading the source files keeps up to date: an import's records as they are taken (elotui.importers.
    common.Imported, or an importer's own columns): the format's name, the report (its count of records read), and
    another format its malformed records look like."""

    format: str
    report: Any  # elotui.importers.common.ImportReport
    looks_like: str | None


def records(path: Path) -> Iterator[tuple[str, Any]]:
    """(where, record) for each record of a JSON list or JSON Lines file; `where` is `file:line`. A line that is
    not JSON is given as a BadRecord in place of its record."""
    text = _text(source_bytes(path), path)
    if text.lstrip().startswith("["):
        yield from _json_list(path, text)
        return
    for n, line in enumerate(text.split("\n"), 1):
        if line.strip():
            yield _line_record(path, n, line)


def source_bytes(path: Path) -> bytes:
    """A source file's bytes: gunzipped if it is gzip (`clean_battle.json.gz`), without a leading UTF-8 byte order
    mark (a file saved by a Windows editor), both bounded by MAX_SOURCE_BYTES."""
    raw = read_regular_file(path, MAX_SOURCE_BYTES)
    if raw[:2] == b"\x1f\x8b":
        raw = gunzip(path, raw, MAX_SOURCE_BYTES)
    return raw[3:] if raw[:3] == b"\xef\xbb\xbf" else raw


def _text(raw: bytes, path: Path) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def _line_record(path: Path, n: int, line: str) -> tuple[str, Any]:
    try:
        return f"{path}:{n}", json.loads(line)
    except (json.JSONDecodeError, RecursionError) as exc:
        return f"{path}:{n}", BadRecord(f"not valid JSON: {exc}")


@dataclass(frozen=True)
class Typed:
    """A fast reading of JSON Lines files. `decoder` (msgspec) decodes a line into a typed record holding only the
    fields the importer reads (~4 times as fast as json.loads of the whole line), and `one(reading, record)` takes
    it, or returns False to leave the line to the general reading (which gives the same result or the same message).
    A line the decoder rejects (a field of another type, not JSON) goes to the general reading as well, so every
    message and line number stays as it was.

    With `block`, a file is first read a block of lines at a time (`BLOCK_BYTES`): where each line of the block is one
    JSON object, `block_decode` decodes them all at once (msgspec's decode_lines; DecodeError or ValidationError
    where it cannot) and `block(reading, records)` takes them all (the report's `read` still counts the records
    before the block), or returns False; a block either of them refuses is read line by line as above."""

    decoder: msgspec.json.Decoder[Any]
    one: Callable[[Any, Any], bool]
    block_decode: Callable[[memoryview], list[Any]] | None = None
    block: Callable[[Any, list[Any]], bool] | None = None


# a block of lines decoded at once: ~750 arena battles, whose objects stay in the CPU's caches while they are taken
BLOCK_BYTES = 512 * 1024


def typed_records(path: Path, typed: Typed, reading: Reading) -> Iterator[tuple[str, Any]]:
    """The records of a JSON Lines file that `typed` leaves to the general reading (the others it takes here,
    counted as read), or all of them, generally read, for a JSON list."""
    raw = _mapped(path) or source_bytes(path)
    utf8 = _Utf8(raw, path)
    if _first_byte(raw) == b"[":
        utf8.check()
        yield from records(path)
        return
    line = 1  # the number of the block's first line
    released = 0
    for start, end in _blocks(raw, BLOCK_BYTES if typed.block is not None else len(raw)):
        taken = _typed_block(memoryview(raw)[start:end], typed, reading)
        if taken is None:
            utf8.check()  # (before any record the general reading may refuse)
            chunk = raw[start:end]
            yield from _typed_lines(path, chunk, line, typed, reading)
            taken = chunk.count(b"\n")
        line += taken
        if end - released >= RELEASE_BYTES:
            released = _release(raw, released, end)
    utf8.check()


class _Utf8:
    """Whether a source file is UTF-8 text (`check`: UserError naming the first byte that is not), as said before
    any of its records is read. A mapped file is checked in a helper thread (numpy reads its pages without Python's
    lock) while its blocks are decoded: a block taken whole raises nothing, so the answer is needed only before the
    first record read line by line (which may be refused: the file's message comes first), and at the end."""

    def __init__(self, raw: bytes | mmap.mmap, path: Path) -> None:
        self._raw, self._path = raw, path
        self._ascii: list[bool | BaseException] = []
        self._helper: threading.Thread | None = None
        if isinstance(raw, bytes):
            self._ascii.append(raw.isascii())
        else:
            self._helper = threading.Thread(target=self._run, name="elotui-utf8", daemon=True)
            self._helper.start()

    def _run(self) -> None:
        try:
            self._ascii.append(_ascii(self._raw))
        except BaseException as exc:  # noqa: BLE001 (raised by `check`, in the reading thread)
            self._ascii.append(exc)

    def check(self) -> None:
        if self._helper is not None:
            self._helper.join()
            self._helper = None
        answer = self._ascii[0]
        if isinstance(answer, BaseException):
            raise answer
        if not answer:
            _text(bytes(self._raw), self._path)  # UserError if not UTF-8
            self._ascii[0] = True


def _mapped(path: Path) -> mmap.mmap | None:
    """A plain source file (not gzip, no byte order mark, not empty, within MAX_SOURCE_BYTES) mapped read-only: its
    pages come from the page cache as they are read, instead of a copy of the whole file; None for any other file,
    read whole (`source_bytes`), which also names what is wrong with it."""
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if not 3 <= size <= MAX_SOURCE_BYTES or fh.read(3)[:2] in (b"\x1f\x8b", b"\xef\xbb"):
            return None
        try:
            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            return None


def _ascii(raw: bytes | mmap.mmap) -> bool:
    if isinstance(raw, bytes):
        return raw.isascii()
    for start in range(0, len(raw), RELEASE_BYTES):
        end = min(len(raw), start + RELEASE_BYTES)
        if int(np.frombuffer(raw, dtype=np.uint8, count=end - start, offset=start).max()) >= 0x80:
            return False
        _release(raw, start, end)
    return True


RELEASE_BYTES = 64 * 1024**2  # a mapped source's pages are let go of this many bytes at a time, once read


def _release(raw: bytes | mmap.mmap, start: int, end: int) -> int:
    """Let go of the pages of a mapped source within raw[start:end] (they stay in the page cache: the process's
    memory does not grow with the file); returns where the pages let go of end."""
    if not isinstance(raw, mmap.mmap):
        return end
    first = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE
    last = end // mmap.PAGESIZE * mmap.PAGESIZE if end < len(raw) else end
    if last > first:
        raw.madvise(mmap.MADV_DONTNEED, first, last - first)
    return last


def _first_byte(raw: bytes | mmap.mmap) -> bytes:
    """The first byte that is not ASCII white space (b"" if none)."""
    for start in range(0, len(raw), 1 << 16):
        text = raw[start : start + (1 << 16)].lstrip()
        if text:
            return text[:1]
    return b""


def _blocks(raw: bytes | mmap.mmap, size: int) -> Iterator[tuple[int, int]]:
    """(start, end) of consecutive blocks of whole lines, each about `size` bytes (the last line's newline in it)."""
    start = 0
    while start < len(raw):
        end = raw.find(b"\n", start + max(size, 1) - 1)
        end = len(raw) if end < 0 else end + 1
        yield start, end
        start = end


def _typed_block(chunk: memoryview, typed: Typed, reading: Reading) -> int | None:
    """The number of lines of `chunk` that `typed.block` took (all of them), or None."""
    if typed.block is None or typed.block_decode is None:
        return None
    lines = _object_lines(chunk)
    if lines is None:
        return None
    try:
        items = typed.block_decode(chunk)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if len(items) != lines or not typed.block(reading, items):
        return None
    reading.report.read += lines
    return lines


_BRACES = (ord("{"), ord("}"))


def _object_lines(chunk: memoryview) -> int | None:
    """The number of lines of `chunk` where each line starts with `{` and ends with `}` (no blank line, no space or
    carriage return around them), else None. Then a JSON value cannot span two lines (a newline between `}` and `{`
    is never inside one: a string holds no newline, and in an object or array a `,` comes between two values), so as
    many values decoded as lines means one value per line, as the line-by-line reading reads them."""
    body = np.frombuffer(chunk, dtype=np.uint8, count=len(chunk) - (chunk[-1:] == b"\n"))
    opening, closing = _BRACES
    if not len(body) or body[0] != opening or body[-1] != closing:
        return None
    newlines = np.flatnonzero(body == ord("\n"))  # numpy: ~10 times bytes.count's speed
    if len(newlines) and not (
        np.all(body[newlines - 1] == closing) and np.all(body[newlines + 1] == opening)
    ):
        return None
    return len(newlines) + 1


def _typed_lines(
    path: Path, chunk: bytes, first: int, typed: Typed, reading: Reading
) -> Iterator[tuple[str, Any]]:
    """The lines of `chunk` (numbered from `first`) that `typed` leaves to the general reading, one by one."""
    decode, one, report = typed.decoder.decode, typed.one, reading.report
    for n, line in enumerate(chunk.split(b"\n"), first):
        if not line.strip():
            continue
        try:
            record = decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError):
            record = None
        if record is not None:
            report.read += 1
            if one(reading, record):
                continue
            report.read -= 1
        text = line.decode("utf-8")
        if text.strip():
            yield _line_record(path, n, text)


def _json_list(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    """The items of a JSON list, each with the line it starts on, and its number in the list when it shares that
    line with another item (a list written on one line: `clean_battle.json:1 (record 4)`)."""
    decoder = json.JSONDecoder()
    pos = text.index("[") + 1
    line = 1 + text.count("\n", 0, pos)
    number = 0
    while True:
        nxt = _skip_space(text, pos)
        if nxt >= len(text):
            raise UserError(f"{path}:{line}: the JSON list is not closed")
        line += text.count("\n", pos, nxt)
        pos = nxt
        if text[pos] == "]":
            return
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise UserError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
        number += 1
        shared = _line_shared(text, pos, end)
        yield (f"{path}:{line} (record {number})" if shared else f"{path}:{line}"), obj
        line += text.count("\n", pos, end)
        pos = _skip_space(text, end)
        if pos < len(text) and text[pos] == ",":
            pos += 1


def _line_shared(text: str, start: int, end: int) -> bool:
    """Whether the list item at text[start:end] has another item before it or after it on its line."""
    before = start - 1
    while before >= 0 and text[before] in " \t\r,":
        before -= 1
    after = end
    while after < len(text) and text[after] in " \t\r,":
        after += 1
    return (before >= 0 and text[before] not in "\n[") or (after < len(text) and text[after] not in "\n]")


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos
