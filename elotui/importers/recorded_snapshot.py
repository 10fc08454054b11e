"""An import's verdicts ranked at once: the plan `[comparison] pairs = "recorded"` makes of them
(elotui.plan.recorded), coded as the store's columnar snapshot with each presentation's outcome
(elotui.store.columns.write_recorded) and written into the imported tournament's default store, so that `elotui
export`, `diagnose` and the TUI rank them without a run.

Replaying a 10^6-battle arena log with `elotui run` plans a million calls (rendering and hashing each key), writes a
million plan, call and text rows (a 1.8 GB store) and takes minutes; the rankings read only the snapshot (~10 MB).
The snapshot holds no fingerprint and the store no plan or call rows: a later `elotui run` plans and replays as on a
fresh store, and its plan replaces this snapshot with the same presentations and outcomes (what the per-verdict
views need, `elotui verdicts` and the pairs pane's details, comes with that run). A store that already holds a
run's plan is left as it is.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from elotui.errors import UserError
from elotui.importers.common import LogCodes
from elotui.store import Store, store_path_of
from elotui.store.columns import CodedPlan, SealedRecorded, seal_recorded
from elotui.tournament.slug import slug_of

CONDITIONS = ("clean",)  # an imported tournament's conditions (the file's default)


@dataclass(frozen=True)
class _Named:
    """A coded plan (elotui.store.columns.CodedPlan) with each book as its names in code order: what the snapshot
    stores (a book as a dict of 10^6 prompt ids took ~0.3 s to make, only to be listed again)."""

    seq: NDArray[np.int32]
    sample: NDArray[np.int32]
    columns: dict[str, NDArray[np.int32]]
    names: dict[str, list[str]]

    def coded_plan(self) -> CodedPlan:
        books = {book: dict(zip(names, range(len(names)), strict=True)) for book, names in self.names.items()}
        return CodedPlan(self.seq, self.sample, self.columns, books)


def recorded_columns(log: LogCodes) -> tuple[CodedPlan, NDArray[np.int8]]:
    """The coded plan `pairs = "recorded"` makes of the imported verdicts, and each presentation's outcome: for
    each judge in the file's order, its presentations in the order the log first gives each (a presentation's k-th
    row is its sample k), gathered unit by unit, a unit being a prompt and an unordered pair, in the order first
    met (elotui.plan.recorded.recorded_comparisons). Worked out on the verdicts' integer codes with numpy sorts."""
    named, outcome = _recorded(log)
    return named.coded_plan(), outcome


def sealed_snapshot(log: LogCodes) -> SealedRecorded:
    """The snapshot of `recorded_columns`, sealed for the store (elotui.store.columns.seal_recorded): needs no
    store, so it is made while the import's files are written (and stored meanwhile, committed once they are
    written: `store_recorded`)."""
    named, outcome = _recorded(log)
    return seal_recorded(named.seq, named.sample, named.columns, named.names, outcome)


def _recorded(log: LogCodes) -> tuple[_Named, NDArray[np.int8]]:
    """`recorded_columns`, its books as names in code order."""
    prompt, first, second, judge, condition = log.prompt, log.first, log.second, log.judge, log.condition
    clean = [code for code, name in enumerate(log.books[3]) if name in CONDITIONS]
    kept = np.flatnonzero((first != second) & np.isin(condition, clean))
    if not len(kept):
        return _empty_named(), np.zeros(0, dtype=np.int8)
    codes = [prompt, first, second, judge, condition]
    if len(kept) == len(prompt) and len(log.books[0]) == len(prompt) and len(log.books[2]) == 1:
        # one judge, every verdict kept and on a prompt of its own (a Chatbot Arena log): each verdict is a
        # presentation and a unit of its own, in log order
        return _recoded_named(codes, log.books, np.zeros(len(prompt), dtype=np.int64)), log.outcome
    sizes = [len(b) for b in (log.books[2], log.books[0], log.books[1], log.books[1], log.books[3])]
    presentation = [judge[kept], prompt[kept], first[kept], second[kept], condition[kept]]
    first_row, of_row = _distinct(presentation, sizes)
    by_presentation = np.argsort(of_row, kind="stable")  # each presentation's rows, in log order
    starts = np.searchsorted(of_row[by_presentation], np.arange(len(first_row)))
    sample = np.empty(len(kept), dtype=np.int64)
    sample[by_presentation] = np.arange(len(kept)) - starts[of_row[by_presentation]]
    rank = np.empty(len(first_row), dtype=np.int64)  # presentations: judge by judge, as first given
    rank[np.lexsort((first_row, log.judge_rank[presentation[0][first_row]]))] = np.arange(len(first_row))
    pf, ps = presentation[2][first_row], presentation[3][first_row]
    units = [presentation[1][first_row], np.minimum(pf, ps), np.maximum(pf, ps)]
    of_unit = _distinct(units, sizes[1:4])[1]
    unit_rank = np.full(of_unit.max() + 1, len(rank), dtype=np.int64)
    np.minimum.at(unit_rank, of_unit, rank)  # a unit comes where its first presentation does
    order = kept[np.lexsort((sample, rank[of_row], unit_rank[of_unit[of_row]]))]
    sample = sample[np.searchsorted(kept, order)]  # `sample` is by position in `kept`, which is sorted
    plan = _recoded_named([c[order] for c in codes], log.books, sample)
    return plan, log.outcome[order]


