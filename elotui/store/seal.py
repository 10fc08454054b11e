"""The columnar snapshot's seal (elotui.store.columns): a CRC-32 of each stored array and of the description
(`meta`) itself, kept in the description, so that bytes damaged on disk or by hand are found before they rank
anything. A snapshot whose seal does not hold is not read: it is rebuilt from the plan and the calls, which give
the same columns the snapshot had.

CRC-32 finds every burst of damage up to 32 bits and any other with odds of 1 in 4·10^9; it reads ~1 GB/s
(the ~30 MB of a 10^6-verdict snapshot in ~30 ms)."""

from __future__ import annotations

import json
import zlib
from collections.abc import Collection, Iterable
from typing import Any

SUMS = "sums"  # meta key: array name → CRC-32 of its bytes
CHECK = "check"  # meta key: CRC-32 of the description without this key (canonical JSON)


def _meta_crc(meta: dict[str, Any], plain: Collection[str] | None = None) -> int:
    body = {k: v for k, v in meta.items() if k != CHECK}
    return zlib.crc32(meta_json(body, canonical=True, plain=plain).encode("utf-8"))


LONG_LIST = 1024  # a list of names at least this long is written by `meta_json` at once


def meta_json(meta: dict[str, Any], *, canonical: bool = False, plain: Collection[str] | None = None) -> str:
    """`json.dumps(meta)` (canonical: with sorted keys and compact separators), character for character; a long
    list of names that need no escape (a 10^6-verdict snapshot's prompt ids) is joined at once instead of being
    encoded name by name (~10 ms instead of ~100 ms per encoding of 10^6 ids). `plain`: the keys of those lists,
    found once for several encodings of one description (`plain_lists`)."""
    options: dict[str, Any] = {"sort_keys": True, "separators": (",", ":")} if canonical else {}
    between = '","' if canonical else '", "'
    shown = dict(meta)
    joined: dict[str, str] = {}  # the JSON of a mark -> the list it stands for
    for key in plain_lists(meta) if plain is None else plain:
        mark = f"\x00elotui list {len(joined)}"  # quoted, it holds a backslash: no joined name holds one
        shown[key] = mark
        joined[json.dumps(mark)] = '["' + between.join(meta[key]) + '"]'
    text = json.dumps(shown, **options)
    for mark, names in joined.items():
        if text.count(mark) != 1:  # the mark is also in a text of the description: encoded the plain way
            return json.dumps(meta, **options)
        text = text.replace(mark, names)
    return text


def plain_lists(meta: dict[str, Any]) -> list[str]:
    """The keys of `meta` whose values `meta_json` joins at once: lists of at least LONG_LIST names that JSON
    writes as they are."""
    return [k for k, v in meta.items() if type(v) is list and len(v) >= LONG_LIST and _plain_names(v)]


def _plain_names(values: list[Any]) -> bool:
    """Whether every value is a text that JSON writes as it is, between quotes (printable ASCII, no quote and no
    backslash: what `json.dumps` escapes is everything else)."""
    try:
        text = "".join(values)
    except TypeError:
        return False
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


def seal(
    meta: dict[str, Any], data: dict[str, bytes], plain: Collection[str] | None = None
) -> dict[str, Any]:
    """`meta` with the sums of every array in `data` and its own check (`plain`: `meta_json`'s)."""
    sealed = {**meta, SUMS: {name: zlib.crc32(value) for name, value in sorted(data.items())}}
    sealed[CHECK] = _meta_crc(sealed, plain)
    return sealed


def reseal(meta: dict[str, Any], changed: dict[str, bytes]) -> dict[str, Any]:
    """`meta` with the sums of the `changed` arrays replaced and its check made again (a compaction rewrites the
    outcomes alone)."""
    sealed = {**meta, SUMS: {**meta[SUMS], **{name: zlib.crc32(value) for name, value in changed.items()}}}
    sealed[CHECK] = _meta_crc(sealed)
    return sealed


def description(raw: object) -> dict[str, Any] | None:
    """The stored description, if it is one whose check holds (None: damaged, or written before the seal)."""
    try:
        meta = json.loads(raw) if isinstance(raw, (bytes, str)) else None
    except (ValueError, RecursionError):  # not JSON, not UTF-8
        return None
    if (
        not isinstance(meta, dict)
        or not isinstance(meta.get(CHECK), int)
        or not isinstance(meta.get(SUMS), dict)
    ):
        return None
    try:
        return meta if _meta_crc(meta) == meta[CHECK] else None
    except (TypeError, ValueError):
        return None


def arrays_hold(meta: dict[str, Any], data: dict[str, Any], names: Iterable[str]) -> bool:
    """Whether each of the arrays `names` is in `data`, as bytes whose CRC-32 is the one the description holds."""
    sums = meta[SUMS]
    for name in names:
        value = data.get(name)
        if not isinstance(value, bytes) or sums.get(name) != zlib.crc32(value):
            return False
    return True


def unsealed(raw: object) -> dict[str, Any] | None:
    """A description written before the seal (no sums, no check: its plan's fingerprint and size still tell the
    plan), or None."""
    try:
        meta = json.loads(raw) if isinstance(raw, (bytes, str)) else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(meta, dict) or SUMS in meta or CHECK in meta or not isinstance(meta.get("n"), int):
        return None
    return meta
