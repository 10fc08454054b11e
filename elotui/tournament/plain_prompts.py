"""A prompts file of plain rows, read column-wise: the fast reading of `[data] prompts` (elotui.tournament.data_files
decides when it applies and reports what it found).

A JSON Lines prompts file whose every row holds only plain fields — a string id, a string text, a string category
and, where the tournament file reads them, a table of string responses and a turn number, each under the name the
row-by-row reading looks at first — is decoded at once into typed rows (msgspec) and checked column-wise: ids
non-empty, without surrounding blanks and unique; texts not blank. At 10^6 rows that takes about a second, where the
row-by-row reading takes about twenty. A row this reading does not take (another field, a value of another type, a
turn out of range, a line the row-by-row reading would split or decode otherwise) makes it give the whole file up
(None): the row-by-row reading then reads it and says what is wrong, with file, line and key, as it always did. So
whatever this reading accepts, the row-by-row reading would have read to the same prompts without a problem.
"""

from __future__ import annotations

import functools
import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import chain, compress, repeat
from operator import attrgetter, not_
from pathlib import Path
from typing import Annotated, Any

import msgspec

from elotui.tournament.data_rows import object_lines
from elotui.tournament.prompt_columns import PromptColumns
from elotui.tournament.user_files import gunzip, read_regular_file

# a turn as `[[prompts]] turn` takes it (a bool or 2.0 is no int here)
Turn = Annotated[int, msgspec.Meta(ge=1, le=100)]

# concept → (the type a plain row gives it, what a row that leaves it out gives; NODEFAULT: a row must give it)
_TYPES: dict[str, tuple[Any, Any]] = {
    "prompt_id": (str, msgspec.NODEFAULT),
    "text": (str, msgspec.NODEFAULT),
    "category": (str | None, None),
    "responses": (dict[str, str], msgspec.field(default_factory=dict)),
    "turn": (Turn | None, None),
}
_ATTRIBUTES = {
    "prompt_id": "id",
    "text": "text",
    "category": "category",
    "responses": "responses",
    "turn": "turn",
}


def _row_type(keys: Mapping[str, str]) -> type[msgspec.Struct]:
    """A row of exactly these fields (concept → the row's key for it); any other key is not a plain row's."""
    return _row_type_of(tuple(sorted(keys.items())))


@functools.cache
def _row_type_of(keys: tuple[tuple[str, str], ...]) -> type[msgspec.Struct]:
    fields = [(_ATTRIBUTES[concept], *_TYPES[concept]) for concept, _ in keys]
    fields.sort(key=lambda f: f[2] is not msgspec.NODEFAULT)  # required fields first
    rename = {_ATTRIBUTES[concept]: key for concept, key in keys}
    return msgspec.defstruct("PlainPrompt", fields, rename=rename, forbid_unknown_fields=True, gc=False)


def decode_rows(text: bytes, keys: Mapping[str, str]) -> list[Any]:
    """The rows of a JSON Lines file's bytes, decoded at once as plain rows under `keys` (msgspec.DecodeError where
    one is not)."""
    return msgspec.json.Decoder(_row_type(keys)).decode_lines(text)  # type: ignore[no-any-return]


class RowsOfFile:
    """The rows of a prompts file of plain rows that the column-wise reading took (elotui.tournament.prompt_columns
    .RowSource), decoded from its bytes when asked for: `raw`, the file's bytes (`gunzipped`: how to read a gzip
    file's; None where they are not compressed)."""

    __slots__ = ("_gunzipped", "_keys", "_raw")

    def __init__(
        self, raw: bytes, keys: Mapping[str, str], gunzipped: Callable[[bytes], bytes] | None
    ) -> None:
        self._raw, self._keys, self._gunzipped = raw, dict(keys), gunzipped

    def _text(self) -> bytes:
        if self._gunzipped is not None:  # decompressed once (the first row, then all)
            self._raw, self._gunzipped = self._gunzipped(self._raw), None
        return self._raw

    def all(self) -> list[Any]:
        return decode_rows(self._text(), self._keys)

    def first(self) -> Any:
        text = self._text()
        end = text.find(b"\n")
        return decode_rows(text if end < 0 else text[: end + 1], self._keys)[0]


# how a prompts file is read column-wise: (its path, concept → the row key it is read from) → (its prompts or None,
# what gives the SHA-256 of its bytes); UserError where it cannot be read
PlainReading = Callable[[Path, dict[str, str]], tuple[PromptColumns | None, Callable[[], str]]]


