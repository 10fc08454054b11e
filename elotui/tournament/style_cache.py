"""`[data] style` files read once: the style counts a JSON Lines style file gives a tournament, kept on disk by what
they were read from (elotui.runtime.disk_cache, kind `style`).

Reading the 2 * 10^6 rows of a 10^6-battle `elotui import arena` takes ~0.9 s (elotui.rating.style_file and
elotui.rating.style_rank); reading its counts back takes ~0.2 s, most of it the SHA-256 of the file (190 MB). An entry is
named by the SHA-256 of the file's bytes, of the tournament's prompt and contestant ids (in order: the counts are
kept under their codes) and of the code that reads a style file: an edited file (any byte), other ids or other code
read the file again, and an entry can never be stale, only absent. It holds what
elotui.rating.style_rank.StyleLookup is made of, exactly: its keys (prompt code * contestants + contestant code,
sorted) as each one's difference from the one before, and its four columns of counts, each in the smallest unsigned
integer type that holds every count of the column (float64 where one is not a whole number). `elotui import arena`
writes the entry of the style.jsonl it writes (elotui.importers.style_prefill), so that the first command after the
import reads it back too. Only what the fast readings (column-wise or typed) take is kept: a file only the general
reading takes (an id given as a number...) is read every time, and a bad row is reported every time.
"""

from __future__ import annotations

import hashlib
import io
import os
import struct
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import cast

import msgspec
import numpy as np
from numpy.typing import NDArray

from elotui.errors import UserError
from elotui.runtime import disk_cache
from elotui.tournament.user_files import MAX_FILE_BYTES, open_regular

KIND = "style"
# the entries used last, up to this much (the newest is kept whatever its size): ~6 bytes a response (a byte for the
# key, two for the tokens, one for each other count), so 12 MB for a 10^6-battle import: about ten such tournaments
KEEP_BYTES = 128 << 20
_FORMAT = "elotui style counts 1"
# the code that reads a style file (named by path: the readers sit on a floor above this module)
_CODE = (
    "rating/style_file.py",
    "rating/style_rank.py",
    "tournament/style_cache.py",
    "tournament/data_rows.py",
)
_HEAD = struct.Struct("<I")  # the length of the entry's header
# bytes read and hashed at a time: few enough pieces that a thread hashing a file seldom waits for the interpreter
_PIECE = 8 << 20

Keys = NDArray[np.int64]
Counts = NDArray[np.float64]


class _Header(msgspec.Struct, forbid_unknown_fields=True):
    format: str
    n_contestants: int
    rows: int
    first: int  # the first key (its difference is stored as 0)
    types: list[str]  # the keys' differences' numpy type, then each count column's


def first_of_each(
    prompt: NDArray[np.integer], contestant: NDArray[np.integer], counts: Counts, n_contestants: int
) -> tuple[Keys, Counts]:
    """The sorted keys of rows given as codes, and their (keys, 4) counts: of rows naming the same response the
    first (StyleLookup.from_codes)."""
    keys, first = first_rows(prompt, contestant, n_contestants)
    return keys, counts[first].reshape(-1, 4)


def first_rows(
    prompt: NDArray[np.integer], contestant: NDArray[np.integer], n_contestants: int
) -> tuple[Keys, NDArray[np.intp] | slice]:
    """The distinct keys of rows given as codes, sorted, and the first row of each (as `np.unique(keys,
    return_index=True)`; a slice where the rows are in order already)."""
    keys = prompt.astype(np.int64) * n_contestants + contestant
    if len(keys) < 2 or bool((keys[1:] > keys[:-1]).all()):
        return keys, slice(None)
    # the import's rows come in prompt order, each prompt's few together: a stable sort of nearly sorted keys
    order = np.argsort(keys, kind="stable")
    ranked = keys[order]
    new = np.empty(len(ranked), dtype=np.bool_)
    new[0] = True
    np.not_equal(ranked[1:], ranked[:-1], out=new[1:])
    if new.all():
        return ranked, order
    return ranked[new], order[new]


def encode(keys: Keys, columns: Sequence[NDArray[np.generic]], n_contestants: int) -> bytes:
    """An entry's body: a header, then the keys' differences and each column of counts (module docstring). A
    column: float64 counts as a reading gives them, or the same counts as whole numbers (integers >= 0)."""
    first = int(keys[0]) if len(keys) else 0
    deltas = np.diff(keys, prepend=first) if len(keys) else keys
    arrays = [deltas.astype(_unsigned(int(deltas.max(initial=0))), copy=False)]
    arrays += [_compact(column) for column in columns]
    header = msgspec.json.encode(
        _Header(_FORMAT, n_contestants, len(keys), first, [a.dtype.str for a in arrays])
    )
    return b"".join([_HEAD.pack(len(header)), header, *(a.tobytes() for a in arrays)])


