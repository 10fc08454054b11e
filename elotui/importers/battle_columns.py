"""A battle log (Chatbot Arena's) as columns: each battle's prompt, contestants and winner as integer codes, its
style counts in a numpy array, each prompt's text and category as codes; and the imported folder's files and the
store snapshot made from those columns, without a Python object per battle.

A 10^6-battle log is read a block of ~750 battles at a time (elotui.importers.source_records.Typed: `add_block`);
a battle read one by one (a line of another shape, a JSON list) is added with `add`, in its place. The prompts are
coded once every battle is read (`columns`). The files are the ones the record-by-record import wrote
(elotui.importers.common.Imported), byte for byte (tests/importers/test_arena_columns.py): every row is put
together from texts made once per distinct name, count and combination (the JSON quoting of a name that needs it is
msgspec's for the data files and elotui.verdict_log's for the verdict log), joined ~8,000 rows at a time.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property, partial
from itertools import pairwise
from typing import Any

import numpy as np
from numpy.typing import NDArray

from elotui.importers.common import _ENCODER, STYLE_FILE, ImportReport, LogCodes, Shape
from elotui.store.columns import code_names
from elotui.verdict_log import _STRING as _LOG_QUOTE
from elotui.verdict_log import write_log
from elotui.vocab import outcome_code

WINNERS = ("first", "second", "tie")  # winner codes 0, 1, 2
STYLE_NAMES = ("tokens", "headers", "lists", "bold")  # the style counts of a response, in style.jsonl's order
SIDE_A, SIDE_B = 1, 2  # the bits of `styled`: which of a battle's two responses has style counts
# rows joined into one text before it is written: ~1 MB, which the allocator hands out again and the CPU's caches
# still hold when it is encoded and written (texts of 2^16 rows, ~9 MB, were new memory each time: at 10^6 battles
# ~0.5 s more of page faults and copies)
ROWS_AT_ONCE = 1 << 13
Counts = Sequence[int]  # a response's style counts, in STYLE_NAMES order


@dataclass
class _Rows:
    """Battles added one by one since the last block (`BattleColumns.add`)."""

    first: list[int] = field(default_factory=list)
    second: list[int] = field(default_factory=list)
    winner: list[int] = field(default_factory=list)
    counts: list[Counts] = field(default_factory=list)
    styled: list[int] = field(default_factory=list)
    suffix: list[int] = field(default_factory=list)
    category: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class _Battles:
    """Battles as read, in log order: what `_Columns` holds per battle, and each battle's prompt's look."""

    first: NDArray[np.int32]
    second: NDArray[np.int32]
    winner: NDArray[np.int8]
    counts: NDArray[np.int64]  # (battles, 8): side a's STYLE_NAMES counts, then side b's (object: past int64)
    styled: NDArray[np.int8]  # SIDE_A | SIDE_B bits
    suffix: NDArray[np.int32]  # the code of the end of its prompt's text, were its prompt new
    category: NDArray[np.int32]  # the code of its prompt's category, were its prompt new (None: none)


@dataclass(frozen=True)
class _Columns:
    """All battles, in log order, and their prompts, as first met."""

    prompt: NDArray[np.int32]
    first: NDArray[np.int32]
    second: NDArray[np.int32]
    winner: NDArray[np.int8]
    counts: NDArray[np.int64]
    styled: NDArray[np.int8]
    ids: list[str]  # the prompts' ids, by code
    suffix: NDArray[
        np.int32
    ]  # per prompt: the code of the end of its text (as the battle that first names it)
    category: NDArray[np.int32]  # per prompt: the code of its category


@dataclass
class BattleColumns:
    """The battles of an import, as read (elotui.importers.common.ImportResult): one verdict of `judge` each, first
    shown the battle's model_a. A prompt's text is `text_prefix`, its id and the suffix it first came with."""

    format: str
    judge: str
    text_prefix: str
    report: ImportReport = field(default_factory=ImportReport)
    looks_like: str | None = None
    contestants: dict[str, int] = field(default_factory=dict)  # as first met: model_a, then model_b
    suffixes: dict[str, int] = field(default_factory=dict)
    categories: dict[str | None, int] = field(default_factory=dict)
    _ids: list[str] = field(
        default_factory=list
    )  # each battle's prompt id (coded once all are read: `columns`)
    _blocks: list[_Battles] = field(default_factory=list)
    _rows: _Rows = field(default_factory=_Rows)

    def add(
        self,
        prompt: str,
        first: str,
        second: str,
        winner: int,
        look: tuple[str, str | None],
        counts: tuple[Counts | None, Counts | None],
    ) -> None:
        """One battle: its prompt (`look`: the end of the prompt's text and its category, kept where the prompt is
        new), contestants, winner code and each side's style counts (None: none)."""
        rows = self._rows
        self._ids.append(prompt)
        rows.first.append(self.contestants.setdefault(first, len(self.contestants)))
        rows.second.append(self.contestants.setdefault(second, len(self.contestants)))
        rows.winner.append(winner)
        a, b = counts
        rows.counts.append([*(a or (0,) * len(STYLE_NAMES)), *(b or (0,) * len(STYLE_NAMES))])
        rows.styled.append((SIDE_A if a is not None else 0) | (SIDE_B if b is not None else 0))
        rows.suffix.append(self.suffixes.setdefault(look[0], len(self.suffixes)))
        rows.category.append(self.categories.setdefault(look[1], len(self.categories)))
        self.__dict__.pop("columns", None)

    def add_block(
        self,
        prompt: list[str],
        first: NDArray[np.int32],
        second: NDArray[np.int32],
        winner: NDArray[np.int8],
        suffix: NDArray[np.int32],
        category: NDArray[np.int32],
        counts: NDArray[np.int64],
        styled: NDArray[np.int8],
    ) -> None:
        """Battles as columns: what `add` takes, the contestants and the prompts' text ends (`suffixes`) and
        categories (`categories`) already coded."""
        self._flush()
        self._ids += prompt
        self._blocks.append(_Battles(first, second, winner, counts, styled, suffix, category))
        self.__dict__.pop("columns", None)

    def _flush(self) -> None:
        rows = self._rows
        if not rows.first:
            return
        try:
            counts = np.array(rows.counts, dtype=np.int64)
        except OverflowError:  # a count past int64: written as it is
            counts = np.array(rows.counts, dtype=object)
        self._blocks.append(
            _Battles(
                np.array(rows.first, dtype=np.int32),
                np.array(rows.second, dtype=np.int32),
                np.array(rows.winner, dtype=np.int8),
                counts.reshape(-1, 2 * len(STYLE_NAMES)),
                np.array(rows.styled, dtype=np.int8),
                np.array(rows.suffix, dtype=np.int32),
                np.array(rows.category, dtype=np.int32),
            )
        )
        self._rows = _Rows()

    @cached_property
    def columns(self) -> _Columns:
        """The battles read, their prompts coded: each battle's prompt the next code where no id comes twice (told
        by a sort of the ids' hashes), else as first met."""
        self._flush()
        blocks = self._blocks or [_no_battles()]
        b = _Battles(*(np.concatenate([getattr(k, f.name) for k in blocks]) for f in fields(_Battles)))
        self._blocks = [b]
        ids = self._ids
        if _distinct_texts(ids):
            prompt, names = np.arange(len(ids), dtype=np.int32), ids
            firsts: Any = slice(None)
        else:
            book: dict[str, int] = {}
            prompt = code_names(ids, book)
            firsts, names = np.unique(prompt, return_index=True)[1], list(book)
        return _Columns(
            prompt,
            b.first,
            b.second,
            b.winner,
            b.counts,
            b.styled,
            names,
            b.suffix[firsts],
            b.category[firsts],
        )

    @property
    def prompt_ids(self) -> list[str]:
        return self.columns.ids

    @cached_property
    def _sides(self) -> NDArray[np.int32]:
        """Each battle's two contestants in turn: side 2 * battle + 0 is model_a's, + 1 model_b's."""
        c = self.columns
        return np.stack([c.first, c.second], axis=1).reshape(-1)

    @cached_property
    def _style_rows(self) -> NDArray[np.int64]:
        """The style rows: indices into the battles' sides (2 * battle + side), the first of each prompt and
        contestant, in log order."""
        c = self.columns
        sides = np.stack([(c.styled & SIDE_A) != 0, (c.styled & SIDE_B) != 0], axis=1).reshape(-1)
        rows = np.flatnonzero(sides)
        if len(self.prompt_ids) == len(
            c.prompt
        ):  # each prompt in one battle: its two sides are two contestants
            return rows
        contestant = self._sides[rows]
        key = c.prompt[rows // 2].astype(np.int64) * max(len(self.contestants), 1) + contestant
        return rows[np.sort(np.unique(key, return_index=True)[1])]

    def style_rows(self) -> int:
        return len(self._style_rows)

    def shape(self) -> Shape:
        n = len(self.columns.prompt)
        return Shape(
            contestants=list(self.contestants),
            judges=[self.judge] if n else [],
            prompts=len(self.prompt_ids),
            verdicts=n,
            both_orders=False,
            inline_responses=True,
            style=bool(self.style_rows()),
            allow_empty=n > 0,  # the log carries no response: each is empty
            threshold="none",
        )

    def data_files(self) -> dict[str, Iterable[str]]:
        """Each file's texts, made as the file is written (a file's pieces are put together when its first text is
        asked for: while the files before it are written)."""
        files: dict[str, Iterable[str]] = {
            "prompts.jsonl": _when_read(self._prompt_texts),
            "verdicts.jsonl": _when_read(self._verdict_texts),
        }
        if self.style_rows():
            files[STYLE_FILE] = _when_read(self._style_texts)
        return files

    def log_codes(self) -> LogCodes:
        c = self.columns
        zeros = np.zeros(len(c.prompt), dtype=np.int32)
        outcomes = np.array([outcome_code("ok", w) for w in WINNERS], dtype=np.int8)
        books = [self.prompt_ids, list(self.contestants), [self.judge], ["clean"]]
        return LogCodes(
            c.prompt, c.first, c.second, zeros, zeros, books, np.zeros(1, np.int64), outcomes[c.winner]
        )

    # the files

    @cached_property
    def _quoted_ids(self) -> tuple[NDArray[np.object_], NDArray[np.object_]]:
        """The prompts' ids as JSON string contents (no quotes), by code: quoted by msgspec (the data files) and by
        elotui.verdict_log (the verdict log); the ids themselves where none needs an escape (the usual ids)."""
        names = self.prompt_ids
        joined = "".join(names)
        if joined.isprintable() and '"' not in joined and "\\" not in joined:
            plain = np.array(names, dtype=object)
            return plain, plain
        return np.array([_data_quoted(n) for n in names], dtype=object), np.array(
            [_log_quoted(n) for n in names], dtype=object
        )

    def _verdict_texts(self) -> Iterator[str]:
        """verdicts.jsonl: the rows elotui.verdict_log.write_log writes for these verdicts."""
        c = self.columns
        n_c = max(len(self.contestants), 1)
        names = list(self.contestants)
        head = _log_line_around_prompt("a", "b", self.judge, WINNERS[0])[0]

        def tail(code: int) -> str:
            pair, w = divmod(code, len(WINNERS))
            return (
                _log_line_around_prompt(names[pair // n_c], names[pair % n_c], self.judge, WINNERS[w])[1]
                + head
            )

        combo = (c.first.astype(np.int64) * n_c + c.second) * len(WINNERS) + c.winner
        return _joined(
            head, _pieces([self._quoted_ids[1][c.prompt], (*_value_codes(combo), tail)]), len(head)
        )

    def _style_texts(self) -> Iterator[str]:
        """style.jsonl: per prompt and contestant (the first counts given) `tokens`, `headers`, `lists`, `bold`."""
        c = self.columns
        rows = self._style_rows
        contestant = self._sides[rows].astype(np.int64)
        counts = c.counts.reshape(-1, len(STYLE_NAMES))[rows]
        head = '{"prompt":"'
        names = list(self.contestants)
        fields: list[Piece] = [
            self._quoted_ids[0][c.prompt[rows // 2]],
            (contestant, names, lambda n: f'","contestant":{_json(n)},"{STYLE_NAMES[0]}":'),
        ]
        for k, name in enumerate(STYLE_NAMES):
            prefix, suffix = (f',"{name}":' if k else ""), ("}\n" + head if k == len(STYLE_NAMES) - 1 else "")
            fields.append((*_value_codes(counts[:, k]), partial(_between, prefix, suffix)))
        return _joined(head, _pieces(fields), len(head))

    def _prompt_texts(self) -> Iterator[str]:
        """prompts.jsonl: `id`, `text`, `category` where there is one, and the `responses` table (each contestant
        of the prompt's battles, as first met: an empty response)."""
        c = self.columns
        head = '{"id":"'
        ids = self._quoted_ids[0]
        middle = f'","text":"{_data_quoted(self.text_prefix)}'
        fields: list[Piece] = [
            ids,
            (np.zeros(len(ids), dtype=np.int64), [middle], str),
            ids,
            (c.suffix.astype(np.int64), list(self.suffixes), lambda s: _data_quoted(s) + '"'),
            (
                c.category.astype(np.int64),
                list(self.categories),
                lambda k: f',"category":{_json(k)}' if k else "",
            ),
            (*self._response_tables(), lambda t: f',"responses":{{{t}}}}}\n{head}'),
        ]
        return _joined(head, _pieces(fields), len(head))

    def _response_tables(self) -> tuple[NDArray[np.int64], Sequence[Any]]:
        """Each prompt's responses table, and the table by code (`"model":""`, as first met)."""
        c = self.columns
        n_c = max(len(self.contestants), 1)
        names = [_json(n) + ':""' for n in self.contestants]
        if len(self.prompt_ids) == len(
            c.prompt
        ):  # each prompt in one battle (prompt i in battle i): its two sides
            pair, by_code = _value_codes(c.first.astype(np.int64) * n_c + c.second)
            return pair, [f"{names[k // n_c]},{names[k % n_c]}" for k in by_code]
        side = self._sides
        prompt = np.repeat(c.prompt, 2)
        firsts = np.sort(np.unique(prompt.astype(np.int64) * n_c + side, return_index=True)[1])
        by_prompt = firsts[np.argsort(prompt[firsts], kind="stable")]
        bounds = np.searchsorted(prompt[by_prompt], np.arange(len(self.prompt_ids) + 1)).tolist()
        members = side[by_prompt].tolist()
        book: dict[tuple[int, ...], int] = {}
        table = np.fromiter(
            (book.setdefault(tuple(members[i:j]), len(book)) for i, j in pairwise(bounds)),
            dtype=np.int64,
            count=len(self.prompt_ids),
        )
        return table, [",".join(names[m] for m in members) for members in book]


def _when_read(texts: Callable[[], Iterator[str]]) -> Iterator[str]:
    yield from texts()


def _no_battles() -> _Battles:
    z = np.zeros(0, dtype=np.int32)
    return _Battles(
        z, z, z.astype(np.int8), np.zeros((0, 2 * len(STYLE_NAMES)), np.int64), z.astype(np.int8), z, z
    )


def _distinct_texts(texts: list[str]) -> bool:
    """Whether no text comes twice (False also where two hashes meet: then the texts are coded one by one)."""
    hashes = np.fromiter(map(hash, texts), dtype=np.int64, count=len(texts))
    hashes.sort()
    return not bool(np.any(hashes[1:] == hashes[:-1]))


def _json(text: str) -> str:
    """A name quoted as msgspec quotes it (the data files' encoder)."""
    return _ENCODER.encode(text).decode("utf-8")


def _data_quoted(text: str) -> str:
    return _json(text)[1:-1]


def _log_quoted(text: str) -> str:
    return _LOG_QUOTE(text)[1:-1]  # type: ignore[no-any-return]


_PROMPT_MARK = "\x00prompt"


def _log_line_around_prompt(first: str, second: str, judge: str, winner: str) -> tuple[str, str]:
    """The verdict log's line of one verdict (elotui.verdict_log.write_log), split around its prompt's string
    contents: the text before it and the text after it."""
    buf = io.StringIO()
    write_log([(_PROMPT_MARK, first, second, judge, "clean", 0, winner, None, "ok")], buf)  # type: ignore[list-item]
    line, mark = buf.getvalue(), _log_quoted(_PROMPT_MARK)
    at = line.index(mark)
    return line[:at], line[at + len(mark) :]


# a column of the rows' texts, or a field: each row's code, the value by code, and the value's text
Piece = NDArray[np.object_] | tuple[NDArray[np.int64], Sequence[Any], Callable[[Any], str]]


def _value_codes(values: NDArray[Any]) -> tuple[NDArray[np.int64], Sequence[Any]]:
    """Each value's code, and the value by code: the value itself for small whole numbers."""
    if values.dtype != object and len(values) and 0 <= values.min() and values.max() < 1 << 16:
        return values.astype(np.int64), range(int(values.max()) + 1)
    distinct, of_value = np.unique(values, return_inverse=True)
    return of_value.reshape(-1).astype(np.int64), distinct.tolist()


def _pieces(pieces: list[Piece]) -> list[NDArray[np.object_]]:
    """The rows' texts as columns: a column as it is; consecutive fields made one column where their distinct
    combinations stay few (a 256th of the rows: each text is made once per combination, in Python)."""
    out: list[NDArray[np.object_]] = []
    group: list[tuple[NDArray[np.int64], Sequence[Any], Callable[[Any], str]]] = []
    code, space = np.zeros(0, dtype=np.int64), 1
    for piece in pieces:
        if not isinstance(piece, tuple):
            if group:
                out.append(_group_texts(group, code, space))
            out.append(piece)
            group = []
            continue
        codes, by_code, _ = piece
        size = max(len(by_code), 1)
        if group:
            joined = code * size + codes
            if space * size <= 1 << 22 and _distinct(joined, space * size) <= max(len(codes) // 256, 64):
                group.append(piece)
                code, space = joined, space * size
                continue
            out.append(_group_texts(group, code, space))
        group, code, space = [piece], codes, size
    if group:
        out.append(_group_texts(group, code, space))
    return out


def _between(prefix: str, suffix: str, value: Any) -> str:
    return f"{prefix}{value}{suffix}"


def _distinct(code: NDArray[np.int64], space: int) -> int:
    return int(np.count_nonzero(np.bincount(code, minlength=space)))


def _group_texts(
    group: list[tuple[NDArray[np.int64], Sequence[Any], Callable[[Any], str]]],
    code: NDArray[np.int64],
    space: int,
) -> NDArray[np.object_]:
    """Each row's text of the fields in `group` (its combined `code`), made once per combination."""

    def text_of(combined: int) -> str:
        parts = []
        for _, by_code, text in reversed(group):
            combined, k = divmod(combined, max(len(by_code), 1))
            parts.append(text(by_code[k]))
        return "".join(reversed(parts))

    if space <= 4 * len(code) + 4096:
        used = np.flatnonzero(np.bincount(code, minlength=space))
        table = np.empty(space, dtype=object)
        table[used] = [text_of(c) for c in used.tolist()]
        return table[code]  # type: ignore[no-any-return]
    distinct, of_code = np.unique(code, return_inverse=True)
    return np.array([text_of(c) for c in distinct.tolist()], dtype=object)[of_code.reshape(-1)]  # type: ignore[no-any-return]


def _joined(head: str, columns: list[NDArray[np.object_]], cut: int) -> Iterator[str]:
    """The rows' texts: `head`, then each row's pieces (one per column) in turn, ROWS_AT_ONCE rows per text; the
    last row's piece ends with the next row's head, `cut` characters taken off the end of the last text."""
    n = len(columns[0])
    if not n:
        return
    yield head
    pieces = np.empty(len(columns) * min(n, ROWS_AT_ONCE), dtype=object)
    for start in range(0, n, ROWS_AT_ONCE):
        end = min(n, start + ROWS_AT_ONCE)
        part = pieces[: len(columns) * (end - start)]
        for k, column in enumerate(columns):
            part[k :: len(columns)] = column[start:end]
        text = "".join(part.tolist())
        yield text[:-cut] if end == n and cut else text