def read_plain_file(path: Path, keys: dict[str, str]) -> tuple[PromptColumns | None, Callable[[], str]]:
    """The prompts file read column-wise (`read_plain`), and what gives the SHA-256 of its bytes."""
    raw = read_regular_file(path)
    text = gunzip(path, raw) if path.suffix.lower() == ".gz" else raw
    return read_plain(text, keys), lambda: hashlib.sha256(raw).hexdigest()


def _lines(text: bytes) -> int | None:
    """The lines of a JSON Lines file's bytes where each holds one object alone (elotui.tournament.data_rows
    .object_lines, as the row-by-row reading decodes it all at once) and the bytes are UTF-8, else None."""
    if not text.isascii():
        try:
            text.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return object_lines(text)  # a byte-order mark is no "{": None


def read_plain(text: bytes, keys: Mapping[str, str]) -> PromptColumns | None:
    """The prompts of a JSON Lines file's bytes whose rows are all plain under `keys` (concept → the key it is read
    from: `prompt_id` and `text` required, `category`, `responses`, `turn` where read), or None."""
    lines = _lines(text)
    if lines is None:
        return None
    try:
        rows = decode_rows(text, keys)
    except (msgspec.DecodeError, RecursionError):
        return None
    if len(rows) != lines:
        return None
    ids: list[str] = list(map(attrgetter("id"), rows))
    if not plain_ids(ids) or not _plain_texts(map(attrgetter("text"), rows)):
        return None
    return PromptColumns(rows, ids, keys=keys)


def plain_ids(ids: list[str], *, distinct: bool = False) -> bool:
    """Ids the row-by-row reading takes as they are: non-empty, without surrounding blanks, unique (`distinct`: known
    to be, as an import's coded ids are)."""
    return all(ids) and list(map(str.strip, ids)) == ids and (distinct or len(set(ids)) == len(ids))


def _plain_texts(texts: Iterable[str]) -> bool:
    """Texts that are not blank."""
    return all(map(str.strip, texts))


def _values(columns: PromptColumns) -> Iterator[str]:
    """Every response text (in the order of `ResponseTable`)."""
    return chain.from_iterable(map(dict.values, columns.responses()))


def _blank_flags(columns: PromptColumns) -> Iterator[bool]:
    """Per response (in the order of `ResponseTable`): whether it is blank."""
    return map(not_, map(str.strip, _values(columns)))


def contestants(columns: PromptColumns) -> tuple[Counter[str], Counter[str]]:
    """(contestant → how many prompts carry a response of it, contestant → how many of those are blank)."""
    groups = columns.response_groups()
    if groups is not None:  # counted table by table
        given, blank = Counter[str](), Counter[str]()
        for table, n in zip(*groups, strict=True):
            for cid, text in table.items():
                given[cid] += n
                blank[cid] += n if not text.strip() else 0
        return given, +blank
    keys = list(chain.from_iterable(columns.responses()))
    given = Counter(keys)
    if not any(_values(columns)):  # every response is "" (an import that carries no texts)
        return given, given.copy()
    return given, Counter(compress(keys, _blank_flags(columns)))


def blank_responses(
    columns: PromptColumns, blank: Counter[str], expected: list[str], show: int
) -> list[tuple[str, list[str], int]]:
    """(contestant, the first `show` prompt ids, how many) of the blank responses (`blank`: how many per
    contestant) of each `expected` contestant that gave one, in the order the row-by-row coverage check meets them:
    by the first prompt with one, then in `expected` order."""
    wanted = {cid: min(blank[cid], show) for cid in expected if blank[cid]}
    if not wanted:
        return []
    first: dict[str, list[int]] = {cid: [] for cid in wanted}
    todo = len(wanted)
    responses = columns.responses
    positions = chain.from_iterable(map(repeat, range(len(columns)), map(len, responses())))
    keys = chain.from_iterable(responses())
    for position, cid in compress(zip(positions, keys, strict=True), _blank_flags(columns)):
        seen = first.get(cid)
        if seen is None or len(seen) == wanted[cid]:
            continue
        seen.append(position)
        if len(seen) == wanted[cid]:
            todo -= 1
            if todo == 0:
                break
    order = sorted(wanted, key=lambda cid: (first[cid][0], expected.index(cid)))
    ids = columns.ids
    return [(cid, [ids[p] for p in first[cid]], blank[cid]) for cid in order]
