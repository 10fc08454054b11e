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

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain, compress, repeat
from operator import attrgetter, not_
from typing import Annotated, Any

import msgspec

from elotui.tournament.data_rows import object_lines
from elotui.tournament.prompt_columns import PromptColumns

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
    fields = [(_ATTRIBUTES[concept], *_TYPES[concept]) for concept in keys]
    fields.sort(key=lambda f: f[2] is not msgspec.NODEFAULT)  # required fields first
    rename = {_ATTRIBUTES[concept]: key for concept, key in keys.items()}
    return msgspec.defstruct("PlainPrompt", fields, rename=rename, forbid_unknown_fields=True, gc=False)


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
        rows: list[Any] = msgspec.json.Decoder(_row_type(keys)).decode_lines(text)
    except (msgspec.DecodeError, RecursionError):
        return None
    if len(rows) != lines:
        return None
    ids: list[str] = list(map(attrgetter("id"), rows))
    if not _plain_ids(ids) or not _plain_texts(map(attrgetter("text"), rows)):
        return None
    return PromptColumns(rows, ids, has_responses="responses" in keys, has_turn="turn" in keys)


def _plain_ids(ids: list[str]) -> bool:
    """Ids the row-by-row reading takes as they are: non-empty, without surrounding blanks, unique."""
    return all(ids) and list(map(str.strip, ids)) == ids and len(set(ids)) == len(ids)


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
