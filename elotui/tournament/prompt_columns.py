"""Prompts held column-wise, and the views through which they answer as per-prompt objects would.

A prompts file of plain rows (elotui.tournament.plain_prompts) is kept as its decoded rows plus an id column, not as
one PromptConfig and a few dicts per prompt: at 10^6 prompts those took seconds to build and about a gigabyte to
hold, while a command such as `export` asks only for the ids. What the tournament offers stays as it was:

- `PromptSequence`, the tournament file's `prompts` (a sequence of PromptConfig), builds each prompt when asked for
  it from the values and keys the row-by-row merge (elotui.tournament.data_files) gives that prompt (validated as
  that merge's prompts are: ~2 µs a prompt);
- `ResponseTable`, the tournament's responses ((prompt id, contestant) → text), reads them from the rows, in the
  order the row-by-row merge puts them (the prompts' order, each row's contestants in the row's order).

The rows may come later than the ids: prompts read back from the data cache (elotui.tournament.prompt_index) hold
the ids, categories and turns as columns of their own and decode the rows from the file's bytes (`RowSource`) only
when a text or a response is first asked for (the same decoder on the same bytes: the same rows); a command that
asks for neither, such as `export`, never decodes them.
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterator, Mapping, Sequence, ValuesView
from itertools import chain, compress, repeat
from operator import attrgetter
from typing import Any, Generic, Protocol, TypeVar, overload

import numpy as np
from numpy.typing import NDArray

T = TypeVar("T")

# what a row answers when the file's rows carry no responses (never written to)
_NO_RESPONSES: dict[str, str] = {}


class RowSource(Protocol):
    """Where rows not yet decoded come from: all of them (in the file's order), or the first one alone."""

    def all(self) -> list[Any]: ...

    def first(self) -> Any: ...


class Coded(Generic[T]):
    """A column given coded: its distinct values (in any order, repeats allowed) and each prompt's value's code;
    made into a list when first read whole."""

    __slots__ = ("_list", "codes", "values")

    def __init__(self, values: list[T], codes: NDArray[np.integer[Any]]) -> None:
        self.values, self.codes = values, codes
        self._list: list[T] | None = None

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, position: int) -> T:
        return self.values[self.codes[position]]

    def column(self) -> list[T]:
        """Each prompt's value (the values themselves, not copies)."""
        if self._list is None:
            book = np.empty(len(self.values), dtype=object)
            book[:] = self.values
            self._list = book[self.codes].tolist()
        return self._list

    def counts(self) -> list[int]:
        """How many prompts have each value (by code)."""
        return np.bincount(self.codes, minlength=len(self.values)).tolist()  # type: ignore[no-any-return]


class PromptColumns:
    """The prompts of a prompts file of plain rows, in the file's order. `rows` are the decoded rows (a list, or a
    RowSource that decodes them when first needed), each with the attributes `id`, `text`, `category` and, where
    the file's rows carry them, `responses` (contestant → text) and `turn`; `ids` is their id column (ids unique,
    non-empty, without surrounding blanks); `keys`: concept → the row key each attribute was read from
    (elotui.tournament.plain_prompts). `categories`, `turns` and `responses`, where given, are those columns as the
    rows give them, answered without the rows. A category given as "" is no category, as the row-by-row merge reads
    it."""

    __slots__ = (
        "_categories",
        "_category_column",
        "_response_column",
        "_rows",
        "_source",
        "_turn_column",
        "_turns",
        "has_responses",
        "has_turn",
        "ids",
        "keys",
    )

    def __init__(
        self,
        rows: list[Any] | RowSource,
        ids: list[str],
        *,
        keys: Mapping[str, str],
        categories: Coded[str | None] | None = None,
        turns: Coded[int | None] | None = None,
        responses: Coded[dict[str, str]] | None = None,
    ) -> None:
        self._rows: list[Any] | None = rows if isinstance(rows, list) else None
        self._source: RowSource | None = None if isinstance(rows, list) else rows
        self.ids = ids
        self.keys = dict(keys)
        self.has_responses = "responses" in keys
        self.has_turn = "turn" in keys
        self._category_column = categories
        self._turn_column = turns
        self._response_column = responses
        self._categories: dict[str, str] | None = None
        self._turns: dict[str, int | None] | None = None

    @property
    def rows(self) -> list[Any]:
        """The decoded rows (decoded now where they were not yet)."""
        if self._rows is None:
            assert self._source is not None
            self._rows, self._source = self._source.all(), None
        return self._rows

    def _row(self, position: int) -> Any:
        """The row at `position`: the first one decoded alone where the rows are not decoded yet."""
        if self._rows is None and position == 0 and self._source is not None:
            return self._source.first()
        return self.rows[position]

    def __len__(self) -> int:
        return len(self.ids)

    def texts(self) -> Iterator[str]:
        return map(attrgetter("text"), self.rows)

    def categories(self) -> Iterator[str | None]:
        if self._category_column is not None:
            return iter(self._category_column.column())
        return map(attrgetter("category"), self.rows)

    def turns(self) -> Iterator[int | None]:
        """Each prompt's turn (None: its row gives none)."""
        if not self.has_turn:
            return repeat(None, len(self))
        if self._turn_column is not None:
            return iter(self._turn_column.column())
        return map(attrgetter("turn"), self.rows)

    def responses(self) -> Iterator[dict[str, str]]:
        """Each prompt's responses (contestant → text), in the prompts' order (the rows' own tables: not to be
        changed)."""
        if not self.has_responses:
            return repeat(_NO_RESPONSES, len(self))
        if self._response_column is not None:
            return iter(self._response_column.column())
        return map(attrgetter("responses"), self.rows)

    def responses_of(self, position: int, row: Any = None) -> dict[str, str]:
        """The responses of the prompt at `position` (`row`: its row, where already at hand)."""
        if not self.has_responses:
            return _NO_RESPONSES
        if self._response_column is not None:
            return self._response_column[position]
        return (self._row(position) if row is None else row).responses  # type: ignore[no-any-return]

    def response_groups(self) -> tuple[list[dict[str, str]], list[int]] | None:
        """Where the responses are given coded: the distinct tables, and how many prompts have each; else None."""
        coded = self._response_column if self.has_responses else None
        return None if coded is None else (coded.values, coded.counts())

    def responses_by_id(self) -> dict[str, dict[str, str]]:
        """prompt id → its responses (the rows' own tables: not to be changed)."""
        return dict(zip(self.ids, self.responses(), strict=True))

    def prompt(self, position: int) -> dict[str, Any]:
        """The prompt at `position` as the row-by-row merge gives it: the same keys (no others), the same values."""
        row = self._row(position)
        out: dict[str, Any] = {
            "id": row.id,
            "text": row.text,
            "responses": dict(self.responses_of(position, row)),
        }
        if row.category:
            out["category"] = row.category
        if self.has_turn and row.turn is not None:
            out["turn"] = row.turn
        return out

    def prompt_texts(self) -> dict[str, str]:
        """prompt id → text."""
        return dict(zip(self.ids, self.texts(), strict=True))

    def categories_by_id(self) -> dict[str, str]:
        """prompt id → category, for the prompts that have one (a copy of one made when first asked for)."""
        if self._categories is None:
            categories = list(self.categories())
            self._categories = dict(compress(zip(self.ids, categories, strict=True), categories))  # type: ignore[arg-type]
        return dict(self._categories)

    def turns_by_id(self) -> dict[str, int | None]:
        """prompt id → turn (None: the prompt gives none; a copy of one made when first asked for)."""
        if self._turns is None:
            self._turns = dict(zip(self.ids, self.turns(), strict=True))
        return dict(self._turns)


