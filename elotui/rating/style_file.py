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
# (quote, offset, text): the row's text outside its strings and counts, six pieces, each at its offset from a quote
# (a piece's window holds what follows it: the prompt, the contestant, a count)
_PIECES = (
    (0, -1, b'{"prompt":"'),
    (3, 0, b'","contestant":"'),
    (7, 0, b'","tokens":'),
    (10, -1, b',"headers":'),
    (12, -1, b',"lists":'),
    (14, -1, b',"bold":'),
)
# each quote's distance from the one before: None where a string or a number lies between
_GAPS = (None, 7, 2, None, 2, 11, 2, None, 2, 7, None, 8, None, 6, None, 5)
_GAP_AFTER = np.array([k - 1 for k, gap in enumerate(_GAPS) if gap is not None])  # as distances to the next
_GAP_SIZES = np.array([gap for gap in _GAPS if gap is not None])
# each count after a quote, up to the next (None: the row's end)
_NUMBERS = ((9, 10), (11, 12), (13, 14), (15, None))
MAX_DIGITS = 15  # a count of more digits is not exact as a float64: the general reading takes the file
MAX_ID_BYTES = 64  # longer ids: the general reading
_CHUNK = 1 << 22  # bytes of whole rows read at a time (their places stay in the processor's cache)
_QUOTE, _NEWLINE, _ZERO, _SPACE = 34, 10, 48, 32
_WINDOW = 32  # bytes read a row at a time
_SHORTEST_ROW = len(b'{"prompt":"","contestant":"","tokens":0,"headers":0,"lists":0,"bold":0}\n') + 2

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
    total = (
        len(raw) // _SHORTEST_ROW + 1
    )  # at most this many rows (the arrays' untouched ends take no memory)
    counts = np.empty((total, len(_NUMBERS)), dtype=np.float64)
    contestants_of = np.empty(total, dtype=np.int64)
    starts = np.empty(total, dtype=np.bool_)  # a row naming another prompt than the row before
    heads, last = [], np.zeros((1, declared_prompts.shape[1]), dtype="<u8")
    start, row = 0, 0
    while start < len(raw):
        end = raw.find(b"\n", min(start + _CHUNK, len(raw) - 1)) + 1  # whole rows
        part = _rows(text, start, end, counts[row:], prompt_width, contestant_width)
        if part is None:
            return None
        row_prompts, row_contestants = part
        rows = len(row_prompts)
        codes = contestant_codes.of(row_contestants)
        if codes is None:
            return None
        contestants_of[row : row + rows] = codes
        new = np.not_equal(row_prompts, np.concatenate([last, row_prompts[:-1]])).any(axis=1)
        new[0] |= start == 0
        starts[row : row + rows] = new
        heads.append(row_prompts[new])
        last = row_prompts[-1:]
        start, row = end, row + rows
    # the rows name the declared prompts in their order, each prompt's rows together
    if int(np.count_nonzero(starts[:row])) != len(declared_prompts):
        return None
    if not np.array_equal(np.concatenate(heads), declared_prompts):
        return None
    return np.cumsum(starts[:row], dtype=np.int64) - 1, contestants_of[:row], counts[:row]


