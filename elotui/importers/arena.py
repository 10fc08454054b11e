"""`elotui import arena`: Chatbot Arena battle logs (FastChat's `clean_battle*.json`: a JSON list, or JSON Lines).

A battle: `model_a`, `model_b`, `winner` (`model_a`, `model_b`, `tie` or `tie (bothbad)`), `question_id`,
`turn`, `language`, and `conv_metadata` with `sum_assistant_a_tokens`, `header_count_a`, `list_count_a`,
`bold_count_a` and their `_b` twins (a count, or a table of counts that are summed, as FastChat does). One battle
is one verdict of judge `human`, model_a shown first; a tie of either kind is a tie. The prompt is the battle's
`question_id` (its category: the `language`); the log carries no texts, so a prompt's text names the battle and
its responses are empty (in the prompts' rows). The style counts go to `style.jsonl` for `[ranking] style_control`.

The battles are kept as columns (elotui.importers.battle_columns). A JSON Lines file is decoded a block of lines at
a time (elotui.importers.source_records.Typed) into typed records whose count tables have FastChat's keys
(`_BlockBattle`, its names read as literals of the names met: `_BlockDecoder`) and taken as columns (`_block`: each
kind of battle coded once, the counts read through one MessagePack encoding of the block's tables); a block with
anything else in it (another key or type, a malformed battle, a count that is not a whole number) is read line by
line: typed (`_Battle`) where it can be, else the general way (`one`), which gives every message and line number.
"""

from __future__ import annotations

import struct
from operator import attrgetter
from pathlib import Path
from typing import Any, Literal

import msgspec
import numpy as np
from msgspec.structs import astuple
from numpy.typing import NDArray

from elotui.importers.battle_columns import STYLE_NAMES, WINNERS, BattleColumns
from elotui.importers.common import BadRecord, Typed, need_object, need_text, read_each

JUDGE = "human"
WINNER_CODES = {"model_a": 0, "model_b": 1, "tie": 2, "tie (bothbad)": 2}  # codes of battle_columns.WINNERS
STYLE_KEYS = dict(
    zip(
        STYLE_NAMES,
        ("sum_assistant_{}_tokens", "header_count_{}", "list_count_{}", "bold_count_{}"),
        strict=True,
    )
)
TEXT_PREFIX = "Chatbot Arena battle "


Count = int | float | dict[str, int | float]


class _Metadata(msgspec.Struct):
    """The part of `conv_metadata` style control reads (a line read typed: `Typed`)."""

    sum_assistant_a_tokens: Count | None = None
    header_count_a: Count | None = None
    list_count_a: Count | None = None
    bold_count_a: Count | None = None
    sum_assistant_b_tokens: Count | None = None
    header_count_b: Count | None = None
    list_count_b: Count | None = None
    bold_count_b: Count | None = None


class _Battle(msgspec.Struct):
    """The fields of a battle the import reads; a line with another type in them is read the general way."""

    model_a: str
    model_b: str
    winner: str
    question_id: str | int | None = None
    turn: int | float | None = None
    language: str | None = None
    conv_metadata: _Metadata | None = None


