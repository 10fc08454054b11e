"""Verdict-level statistics, whatever the threshold: win rates, head-to-head, per-prompt τ, length bias.

Every valid verdict is a game here and a tie counts half for each side (the convention of the PRD and QLoRA
authors): win rate = (wins + ties/2) / verdicts the contestant appears in.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from elotui.rating.table import OUTCOME_FIRST, OUTCOME_SECOND, OUTCOME_TIE, VerdictTable


def win_rate_arrays(
    table: VerdictTable, mask: NDArray[np.bool_] | None = None
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """(win rate, verdicts) per contestant code; NaN win rate without verdicts."""
    n = len(table.contestants)
    rows = np.flatnonzero(table.valid(mask))
    first = table.first[rows]
    second = table.second[rows]
    o = table.outcome[rows]
    score_first = np.where(o == OUTCOME_FIRST, 1.0, np.where(o == OUTCOME_TIE, 0.5, 0.0))
    points = np.bincount(first, weights=score_first, minlength=n) + np.bincount(
        second, weights=1.0 - score_first, minlength=n
    )
    played = np.bincount(first, minlength=n) + np.bincount(second, minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(played > 0, points / np.maximum(played, 1), np.nan)
    return rate, played


def win_rates(table: VerdictTable, mask: NDArray[np.bool_] | None = None) -> dict[str, dict[str, float]]:
    """{"pooled": {contestant: rate}, <judge>: {contestant: rate}} (NaN where a contestant has no verdicts)."""
    out: dict[str, dict[str, float]] = {}
    rate, _ = win_rate_arrays(table, mask)
    out["pooled"] = dict(zip(table.contestants, rate.tolist(), strict=True))
    for j, name in enumerate(table.judges):
        sel = table.judge == j
        rate, _ = win_rate_arrays(table, sel if mask is None else sel & mask)
        out[name] = dict(zip(table.contestants, rate.tolist(), strict=True))
    return out


def head_to_head(table: VerdictTable, mask: NDArray[np.bool_] | None = None) -> dict[str, Any]:
    """wins[i][j] = verdicts where contestant i beat j (either order); ties[i][j] = tie verdicts between them."""
    n = len(table.contestants)
    rows = np.flatnonzero(table.valid(mask))
    first = table.first[rows].astype(np.int64)
    second = table.second[rows].astype(np.int64)
    o = table.outcome[rows]
    winner = np.where(o == OUTCOME_FIRST, first, second)
    loser = np.where(o == OUTCOME_FIRST, second, first)
    dec = o != OUTCOME_TIE
    wins = np.bincount(winner[dec] * n + loser[dec], minlength=n * n).reshape(n, n)
    tie = ~dec
    ties = np.bincount(first[tie] * n + second[tie], minlength=n * n).reshape(n, n)
    ties = ties + ties.T
    return {"contestants": list(table.contestants), "wins": wins.tolist(), "ties": ties.tolist()}


EXACT_MAX_ITEMS = 8  # up to 8! = 40,320 orders: p-values by complete enumeration


def kendall(x: NDArray[np.float64], y: NDArray[np.float64]) -> tuple[float, float]:
    """Kendall's τ-b and its two-sided p-value: exact (every ordering of `y` enumerated) for up to
    EXACT_MAX_ITEMS items, scipy's otherwise; NaN when fewer than 2 items or a constant side."""
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan"), float("nan")
    from scipy import stats  # lazy: scipy.stats costs ~0.4 s to import

    res = stats.kendalltau(x, y)
    if len(x) <= EXACT_MAX_ITEMS:
        return float(res.statistic), _exact_p(x, y, _tau_b)
    return float(res.statistic), float(res.pvalue)


def spearman(x: NDArray[np.float64], y: NDArray[np.float64]) -> tuple[float, float]:
    """Spearman's ρ and its two-sided p-value: exact for up to EXACT_MAX_ITEMS items (scipy's t approximation
    gives p = 1.4e-24 for a perfect agreement of 5 contestants, where the exact value is 2/120), scipy's
    otherwise."""
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan"), float("nan")
    from scipy import stats

    res = stats.spearmanr(x, y)
    if len(x) <= EXACT_MAX_ITEMS:
        return float(res.statistic), _exact_p(x, y, _rho)
    return float(res.statistic), float(res.pvalue)


def _rho(x: NDArray[np.float64], ys: NDArray[np.float64]) -> NDArray[np.float64]:
    """Spearman's ρ of `x` against each row of `ys` (Pearson's r of the average ranks)."""
    from scipy.stats import rankdata

    rx = rankdata(x) - (len(x) + 1) / 2
    ry = rankdata(ys, axis=1) - (len(x) + 1) / 2
    return (ry @ rx) / np.sqrt((rx @ rx) * (ry * ry).sum(axis=1))