def _rows(
    text: _Bytes, start: int, end: int, counts: NDArray[np.float64], prompt_width: int, contestant_width: int
) -> tuple[Words, Words] | None:
    """The rows of text[start:end] (whole rows): their prompts and contestants as words, their counts into the
    first rows of `counts`; None where one is not in the importer's layout. Every byte of a row is checked: its quotes' places, the text between
    them, the digits of its counts; nothing but the rows' ends is a control character."""
    b = np.frombuffer(text.raw, dtype=np.uint8, count=end - start, offset=start)
    quotes = np.flatnonzero(b == _QUOTE)
    rows = len(quotes) // _QUOTES
    if len(quotes) != rows * _QUOTES or rows > len(counts) or quotes[0] != 1:
        return None
    counts = counts[:rows]
    # every control character a row's end: each row's newline is checked below
    if int(np.count_nonzero(b < _SPACE)) != rows:
        return None
    quotes += start
    q = quotes.reshape(rows, _QUOTES)
    gaps = np.diff(quotes, append=0).reshape(rows, _QUOTES)  # each quote's distance to the next
    if not (gaps[:, _GAP_AFTER] == _GAP_SIZES).all():
        return None
    ends = np.empty(rows, dtype=np.int64)  # each row's newline: two bytes before the next row's first quote
    ends[:-1], ends[-1] = q[1:, 0] - 2, end - 1
    # the text around the quotes, read 32 bytes a row at a time from six places
    windows = [text.window(q[:, k] + offset) for k, offset, _ in _PIECES]
    if not all(_starts_with(w, literal) for w, (_, _, literal) in zip(windows, _PIECES, strict=True)):
        return None
    for j, (k, after) in enumerate(_NUMBERS):
        piece = j + 2  # the window that starts with the count's key
        stop = q[:, after] - 1 if after is not None else ends - 1  # the comma, or the closing brace
        lengths = stop - q[:, k] - 2
        value = _count(text, windows[piece], len(_PIECES[piece][2]), q[:, k] + 2, lengths)
        if value is None:
            return None
        counts[:, j] = value
    if not _row_ends(windows[-1], len(_PIECES[-1][2]) + ends - 1 - (q[:, 15] + 2)):
        return None
    row_prompts = _strings(text, windows[0], len(_PIECES[0][2]), q[:, 2] + 1, q[:, 3], prompt_width)
    row_contestants = _strings(text, windows[1], len(_PIECES[1][2]), q[:, 6] + 1, q[:, 7], contestant_width)
    if row_prompts is None or row_contestants is None:
        return None
    return row_prompts, row_contestants


