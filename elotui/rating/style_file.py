"""`[data] style` files as `elotui import arena` writes them, read column-wise: no Python object per row.

The importer writes one compact JSON object a line, its keys in one order,

    {"prompt":"q1","contestant":"gpt-4","tokens":428,"headers":3,"lists":4,"bold":4}

and each prompt's rows together, the prompts in the tournament's order. `importer_rows` reads exactly that layout
with numpy over the file's bytes (2 * 10^6 rows in a fraction of a second, against ~1.5 s to decode them into
objects and take their columns) and gives the rows' prompt and contestant codes and counts. Anything else — another
layout or key order, spaces, an escape (`\\`), a control character, a number that is not a plain integer of at most
15 digits, a row naming an undeclared prompt or contestant, the prompts in another order — gives None, and the
caller reads the file the general way (elotui.rating.style_rank), which keeps or reports such rows as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

# a row as the importer writes it: {"prompt":"P","contestant":"C","tokens":T,"headers":H,"lists":L,"bold":B}\n
_QUOTES = 16  # a row's quotes (none inside its strings: a file with an escape goes the general way)
# (quote, offset, text): the row's bytes outside its strings and numbers, each checked at its offset from a quote
_LITERALS = (
    (0, -1, b'{"prompt'),
    (1, 0, b'":"'),
    (3, 0, b'","conte'),
    (3, 8, b'stant":"'),
    (7, 0, b'","token'),
    (7, 8, b's":'),
    (10, -1, b',"header'),
    (10, 7, b's":'),
    (12, -1, b',"lists"'),
    (13, 1, b":"),
    (14, -1, b',"bold":'),
)
# each quote's distance from the one before: None where a string or a number lies between
_GAPS = (None, 7, 2, None, 2, 11, 2, None, 2, 7, None, 8, None, 6, None, 5)
_NUMBERS = (
    (9, 10),
    (11, 12),
    (13, 14),
    (15, None),
)  # each count after a quote, up to the next (None: the row's end)
MAX_DIGITS = 15  # a count of more digits is not exact as a float64: the general reading takes the file
MAX_ID_BYTES = 64  # longer ids: the general reading
_CHUNK = 1 << 22  # bytes of whole rows read at a time (their places stay in the processor's cache)
_QUOTE, _NEWLINE, _ZERO, _SPACE = 34, 10, 48, 32
_REACH = (
    4096  # a row's words read this far at most past its last quote's place (ids, 15-digit counts: far less)
)

Codes = NDArray[np.int64]
# (rows, k): a string's bytes, 8 a word (little-endian: the first byte lowest), zero-padded
Words = NDArray[np.uint64]


def importer_rows(
    raw: bytes, prompts: Sequence[str], contestants: Sequence[str]
) -> tuple[Codes, Codes, NDArray[np.float64]] | None:
    """The rows of a style file in the importer's layout (module docstring): each row's prompt code (its place in
    `prompts`), contestant code and (rows, 4) counts (tokens, headers, lists, bold); None where the file is not
    in that layout or names what the tournament does not declare."""
    if not raw.endswith(b"\n") or b"\\" in raw or not prompts or not contestants:
        return None
    declared_prompts, prompt_width = _id_words(prompts)
    declared_contestants, contestant_width = _id_words(contestants)
    if declared_prompts is None or declared_contestants is None:
        return None
    text = _Bytes(raw)
    contestant_codes = _Codes(declared_contestants)
    if not contestant_codes.distinct:
        return None
    parts, heads, last = [], [], np.zeros((1, declared_prompts.shape[1]), dtype="<u8")
    start = 0
    while start < len(raw):
        end = raw.find(b"\n", min(start + _CHUNK, len(raw) - 1)) + 1  # whole rows
        part = _rows(text, start, end, prompt_width, contestant_width)
        if part is None:
            return None
        row_prompts, row_contestants, counts = part
        codes = contestant_codes.of(row_contestants)
        if codes is None:
            return None
        new = np.not_equal(row_prompts, np.concatenate([last, row_prompts[:-1]])).any(axis=1)
        new[0] |= start == 0
        heads.append(row_prompts[new])
        parts.append((new, codes, counts))
        last = row_prompts[-1:]
        start = end
    starts, contestants_of, counts = (np.concatenate(column) for column in zip(*parts, strict=True))
    # the rows name the declared prompts in their order, each prompt's rows together
    if int(np.count_nonzero(starts)) != len(declared_prompts):
        return None
    if not np.array_equal(np.concatenate(heads), declared_prompts):
        return None
    return np.cumsum(starts, dtype=np.int64) - 1, contestants_of, counts


def _rows(
    text: _Bytes, start: int, end: int, prompt_width: int, contestant_width: int
) -> tuple[Words, Words, NDArray[np.float64]] | None:
    """The rows of text[start:end] (whole rows): their prompts and contestants as words and their counts; None where
    one is not in the importer's layout. Every byte of a row is checked: its quotes' places, the text between
    them, the digits of its counts; nothing but the rows' ends is a control character."""
    b = np.frombuffer(text.raw, dtype=np.uint8, count=end - start, offset=start)
    rows = int(np.count_nonzero(b == _NEWLINE))
    if int(np.count_nonzero(b < _SPACE)) != rows:  # a control character other than the rows' ends
        return None
    quotes = np.flatnonzero(b == _QUOTE)
    if len(quotes) != rows * _QUOTES:
        return None
    q = quotes.reshape(rows, _QUOTES).astype(np.int64) + start
    ends = np.empty(rows, dtype=np.int64)  # each row's newline: two bytes before the next row's first quote
    ends[:-1], ends[-1] = q[1:, 0] - 2, end - 1
    gaps = np.diff(q, axis=1)
    for k, gap in enumerate(_GAPS):
        if gap is not None and not (gaps[:, k - 1] == gap).all():
            return None
    if not (q[0, 0] == start + 1 and text.holds(ends - 1, b"}\n")):
        return None
    if not all(text.holds(q[:, k] + offset, literal) for k, offset, literal in _LITERALS):
        return None
    counts = np.empty((rows, len(_NUMBERS)), dtype=np.float64)
    for j, (k, after) in enumerate(_NUMBERS):
        stop = q[:, after] - 1 if after is not None else ends - 1  # the comma, or the closing brace
        value = _number(text, q[:, k] + 2, stop - q[:, k] - 2)
        if value is None:
            return None
        counts[:, j] = value
    row_prompts = _strings(text, q[:, 2] + 1, q[:, 3], prompt_width)
    row_contestants = _strings(text, q[:, 6] + 1, q[:, 7], contestant_width)
    if row_prompts is None or row_contestants is None:
        return None
    return row_prompts, row_contestants, counts


