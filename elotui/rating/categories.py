"""One leaderboard per prompt category, and how each category's ranking agrees with the overall one.

For each category: its prompts, the games at the chosen threshold, every contestant's rating from those prompts
only (the leaderboard's point fit, no bootstrap; a contestant the category's data do not determine is left out,
as on the leaderboard), the ranking, and Kendall's τ-b between the category's ratings and the overall ratings
over the contestants rated in both. A category with few games agrees with anything or nothing by chance:
`games` says how much data stands behind each τ.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from elotui.rating.leaderboard import RatingOptions, rank
from elotui.rating.table import VerdictTable
from elotui.rating.winrates import kendall
from elotui.vocab import Threshold, ranked_names, threshold_label


def per_category(
    table: VerdictTable,
    categories: Mapping[str, str],
    *,
    threshold: Threshold,
    method: str,
    options: RatingOptions | None = None,
) -> dict[str, Any] | None:
    """`{"threshold", "method", "overall": [ranking], "by_category": {category: {"prompts", "games", "ratings",
    "ranking", "kendall_tau", "kendall_p"}}}`, or None when no prompt has a category."""
    if not categories:
        return None
    options = (options or RatingOptions()).replace(bootstrap=0)
    overall = rank(table, threshold=threshold, method=method, options=options).ratings()
    by_category: dict[str, Any] = {}
    for category in sorted(set(categories.values())):
        prompts = [p for p in table.prompts if categories.get(p) == category]
        board = rank(table, threshold=threshold, method=method, options=options, prompts=prompts)
        ratings = board.ratings()
        both = [c for c in ratings if c in overall]
        tau, p = kendall(np.array([ratings[c] for c in both]), np.array([overall[c] for c in both]))
        by_category[category] = {
            "prompts": len(prompts),
            "games": int(board.counts.get("games", 0)),
            "ratings": ratings,
            "ranking": ranked_names(ratings),
            "kendall_tau": tau,
            "kendall_p": p,
        }
    return {
        "threshold": threshold_label(threshold),
        "method": method,
        "overall": ranked_names(overall),
        "by_category": by_category,
    }
