"""Per-prompt agreement with a prompt's own reference ranking (`[[prompts]] reference_ranking`).

For every prompt with a reference (contestants best first), the prompt's ranking — the win rates on that
prompt over all judges and conditions, exactly the per-prompt ranking of `winrates.per_prompt_tau` — is
compared with the reference: Kendall's τ-b and Spearman's ρ with their p-values (scipy.stats), over the
contestants the reference names that have valid verdicts on the prompt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from elotui.rating.table import VerdictTable
from elotui.rating.winrates import kendall, prompt_win_rates, spearman, tau_summary


def per_prompt_reference(
    table: VerdictTable,
    references: Mapping[str, Sequence[str]],
    mask: NDArray[np.bool_] | None = None,
) -> dict[str, Any] | None:
    """{"by_prompt": {prompt: {"contestants", "kendall_tau", "kendall_p", "spearman_rho", "spearman_p"}},
    "summary": {"prompts", "mean", "median", "min", "max"} (of the defined τ)}, or None when no prompt has a
    non-empty reference. Prompts come in the order of `references`; a prompt without verdicts has
    `contestants` 0 and NaN statistics (as does one with fewer than two contestants or a constant side)."""
    refs = {str(p): list(dict.fromkeys(r)) for p, r in references.items() if r}
    if not refs:
        return None
    local = {name: (rate, have) for name, rate, have in prompt_win_rates(table, mask)}
    known = set(table.contestants)
    nan = float("nan")
    by_prompt: dict[str, dict[str, Any]] = {}
    for prompt, ranking in refs.items():
        rate, have = local.get(prompt, (None, None))
        names: list[str] = []
        scores: list[float] = []
        if rate is not None and have is not None:
            for position, c in enumerate(ranking):
                if c in known and have[table.contestant_index(c)]:
                    names.append(c)
                    scores.append(-float(position))  # best first -> highest score
        idx = np.array([table.contestant_index(c) for c in names], dtype=np.int64)
        ref = np.array(scores, dtype=np.float64)
        if rate is not None and len(names) >= 2:
            tau, tau_p = kendall(rate[idx], ref)
            rho, rho_p = spearman(rate[idx], ref)
        else:
            tau = tau_p = rho = rho_p = nan
        by_prompt[prompt] = {
            "contestants": len(names),
            "kendall_tau": tau,
            "kendall_p": tau_p,
            "spearman_rho": rho,
            "spearman_p": rho_p,
        }
    return {
        "by_prompt": by_prompt,
        "summary": tau_summary(r["kendall_tau"] for r in by_prompt.values()),
    }