def _number(text: _Bytes, at: Codes, lengths: Codes) -> NDArray[np.float64] | None:
    """The plain non-negative integer of `lengths` digits at `at` in every row (1 to MAX_DIGITS digits, no leading
    zero); None where one is not."""
    if int(lengths.min()) < 1 or int(lengths.max()) > MAX_DIGITS:
        return None
    width = int(lengths.max())
    if width <= 8:
        return _eight_digits(text.word(at), lengths)
    words = np.empty((len(at), -(-width // 8)), dtype="<u8")
    for c in range(words.shape[1]):
        words[:, c] = text.word(at + 8 * c)
    digits = np.subtract(words.view(np.uint8)[:, :width], _ZERO, dtype=np.uint8)
    inside = np.arange(width) < lengths[:, None]
    if not ((digits < 10) | ~inside).all() or ((digits[:, 0] == 0) & (lengths > 1)).any():
        return None  # not a digit, or a leading zero (not JSON)
    value = np.zeros(len(at), dtype=np.int64)
    for j in range(width):  # Horner's rule over the digits' places (a few)
        value = np.where(inside[:, j], value * 10 + digits[:, j], value)
    return value.astype(np.float64)


_U = np.uint64
_ASCII_ZEROS = _U(0x3030303030303030)


def _eight_digits(word: Words, lengths: Codes) -> NDArray[np.float64] | None:
    """The integers of 1 to 8 digits at the start of each word (SWAR, as simdjson parses eight digits): the bytes
    past each length become '0's in front of the number; None where a byte is not a digit or a number has a leading
    zero."""
    shift = (_U(8) * (_U(8) - lengths.astype(np.uint64))).astype(np.uint64)  # bits of padding
    kept = np.where(lengths >= 8, ~_U(0), (_U(1) << (_U(8) * lengths.astype(np.uint64))) - _U(1))
    digits = word & kept
    padded = (digits << shift) | np.where(lengths >= 8, _U(0), _ASCII_ZEROS >> (_U(64) - shift))
    high = _U(0xF0F0F0F0F0F0F0F0)
    if not (
        (padded & high) | (((padded + _U(0x0606060606060606)) & high) >> _U(4)) == _U(0x3333333333333333)
    ).all():
        return None  # a byte that is not a digit
    if ((digits & _U(0xFF)) == _U(0x30))[lengths > 1].any():  # a leading zero is not JSON
        return None
    v = padded - _ASCII_ZEROS
    v = v * _U(10) + (v >> _U(8))
    low = _U(0x000000FF000000FF)
    v = ((v & low) * _U(100 + (1000000 << 32)) + ((v >> _U(16)) & low) * _U(1 + (10000 << 32))) >> _U(32)
    return v.astype(np.float64)


class _Bytes:
    """A buffer's bytes read 8 at a time from any offset (one gather of 64-bit words), zeros past its end."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.n = len(raw)
        self.base = max(self.n - 8, 0)  # offsets past this read the zero-padded copy of the end
        self.words = _unaligned(raw) if self.n >= 8 else np.zeros(1, dtype="<u8")
        self.tail = _unaligned(raw[self.base :] + bytes(MAX_ID_BYTES + 16))

    def word(self, at: Codes) -> Words:
        if (
            len(at) == 0 or int(at[-1]) <= self.base - _REACH
        ):  # rows far from the end (`at` ascending, at most
            return self.words[at]  # _REACH apart in a row): the words as they are
        out = self.words[np.minimum(at, self.base)]
        near = at > self.base
        out[near] = self.tail[at[near] - self.base]
        return out

    def holds(self, at: Codes, text: bytes) -> bool:
        """Every row has `text` (at most 8 bytes) at `at`."""
        mask = np.uint64(int.from_bytes(b"\xff" * len(text), "little"))
        return bool(((self.word(at) & mask) == np.uint64(int.from_bytes(text, "little"))).all())


def _unaligned(data: bytes) -> Words:
    """The 64-bit little-endian word at each byte offset of `data` (a view: no copy)."""
    return np.ndarray((len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))


def _strings(text: _Bytes, begin: Codes, end: Codes, width: int) -> Words | None:
    """The strings text[begin:end] of each row as words, `width` bytes wide; None where one is longer."""
    lengths = end - begin
    if int(lengths.max(initial=0)) > width:
        return None
    out = np.empty((len(begin), -(-width // 8)), dtype="<u8")
    for c in range(out.shape[1]):
        word = text.word(begin + 8 * c)
        kept = np.clip(lengths - 8 * c, 0, 8).astype(np.uint64)  # bytes of this word in the string
        word &= np.where(
            kept >= 8, np.uint64(~np.uint64(0)), (np.uint64(1) << (np.uint64(8) * kept)) - np.uint64(1)
        )
        out[:, c] = word
    return out


def _id_words(ids: Sequence[str]) -> tuple[Words | None, int]:
    """The ids' UTF-8 bytes as words (`Words`) and the longest's length; None where one could not be told apart
    that way (empty, a control character, longer than MAX_ID_BYTES, not encodable)."""
    try:
        joined = "\n".join(ids).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return None, 0
    buf = np.frombuffer(joined, dtype=np.uint8)
    if (
        int(np.count_nonzero(buf < _SPACE)) != len(ids) - 1
    ):  # a control character inside an id, not only the joins
        return None, 0
    ends = np.append(np.flatnonzero(buf == _NEWLINE), len(buf)).astype(np.int64)
    begins = np.empty(len(ends), dtype=np.int64)
    begins[0], begins[1:] = 0, ends[:-1] + 1
    width = int((ends - begins).max())
    if width > MAX_ID_BYTES or int((ends - begins).min()) == 0:
        return None, 0
    return _strings(_Bytes(joined), begins, ends, width), width


def _keys(words: Words) -> NDArray[np.uint64]:
    """One 64-bit key per row: its word, or its words folded (equal ids, equal keys; the converse is checked)."""
    key = words[:, 0].copy()
    for c in range(1, words.shape[1]):
        key *= np.uint64(0x9E3779B97F4A7C15)
        key ^= words[:, c]
    return key


class _Codes:
    """Ids (distinct) told by their words: each 64-bit key (`_keys`) looked up, then the words compared."""

    def __init__(self, declared: Words) -> None:
        self.declared = declared
        keys = _keys(declared)
        self.order = np.argsort(keys, kind="stable")
        self.ranked = keys[self.order]
        self.distinct = bool((self.ranked[1:] != self.ranked[:-1]).all())  # else: the general way

    def of(self, values: Words) -> Codes | None:
        """Each value's place among the ids; None where one is not among them."""
        at = np.minimum(np.searchsorted(self.ranked, _keys(values)), len(self.ranked) - 1)
        codes = self.order[at].astype(np.int64)
        if not (self.declared[codes] == values).all():
            return None
        return codes
