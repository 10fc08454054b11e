"""`[comparison] pairs = "recorded"`: the plan is exactly what the replay judges' verdict logs hold.

An imported tournament (`elotui import`) is usually sparse: a Chatbot Arena battle is one pair, in one order, on
its own prompt; an MT-bench judgment file holds the pairs its mode judged. Planning every pair of every prompt
would ask the logs for millions of verdicts they never held. Here each judge's log gives its presentations
(prompt, shown first, shown second, condition) and how many samples each has; those are planned, grouped by
(prompt, unordered pair) so that both orders of a game stay adjacent, in the log's order. Rows naming a prompt or
contestant the tournament does not declare are left out (counted in `RecordedPlan.ignored`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from elotui.errors import UserError
from elotui.judges.replay_index import log_index
from elotui.tournament.model import Tournament
from elotui.verdict_log import content_hash

T = TypeVar("T")


def recorded_comparisons(tournament: Tournament, make: Callable[..., T]) -> list[T]:
    """The planned comparisons (built with `make(prompt, first, second, judge, condition, sample)`), unit by
    unit in the order the logs first show each (prompt, pair); none unless `pairs = "recorded"`."""
    if tournament.spec.comparison.pairs != "recorded":
        return []
    prompts = set(tournament.prompt_ids)
    contestants = set(tournament.contestant_ids)
    conditions = set(tournament.spec.comparison.conditions)
    units: dict[tuple[str, str, str], list[T]] = {}
    for judge in tournament.spec.judges:
        path = tournament.resolve(str(judge.path))
        if not path.is_file():
            raise UserError(f"{tournament.path}: judge '{judge.id}': the verdict log {path} does not exist")
        index = log_index(Path(path).resolve(), content_hash(path)).get(judge.replay_name, {})
        for (prompt, first, second, condition), entry in index.items():
            if prompt not in prompts or first not in contestants or second not in contestants:
                continue
            if condition not in conditions or first == second:
                continue
            n = len(entry) if isinstance(entry, list) else 1
            a, b = sorted((first, second))
            unit = units.setdefault((prompt, a, b), [])
            unit.extend(make(prompt, first, second, judge.id, condition, s) for s in range(n))
    _responses_given(tournament, units)
    return [c for unit in units.values() for c in unit]


def _responses_given(tournament: Tournament, units: dict[tuple[str, str, str], list[T]]) -> None:
    """UserError naming the recorded presentations whose responses the tournament does not give (nor generates)."""
    generated = {c.id for c in tournament.spec.contestants if c.generator is not None}
    lacking = list(
        dict.fromkeys(
            f"{prompt}: {who}"
            for prompt, a, b in units
            for who in (a, b)
            if who not in generated and (prompt, who) not in tournament.responses
        )
    )
    if lacking:
        shown = ", ".join(lacking[:5]) + (f", … ({len(lacking)} in all)" if len(lacking) > 5 else "")
        raise UserError(
            f"{tournament.path}: the verdict logs record comparisons whose responses the tournament does not give "
            f"(prompt: contestant): {shown}"
        )
