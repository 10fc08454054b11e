"""`elotui import arena`: Chatbot Arena battle logs (FastChat's `clean_battle*.json`: a JSON list, or JSON Lines).

A battle: `model_a`, `model_b`, `winner` (`model_a`, `model_b`, `tie` or `tie (bothbad)`), `question_id`,
`turn`, `language`, and `conv_metadata` with `sum_assistant_a_tokens`, `header_count_a`, `list_count_a`,
`bold_count_a` and their `_b` twins (a count, or a table of counts that are summed, as FastChat does). One battle
is one verdict of judge `human`, model_a shown first; a tie of either kind is a tie. The prompt is the battle's
`question_id` (its category: the `language`); the log carries no texts, so a prompt's text names the battle and
its responses are empty (in the prompts' rows). The style counts go to `style.jsonl` for `[ranking] style_control`.

The battles are kept as columns (elotui.importers.battle_columns). A JSON Lines file is decoded a block of lines at
a time into typed records whose count tables have FastChat's keys (`_BlockBattle`: ~1.5 s for 10^6 battles) and
taken as columns; a block with anything else in it (another key or type, a malformed battle) is read line by line:
typed (`_Battle`) where it can be, else the general way (`one`), which gives every message and line number.
"""

from __future__ import annotations

from itertools import repeat
from operator import attrgetter, eq
from pathlib import Path
from typing import Any

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
    """`conv_metadata`'s counts as FastChat writes them: each given, a whole number or a table of them."""

    sum_assistant_a_tokens: int
    header_count_a: int | _Headers
    list_count_a: int | _Lists
    bold_count_a: int | _Bold
    sum_assistant_b_tokens: int
    header_count_b: int | _Headers
    list_count_b: int | _Lists
    bold_count_b: int | _Bold


class _BlockBattle(msgspec.Struct, gc=False):
    model_a: str
    model_b: str
    winner: str
    question_id: str | int | None = None
    turn: int | float | None = None
    language: str | None = None
    conv_metadata: _BlockMetadata | None = None


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
        try:
            if isinstance(metadata, dict):
                for k, side in enumerate("ab"):
                    sides[k] = tuple(_count(metadata, key.format(side)) for key in STYLE_KEYS.values())
        finally:  # a count that is not one: the battle stays, with the side before it (the records' reading did so)
            cols.add(
                qid, a, b, winner, _look(battle.get("turn"), battle.get("language")), (sides[0], sides[1])
            )
        _seen(seen, [winner])

    def block(cols: BattleColumns, records: list[_BlockBattle]) -> bool:
        taken = _block(cols, records)
        if taken is None:
            return False
        counts = np.bincount(taken, minlength=len(WINNERS))
        for _, w in sorted((int(np.argmax(taken == w)), w) for w in range(len(WINNERS)) if counts[w]):
            seen[WINNERS[w]] = seen.get(WINNERS[w], 0) + int(counts[w])
        return True

    typed = Typed(msgspec.json.Decoder(_Battle), fast, msgspec.json.Decoder(_BlockBattle), block)
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


_FIELDS = attrgetter("model_a", "model_b", "winner", "question_id", "turn", "language", "conv_metadata")


def _block(cols: BattleColumns, records: list[_BlockBattle]) -> NDArray[np.int8] | None:
    """Add a block of typed battles (their winner codes), or None where a battle needs the line-by-line reading
    (a message, a count past int64): nothing is added then."""
    if not records:
        return np.zeros(0, dtype=np.int8)
    a, b, winners, qids, turns, languages, metadata = zip(*map(_FIELDS, records), strict=True)
    winner = np.fromiter(map(WINNER_CODES.get, winners, repeat(-1)), dtype=np.int8, count=len(records))
    if "" in a or "" in b or any(map(eq, a, b)) or winner.min() < 0:
        return None
    try:
        counts, styled = _block_counts(metadata)
    except OverflowError:
        return None
    prompts = _prompt_ids(qids, cols.report.read)
    cols.add_block(prompts, list(a), list(b), winner, _looks(turns, languages), counts, styled)
    return winner


def _prompt_ids(qids: tuple[str | int | None, ...], read: int) -> list[str]:
    """The battles' prompt ids: the question_id, or for a battle without one `battle-N` (N: its record's number)."""
    try:
        "".join(qids)  # type: ignore[arg-type]
        if "" not in qids:
            return list(qids)  # type: ignore[arg-type]
    except TypeError:
        pass
    return [str(q) if q not in (None, "") else f"battle-{read + i}" for i, q in enumerate(qids, 1)]


def _looks(turns: tuple[Any, ...], languages: tuple[str | None, ...]) -> tuple[list[str], list[str | None]]:
    """Each battle's `_look`, worked out once per distinct turn count and language."""
    kinds = set(map(type, turns))
    if int in kinds and float in kinds:  # 1 and 1.0 are one key: apart, one by one
        suffixes = [_look(t, None)[0] for t in turns]
    else:
        of_turn = {t: _look(t, None)[0] for t in dict.fromkeys(turns)}
        suffixes = list(map(of_turn.__getitem__, turns))
    of_language = {x: _look(None, x)[1] for x in dict.fromkeys(languages)}
    return suffixes, list(map(of_language.__getitem__, languages))


def _block_counts(metadata: tuple[_BlockMetadata | None, ...]) -> tuple[NDArray[Any], NDArray[np.int8]]:
    """The battles' style counts (sides a and b, STYLE_NAMES order) and which battles have them. OverflowError: a
    count past int64."""
    n = len(metadata)
    styled = np.fromiter((m is not None for m in metadata), dtype=bool, count=n)
    given = metadata if styled.all() else tuple(m for m in metadata if m is not None)
    counts = np.zeros((n, 2 * len(STYLE_NAMES)), dtype=np.int64)
    for k, key in enumerate(key for keys in _SIDES for key in keys):
        counts[styled, k] = _summed(list(map(attrgetter(key), given)))
    return counts, (styled * 3).astype(np.int8)


def _summed(values: list[Any]) -> NDArray[np.int64]:
    """Each count, a table of counts summed."""
    try:
        return np.fromiter(values, dtype=np.int64, count=len(values))
    except TypeError:
        pass
    try:
        return np.fromiter(map(sum, map(astuple, values)), dtype=np.int64, count=len(values))
    except TypeError:  # whole numbers among the tables
        return np.fromiter(
            (v if type(v) is int else sum(astuple(v)) for v in values), dtype=np.int64, count=len(values)
        )