class _Headers(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """FastChat's `header_count_*` table (a block read typed: anything else is read line by line)."""

    h1: int = 0
    h2: int = 0
    h3: int = 0
    h4: int = 0
    h5: int = 0
    h6: int = 0


class _Lists(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    ordered: int = 0
    unordered: int = 0


class _Bold(
    msgspec.Struct, forbid_unknown_fields=True, gc=False, rename={"stars": "**", "underscores": "__"}
):
    stars: int = 0
    underscores: int = 0


class _BlockMetadata(msgspec.Struct, gc=False):
    """`conv_metadata`'s counts as FastChat writes them: each given, a number or a table of them. The tokens and a
    count given as a plain number are read as floats: a MessagePack double, at a fixed width (`_block_counts`); a
    count that is not a whole number below 2^50 sends its block to the line-by-line reading."""

    sum_assistant_a_tokens: float
    header_count_a: float | _Headers
    list_count_a: float | _Lists
    bold_count_a: float | _Bold
    sum_assistant_b_tokens: float
    header_count_b: float | _Headers
    list_count_b: float | _Lists
    bold_count_b: float | _Bold


class _BlockBattle(msgspec.Struct, gc=False):
    model_a: str
    model_b: str
    winner: str
    question_id: str | int | None = None
    turn: int | None = None
    language: str | None = None
    conv_metadata: _BlockMetadata | None = None


class _BlockDecoder:
    """Decodes a block of battles (`_BlockBattle`), the model names, winners and languages read as literals of the
    values met so far: a value met again is the same string (no string made, its hash known). A block with a value
    not met yet is decoded again with strings, and its values are met."""

    def __init__(self) -> None:
        self.models: dict[str, None] = {}
        self.languages: dict[str, None] = {}
        self.known: msgspec.json.Decoder[Any] | None = None

    def decode(self, lines: memoryview) -> list[Any]:
        if self.known is not None:
            try:
                return self.known.decode_lines(lines)
            except msgspec.ValidationError:
                pass
        records = _GENERAL_BLOCK.decode_lines(lines)
        models, languages = len(self.models), len(self.languages)
        for record in records:
            self.models[record.model_a] = self.models[record.model_b] = None
            if record.language is not None:
                self.languages[record.language] = None
        if self.known is None or (models, languages) != (len(self.models), len(self.languages)):
            self.known = msgspec.json.Decoder(self._type())
        return records

    def _type(self) -> type[Any]:
        fields = {f.name: (f.type, f.default) for f in msgspec.structs.fields(_BlockBattle)}
        fields["model_a"] = fields["model_b"] = (Literal[tuple(self.models)], msgspec.NODEFAULT)
        fields["winner"] = (Literal[tuple(WINNER_CODES)], msgspec.NODEFAULT)
        if self.languages:
            fields["language"] = (Literal[tuple(self.languages)] | None, None)
        return msgspec.defstruct(
            "_KnownBattle",
            [(n, t, d) if d is not msgspec.NODEFAULT else (n, t) for n, (t, d) in fields.items()],
            gc=False,
        )


def import_files(paths: list[Path], *, skip_bad: bool) -> BattleColumns:
    battles = BattleColumns(format="arena", judge=JUDGE, text_prefix=TEXT_PREFIX)
    seen: dict[str, int] = {}

    def fast(cols: BattleColumns, battle: _Battle) -> bool:
        """A typed battle (the general `one` below, for a battle that needs no message); False: leave it to `one`."""
        a, b, winner = battle.model_a, battle.model_b, WINNER_CODES.get(battle.winner)
        if not a or not b or a == b or winner is None:
            return False
        metadata = battle.conv_metadata
        counts = None if metadata is None else _counts(metadata)
        if metadata is not None and counts is None:
            return False
        qid = (
            str(battle.question_id) if battle.question_id not in (None, "") else f"battle-{cols.report.read}"
        )
        cols.add(qid, a, b, winner, _look(battle.turn, battle.language), counts or (None, None))
        _seen(seen, [winner])
        return True

    def one(cols: BattleColumns, where: str, record: Any) -> None:
        battle = need_object(record)
        a, b = need_text(battle, "model_a"), need_text(battle, "model_b")
        if a == b:
            raise BadRecord(f"model_a and model_b are the same model ({a!r})")
        winner = WINNER_CODES.get(battle.get("winner"))  # type: ignore[arg-type]
        if winner is None:
            raise BadRecord(
                f"`winner` must be one of {', '.join(WINNER_CODES)} (got {battle.get('winner')!r})"
            )
        qid = (
            str(battle["question_id"])
            if battle.get("question_id") not in (None, "")
            else f"battle-{cols.report.read}"
        )
        metadata = battle.get("conv_metadata")
        sides: list[tuple[int, ...] | None] = [None, None]
        if isinstance(metadata, dict):  # a count that is not one skips the battle whole (`--skip-bad`)
            for k, side in enumerate("ab"):
                sides[k] = tuple(_count(metadata, key.format(side)) for key in STYLE_KEYS.values())
        cols.add(qid, a, b, winner, _look(battle.get("turn"), battle.get("language")), (sides[0], sides[1]))
        _seen(seen, [winner])

    kinds = _Kinds()

    def block(cols: BattleColumns, records: list[_BlockBattle]) -> bool:
        taken = _block(cols, kinds, records)
        if taken is None:
            return False
        counts = np.bincount(taken, minlength=len(WINNERS))
        for _, w in sorted((int(np.argmax(taken == w)), w) for w in range(len(WINNERS)) if counts[w]):
            seen[WINNERS[w]] = seen.get(WINNERS[w], 0) + int(counts[w])
        return True

    typed = Typed(msgspec.json.Decoder(_Battle), fast, _BlockDecoder().decode, block)
    read_each(battles, paths, one, skip_bad=skip_bad, typed=typed)
    battles.report.mapped.append(
        f"each battle: one verdict of judge {JUDGE!r}, model_a shown first "
        f"({', '.join(f'{n:,} {w}' for w, n in seen.items())}); `tie (bothbad)` is a tie"
    )
    if battles.style_rows():
        battles.report.mapped.append(
            f"conv_metadata style counts of {battles.style_rows():,} responses: style.jsonl"
        )
    return battles


def _seen(seen: dict[str, int], winners: list[int]) -> None:
    for w in winners:
        seen[WINNERS[w]] = seen.get(WINNERS[w], 0) + 1


def _look(turns: Any, language: Any) -> tuple[str, str | None]:
    """The end of a battle's prompt text (its number of turns, where it is a whole number) and its category."""
    return (
        f" ({turns} turn(s))" if isinstance(turns, int) else "",
        language if isinstance(language, str) and language else None,
    )


def _count(metadata: dict[str, Any], key: str) -> int:
    value = metadata.get(key)
    if isinstance(value, dict):
        value = sum(v for v in value.values() if isinstance(v, (int, float)) and not isinstance(v, bool))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadRecord(f"conv_metadata.{key} must be a count or a table of counts (got {value!r})")
    return int(value)


_SIDES = tuple(tuple(key.format(side) for key in STYLE_KEYS.values()) for side in "ab")


def _counts(metadata: _Metadata) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The style counts of sides a and b, as `_count` makes them; None where one is missing: `_count` says why."""
    out = []
    for keys in _SIDES:
        values = [getattr(metadata, key) for key in keys]
        if any(v is None for v in values):
            return None
        out.append(tuple(int(sum(v.values())) if type(v) is dict else int(v) for v in values))
    return out[0], out[1]


_GENERAL_BLOCK = msgspec.json.Decoder(_BlockBattle)
_BATTLE = attrgetter("model_a", "model_b", "winner", "turn", "language")


class _Kinds:
    """The kinds of battle met so far, (model_a, model_b, winner, turn, language), each with its codes: first,
    second, winner, and the prompt text's end and category (`_look`)."""

    def __init__(self) -> None:
        self.row: dict[tuple[Any, ...], int] = {}
        self.codes = np.zeros((0, 5), dtype=np.int32)

    def rows(self, keys: list[tuple[Any, ...]]) -> NDArray[np.int32] | None:
        """Each battle's kind, or None where one is new."""
        try:
            return np.fromiter(map(self.row.__getitem__, keys), dtype=np.int32, count=len(keys))
        except KeyError:
            return None

    def new(self, keys: list[tuple[Any, ...]]) -> list[tuple[Any, ...]] | None:
        """The kinds not met yet, as first met; None where one needs a message (the line-by-line reading)."""
        new = [k for k in dict.fromkeys(keys) if k not in self.row]
        return (
            None if any(not a or not b or a == b or w not in WINNER_CODES for a, b, w, _, _ in new) else new
        )

    def add(self, cols: BattleColumns, new: list[tuple[Any, ...]]) -> None:
        book = cols.contestants
        rows = [
            (
                book.setdefault(a, len(book)),
                book.setdefault(b, len(book)),
                WINNER_CODES[w],
                *_look_codes(cols, *_look(turn, language)),
            )
            for a, b, w, turn, language in new
        ]
        self.row.update(zip(new, range(len(self.row), len(self.row) + len(new)), strict=True))
        self.codes = np.concatenate([self.codes, np.array(rows, dtype=np.int32).reshape(-1, 5)])


def _block(cols: BattleColumns, kinds: _Kinds, records: list[Any]) -> NDArray[np.int8] | None:
    """Add a block of typed battles (their winner codes), or None where a battle needs the line-by-line reading
    (a message, a count that is not a whole number below 2^50): nothing is added then."""
    keys = list(map(_BATTLE, records))
    rows = kinds.rows(keys)
    new = None if rows is not None else kinds.new(keys)
    if rows is None and new is None:
        return None
    counts = _block_counts(list(map(attrgetter("conv_metadata"), records)))
    if counts is None:
        return None
    if rows is None:
        kinds.add(cols, new or [])
        rows = kinds.rows(keys)
    battle = kinds.codes[rows]
    prompts = _prompt_ids(list(map(attrgetter("question_id"), records)), cols.report.read)
    winner = battle[:, 2].astype(np.int8)
    cols.add_block(prompts, battle[:, 0], battle[:, 1], winner, battle[:, 3], battle[:, 4], *counts)
    return winner


def _look_codes(cols: BattleColumns, suffix: str, category: str | None) -> tuple[int, int]:
    return cols.suffixes.setdefault(suffix, len(cols.suffixes)), cols.categories.setdefault(
        category, len(cols.categories)
    )


def _prompt_ids(qids: list[str | int | None], read: int) -> list[str]:
    """The battles' prompt ids: the question_id, or for a battle without one `battle-N` (N: its record's number)."""
    try:
        "".join(qids)  # type: ignore[arg-type]
        if "" not in qids:
            return qids  # type: ignore[return-value]
    except TypeError:
        pass
    return [str(q) if q not in (None, "") else f"battle-{read + i}" for i, q in enumerate(qids, 1)]


_MSGPACK = msgspec.msgpack.Encoder()
_LEAVES = (
    len(msgspec.structs.fields(_Headers))
    + len(msgspec.structs.fields(_Lists))
    + len(msgspec.structs.fields(_Bold))
)
_PER_SIDE = 1 + _LEAVES  # the tokens, then each table's counts
_TABLES = (_Headers, _Lists, _Bold)
_SIZES = {t: len(msgspec.structs.fields(t)) for t in _TABLES}


def _record_layout() -> tuple[int, NDArray[np.intp], NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
    """Where a `_BlockMetadata`'s counts sit in its MessagePack encoding when every count but the tokens is a table
    of small whole numbers (-32 to 127: one byte each): the encoding's length; the bytes that tell this shape (the
    record's and each table's header: a plain number or a wider count moves or changes them); the counts' bytes (the
    tokens' 8-byte doubles, the tables' one-byte numbers, in `_PER_SIDE` order); and where the counts of each style
    count start (they add up to it: by STYLE_NAMES, side a then side b)."""

    def encoded(count: int) -> bytes:
        headers, lists, bold = _Headers(*[count] * 6), _Lists(count, count), _Bold(count, count)
        return _MSGPACK.encode(_BlockMetadata(0.5, headers, lists, bold, 1.5, headers, lists, bold))

    one, two = encoded(1), encoded(2)
    small = [i for i in range(len(one)) if one[i] != two[i]]
    tokens = [one.index(struct.pack(">d", t)) for t in (0.5, 1.5)]
    counts = sorted([*small, *tokens])  # the fields' order: each side's tokens, then its tables' counts
    headers = [
        i for i, byte in enumerate(one) if 0x80 <= byte <= 0x8F
    ]  # maps (no key, count or token has one)
    sizes = [1] + [_SIZES[t] for t in _TABLES]
    starts = np.cumsum([0] + sizes * 2)[:-1]
    return len(one), np.array(headers), np.array(small), np.array(counts), starts


_RECORD, _SHAPE_BYTES, _SMALL_BYTES, _COUNT_AT, _STARTS = _record_layout()
_TOKENS_AT = np.flatnonzero(~np.isin(_COUNT_AT, _SMALL_BYTES))  # the tokens among the counts
_TOKEN_BYTES = (_COUNT_AT[_TOKENS_AT][:, None] + np.arange(8)).reshape(-1)
_WHOLE = 2.0**50  # whole numbers below this, and sums of a few of them, are exact as doubles


def _block_counts(metadata: list[_BlockMetadata | None]) -> tuple[NDArray[np.int64], NDArray[np.int8]] | None:
    """The battles' style counts (sides a and b, STYLE_NAMES order) and which battles have them (SIDE_A | SIDE_B
    bits); None where a count is not a whole number below 2^50. The counts of a block are encoded at once
    (MessagePack, `_record_layout`) and read as numpy columns."""
    n = len(metadata)
    styled = np.full(n, 3, dtype=np.int8)
    try:
        leaves = _leaves(metadata)
        if leaves is None:  # a battle without conv_metadata, a count that is a plain number or a larger one
            styled = np.fromiter((m is not None for m in metadata), dtype=bool, count=n).astype(np.int8) * 3
            given = [m for m in metadata if m is not None]
            leaves = _leaves(given)
            if leaves is None:
                leaves = _leaves_one_by_one(given)
    except OverflowError:  # a count past 64 bits
        return None
    if len(leaves) and (np.abs(leaves).max() >= _WHOLE or np.any(leaves != np.floor(leaves))):
        return None  # (a table's counts, read as one-byte numbers, always pass)
    counts = np.zeros((n, len(_STARTS)), dtype=np.int64)
    if len(leaves):  # (a sum by ufunc: a matrix product would wake BLAS threads)
        counts[styled != 0] = np.add.reduceat(leaves, _STARTS, axis=1).astype(np.int64)
    return counts, styled


_TEMPLATE = np.frombuffer(
    _MSGPACK.encode(_BlockMetadata(0.0, _Headers(), _Lists(), _Bold(), 0.0, _Headers(), _Lists(), _Bold())),
    dtype=np.uint8,
)


def _leaves(metadata: list[Any]) -> NDArray[np.float64] | None:
    """Every count of each battle (`_record_layout`'s order), or None where a battle has another shape."""
    encoded = _MSGPACK.encode(metadata)
    n = len(metadata)
    head = 1 if n < 16 else 3 if n < 1 << 16 else 5  # the array's header
    if len(encoded) != head + n * _RECORD:
        return None
    records = np.frombuffer(encoded, dtype=np.uint8, offset=head).reshape(n, _RECORD)
    small = records[:, _SMALL_BYTES]
    if not np.array_equal(
        records[:, _SHAPE_BYTES], np.broadcast_to(_TEMPLATE[_SHAPE_BYTES], (n, len(_SHAPE_BYTES)))
    ):
        return None
    if np.any((small >= 0x80) & (small < 0xE0)):  # a count wider than a byte
        return None
    leaves = np.empty((n, len(_COUNT_AT)))
    leaves[:, _TOKENS_AT] = np.ascontiguousarray(records[:, _TOKEN_BYTES]).view(">f8")
    leaves[:, np.isin(_COUNT_AT, _SMALL_BYTES)] = small.view(np.int8)
    return leaves


def _leaves_one_by_one(metadata: list[_BlockMetadata]) -> NDArray[np.float64]:
    """`_leaves` where a count is a plain number: it stands for its table (its first count, the others 0)."""
    rows = []
    for m in metadata:
        row: list[float] = []
        for value, table in zip(astuple(m), (None, *_TABLES) * 2, strict=True):
            if table is None:
                row.append(value)
            elif type(value) is float:
                row += [value] + [0.0] * (_SIZES[table] - 1)
            else:
                row += astuple(value)
        rows.append(row)
    return np.array(rows, dtype=np.float64).reshape(-1, 2 * _PER_SIDE)