def _starts_with(window: NDArray[np.uint8], literal: bytes) -> bool:
    """Every row's window starts with `literal`, compared 8 bytes at a time."""
    words = window.view("<u8")
    for c in range(0, len(literal), 8):
        part = literal[c : c + 8]
        mask = _U(int.from_bytes(b"\xff" * len(part), "little"))
        if not ((words[:, c // 8] & mask) == _U(int.from_bytes(part, "little"))).all():
            return False
    return True


def _row_ends(window: NDArray[np.uint8], at: Codes) -> bool:
    """Every row has "}\n" at `at` in its window (the last count's)."""
    if int(at.max()) + 2 > window.shape[1]:
        return False
    if int(at.max()) + 2 <= 16 and int(at.min()) >= 8:  # in the window's second word
        word = window.view("<u8")[:, 1] >> (_U(8) * (at - 8).astype(np.uint64))
        return bool(((word & _U(0xFFFF)) == _U(int.from_bytes(b"}\n", "little"))).all())
    found = np.take_along_axis(window, at[:, None] + np.arange(2), axis=1)
    return bool((found == np.frombuffer(b"}\n", dtype=np.uint8)).all())


def _count(
    text: _Bytes, window: NDArray[np.uint8], offset: int, at: Codes, lengths: Codes
) -> NDArray[np.float64] | None:
    """The counts of `lengths` digits at `offset` in each row's window (at `at` in the text): eight digits at a
    time from the window, longer ones from the text."""
    if int(lengths.min()) < 1 or int(lengths.max()) > MAX_DIGITS:
        return None
    if int(lengths.max()) <= 8 and offset + 8 <= window.shape[1]:
        return _eight_digits(np.ascontiguousarray(window[:, offset : offset + 8]).view("<u8")[:, 0], lengths)
    return _number(text, at, lengths)


def _number(text: _Bytes, at: Codes, lengths: Codes) -> NDArray[np.float64] | None:
    """The plain non-negative integer of `lengths` digits at `at` in every row (no leading zero; `_count` has made
    sure of 1 to MAX_DIGITS digits); None where one is not."""
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
    """A buffer's bytes read from any offsets: a 32-byte window (one gather a row of 32-byte items: about the
    cost of one byte) or a 64-bit word; zeros past its end."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.n = len(raw)
        self.base = max(self.n - _WINDOW, 0)  # offsets past this read the zero-padded copy of the end
        self.spans = _unaligned(raw, _WINDOW)
        self.tail = _unaligned(raw[self.base :] + bytes(_WINDOW + MAX_ID_BYTES + 16), _WINDOW)

    def window(self, at: Codes) -> NDArray[np.uint8]:
        """(rows, 32): the 32 bytes from each of `at`."""
        if len(self.spans) and (len(at) == 0 or int(at.max()) <= self.base):
            spans = self.spans[at]
        else:
            spans = np.empty(len(at), dtype=f"V{_WINDOW}")
            near = at > self.base
            if len(self.spans):
                spans[~near] = self.spans[at[~near]]
            spans[near] = self.tail[at[near] - self.base]
        return spans.view(np.uint8).reshape(len(at), _WINDOW)

    def word(self, at: Codes) -> Words:
        """The 64-bit word at each of `at` (first byte lowest)."""
        return np.ascontiguousarray(self.window(at)[:, :8]).view("<u8")[:, 0]


def _unaligned(data: bytes, width: int) -> NDArray[np.void]:
    """The `width` bytes at each byte offset of `data`, as items (a view: no copy)."""
    return np.ndarray((max(len(data) - width + 1, 0),), dtype=f"V{width}", buffer=data, strides=(1,))


def _strings(
    text: _Bytes, window: NDArray[np.uint8] | None, offset: int, begin: Codes, end: Codes, width: int
) -> Words | None:
    """The strings text[begin:end] of each row as words, `width` bytes wide (from `window`, where they start at
    `offset` and fit); None where one is longer."""
    lengths = end - begin
    if int(lengths.max(initial=0)) > width:
        return None
    k = -(-width // 8)
    if window is not None and offset + 8 * k <= window.shape[1]:
        found = window[:, offset : offset + 8 * k]
    else:
        found = np.concatenate(
            [text.window(begin + _WINDOW * c) for c in range(-(-8 * k // _WINDOW))], axis=1
        )
        found = found[:, : 8 * k]
    words = np.ascontiguousarray(found).view("<u8")
    return words & _string_masks(k)[lengths]  # zeros past each string's end


def _string_masks(k: int) -> Words:
    """(8k + 1, k): row L keeps a string's first L bytes of k words."""
    kept = np.arange(8 * k) < np.arange(8 * k + 1)[:, None]
    return np.ascontiguousarray(np.where(kept, 0xFF, 0).astype(np.uint8)).view("<u8")


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
    ):  # a control character in an id, not only the joins
        return None, 0
    width = (len(joined) + 1) // len(ids)  # one more than each id's length, where they are all as long
    equal = len(joined) + 1 == width * len(ids) and 1 < width <= MAX_ID_BYTES + 1
    if equal and (buf[width - 1 :: width] == _NEWLINE).all():  # ids of one length: one reshape
        found = np.zeros((len(ids), -(-(width - 1) // 8) * 8), dtype=np.uint8)
        found[:, : width - 1] = np.append(buf, _NEWLINE).reshape(len(ids), width)[:, :-1]
        return found.view("<u8"), width - 1
    ends = np.append(np.flatnonzero(buf == _NEWLINE), len(buf)).astype(np.int64)
    begins = np.empty(len(ends), dtype=np.int64)
    begins[0], begins[1:] = 0, ends[:-1] + 1
    width = int((ends - begins).max())
    if width > MAX_ID_BYTES or int((ends - begins).min()) == 0:
        return None, 0
    return _strings(_Bytes(joined), None, 0, begins, ends, width), width


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
