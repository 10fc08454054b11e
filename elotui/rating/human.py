"""Agreement of each judge with human votes (`[reference] votes`), and the human reference ranking.

The human majority for a (prompt, unordered pair) is the sign of the mean of the votes, each vote mapped to one
orientation (-1 the contestant shown first wins, 0 tie, +1 the second wins). Each valid judge verdict for that
prompt and pair is compared with the majority mapped to the verdict's own orientation:

- accuracy: share of verdicts whose class (first / tie / second) equals the majority's;
- accuracy_decisive: the same over the verdicts where both the judge and the majority are decisive;
- cohen_kappa, fleiss_kappa: κ between the verdicts and the majority, as two raters over three classes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from elotui.rating.agreement import cohen_kappa, fleiss_kappa
from elotui.rating.bt import bradley_terry
from elotui.rating.games import games
from elotui.rating.table import OUTCOME_FIRST, OUTCOME_SECOND, OUTCOME_TIE, VerdictTable
from elotui.rating.winrates import win_rate_arrays


def votes_table(votes: Iterable[Mapping[str, Any]], table: VerdictTable) -> VerdictTable:
    """Human votes as a table whose contestant and prompt codes match `table`'s (judge, condition ignored)."""
    rows = [
        (
            v["prompt"],
            v["first"],
            v["second"],
            v.get("judge") or "human",
            "human",
            int(v.get("sample") or 0),
            v.get("status", "ok"),
            v.get("winner"),
        )
        for v in votes
    ]
    return VerdictTable.from_rows(rows, contestants=table.contestants, prompts=table.prompts)


def _signed(outcome: NDArray[np.integer]) -> NDArray[np.int64]:
    return np.where(outcome == OUTCOME_FIRST, -1, np.where(outcome == OUTCOME_SECOND, 1, 0)).astype(np.int64)


def human_majority(votes: VerdictTable, n_contestants: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(sorted keys (prompt * n + lo) * n + hi, majority sign in the lo-shown-first orientation)."""
    n = max(n_contestants, len(votes.contestants), 1)
    rows = np.flatnonzero(votes.outcome <= OUTCOME_TIE)
    first = votes.first[rows].astype(np.int64)
    second = votes.second[rows].astype(np.int64)
    lo, hi = np.minimum(first, second), np.maximum(first, second)
    value = _signed(votes.outcome[rows]) * np.where(first == lo, 1, -1)
    key = (votes.prompt[rows].astype(np.int64) * n + lo) * n + hi
    uk, inverse = np.unique(key, return_inverse=True)
    total = np.bincount(inverse, weights=value, minlength=len(uk))
    return uk, np.sign(total).astype(np.int64)


def judge_vs_human(
    table: VerdictTable, votes: VerdictTable, mask: NDArray[np.bool_] | None = None
) -> dict[str, dict[str, Any]]:
    """Per judge: {compared, accuracy, accuracy_decisive, decisive_compared, cohen_kappa, fleiss_kappa}."""
    n = max(len(table.contestants), len(votes.contestants), 1)
    keys, majority = human_majority(votes, n)
    valid = table.outcome <= OUTCOME_TIE
    if mask is not None:
        valid &= mask
    rows = np.flatnonzero(valid)
    first = table.first[rows].astype(np.int64)
    second = table.second[rows].astype(np.int64)
    lo, hi = np.minimum(first, second), np.maximum(first, second)
    key = (table.prompt[rows].astype(np.int64) * n + lo) * n + hi
    pos = np.searchsorted(keys, key)
    pos_clipped = np.minimum(pos, max(len(keys) - 1, 0))
    found = (pos < len(keys)) & (keys[pos_clipped] == key) if len(keys) else np.zeros(len(key), dtype=bool)
    human = np.where(found, majority[pos_clipped] if len(keys) else 0, 0) * np.where(first == lo, 1, -1)
    judge_sign = _signed(table.outcome[rows])
    judge = table.judge[rows]
    out: dict[str, dict[str, Any]] = {}
    for j, name in enumerate(table.judges):
        sel = found & (judge == j)
        x = judge_sign[sel] + 1  # 0 first, 1 tie, 2 second
        y = human[sel] + 1
        both = (x != 1) & (y != 1)
        counts = np.zeros((len(x), 3), dtype=np.int64)
        counts[np.arange(len(x)), x] += 1
        counts[np.arange(len(x)), y] += 1
        out[name] = {
            "compared": int(sel.sum()),
            "accuracy": float(np.mean(x == y)) if len(x) else float("nan"),
            "decisive_compared": int(both.sum()),
            "accuracy_decisive": float(np.mean(x[both] == y[both])) if both.any() else float("nan"),
            "cohen_kappa": cohen_kappa(x, y, 3),
            "fleiss_kappa": fleiss_kappa(counts) if len(x) else float("nan"),
        }
    return out


def human_ranking(votes: VerdictTable) -> dict[str, Any]:
    """The reference ranking the human votes give: Bradley–Terry on every vote (a tie is a draw) and win rates."""
    g = games(votes, "none")
    bt = bradley_terry(g, bootstrap=0)
    rate, played = win_rate_arrays(votes)
    names = votes.contestants
    return {
        "votes": int(g.counts["verdicts_used"]),
        "ratings": dict(zip(names, bt.rating.tolist(), strict=True)),
        "win_rates": dict(zip(names, rate.tolist(), strict=True)),
        "verdicts": dict(zip(names, played.tolist(), strict=True)),
    }


def voter_agreement(votes: Iterable[tuple[str, str, str, str, str]]) -> dict[str, Any] | None:
    """Inter-annotator agreement of the human voters, from (voter, prompt, first, second, winner) rows (winner:
    first / second / tie). Cohen's κ and the share of equal votes for each two voters over the items both voted on
    (an item is a prompt and an unordered pair, each vote mapped to one orientation), and Fleiss' κ over the items
    every voter voted on. None until two voters share an item."""
    sign = {"first": -1, "tie": 0, "second": 1}
    by_voter: dict[str, dict[tuple[str, str, str], int]] = {}
    for voter, prompt, first, second, winner in votes:
        lo, hi = sorted((first, second))
        by_voter.setdefault(voter, {})[(prompt, lo, hi)] = sign[winner] * (1 if first == lo else -1) + 1
    names = sorted(by_voter)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            shared = sorted(set(by_voter[a]) & set(by_voter[b]))
            if shared:
                x = np.array([by_voter[a][k] for k in shared])
                y = np.array([by_voter[b][k] for k in shared])
                pairs.append({"voters": [a, b], "items": len(shared), "percent_agreement": float(np.mean(x == y)),
                              "cohen_kappa": cohen_kappa(x, y, 3)})  # fmt: skip
    if not pairs:
        return None
    common = sorted(set.intersection(*(set(v) for v in by_voter.values())))
    counts = np.zeros((len(common), 3), dtype=np.int64)
    for row, item in enumerate(common):
        for name in names:
            counts[row, by_voter[name][item]] += 1
    fleiss = fleiss_kappa(counts) if common else float("nan")
    return {"voters": names, "pairs": pairs, "items_all": len(common), "fleiss_kappa": fleiss}
