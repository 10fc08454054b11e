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

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from elotui.errors import UserError
from elotui.importers.common import Imported
from elotui.store import Store, store_path_of
from elotui.store.columns import CodedPlan, code_names
from elotui.tournament.model import slug_of
from elotui.vocab import outcome_code

CONDITIONS = ("clean",)  # an imported tournament's conditions (the file's default)

Presentation = tuple[str, str, str, str]  # prompt, first, second, condition


def recorded_columns(imported: Imported) -> tuple[CodedPlan, NDArray[np.int8]]:
    """The coded plan `pairs = "recorded"` makes of the imported verdicts, and each presentation's outcome: for
    each judge in the file's order, its presentations in the order the log first gives each (a presentation's k-th
    row is its sample k), gathered unit by unit, a unit being a prompt and an unordered pair, in the order first
    met (elotui.plan.recorded.recorded_comparisons)."""
    by_judge: dict[str, dict[Presentation, list[int]]] = {}
    for i, v in enumerate(imported.verdicts):
        rows = by_judge.setdefault(v[3], {}).setdefault((v[0], v[1], v[2], v[4]), [])
        rows.append(i)
    units: dict[tuple[str, str, str], list[tuple[str, Presentation, list[int]]]] = {}
    for judge in imported.judges:
        for presentation, rows in by_judge.get(judge, {}).items():
            prompt, first, second, condition = presentation
            if first == second or condition not in CONDITIONS:
                continue
            pair = (first, second) if first <= second else (second, first)
            units.setdefault((prompt, *pair), []).append((judge, presentation, rows))
    fields: tuple[list[str], ...] = ([], [], [], [], [])
    samples: list[int] = []
    outcomes: list[int] = []
    verdicts = imported.verdicts
    for unit in units.values():
        for judge, (prompt, first, second, condition), rows in unit:
            for sample, i in enumerate(rows):
                for column, value in zip(fields, (prompt, first, second, judge, condition), strict=True):
                    column.append(value)
                samples.append(sample)
                outcomes.append(outcome_code(verdicts[i][8], verdicts[i][6]))
    books: dict[str, dict[str, int]] = {"prompts": {}, "contestants": {}, "judges": {}, "conditions": {}}
    names = ("prompts", "contestants", "contestants", "judges", "conditions")
    coded = {
        c: code_names(values, books[book])
        for c, values, book in zip(
            ("prompt", "first", "second", "judge", "condition"), fields, names, strict=True
        )
    }
    n = len(samples)
    plan = CodedPlan(np.arange(n, dtype=np.int32), np.array(samples, dtype=np.int32).reshape(n), coded, books)
    return plan, np.array(outcomes, dtype=np.int8).reshape(n)


def store_recorded(imported: Imported, toml: Path, name: str) -> str:
    """Write the snapshot into the default store of the tournament file `toml` named `name`; what was done, said
    for the import's report."""
    path = store_path_of(toml.resolve(), slug_of(name))
    try:
        with Store(path) as store:
            written = store.set_recorded(*recorded_columns(imported))
    except UserError as exc:  # the store cannot be written: the files stand, a run replays them
        return f"the verdicts were not stored for ranking ({exc}); `elotui run` replays them"
    if not written:
        return f"{path} holds a run's plan, kept: `elotui run` brings it up to date"
    return f"ranked at once: the verdicts are in {path} (`elotui export`, `diagnose` and the TUI read them)"
