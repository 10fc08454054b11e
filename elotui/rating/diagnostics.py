"""`diagnose(table, ...)`: every bias and agreement diagnostic as one JSON-ready dict.

Schema ("elotui.diagnose/1"; floats are null where undefined, e.g. a κ with one category, a τ with < 2 items):

```
{
  "schema": "elotui.diagnose/1",
  "contestants": [id, ...], "judges_order": [id, ...], "conditions": [id, ...], "prompts": <int>,
  "counts": {"verdicts": n, "verdicts_used": n, "invalid": n, "failed": n, "missing": n},
  "position": {<rates>},                         # pooled over judges and conditions
  "conditions_position": {<condition>: {<rates>}},
  "judges": {
    <judge id>: {
      "counts": {"verdicts_used", "invalid", "failed", "missing"},
      "position": {<rates>},
      "position_by_condition": {<condition>: {<rates>}},
      "human": {"compared", "accuracy", "accuracy_decisive", "decisive_compared", "cohen_kappa", "fleiss_kappa"},
      "length_bias": {"decisive_verdicts", "longer_wins_share"} | null
    }
  },
  "agreement": {"items", "judges", "percent_agreement", "fleiss_kappa",
                "pairs": [{"judges": [a, b], "items", "percent_agreement", "cohen_kappa"}]},
  "win_rates": {"pooled": {<contestant>: rate}, <judge id>: {<contestant>: rate}},
  "head_to_head": {"contestants": [...], "wins": [[...]], "ties": [[...]]},
  "per_prompt_tau": {"by_prompt": {<prompt>: tau}, "summary": {"prompts", "mean", "median", "min", "max"}},
  "per_prompt_reference": {"by_prompt": {<prompt>: {"contestants", "kendall_tau", "kendall_p",
                                                    "spearman_rho", "spearman_p"}},
                           "summary": {"prompts", "mean", "median", "min", "max"}} | null,
  "length_bias": {"decisive_verdicts", "longer_wins_share"} | null,
  "human": {"votes", "ratings": {...}, "win_rates": {...}, "verdicts": {...}} | null,
  "reference": {
    "source": "ranking" | "human votes" | null, "method": "elo" | "bt", "ranking": [best, ..., worst],
    "by_threshold": {"1.0" | "0.9" | "0.75" | "0.5" | "none":
                       {"contestants", "spearman_rho", "spearman_p", "kendall_tau", "kendall_p", "ratings": {...}}}
  },
  "per_category": {"threshold", "method", "overall": [best, ..., worst],
                   "by_category": {<category>: {"prompts", "games", "ratings": {...}, "ranking": [...],
                                                "kendall_tau", "kendall_p"}}} | null
}
<rates> = {"units", "consistent", "position_bias", "inconclusive", "decisive_verdicts", "first_slot_share"}
```
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from elotui.jsonable import jsonable
from elotui.rating.agreement import inter_judge
from elotui.rating.categories import per_category
from elotui.rating.games import THRESHOLDS, games
from elotui.rating.gold import gold_report
from elotui.rating.human import human_ranking, judge_vs_human, votes_table
from elotui.rating.judge_audit import per_judge_rankings, self_preference
from elotui.rating.judge_weights import human_items, judge_weighted, weighted_vote_accuracy
from elotui.rating.leaderboard import RatingOptions, ratings_for
from elotui.rating.position_bt import first_slot_advantage
from elotui.rating.prompt_reference import per_prompt_reference
from elotui.rating.stability import position_report
from elotui.rating.table import VerdictTable
from elotui.rating.winrates import head_to_head, kendall, length_bias, per_prompt_tau, spearman, win_rates
from elotui.vocab import Threshold, threshold_label

SCHEMA = "elotui.diagnose/1"
_EMPTY_HUMAN = {
    "compared": 0,
    "accuracy": None,
    "accuracy_decisive": None,
    "decisive_compared": 0,
    "cohen_kappa": None,
    "fleiss_kappa": None,
}


def reference_agreement(
    table: VerdictTable,
    reference: Mapping[str, float],
    *,
    method: str = "elo",
    options: RatingOptions | None = None,
) -> dict[str, dict[str, Any]]:
    """Spearman ρ and Kendall τ (with p-values) between each threshold's ratings and reference scores (higher =
    better), over the contestants the reference scores (the layout of Braun and Forell 2026's result tables)."""
    names = [c for c in table.contestants if c in reference]
    idx = np.array([table.contestant_index(c) for c in names], dtype=np.int64)
    ref = np.array([float(reference[c]) for c in names])
    out: dict[str, dict[str, Any]] = {}
    for t in THRESHOLDS:
        g = games(table, t)
        rating = ratings_for(g, method, options or RatingOptions(bootstrap=0)).rating
        rho, rho_p = spearman(rating[idx], ref)
        tau, tau_p = kendall(rating[idx], ref)
        out[threshold_label(t)] = {
            "contestants": len(names),
            "spearman_rho": rho,
            "spearman_p": rho_p,
            "kendall_tau": tau,
            "kendall_p": tau_p,
            "ratings": dict(zip(names, rating[idx].tolist(), strict=True)),
        }
    return out


def _reference(
    table: VerdictTable,
    reference_ranking: Sequence[str] | Mapping[str, float] | None,
    human: dict[str, Any] | None,
    method: str,
    options: RatingOptions | None,
) -> dict[str, Any]:
    """The reference ranking (the file's, else the human votes' Bradley–Terry ranking) and how each threshold's
    ratings agree with it."""
    reference: dict[str, Any] = {"source": None, "method": method, "ranking": None, "by_threshold": {}}
    scores: dict[str, float] | None = None
    if reference_ranking is not None and len(reference_ranking):
        if isinstance(reference_ranking, Mapping):
            scores = {str(k): float(v) for k, v in reference_ranking.items()}
        else:
            scores = {c: float(-i) for i, c in enumerate(reference_ranking)}
        reference["source"] = "ranking"
    elif human is not None:
        scores = {c: r for c, r in human["ratings"].items() if human["verdicts"].get(c)}
        reference["source"] = "human votes"
    if scores:
        reference["ranking"] = sorted(scores, key=lambda c: (-scores[c], c))
        reference["by_threshold"] = reference_agreement(
            table, scores, method=method, options=(options or RatingOptions()).replace(bootstrap=0)
        )
    return reference


def _judge_weights(
    table: VerdictTable, votes: VerdictTable | None, options: RatingOptions | None
) -> dict[str, Any] | None:
    """The judge-weighted Bradley–Terry fit, and (with human votes) how the judges' summed votes agree with the
    human majority with equal and with learned weights."""
    if len(table.judges) < 2:
        return None
    o = options or RatingOptions()
    report = judge_weighted(table, initial_rating=o.initial_rating, seed=o.seed)  # its own 50 prompt rounds
    if votes is not None and len(votes):
        n = len(table.contestants)
        learned = {j: w["weight"] for j, w in report["weights"].items()}
        report["human_agreement"] = weighted_vote_accuracy(table, human_items(votes, n), learned)
    return report


def _judge_reports(
    table: VerdictTable, position: dict[str, Any], human_cmp: dict[str, Any], lb: dict[str, Any] | None
) -> dict[str, Any]:
    return {
        name: {
            "counts": table.counts(table.judge == j),
            "position": position["by_judge"][name],
            "position_by_condition": position["by_judge_condition"][name],
            "human": human_cmp.get(name, dict(_EMPTY_HUMAN)),
            "length_bias": lb["by_judge"][name] if lb else None,
        }
        for j, name in enumerate(table.judges)
    }


def diagnose(
    table: VerdictTable,
    *,
    human_votes: Iterable[Mapping[str, Any]] | None = None,
    reference_ranking: Sequence[str] | Mapping[str, float] | None = None,
    prompt_references: Mapping[str, Sequence[str]] | None = None,
    lengths: Mapping[tuple[str, str], int] | None = None,
    method: str = "elo",
    options: RatingOptions | None = None,
    categories: Mapping[str, str] | None = None,
    threshold: Threshold = 0.5,
    gold: Iterable[Mapping[str, Any]] | None = None,
    selves: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """All diagnostics (schema in the module docstring and docs/diagnose.md), JSON-ready (NaN -> None).

    `reference_ranking`: contestants best first, or scores (higher = better); without it the human votes'
    Bradley–Terry ranking is the reference. `prompt_references`: prompt -> its own reference ranking (best
    first), compared with that prompt's ranking (`per_prompt_reference`, null without any). `lengths`: (prompt, contestant) -> response length, for length bias.
    `method` and `options` choose how each threshold is rated for the reference comparison (bootstrap is not
    needed there: it is set to 0).
    """
    counts = table.counts()
    counts["verdicts"] = len(table)
    position = position_report(table)
    agreement = inter_judge(table)
    votes = votes_table(human_votes, table) if human_votes is not None else None
    human_cmp = judge_vs_human(table, votes) if votes is not None and len(votes) else {}
    lb = length_bias(table, lengths) if lengths else None
    judges = _judge_reports(table, position, human_cmp, lb)
    human = human_ranking(votes) if votes is not None and len(votes) else None

    reference = _reference(table, reference_ranking, human, method, options)

    result = {
        "schema": SCHEMA,
        "contestants": list(table.contestants),
        "judges_order": list(table.judges),
        "conditions": list(table.conditions),
        "prompts": len(table.prompts),
        "counts": counts,
        "position": position["pooled"],
        "conditions_position": position["by_condition"],
        "judges": judges,
        "agreement": agreement,
        "win_rates": win_rates(table),
        "head_to_head": head_to_head(table),
        "per_prompt_tau": per_prompt_tau(table),
        "per_prompt_reference": per_prompt_reference(table, prompt_references) if prompt_references else None,
        "length_bias": lb["pooled"] if lb else None,
        "human": human,
        "reference": reference,
        "per_category": per_category(
            table, categories or {}, threshold=threshold, method=method, options=options
        ),
        "gold": gold_report(table, gold, categories or {}) if gold is not None else None,
        "self_preference": self_preference(table, selves, seed=(options or RatingOptions()).seed)
        if selves
        else None,
        "judge_weights": _judge_weights(table, votes, options),
        "position_effect": first_slot_advantage(table, seed=(options or RatingOptions()).seed),
        "per_judge": per_judge_rankings(
            table, threshold=threshold, method=method, options=options, reference=reference["ranking"]
        ),
    }
    return jsonable(result)  # type: ignore[no-any-return]