def _distinct(
    columns: list[NDArray[np.int32]], sizes: list[int]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The rows of the code columns (codes below `sizes`) told apart: each distinct row's first index, and each
    row's distinct row. One number per row where the codes fit in 62 bits (a sort of 10^6 numbers), else rows."""
    if np.prod([max(n, 1) for n in sizes], dtype=np.float64) < 2.0**62:
        key = np.zeros(len(columns[0]), dtype=np.int64)
        for column, n in zip(columns, sizes, strict=True):
            key = key * max(n, 1) + column
        _, first_row, of_row = np.unique(key, return_index=True, return_inverse=True)
    else:
        _, first_row, of_row = np.unique(
            np.stack(columns, axis=1), axis=0, return_index=True, return_inverse=True
        )
    return first_row, of_row.reshape(-1)


def _recoded(
    columns: list[NDArray[np.int32]], log_names: list[list[str]], sample: NDArray[np.int64]
) -> CodedPlan:
    """`_recoded_named` as a CodedPlan."""
    return _recoded_named(columns, log_names, sample).coded_plan()


def _recoded_named(
    columns: list[NDArray[np.int32]], log_names: list[list[str]], sample: NDArray[np.int64]
) -> _Named:
    """The plan columns (in plan order, coded by first appearance in the log) coded as `code_plan` codes them: each
    book numbered by first appearance in plan order, the contestants first among the shown-first, then the others
    among the shown-second."""
    prompt, first, second, judge, condition = columns
    books: dict[str, list[str]] = {}
    coded: dict[str, NDArray[np.int32]] = {}
    for book, names, fields in (
        ("prompts", log_names[0], {"prompt": prompt}),
        ("contestants", log_names[1], {"first": first, "second": second}),
        ("judges", log_names[2], {"judge": judge}),
        ("conditions", log_names[3], {"condition": condition}),
    ):
        seen = np.concatenate(list(fields.values()))
        in_order = _in_order_of_first(seen, len(names))
        new = np.zeros(len(names), dtype=np.int32)
        new[in_order] = np.arange(len(in_order), dtype=np.int32)
        named = (
            names
            if len(in_order) == len(names) and in_order[-1] == len(names) - 1 and _ordered(in_order)
            else None
        )
        books[book] = named if named is not None else [names[i] for i in in_order.tolist()]
        coded.update((field, new[values_of]) for field, values_of in fields.items())
    n = len(prompt)
    return _Named(np.arange(n, dtype=np.int32), sample.astype(np.int32), coded, books)


def _ordered(codes: NDArray[np.int64]) -> bool:
    return bool(np.all(codes[1:] > codes[:-1]))


def _in_order_of_first(seen: NDArray[np.int32], size: int) -> NDArray[np.int64]:
    """The distinct codes of `seen` (codes below `size`), in the order each first comes."""
    if len(seen) == size and np.array_equal(seen, np.arange(size)):  # each once, in order (a log's prompts)
        return np.arange(size, dtype=np.int64)
    first = np.full(size, len(seen), dtype=np.int64)
    np.minimum.at(first, seen, np.arange(len(seen)))
    present = np.flatnonzero(first < len(seen))
    return present[np.argsort(first[present], kind="stable")]


def _empty_plan() -> CodedPlan:
    return _empty_named().coded_plan()


def _empty_named() -> _Named:
    z = np.zeros(0, dtype=np.int32)
    empty: dict[str, list[str]] = {"prompts": [], "contestants": [], "judges": [], "conditions": []}
    return _Named(z, z, {c: z for c in ("prompt", "first", "second", "judge", "condition")}, empty)


class _FilesFailed(BaseException):
    """What `before_commit` raised (`store_recorded`), carried past the store's own errors."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(cause)
        self.cause = cause


def store_recorded(
    snapshot: SealedRecorded, toml: Path, name: str, before_commit: Callable[[], object] | None = None
) -> tuple[str, bool]:
    """Write the snapshot (`sealed_snapshot`) into the default store of the tournament file `toml` named `name`;
    what was done, said for the import's report, and whether the store now ranks these verdicts (else a run must
    replay them first). `before_commit` (the import's files written) is called before the write commits: what it
    raises is raised here, nothing is stored, and a store this call made is removed (as if never begun)."""
    path = store_path_of(toml.resolve(), slug_of(name))
    made = not path.exists()

    def confirmed() -> None:
        if before_commit is not None:
            try:
                before_commit()
            except BaseException as exc:  # noqa: BLE001 (raised again by `store_recorded`, after the rollback)
                raise _FilesFailed(exc) from None

    try:
        try:
            with Store(path) as store:
                written = store.set_sealed_recorded(snapshot, confirmed)
        except UserError as exc:  # the store cannot be written: the files stand, a run replays them
            confirmed()  # (the files' error first, as when they were written before the store)
            return f"the verdicts were not stored for ranking ({exc}); `elotui run` replays them", False
    except _FilesFailed as failed:
        if made:
            for leftover in (path, path.with_name(f"{path.name}-wal"), path.with_name(f"{path.name}-shm")):
                with contextlib.suppress(OSError):
                    leftover.unlink(missing_ok=True)
        raise failed.cause from None
    if not written:
        kept = (
            f"{path} holds a run's plan, kept: until `elotui run` replays these verdicts, `export`, `diagnose` and "
            "the TUI show that earlier run's ranking"
        )
        return kept, False
    return (
        f"ranked at once: the verdicts are in {path} (`elotui export`, `diagnose` and the TUI read them)",
        True,
    )