class PromptSequence(Sequence[T], Generic[T]):
    """The prompts as a sequence of prompt objects, each made by `make` (PromptConfig.model_validate) from its
    values (`PromptColumns.prompt`) when asked for, and not kept: iterating it twice makes them twice."""

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, columns: PromptColumns, make: Callable[[dict[str, Any]], T]) -> None:
        self.columns = columns
        self._make = make

    def __len__(self) -> int:
        return len(self.columns)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self._make(self.columns.prompt(i)) for i in range(len(self))[index]]
        n = len(self)
        position = index + n if index < 0 else index
        if not 0 <= position < n:
            raise IndexError("prompt index out of range")
        return self._make(self.columns.prompt(position))

    def __iter__(self) -> Iterator[T]:
        make, prompt = self._make, self.columns.prompt
        for i in range(len(self)):
            yield make(prompt(i))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __repr__(self) -> str:
        return f"PromptSequence({len(self)} prompts)"


class ResponseTable(Mapping[tuple[str, str], str]):
    """(prompt id, contestant) → response text, read from the columns."""

    def __init__(self, columns: PromptColumns) -> None:
        self.columns = columns
        self._len: int | None = None
        self._tables: dict[str, dict[str, str]] | None = (
            None  # prompt id → its responses (made when first asked)
        )

    def _of(self, key: object) -> tuple[dict[str, str], Any]:
        """(the responses of the key's prompt, the key's contestant); KeyError for a key of no prompt."""
        if not (isinstance(key, tuple) and len(key) == 2):
            raise KeyError(key)
        tables = self._tables
        if tables is None:
            tables = self._tables = self.columns.responses_by_id()
        return tables[key[0]], key[1]

    def __getitem__(self, key: tuple[str, str]) -> str:
        table, contestant = self._of(key)
        if contestant not in table:
            raise KeyError(key)
        return table[contestant]

    def get(self, key: tuple[str, str], default: Any = None) -> Any:
        try:
            table, contestant = self._of(key)
        except KeyError:
            return default
        return table.get(contestant, default)

    def __contains__(self, key: object) -> bool:
        try:
            table, contestant = self._of(key)
        except KeyError:
            return False
        return contestant in table

    def __iter__(self) -> Iterator[tuple[str, str]]:
        columns = self.columns
        return chain.from_iterable(map(zip, map(repeat, columns.ids), columns.responses()))

    def __len__(self) -> int:
        if self._len is None:
            self._len = sum(map(len, self.columns.responses()))
        return self._len

    def items(self) -> ItemsView[tuple[str, str], str]:
        return _Items(self)

    def values(self) -> ValuesView[str]:
        return _Values(self)


class _Items(ItemsView[tuple[str, str], str]):
    _mapping: ResponseTable

    def __iter__(self) -> Iterator[tuple[tuple[str, str], str]]:
        table = self._mapping
        return zip(iter(table), chain.from_iterable(map(dict.values, table.columns.responses())), strict=True)


class _Values(ValuesView[str]):
    _mapping: ResponseTable

    def __iter__(self) -> Iterator[str]:
        return chain.from_iterable(map(dict.values, self._mapping.columns.responses()))
