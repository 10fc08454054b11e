"""The verdict table's codebooks: a book of declared ids (distinct) codes them in order with no index made until a
name is looked up, and takes a store's list of the same names, in the same order, as the codes they already are."""

from __future__ import annotations

import numpy as np
import pytest

from elotui.rating.table import Codebook, VerdictTable


def test_a_book_of_distinct_ids_makes_its_index_on_first_lookup() -> None:
    book = Codebook.of_distinct(["p0", "p1", "p2"])
    assert book._index is None
    assert book.recode(["p0", "p1"]).tolist() == [0, 1] and book._index is None  # the same first names
    assert book.recode(["p2", "p0", "new"]).tolist() == [2, 0, 3]  # looked up, a new name added at the end
    assert book.names == ["p0", "p1", "p2", "new"] and book.index == {"p0": 0, "p1": 1, "p2": 2, "new": 3}
    assert book.lookup(["p1", "unknown"]) == [1]


def test_a_book_keeps_a_repeated_name_once_and_a_distinct_book_refuses_one() -> None:
    assert Codebook.of(["a", "b", "a", "c"]).names == ["a", "b", "c"]
    assert Codebook.of(["a", "b", "a"]).index == {"a": 0, "b": 1}
    with pytest.raises(ValueError):
        _ = Codebook.of_distinct(["a", "b", "a"]).index


def test_a_table_of_distinct_ids_codes_rows_as_the_general_table_does() -> None:
    rows = [("p1", "B", "A", "j", "clean", 0, "ok", "first"), ("p9", "C", "A", "k", "clean", 0, "ok", "tie")]
    general = VerdictTable.from_rows(rows, contestants=["A", "B"], prompts=["p0", "p1"], judges=["j"])
    declared = VerdictTable.of_distinct(["A", "B"], ["p0", "p1"], ["j"], [])
    declared.append(rows)
    for name in ("prompt", "first", "second", "judge", "condition", "outcome"):
        assert np.array_equal(declared.column(name), general.column(name)), name
    assert (declared.contestants, declared.prompts, declared.judges) == (
        general.contestants,
        general.prompts,
        general.judges,
    )
    sub = declared.subset(declared.valid())
    assert sub.prompts == declared.prompts and sub.prompts is not declared.prompts
