"""The tournament file's cross-checks (ids unique, every response's contestant declared, qualities complete):
each problem is appended as `key.path: message`, so `validate` lists them all at once."""

from __future__ import annotations

from typing import Any


def _check_prompt(i: int, prompt: Any, declared: set[str], generated: set[str], problems: list[str]) -> None:
    for cid in prompt.responses:
        if cid not in declared:
            problems.append(
                f"prompts[{i}].responses.{cid}: contestant '{cid}' is not declared in [[contestants]]"
            )
    for cid in sorted(declared - generated - set(prompt.responses)):
        problems.append(
            f"prompts[{i}].responses: no response for contestant '{cid}' "
            "(give one, or a [contestants.generator])"
        )
    problems += [
        f"prompts[{i}].reference_ranking: contestant '{cid}' is not declared"
        for cid in prompt.reference_ranking or []
        if cid not in declared
    ]


def _check_qualities(key: str, given: set[str], declared: set[str], problems: list[str]) -> None:
    missing, unknown = sorted(declared - given), sorted(given - declared)
    if missing:
        problems.append(f"{key}: missing contestant(s) {', '.join(missing)}")
    if unknown:
        problems.append(f"{key}: undeclared contestant(s) {', '.join(unknown)}")


def _unique(section: str, ids: list[str], problems: list[str]) -> None:
    seen: set[str] = set()
    for i, value in enumerate(ids):
        if value in seen:
            problems.append(f"{section}[{i}].id: '{value}' is used twice")
        seen.add(value)
