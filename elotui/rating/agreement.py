"""Agreement statistics: Cohen's κ, Fleiss' κ, and inter-judge agreement over the same presentations.

Verdict classes are 0 = first shown wins, 1 = second shown wins, 2 = tie. An *item* for inter-judge agreement is
(prompt, first, second, condition, sample): the judges' verdicts for the same presentation and sample index.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import NDArray

from elotui.rating.table import OUTCOME_TIE, VerdictTable


def cohen_kappa(x: NDArray[np.integer], y: NDArray[np.integer], n_categories: int | None = None) -> float:
    """Cohen's κ of two raters over the same items (NaN when undefined: no items, or chance agreement is 1)."""
    x = np.asarray(x)
    y = np.asarray(y)
    if len(x) == 0:
        return float("nan")
    k = int(n_categories or max(int(x.max()), int(y.max())) + 1)
    observed = float(np.mean(x == y))
    expected = float((np.bincount(x, minlength=k) / len(x)) @ (np.bincount(y, minlength=k) / len(y)))
    if expected >= 1.0:
        return float("nan")
    return (observed - expected) / (1.0 - expected)


def fleiss_kappa(counts: NDArray[np.integer] | NDArray[np.floating]) -> float:
    """Fleiss' κ from an (items, categories) matrix of how many raters put each item in each category.
    Every item must have the same number of raters (>= 2). NaN when undefined."""
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 2 or len(counts) == 0:
        return float("nan")
    raters = counts.sum(axis=1)
    if not np.allclose(raters, raters[0]) or raters[0] < 2:
        raise ValueError("Fleiss' kappa needs the same number (>= 2) of ratings for every item")
    n = raters[0]
    p_item = ((counts**2).sum(axis=1) - n) / (n * (n - 1))
    p_bar = p_item.mean()
    p_cat = counts.sum(axis=0) / counts.sum()
    p_e = float((p_cat**2).sum())
    if p_e >= 1.0:
        return float("nan")
    return float((p_bar - p_e) / (1.0 - p_e))


def _item_keys(table: VerdictTable, rows: NDArray[np.intp]) -> NDArray[np.int64]:
    n = max(len(table.contestants), 1)
    n_cond = max(len(table.conditions), 1)
    sample = table.sample[rows].astype(np.int64)
    n_sample = int(sample.max()) + 1 if len(sample) else 1
    key = table.prompt[rows].astype(np.int64)
    key = (key * n + table.first[rows]) * n + table.second[rows]
    return (key * n_cond + table.condition[rows]) * n_sample + sample


def judge_verdicts(
    table: VerdictTable, mask: NDArray[np.bool_] | None = None
) -> dict[int, tuple[NDArray[np.int64], NDArray[np.int32]]]:
    """Per judge code: (sorted unique item keys, verdict class) over valid verdicts (the last one wins a repeat)."""
    valid = table.outcome <= OUTCOME_TIE
    if mask is not None:
        valid &= mask
    rows = np.flatnonzero(valid)
    keys = _item_keys(table, rows)
    judge = table.judge[rows]
    outcome = table.outcome[rows]
    out: dict[int, tuple[NDArray[np.int64], NDArray[np.int32]]] = {}
    for j in range(len(table.judges)):
        sel = judge == j
        k = keys[sel][::-1]
        v = outcome[sel][::-1]
        uk, first_idx = np.unique(k, return_index=True)
        out[j] = (uk, v[first_idx])
    return out


def inter_judge(table: VerdictTable, mask: NDArray[np.bool_] | None = None) -> dict[str, Any]:
    """Percent agreement and Cohen's κ for each pair of judges; Fleiss' κ over the items every judge answered."""
    per_judge = judge_verdicts(table, mask)
    names = table.judges
    pairs: list[dict[str, Any]] = []
    for i, j in combinations(range(len(names)), 2):
        ki, vi = per_judge[i]
        kj, vj = per_judge[j]
        _, ii, jj = np.intersect1d(ki, kj, assume_unique=True, return_indices=True)
        x, y = vi[ii], vj[jj]
        pairs.append(
            {
                "judges": [names[i], names[j]],
                "items": len(ii),
                "percent_agreement": float(np.mean(x == y)) if len(ii) else float("nan"),
                "cohen_kappa": cohen_kappa(x, y, 3),
            }
        )
    result: dict[str, Any] = {
        "items": 0,
        "percent_agreement": float("nan"),
        "fleiss_kappa": float("nan"),
        "pairs": pairs,
    }
    active = [j for j in range(len(names)) if len(per_judge[j][0])]
    if len(active) >= 2:
        common = per_judge[active[0]][0]
        for j in active[1:]:
            common = np.intersect1d(common, per_judge[j][0], assume_unique=True)
        counts = np.zeros((len(common), 3), dtype=np.int64)
        for j in active:
            keys, verdicts = per_judge[j]
            pos = np.searchsorted(keys, common)
            np.add.at(counts, (np.arange(len(common)), verdicts[pos]), 1)
        result["items"] = len(common)
        result["judges"] = [names[j] for j in active]
        if len(common):
            result["percent_agreement"] = float(np.mean(counts.max(axis=1) == len(active)))
            result["fleiss_kappa"] = fleiss_kappa(counts)
    return result
