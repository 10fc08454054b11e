"""Prompts held column-wise, and the views through which they answer as per-prompt objects would.

A prompts file of plain rows (elotui.tournament.plain_prompts) is kept as its decoded rows plus an id column, not as
one PromptConfig and a few dicts per prompt: at 10^6 prompts those took seconds to build and about a gigabyte to
hold, while a command such as `export` asks only for the ids. What the tournament offers stays as it was:

- `PromptSequence`, the tournament file's `prompts` (a sequence of PromptConfig), builds each prompt when asked for
  it from the values and keys the row-by-row merge (elotui.tournament.data_files) gives that prompt (validated as
  that merge's prompts are: ~2 µs a prompt);
- `ResponseTable`, the tournament's responses ((prompt id, contestant) → text), reads them from the rows, in the
  order the row-by-row merge puts them (the prompts' order, each row's contestants in the row's order).
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterator, Mapping, Sequence, ValuesView
from itertools import chain, compress, repeat
from operator import attrgetter
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")

# what a row answers when the file's rows carry no responses (never written to)
_NO_RESPONSES: dict[str, str] = {}


class PromptColumns:
    """The prompts of a prompts file of plain rows, in the file's order. `rows` are the decoded rows, each with the
    attributes `id`, `text`, `category` and, where the file's rows carry them, `responses` (contestant → text) and
    `turn`; `ids` is their id column (ids unique, non-empty, without surrounding blanks). A category given as ""
    is no category, as the row-by-row merge reads it."""

    __slots__ = ("_categories", "_turns", "has_responses", "has_turn", "ids", "rows")

    def __init__(self, rows: list[Any], ids: list[str], *, has_responses: bool, has_turn: bool) -> None:
        self.rows = rows
        self.ids = ids
        self.has_responses = has_responses
        self.has_turn = has_turn
        self._categories: dict[str, str] | None = None
        self._turns: dict[str, int | None] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    def texts(self) -> Iterator[str]:
        return map(attrgetter("text"), self.rows)

    def categories(self) -> Iterator[str | None]:
        return map(attrgetter("category"), self.rows)

    def responses(self) -> Iterator[dict[str, str]]:
        """Each prompt's responses (contestant → text), in the prompts' order (the rows' own tables: not to be
        changed)."""
        if self.has_responses:
            return map(attrgetter("responses"), self.rows)
        return repeat(_NO_RESPONSES, len(self.rows))

    def responses_of(self, position: int) -> dict[str, str]:
        return self.rows[position].responses if self.has_responses else _NO_RESPONSES

    def responses_by_id(self) -> dict[str, dict[str, str]]:
        """prompt id → its responses (the rows' own tables: not to be changed)."""
        return dict(zip(self.ids, self.responses(), strict=True))

    def prompt(self, position: int) -> dict[str, Any]:
        """The prompt at `position` as the row-by-row merge gives it: the same keys (no others), the same values."""
        row = self.rows[position]
        out: dict[str, Any] = {"id": row.id, "text": row.text, "responses": dict(self.responses_of(position))}
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
            turns = map(attrgetter("turn"), self.rows) if self.has_turn else repeat(None, len(self.rows))
            self._turns = dict(zip(self.ids, turns, strict=True))
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
