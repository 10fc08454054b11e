"""Position stability (Diagnosing Bias and Instability in LLM Evaluation): each (prompt, pair, judge, condition, sample) planned in both orders is

- consistent: the same contestant wins in both orders;
- position bias: both orders decisive and each order's winner is the one in the same slot;
- inconclusive: a tie, or a failed, invalid or missing verdict, in either order.

Pairs planned in one order only are left out. `first_slot_share` is the share of a judge's decisive verdicts (all
of them, paired or not) that went to the contestant shown first.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from elotui.rating.table import OUTCOME_FIRST, OUTCOME_SECOND, VerdictTable

UNIT_CONSISTENT, UNIT_POSITION_BIAS, UNIT_INCONCLUSIVE = 0, 1, 2  # the classes of `unit_class`


def _last_unique(
    keys: NDArray[np.int64], rows: NDArray[np.intp]
) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
    uk, idx = np.unique(keys[::-1], return_index=True)
    return uk, rows[::-1][idx]


def stability_units(table: VerdictTable, mask: NDArray[np.bool_] | None = None) -> dict[str, NDArray[Any]]:
    """One entry per mirrored unit: judge, condition codes and the class (`unit_class`)."""
    rows = np.arange(len(table)) if mask is None else np.flatnonzero(mask)
    first = table.first[rows].astype(np.int64)
    second = table.second[rows].astype(np.int64)
    n = max(len(table.contestants), 1)
    n_j = max(len(table.judges), 1)
    n_c = max(len(table.conditions), 1)
    sample = table.sample[rows].astype(np.int64)
    n_s = int(sample.max()) + 1 if len(sample) else 1
    lo = np.minimum(first, second)
    hi = np.maximum(first, second)
    key = (
        (((table.prompt[rows].astype(np.int64) * n + lo) * n + hi) * n_j + table.judge[rows]) * n_c
        + table.condition[rows]
    ) * n_s + sample
    ab = first < second
    k_ab, r_ab = _last_unique(key[ab], rows[ab])
    k_ba, r_ba = _last_unique(key[~ab], rows[~ab])
    _, i_ab, i_ba = np.intersect1d(k_ab, k_ba, assume_unique=True, return_indices=True)
    row_ab, row_ba = r_ab[i_ab], r_ba[i_ba]
    klass = unit_class(table.outcome[row_ab], table.outcome[row_ba])
    return {"judge": table.judge[row_ab], "condition": table.condition[row_ab], "class": klass}


def unit_class(outcome_ab: NDArray[np.integer], outcome_ba: NDArray[np.integer]) -> NDArray[np.int64]:
    """The class of each mirrored unit from its two outcome codes (`elotui.rating.table.OUTCOME_*`), the verdict
    in one order and in the other: UNIT_INCONCLUSIVE unless both are decisive, then UNIT_POSITION_BIAS if the same
    slot won both, else UNIT_CONSISTENT."""
    o_ab = np.asarray(outcome_ab)
    o_ba = np.asarray(outcome_ba)
    decisive = ((o_ab == OUTCOME_FIRST) | (o_ab == OUTCOME_SECOND)) & (
        (o_ba == OUTCOME_FIRST) | (o_ba == OUTCOME_SECOND)
    )
    return np.where(
        ~decisive, UNIT_INCONCLUSIVE, np.where(o_ab == o_ba, UNIT_POSITION_BIAS, UNIT_CONSISTENT)
    ).astype(np.int64)


def _rates(klass: NDArray[np.integer], first_wins: int, decisive: int) -> dict[str, Any]:
    units = len(klass)
    tally = np.bincount(klass, minlength=3)
    share = (lambda c: float(c) / units) if units else (lambda c: float("nan"))
    return {
        "units": units,
        "consistent": share(tally[UNIT_CONSISTENT]),
        "position_bias": share(tally[UNIT_POSITION_BIAS]),
        "inconclusive": share(tally[UNIT_INCONCLUSIVE]),
        "decisive_verdicts": decisive,
        "first_slot_share": first_wins / decisive if decisive else float("nan"),
    }


def position_report(table: VerdictTable, mask: NDArray[np.bool_] | None = None) -> dict[str, Any]:
    """{"pooled": rates, "by_judge": {judge: rates}, "by_condition": {cond: rates},
    "by_judge_condition": {judge: {cond: rates}}}."""
    units = stability_units(table, mask)
    outcome = table.outcome if mask is None else table.outcome[mask]
    judge = table.judge if mask is None else table.judge[mask]
    cond = table.condition if mask is None else table.condition[mask]
    is_first = outcome == OUTCOME_FIRST
    is_dec = is_first | (outcome == OUTCOME_SECOND)

    def rates(unit_sel: NDArray[np.bool_] | None, row_sel: NDArray[np.bool_] | None) -> dict[str, Any]:
        klass = units["class"] if unit_sel is None else units["class"][unit_sel]
        f = is_first if row_sel is None else is_first & row_sel
        d = is_dec if row_sel is None else is_dec & row_sel
        return _rates(klass, int(f.sum()), int(d.sum()))

    report: dict[str, Any] = {
        "pooled": rates(None, None),
        "by_judge": {},
        "by_condition": {},
        "by_judge_condition": {},
    }
    for c, cname in enumerate(table.conditions):
        report["by_condition"][cname] = rates(units["condition"] == c, cond == c)
    for j, jname in enumerate(table.judges):
        report["by_judge"][jname] = rates(units["judge"] == j, judge == j)
        report["by_judge_condition"][jname] = {
            cname: rates((units["judge"] == j) & (units["condition"] == c), (judge == j) & (cond == c))
            for c, cname in enumerate(table.conditions)
        }
    return report
