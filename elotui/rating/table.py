"""A columnar, int-coded table of verdicts: built once from store rows, filtered cheaply, appended to live.

Every rating and diagnostic in `elotui.rating` reads this table, never the rows themselves. Names (contestant,
prompt, judge and condition ids) are coded as small integers in the order they were declared or first seen;
`sample` is kept as is; the verdict is one outcome code (see `OUTCOME_*`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from elotui.vocab import (
    OUTCOME_FAILED,
    OUTCOME_FIRST,
    OUTCOME_INVALID,
    OUTCOME_MISSING,
    OUTCOME_SECOND,
    OUTCOME_TIE,
    outcome_code,
)

if TYPE_CHECKING:
    from elotui.store.columns import VerdictColumns

__all__ = [
    "OUTCOME_FAILED",
    "OUTCOME_FIRST",
    "OUTCOME_INVALID",
    "OUTCOME_MISSING",
    "OUTCOME_SECOND",
    "OUTCOME_TIE",
    "Codebook",
    "VerdictTable",
    "outcome_code",
]

IntArray = NDArray[np.int32]
T = TypeVar("T")
_COLUMNS = ("prompt", "first", "second", "judge", "condition", "sample", "outcome")


class Codebook:
    """Names <-> integer codes, in declaration / first-seen order. The index (name -> code) is made on first use:
    a table of declared ids (`of_distinct`) whose codes come from the store's columns, recoded by comparing lists
    (`VerdictTable.extend_columns`), never needs one for its 10^6 prompt ids."""

    def __init__(self, names: list[str] | None = None, index: dict[str, int] | None = None) -> None:
        self.names: list[str] = [] if names is None else names
        self._index = index  # None: made from `names` (distinct) on first use

    @classmethod
    def of(cls, names: Iterable[str] | None) -> Codebook:
        """The book of `names`, a repeated name coded once (at its first place)."""
        return cls(list(dict.fromkeys(names or ())), None)

    @classmethod
    def of_distinct(cls, names: Iterable[str] | None) -> Codebook:
        """The book of names known to be distinct (a tournament's ids, checked when it was read): no Python work
        per name until a name is looked up. A repeated name is found when the index is made (ValueError)."""
        return cls(list(names or ()), None)

    @property
    def index(self) -> dict[str, int]:
        if self._index is None:
            index = dict(zip(self.names, range(len(self.names)), strict=True))
            if len(index) != len(self.names):
                raise ValueError("a codebook of distinct names has a name twice")
            self._index = index
        return self._index

    def code(self, name: str) -> int:
        index = self.index
        found = index.get(name)
        if found is None:
            found = index[name] = len(self.names)
            self.names.append(name)
        return found

    def codes(self, names: Iterable[str]) -> list[int]:
        index = self.index
        out: list[int] = []
        append = out.append
        for name in names:
            found = index.get(name)
            if found is None:
                found = self.code(name)
            append(found)
        return out

    def recode(self, names: list[str]) -> NDArray[np.int32]:
        """The codes of `names` (added where new) as an array: without a lookup per name where they are this book's
        first names in its order (a store's prompts read back in the order they were declared)."""
        same = self.names == names if len(names) == len(self.names) else self.names[: len(names)] == names
        if len(names) <= len(self.names) and same:
            return np.arange(len(names), dtype=np.int32)
        return np.asarray(self.codes(names), dtype=np.int32)

    def lookup(self, names: Iterable[str]) -> list[int]:
        """Codes of names that must already be known (unknown names are skipped)."""
        index = self.index
        return [index[n] for n in names if n in index]


def _row_tuple(row: Sequence[Any] | Mapping[str, Any]) -> tuple[Any, ...]:
    if isinstance(row, Mapping):
        return (
            row["prompt"],
            row["first"],
            row["second"],
            row.get("judge", "human"),
            row.get("condition", "clean"),
            row.get("sample", 0),
            row.get("status", "ok"),
            row.get("winner"),
        )
    return tuple(row)


class VerdictTable:
    """Int-coded verdict columns (numpy) plus the id lists.

    Build with `from_rows` (store tuples `(prompt, first, second, judge, condition, sample, status, winner)` or
    verdict-log dicts). `append(rows)` adds verdicts in amortised O(1) per row (capacity doubling), for the live
    view. Contestants given to the constructor are all part of every ranking, even with zero games; contestants
    that appear in rows without being declared are added after the declared ones.
    """

    def __init__(
        self,
        contestants: Sequence[str] | None = None,
        prompts: Sequence[str] | None = None,
        judges: Sequence[str] | None = None,
        conditions: Sequence[str] | None = None,
    ) -> None:
        self._contestants = Codebook.of(contestants)
        self._prompts = Codebook.of(prompts)
        self._judges = Codebook.of(judges)
        self._conditions = Codebook.of(conditions)
        self._n = 0
        self._data: dict[str, IntArray] = {name: np.zeros(0, dtype=np.int32) for name in _COLUMNS}
        self.version = 0  # bumped on every append (caches key on it)
        self._derived: dict[str, tuple[int, Any]] = {}

    # -- construction -----------------------------------------------------------------------------------------
    @classmethod
    def of_distinct(
        cls,
        contestants: Sequence[str],
        prompts: Sequence[str],
        judges: Sequence[str],
        conditions: Sequence[str],
    ) -> VerdictTable:
        """An empty table coded by id lists each known to be distinct (a tournament's declared ids, checked when
        it was read; a book's names): no Python step per id (10^6 prompts), the index of a book made on first use."""
        table = cls()
        table._contestants = Codebook.of_distinct(contestants)
        table._prompts = Codebook.of_distinct(prompts)
        table._judges = Codebook.of_distinct(judges)
        table._conditions = Codebook.of_distinct(conditions)
        return table

    @classmethod
    def from_rows(
        cls,
        rows: Iterable[Sequence[Any] | Mapping[str, Any]],
        contestants: Sequence[str] | None = None,
        prompts: Sequence[str] | None = None,
        judges: Sequence[str] | None = None,
        conditions: Sequence[str] | None = None,
    ) -> VerdictTable:
        table = cls(contestants, prompts, judges, conditions)
        table.append(rows)
        return table

    def append(self, rows: Iterable[Sequence[Any] | Mapping[str, Any]]) -> int:
        """Add verdicts at the end (arrival order is kept). Returns how many were added."""
        materialised = [r if isinstance(r, tuple) else _row_tuple(r) for r in rows]
        if not materialised:
            return 0
        if len(materialised[0]) != 8:
            raise ValueError(
                "a verdict row has 8 fields: prompt, first, second, judge, condition, sample, status, winner"
            )
        prompt, first, second, judge, condition, sample, status, winner = zip(*materialised, strict=True)
        m = len(materialised)
        outcome_cache: dict[tuple[str, str | None], int] = {}
        outcomes: list[int] = []
        for key in zip(status, winner, strict=True):
            code = outcome_cache.get(key)
            if code is None:
                code = outcome_cache[key] = outcome_code(*key)
            outcomes.append(code)
        new = {
            "prompt": self._prompts.codes(prompt),
            "first": self._contestants.codes(first),
            "second": self._contestants.codes(second),
            "judge": self._judges.codes(judge),
            "condition": self._conditions.codes(condition),
            "sample": sample,
            "outcome": outcomes,
        }
        self._reserve(self._n + m)
        for name, values in new.items():
            self._data[name][self._n : self._n + m] = np.asarray(values, dtype=np.int32)
        self._n += m
        self.version += 1
        return m

    def extend_columns(self, columns: VerdictColumns, include_missing: bool = True) -> int:
        """Add the store's int-coded columns at the end (elotui.store.columns), recoding their names into this
        table's codebooks with one small array per column: no Python object per verdict. `include_missing=False`
        leaves out the presentations not answered yet. Returns how many were added."""
        keep = None if include_missing else np.flatnonzero(columns.outcome != OUTCOME_MISSING)
        books = {
            "prompt": self._prompts,
            "first": self._contestants,
            "second": self._contestants,
            "judge": self._judges,
            "condition": self._conditions,
        }
        new: dict[str, NDArray[Any]] = {}
        for name, book in books.items():
            recode = book.recode(columns.book(name))
            values = getattr(columns, name)
            if keep is not None:
                values = values[keep]
            # codes the store and the table agree on (its prompts, judges and conditions in the file's order,
            # mostly) are taken as they are: at 10^6 verdicts each gather is 4 MB of fresh memory
            same = np.array_equal(recode, np.arange(len(recode), dtype=np.int32))
            new[name] = values if same else recode[values]
        new["sample"] = columns.sample if keep is None else columns.sample[keep]
        new["outcome"] = columns.outcome if keep is None else columns.outcome[keep]
        m = len(new["outcome"])
        if m == 0:
            return 0
        if self._n == 0:  # the first read of a store: the new columns become the table's (no second copy)
            for name, values in new.items():
                self._data[name] = _own_int32(values)
        else:
            self._reserve(self._n + m)
            for name, values in new.items():
                self._data[name][self._n : self._n + m] = values
        self._n += m
        self.version += 1
        return m

    def _reserve(self, size: int) -> None:
        capacity = len(self._data["prompt"])
        if size <= capacity:
            return
        new_capacity = max(size, 2 * capacity, 1024)
        for name, old in self._data.items():
            grown = np.zeros(new_capacity, dtype=np.int32)
            grown[: self._n] = old[: self._n]
            self._data[name] = grown

    def derived(self, name: str, make: Callable[[], T]) -> T:
        """What `make` computes from the whole table, made once and kept until the table changes (the next
        append): the leaderboards of the four agreement thresholds share one grouping of the verdicts into
        presentations. A subset is a new table, with nothing kept."""
        found = self._derived.get(name)
        if found is None or found[0] != self.version:
            found = self._derived[name] = (self.version, make())
        value: T = found[1]
        return value

    # -- columns and ids ----------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._n

    def column(self, name: str) -> IntArray:
        return self._data[name][: self._n]

    @property
    def prompt(self) -> IntArray:
        return self.column("prompt")

    @property
    def first(self) -> IntArray:
        return self.column("first")

    @property
    def second(self) -> IntArray:
        return self.column("second")

    @property
    def judge(self) -> IntArray:
        return self.column("judge")

    @property
    def condition(self) -> IntArray:
        return self.column("condition")

    @property
    def sample(self) -> IntArray:
        return self.column("sample")

    @property
    def outcome(self) -> IntArray:
        return self.column("outcome")

    @property
    def contestants(self) -> list[str]:
        return self._contestants.names

    @property
    def prompts(self) -> list[str]:
        return self._prompts.names

    @property
    def judges(self) -> list[str]:
        return self._judges.names

    @property
    def conditions(self) -> list[str]:
        return self._conditions.names

    def contestant_index(self, name: str) -> int:
        return self._contestants.index[name]

    # -- scope ---------------------------------------------------------------------------------------------------
    def scope_mask(
        self,
        *,
        prompts: Iterable[str] | None = None,
        judges: Iterable[str] | None = None,
        conditions: Iterable[str] | None = None,
    ) -> NDArray[np.bool_] | None:
        """A boolean mask over the rows for a scope (None = everything). Unknown names match nothing."""
        mask: NDArray[np.bool_] | None = None
        for column, book, chosen in (
            ("prompt", self._prompts, prompts),
            ("judge", self._judges, judges),
            ("condition", self._conditions, conditions),
        ):
            if chosen is None:
                continue
            codes = book.lookup(list(chosen))
            values = self.column(column)
            if len(codes) == 1:
                part = values == codes[0]
            else:
                keep = np.zeros(max(len(book.names), 1), dtype=bool)
                keep[codes] = True
                part = keep[values]
            mask = part if mask is None else mask & part
        return mask

    def subset(self, mask: NDArray[np.bool_] | None) -> VerdictTable:
        """A new table with the rows where `mask` is true, sharing the id lists (copies of them)."""
        out = VerdictTable.of_distinct(self.contestants, self.prompts, self.judges, self.conditions)
        rows = np.arange(self._n) if mask is None else np.flatnonzero(mask)
        out._data = {name: self.column(name)[rows].copy() for name in _COLUMNS}
        out._n = len(rows)
        return out

    def of_prompts(self, prompts: Sequence[str]) -> VerdictTable:
        """A new table of these prompts only (their rows; its prompt list is `prompts`, in that order)."""
        out = self.subset(self.scope_mask(prompts=prompts))
        recode = np.full(max(len(self.prompts), 1), -1, dtype=np.int32)
        for new, name in enumerate(prompts):
            if name in self._prompts.index:
                recode[self._prompts.index[name]] = new
        out._prompts = Codebook.of(prompts)
        out._data["prompt"] = recode[out._data["prompt"]]
        return out

    def valid(self, mask: NDArray[np.bool_] | None = None) -> NDArray[np.bool_]:
        """Which rows hold a valid verdict (a side or a tie), within `mask`."""
        valid = self.outcome <= OUTCOME_TIE
        if mask is not None:
            valid &= mask
        return valid

    def counts(self, mask: NDArray[np.bool_] | None = None) -> dict[str, int]:
        """verdicts_used (valid), invalid, failed, missing."""
        outcome = self.outcome if mask is None else self.outcome[mask]

        def count(code: int) -> int:  # by comparisons: a bincount would first copy the codes to 64 bits
            return int(np.count_nonzero(outcome == code))

        return {
            "verdicts_used": int(np.count_nonzero(outcome <= OUTCOME_TIE)),
            "invalid": count(OUTCOME_INVALID),
            "failed": count(OUTCOME_FAILED),
            "missing": count(OUTCOME_MISSING),
        }


def _own_int32(values: NDArray[Any]) -> IntArray:
    """`values` as an int32 column of the table: itself when it is one (made for the table, or a read-only view of
    the store's snapshot, which no one writes to: the table only appends, and an append past a column's end moves
    it into a larger array first), else a copy (a narrower type)."""
    if values.dtype == np.int32 and values.flags.c_contiguous:
        return values
    return values.astype(np.int32)
