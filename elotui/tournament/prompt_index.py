"""A prompts file of plain rows read column-wise (elotui.tournament.plain_prompts), kept in the data cache
(elotui.tournament.data_cache) as what commands need at once: its ids, categories and turns, the keys its rows
were read under, and the merge's report (its notes, the file's SHA-256).

Not its rows: decoding 10^6 of them back from any format (msgspec's MessagePack, marshal) costs what decoding the
JSON does, ~0.5 s, while the ids and the coded columns read back in ~0.06 s. The rows are decoded from the file's
bytes — read anyway to check its SHA-256 — when a text or a response is first asked for
(elotui.tournament.prompt_columns.RowSource): the same decoder on the same bytes gives the same rows.

An entry is MessagePack of plain values (no object identity, no interning in it): the same prompts and report make
the same bytes whoever makes them, a load or an import that writes the entry ahead
(elotui.importers.prompts_prefill).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TypeVar

import msgspec
import numpy as np

from elotui.tournament.data_files import DataReport
from elotui.tournament.prompt_columns import Coded, PromptColumns, RowSource

FORMAT = "elotui plain prompts 1"
_CODE = np.dtype("<i4")  # a coded column's codes, little-endian on every machine

V = TypeVar("V")


class Head(msgspec.Struct, array_like=True, frozen=True, forbid_unknown_fields=True):
    """What an entry says of the file its prompts come from (read before its columns: `Stored`)."""

    file: str  # the prompts file as the tournament file names it (`[data] prompts`)
    keys: dict[str, str]  # concept → the row key it is read from
    report: tuple[dict[str, str], dict[str, str], list[str], list[str], list[str]]  # DataReport's fields

    def data_report(self) -> DataReport:
        return DataReport(*self.report)


class Columns(msgspec.Struct, array_like=True, frozen=True, forbid_unknown_fields=True):
    """An entry's columns."""

    ids: list[str]
    categories: tuple[list[str | None], bytes]  # the distinct values as first met, each prompt's code
    turns: tuple[list[int | None], bytes]  # likewise (none where the rows carry no turn)


class Stored(msgspec.Struct, array_like=True, frozen=True, forbid_unknown_fields=True):
    """An entry: its head and its columns each decoded when asked for (`head`, `columns`), so that the file the
    head names can be checked while the columns are decoded."""

    form: str
    head_bytes: msgspec.Raw
    columns_bytes: msgspec.Raw

    def head(self) -> Head | None:
        return _decoded(self.head_bytes, _HEAD)

    def columns(self) -> Columns | None:
        return _decoded(self.columns_bytes, _COLUMNS)


_ENCODER = msgspec.msgpack.Encoder()
_STORED = msgspec.msgpack.Decoder(Stored)
_HEAD = msgspec.msgpack.Decoder(Head)
_COLUMNS = msgspec.msgpack.Decoder(Columns)
T = TypeVar("T")


def entry(file: str, columns: PromptColumns, report: DataReport) -> bytes:
    """The entry of the prompts file `file` read to `columns`, merged with `report` (its rows are not decoded for
    it where they were not yet)."""
    head = Head(file, dict(columns.keys), dataclasses.astuple(report))  # type: ignore[arg-type]
    turns = _coded(columns.turns()) if columns.has_turn else ([], b"")
    kept = Columns(list(columns.ids), _coded(columns.categories()), turns)
    raw = msgspec.Raw
    return _ENCODER.encode(Stored(FORMAT, raw(_ENCODER.encode(head)), raw(_ENCODER.encode(kept))))


def stored(body: bytes) -> Stored | None:
    """The entry in these bytes, or None where they hold none."""
    got = _decoded(body, _STORED)
    return got if got is not None and got.form == FORMAT else None


def columns_of(head: Head, kept: Columns, rows: RowSource) -> PromptColumns | None:
    """The prompts of an entry, their rows from `rows` (decoded when first asked for); None where its columns do not
    fit its ids."""
    n = len(kept.ids)
    categories = _column(kept.categories, n)
    turns = _column(kept.turns, n) if "turn" in head.keys else None
    if categories is None or ("turn" in head.keys and turns is None):
        return None
    return PromptColumns(rows, kept.ids, keys=head.keys, categories=categories, turns=turns)


def _decoded(body: bytes | msgspec.Raw, decoder: msgspec.msgpack.Decoder[T]) -> T | None:
    try:
        return decoder.decode(body)
    except (msgspec.DecodeError, RecursionError):
        return None


def _coded(values: Iterable[V]) -> tuple[list[V], bytes]:
    """A column as its distinct values (as first met) and each value's code."""
    column = list(values)
    names = list(dict.fromkeys(column))
    index = {name: code for code, name in enumerate(names)}
    codes = np.fromiter(map(index.__getitem__, column), dtype=_CODE, count=len(column))
    return names, codes.tobytes()


def _column(coded: tuple[list[V], bytes], n: int) -> Coded[V] | None:
    """The column `_coded` gave, or None where it is not one of `n` values."""
    names, raw = coded
    if len(raw) != n * _CODE.itemsize:
        return None
    codes = np.frombuffer(raw, dtype=_CODE)
    if n and not (0 <= int(codes.min()) and int(codes.max()) < len(names)):
        return None
    return Coded(names, codes)
