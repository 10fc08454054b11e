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
    contestants have verdicts there), for every prompt with at least one valid verdict, in the prompts' order."""
    n = len(table.contestants)
    cells = _prompt_cells(table, mask)
    for start, end in zip(cells.starts.tolist(), cells.ends.tolist(), strict=True):
        local = np.full(n, np.nan)
        have = np.zeros(n, dtype=np.bool_)
        contestants = cells.contestant[start:end]
        local[contestants] = cells.rate[start:end]
        have[contestants] = True
        yield table.prompts[int(cells.prompt[start])], local, have


class _Cells:
    """The (prompt, contestant) cells with valid verdicts, sorted by prompt then contestant: each cell's prompt,
    contestant and win rate on that prompt (a tie half), and where each prompt's cells start and end."""

    def __init__(self, prompt: NDArray[np.int64], contestant: NDArray[np.int64], rate: NDArray[np.float64]):
        self.prompt, self.contestant, self.rate = prompt, contestant, rate
        self.starts = np.flatnonzero(np.r_[True, prompt[1:] != prompt[:-1]]) if len(prompt) else prompt
        self.ends = np.r_[self.starts[1:], len(prompt)].astype(np.int64) if len(prompt) else prompt


def _prompt_cells(table: VerdictTable, mask: NDArray[np.bool_] | None) -> _Cells:
    """Every prompt's win rates at once: one sort of the verdicts' (prompt, contestant) cells, no pass per prompt
    (10^6 prompts of one battle each: a pass per prompt took hours)."""
    n = max(len(table.contestants), 1)
    rows = np.flatnonzero(table.valid(mask))
    o = table.outcome[rows]
    score_first = np.where(o == OUTCOME_FIRST, 1.0, np.where(o == OUTCOME_TIE, 0.5, 0.0))
    prompt = table.prompt[rows].astype(np.int64) * n
    keys = np.concatenate([prompt + table.first[rows], prompt + table.second[rows]])
    cells, of_cell = np.unique(keys, return_inverse=True)
    points = np.bincount(
        of_cell, weights=np.concatenate([score_first, 1.0 - score_first]), minlength=len(cells)
    )
    played = np.bincount(of_cell, minlength=len(cells))
    return _Cells(cells // n, cells % n, points / np.maximum(played, 1))


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
    (win rates over all prompts), over the contestants with verdicts on the prompt (Diagnosing Bias and
    Instability in LLM Evaluation, ranking stability); NaN for a prompt with fewer than two contestants or a
    constant side. "contestants": the most contestants a prompt compares (2: each τ is +1 where the globally
    better one won the prompt, −1 where it lost, NaN for a tie). Computed for every prompt at once: the prompts
    of k contestants together, their k(k−1)/2 pairs as columns."""
    global_rate, _ = win_rate_arrays(table, mask)
    cells = _prompt_cells(table, mask)
    sizes = cells.ends - cells.starts
    tau = np.full(len(sizes), np.nan)
    for k in np.unique(sizes[sizes >= 2]).tolist():
        of_k = np.flatnonzero(sizes == k)
        i, j = np.triu_indices(k, 1)
        for chunk in np.array_split(of_k, max(1, len(of_k) * len(i) // _PAIRS_AT_ONCE)):
            a, b = cells.starts[chunk, None] + i, cells.starts[chunk, None] + j
            sx = np.sign(cells.rate[a] - cells.rate[b])
            sy = np.sign(global_rate[cells.contestant[a]] - global_rate[cells.contestant[b]])
            ties = np.count_nonzero(sx, axis=1) * np.count_nonzero(sy, axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                tau[chunk] = np.where(ties > 0, (sx * sy).sum(axis=1) / np.sqrt(ties), np.nan)
    names = [table.prompts[p] for p in cells.prompt[cells.starts].tolist()]
    by_prompt = dict(zip(names, tau.tolist(), strict=True))
    return {
        "by_prompt": by_prompt,
        "summary": tau_summary(by_prompt.values()),
        "contestants": int(sizes.max()) if len(sizes) else 0,
    }


_PAIRS_AT_ONCE = 1 << 22  # (prompt, pair) cells computed at a time: ~100 MB of temporaries at most


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