def _tau_b(x: NDArray[np.float64], ys: NDArray[np.float64]) -> NDArray[np.float64]:
    """Kendall's τ-b of `x` against each row of `ys`."""
    i, j = np.triu_indices(len(x), 1)
    sx = np.sign(x[i] - x[j])
    sy = np.sign(ys[:, i] - ys[:, j])
    return (sy @ sx) / np.sqrt(np.count_nonzero(sx) * np.count_nonzero(sy, axis=1))


def _exact_p(x: NDArray[np.float64], y: NDArray[np.float64], statistic: Any) -> float:
    """Two-sided permutation p-value over every ordering of `y` (ties kept): P(|S| >= |S observed|)."""
    import itertools

    orders = np.array(list(itertools.permutations(range(len(y)))))
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    observed = statistic(x, y[None, :])[0]
    values = statistic(x, y[orders])
    return float(np.mean(np.abs(values) >= abs(observed) - 1e-12))


def prompt_win_rates(
    table: VerdictTable, mask: NDArray[np.bool_] | None = None
) -> Iterator[tuple[str, NDArray[np.float64], NDArray[np.bool_]]]:
    """Each prompt's own ranking: (prompt, win rates on that prompt over all judges and conditions, which
    contestants have verdicts there), for every prompt with at least one valid verdict."""
    for p, name in enumerate(table.prompts):
        sel = table.prompt == p
        local, played = win_rate_arrays(table, sel if mask is None else sel & mask)
        have = played > 0
        if have.any():
            yield name, local, have


def tau_summary(values: Iterable[float]) -> dict[str, Any]:
    """{"prompts", "mean", "median", "min", "max"} over the defined (non-NaN) values; NaN statistics if none."""
    v = np.array([x for x in values if not np.isnan(x)], dtype=np.float64)
    if not len(v):
        return {
            "prompts": 0,
            "mean": float("nan"),
            "median": float("nan"),
            "min": float("nan"),
            "max": float("nan"),
        }
    return {
        "prompts": len(v),
        "mean": float(v.mean()),
        "median": float(np.median(v)),
        "min": float(v.min()),
        "max": float(v.max()),
    }


def per_prompt_tau(table: VerdictTable, mask: NDArray[np.bool_] | None = None) -> dict[str, Any]:
    """Kendall τ-b between each prompt's ranking (win rates on that prompt, all judges) and the global ranking
    (win rates over all prompts), over the contestants with verdicts on the prompt (Diagnosing Bias and Instability in LLM Evaluation, ranking stability)."""
    global_rate, _ = win_rate_arrays(table, mask)
    by_prompt: dict[str, float] = {}
    for name, local, have in prompt_win_rates(table, mask):
        by_prompt[name], _ = kendall(local[have], global_rate[have])
    return {"by_prompt": by_prompt, "summary": tau_summary(by_prompt.values())}


def length_bias(
    table: VerdictTable, lengths: Mapping[tuple[str, str], int], mask: NDArray[np.bool_] | None = None
) -> dict[str, Any]:
    """Share of decisive verdicts won by the longer response (pairs of equal or unknown length left out),
    pooled and per judge."""
    n_p, n = len(table.prompts), len(table.contestants)
    length = np.full((max(n_p, 1), max(n, 1)), -1, dtype=np.int64)
    p_index = {name: i for i, name in enumerate(table.prompts)}
    c_index = {name: i for i, name in enumerate(table.contestants)}
    for (prompt, contestant), value in lengths.items():
        if prompt in p_index and contestant in c_index:
            length[p_index[prompt], c_index[contestant]] = int(value)
    rows = np.flatnonzero(table.valid(mask))
    o = table.outcome[rows]
    dec = (o == OUTCOME_FIRST) | (o == OUTCOME_SECOND)
    rows, o = rows[dec], o[dec]
    lf = length[table.prompt[rows], table.first[rows]]
    ls = length[table.prompt[rows], table.second[rows]]
    usable = (lf >= 0) & (ls >= 0) & (lf != ls)
    longer_won = np.where(o == OUTCOME_FIRST, lf > ls, ls > lf)

    def summary(sel: NDArray[np.bool_]) -> dict[str, Any]:
        k = int(sel.sum())
        return {
            "decisive_verdicts": k,
            "longer_wins_share": float(longer_won[sel].mean()) if k else float("nan"),
        }

    judge = table.judge[rows]
    return {
        "pooled": summary(usable),
        "by_judge": {name: summary(usable & (judge == j)) for j, name in enumerate(table.judges)},
    }