def decode(body: bytes, n_contestants: int) -> tuple[Keys, Counts] | None:
    """The keys and counts an entry holds; None where it is not one of this format for this many contestants."""
    try:
        (size,) = _HEAD.unpack_from(body)
        header = msgspec.json.decode(body[_HEAD.size : _HEAD.size + size], type=_Header)
        if header.format != _FORMAT or header.n_contestants != n_contestants or len(header.types) != 5:
            return None
        types = [np.dtype(t) for t in header.types]
        at, rows = _HEAD.size + size, header.rows
        if at + rows * sum(t.itemsize for t in types) != len(body):
            return None
        columns = []
        for t in types:
            columns.append(np.frombuffer(body, dtype=t, count=rows, offset=at))
            at += rows * t.itemsize
    except (struct.error, msgspec.DecodeError, TypeError, ValueError):
        return None
    keys = np.cumsum(columns[0], dtype=np.int64)
    keys += header.first
    counts = np.empty((rows, 4), dtype=np.float64)
    for j, column in enumerate(columns[1:]):
        counts[:, j] = column
    return keys, counts


def _unsigned(largest: int) -> np.dtype[np.unsignedinteger]:
    """The smallest unsigned integer type that holds 0..largest."""
    for t in (np.uint8, np.uint16, np.uint32):
        if largest <= np.iinfo(t).max:
            return np.dtype(t)
    return np.dtype(np.uint64)


def _compact(column: NDArray[np.generic]) -> NDArray[np.generic]:
    """A column of counts in the smallest unsigned integer type that gives back each count exactly as a float64
    (float64 where one is not a whole number, a negative zero, or past 2^64)."""
    if not len(column):
        return column.astype(np.uint8)
    if column.dtype.kind in "iu" and int(column.min()) >= 0:  # whole numbers (the import's)
        return column.astype(_unsigned(int(column.max())))
    whole = bool(np.isfinite(column).all()) and float(column.min()) >= 0 and float(column.max()) < 2.0**64
    if not whole or not (np.floor(column) == column).all() or np.signbit(column).any():
        return column.astype(np.float64)
    return column.astype(_unsigned(int(column.max())))


class Entry:
    """The entry of one style file read with these ids."""

    def __init__(self, path: Path, prompts: Sequence[str], contestants: Sequence[str]) -> None:
        self.n_contestants = len(contestants)
        self._file = file_digest(path)
        self._recipe = _recipe(prompts, contestants)

    @property
    def file_sha256(self) -> str | None:
        """The file's SHA-256 as it was hashed (hex; None: it could not be read)."""
        return None if self._file is None else self._file.hex()

    def read(self) -> tuple[Keys, Counts] | None:
        """The keys and counts kept for the file as it was hashed; None where there are none (or no cache)."""
        if self._file is None or self._recipe is None:
            return None
        body = disk_cache.read(KIND, _name(self._recipe, self._file), refresh=True)
        return None if body is None else decode(body, self.n_contestants)

    def keep(self, digest: bytes, keys: Keys, counts: Counts) -> None:
        """Keep the keys and counts read from the bytes whose SHA-256 is `digest`."""
        if self._recipe is not None:
            write(self._recipe, digest, encode(keys, list(counts.T), self.n_contestants))


def keep(digest: bytes, prompts: Sequence[str], contestants: Sequence[str], body: bytes) -> None:
    """Keep the entry `body` (`encode`) of a file whose bytes' SHA-256 is `digest`, read with these ids."""
    recipe = _recipe(prompts, contestants)
    if recipe is not None:
        write(recipe, digest, body)


def write(recipe: str, digest: bytes, body: bytes) -> None:
    disk_cache.write(KIND, _name(recipe, digest), body, keep_bytes=KEEP_BYTES)


def file_digest(path: Path) -> bytes | None:
    """The SHA-256 of a regular file's bytes, read a piece at a time (no copy of the file in memory); None where it
    cannot be read or is larger than a style file may be (the reading says why)."""
    digest = hashlib.sha256()
    piece = bytearray(_PIECE)
    view = memoryview(piece)
    try:
        with open_regular(path) as fh:
            if os.fstat(fh.fileno()).st_size > MAX_FILE_BYTES:
                return None
            while size := cast(io.BufferedReader, fh).readinto(piece):  # (os.fdopen's reader)
                digest.update(view[:size])
    except (UserError, OSError):
        return None
    return digest.digest()


def _recipe(prompts: Sequence[str], contestants: Sequence[str]) -> str | None:
    """What an entry's name is made of besides the file: the format, the reading code and the ids; None where the
    code cannot be read or the ids cannot be encoded (then nothing is kept)."""
    code = _code_digest()
    try:
        ids = hashlib.sha256(msgspec.msgpack.encode([_listed(prompts), _listed(contestants)])).hexdigest()
    except (msgspec.EncodeError, UnicodeEncodeError, TypeError):
        return None
    return None if code is None else f"{_FORMAT}\0{code}\0{ids}"


def _listed(ids: Sequence[str]) -> list[str] | tuple[str, ...]:
    return ids if isinstance(ids, (list, tuple)) else list(ids)


def _name(recipe: str, digest: bytes) -> str:
    return disk_cache.name_of(f"{recipe}\0{digest.hex()}", ".counts")


@cache
def _code_digest() -> str | None:
    package = Path(__file__).resolve().parents[1]
    try:
        return hashlib.sha256(b"\0".join((package / p).read_bytes() for p in _CODE)).hexdigest()
    except OSError:
        return None
