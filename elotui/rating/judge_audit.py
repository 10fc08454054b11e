"""Which judge to trust: self-preference, and every judge's own ranking beside the panel's.

Self-preference (a judge that is also a contestant, `[[judges]] self`, or matched by name/model): over the
presentations that involve its contestant C and that the judge and at least one other judge answered validly,
the judge's win rate for C (a tie = half a win) against the other judges' win rate for C on the same
presentations; `difference` = judge − others, with a 95 % percentile interval from resampling prompts (200 rounds,
seeded). MT-bench reports GPT-4 favouring itself by about +10 % and Claude-v1 by +25 % in win rate.

Per-judge rankings: each judge's ratings from its verdicts alone (the leaderboard's method and threshold, point
fit), and Kendall's τ-b against the panel's ratings and against a reference ranking when there is one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from elotui.rating.leaderboard import RatingOptions, rank
from elotui.rating.table import OUTCOME_FIRST, OUTCOME_SECOND, OUTCOME_TIE, VerdictTable
from elotui.rating.winrates import kendall
from elotui.vocab import Threshold, ranked_names

SELF_ROUNDS = 200


def _score_for(table: VerdictTable, rows: NDArray[np.intp], c: int) -> NDArray[np.float64]:
    """Per row: 1 if contestant c won, 0.5 a tie, 0 a loss."""
    o, first = table.outcome[rows], table.first[rows]
    won_first = o == OUTCOME_FIRST
    won_second = o == OUTCOME_SECOND
    c_first = first == c
    return np.where(
        o == OUTCOME_TIE, 0.5, np.where((won_first & c_first) | (won_second & ~c_first), 1.0, 0.0)
    )


def _presentation_key(table: VerdictTable, rows: NDArray[np.intp]) -> NDArray[np.int64]:
    n = max(len(table.contestants), 1)
    return (
        ((table.prompt[rows].astype(np.int64) * n + table.first[rows]) * n + table.second[rows]) * 64
        + table.condition[rows].astype(np.int64)
    ) * 1024 + table.sample[rows].astype(np.int64)


def self_preference(
    table: VerdictTable, selves: Mapping[str, str], *, rounds: int = SELF_ROUNDS, seed: int = 0
) -> dict[str, Any]:
    """Per judge with a self: {contestant, presentations, judge_win_rate, others_win_rate, difference, ci_low,
    ci_high, rounds}."""
    out: dict[str, Any] = {}
    valid = table.outcome <= OUTCOME_TIE
    for judge, contestant in selves.items():
        if judge not in table.judges or contestant not in table.contestants:
            continue
        j, c = table.judges.index(judge), table.contestant_index(contestant)
        involved = valid & ((table.first == c) | (table.second == c))
        own = np.flatnonzero(involved & (table.judge == j))
        other = np.flatnonzero(involved & (table.judge != j))
        own_key, other_key = _presentation_key(table, own), _presentation_key(table, other)
        shared = np.intersect1d(own_key, other_key)
        own = own[np.isin(own_key, shared)]
        other = other[np.isin(other_key, shared)]
        out[judge] = _compare(table, own, other, c, rounds, seed)
        out[judge]["contestant"] = contestant
    return out


def _compare(
    table: VerdictTable, own: NDArray[np.intp], other: NDArray[np.intp], c: int, rounds: int, seed: int
) -> dict[str, Any]:
    n_prompts = max(len(table.prompts), 1)
    own_score, other_score = _score_for(table, own, c), _score_for(table, other, c)
    own_p, other_p = table.prompt[own], table.prompt[other]
    # per prompt: sums and counts, so a bootstrap round is a weighted sum over resampled prompts
    sums = np.stack([np.bincount(own_p, own_score, n_prompts), np.bincount(other_p, other_score, n_prompts)])
    counts = np.stack([np.bincount(own_p, minlength=n_prompts), np.bincount(other_p, minlength=n_prompts)])
    rate = lambda w: (sums @ w) / np.maximum(counts @ w, 1)  # noqa: E731
    point = rate(np.ones(n_prompts)) if len(own) else np.array([np.nan, np.nan])
    used = np.flatnonzero(counts[0] > 0)
    diffs = []
    rng = np.random.default_rng(seed)
    for _ in range(rounds if len(used) > 1 else 0):
        w = np.bincount(rng.choice(used, size=len(used)), minlength=n_prompts).astype(np.float64)
        r = rate(w)
        diffs.append(r[0] - r[1])
    low, high = np.percentile(diffs, [2.5, 97.5]) if diffs else (np.nan, np.nan)
    return {
        "presentations": len(own),
        "judge_win_rate": float(point[0]),
        "others_win_rate": float(point[1]),
        "difference": float(point[0] - point[1]),
        "ci_low": float(low),
        "ci_high": float(high),
        "rounds": len(diffs),
    }


def per_judge_rankings(
    table: VerdictTable,
    *,
    threshold: Threshold,
    method: str,
    options: RatingOptions | None = None,
    reference: Sequence[str] | None = None,
) -> dict[str, Any]:
    """{"panel": [ranking], "by_judge": {judge: {"ratings", "ranking", "tau_vs_panel", "tau_vs_reference"}}}."""
    options = (options or RatingOptions()).replace(bootstrap=0)
    panel = rank(table, threshold=threshold, method=method, options=options).ratings()
    ref = {c: -float(i) for i, c in enumerate(reference)} if reference else None
    by_judge: dict[str, Any] = {}
    for judge in table.judges:
        ratings = rank(table, threshold="none", method=method, options=options, judges=[judge]).ratings()
        names = [c for c in ratings if c in panel]
        tau_panel, _ = kendall(np.array([ratings[c] for c in names]), np.array([panel[c] for c in names]))
        tau_ref = None
        if ref is not None:
            in_ref = [c for c in ratings if c in ref]
            tau_ref, _ = kendall(np.array([ratings[c] for c in in_ref]), np.array([ref[c] for c in in_ref]))
        by_judge[judge] = {
            "ratings": ratings,
            "ranking": ranked_names(ratings),
            "tau_vs_panel": tau_panel,
            "tau_vs_reference": tau_ref,
        }
    return {"panel": ranked_names(panel), "by_judge": by_judge}
