"""The tournament file's cross-checks, on the parsed TOML (plain dicts), so they run even when the schema check
fails and `validate` lists every problem in one run: ids unique, every response's contestant declared, every
contestant answering every prompt, qualities complete, referenced files present, the plan not absurdly large.

Each problem is `key.path: message` (the caller finds the line). Values of the wrong type are skipped here:
the schema check reports them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from elotui.tournament.prompt_columns import PromptColumns
from elotui.tournament.user_files import check_regular

MAX_PLANNED_CALLS = 20_000_000


def _list(data: Any, key: str) -> list[dict[str, Any]]:
    value = data.get(key) if isinstance(data, dict) else None
    return [v if isinstance(v, dict) else {} for v in value] if isinstance(value, list) else []


def _table(data: Any, key: str) -> dict[str, Any]:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def _prompts(data: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """The prompts to check one by one, and how many prompts there are. Prompts held column-wise (read from a file
    of plain rows, elotui.tournament.plain_prompts) were checked as they were read: ids unique, every response's
    contestant declared, no file reference, no reference ranking, no earlier turns."""
    prompts = data.get("prompts")
    if isinstance(prompts, PromptColumns):
        return [], len(prompts)
    items = _list(data, "prompts")
    return items, len(items)


def _ids(items: list[dict[str, Any]]) -> list[str | None]:
    return [i.get("id") if isinstance(i.get("id"), str) else None for i in items]


def _unique(section: str, ids: list[str | None], problems: list[str]) -> None:
    seen: set[str] = set()
    for i, value in enumerate(ids):
        if value is None:
            continue
        if value in seen:
            problems.append(f"{section}[{i}].id: '{value}' is used twice")
        seen.add(value)


def _check_prompt(
    i: int,
    prompt: dict[str, Any],
    declared: set[str],
    generated: set[str],
    problems: list[str],
    coverage: bool,
) -> None:
    responses = prompt.get("responses", {})
    responses = responses if isinstance(responses, dict) else {}
    for cid in responses:
        if cid not in declared:
            problems.append(
                f"prompts[{i}].responses.{cid}: contestant '{cid}' is not declared in [[contestants]]"
            )
    for cid in sorted(declared - generated - set(responses)) if coverage else ():
        problems.append(
            f"prompts[{i}].responses: no response for contestant '{cid}' "
            "(give one, or a [contestants.generator])"
        )
    ranking = prompt.get("reference_ranking")
    problems += [
        f"prompts[{i}].reference_ranking: contestant '{cid}' is not declared"
        for cid in (ranking if isinstance(ranking, list) else [])
        if isinstance(cid, str) and cid not in declared
    ]
    _check_conversation(i, prompt, generated, problems)


def _check_conversation(i: int, prompt: dict[str, Any], generated: set[str], problems: list[str]) -> None:
    """A prompt with earlier turns: every contestant that answers it gives one earlier answer per earlier turn
    (a generator cannot: it answers single prompts)."""
    turns = prompt.get("earlier_turns")
    if not isinstance(turns, list) or not turns:
        return
    answers = _table(prompt, "earlier_answers")
    responses = _table(prompt, "responses")
    for cid in sorted(set(responses) | generated):
        given = answers.get(cid)
        if cid in generated and cid not in responses:
            problems.append(
                f"prompts[{i}].earlier_turns: contestant '{cid}' has a generator, which cannot answer a "
                "conversation"
            )
        elif not isinstance(given, list) or len(given) != len(turns):
            count = len(given) if isinstance(given, list) else 0
            problems.append(
                f"prompts[{i}].earlier_answers: contestant '{cid}' gives {count} earlier answer(s) for "
                f"{len(turns)} earlier turn(s)"
            )


def _check_qualities(key: str, given: set[str], declared: set[str], problems: list[str]) -> None:
    missing, unknown = sorted(declared - given), sorted(given - declared)
    if missing:
        problems.append(f"{key}: missing contestant(s) {', '.join(missing)}")
    if unknown:
        problems.append(f"{key}: undeclared contestant(s) {', '.join(unknown)}")


def plan_size(contestants: int, prompts: int, judges: int, comparison: Any) -> int:
    """How many judge calls the full plan has (`comparison`: a ComparisonConfig or its parsed table)."""
    get = comparison.get if isinstance(comparison, dict) else lambda k, d: getattr(comparison, k, d)
    both = get("both_orders", True)
    samples = get("samples", 1)
    conditions = get("conditions", ["clean"])
    pairs_setting = get("pairs", "all")
    baseline = isinstance(pairs_setting, dict) or hasattr(pairs_setting, "baseline")
    orders = 1 if both is False else 2
    samples = samples if isinstance(samples, int) and samples > 0 else 1
    n_conditions = len(conditions) if isinstance(conditions, list) and conditions else 1
    pairs = contestants - 1 if baseline else contestants * (contestants - 1) // 2
    return prompts * pairs * orders * judges * samples * n_conditions


def plan_too_large(contestants: int, prompts: int, judges: int, comparison: Any) -> list[str]:
    planned = plan_size(contestants, prompts, judges, comparison)
    if planned <= MAX_PLANNED_CALLS:
        return []
    message = (
        f"contestants: the plan would have {planned:,} judge calls (prompts × pairs × orders × judges × samples "
        f"× conditions), more than the {MAX_PLANNED_CALLS:,} one tournament may have: split it"
    )
    return [message]


def _recorded(data: dict[str, Any]) -> bool:
    """`[comparison] pairs = "recorded"`: a sparse design, whose prompts need the responses of their judged pairs
    only."""
    comparison = data.get("comparison")
    return isinstance(comparison, dict) and comparison.get("pairs") == "recorded"


def cross_checks(data: dict[str, Any], *, coverage: bool = True) -> list[str]:
    """Every cross-reference problem of a parsed tournament file. `coverage=False`: the data files' loader has
    checked that every contestant answers every prompt (and says it better, with the files' lines)."""
    problems: list[str] = []
    contestants, judges = _list(data, "contestants"), _list(data, "judges")
    prompts, n_prompts = _prompts(data)
    _unique("contestants", _ids(contestants), problems)
    _unique("prompts", _ids(prompts), problems)
    _unique("judges", _ids(judges), problems)
    declared = {c for c in _ids(contestants) if c is not None}
    generated = {c.get("id") for c in contestants if c.get("generator") is not None}
    coverage = coverage and not _recorded(data)
    for i, prompt in enumerate(prompts):
        _check_prompt(i, prompt, declared, {g for g in generated if isinstance(g, str)}, problems, coverage)
    for i, judge in enumerate(judges):
        if isinstance(judge.get("self"), str) and judge["self"] not in declared:
            problems.append(f"judges[{i}].self: contestant '{judge['self']}' is not declared")
        qualities = _table(_table(judge, "simulation"), "qualities")
        if "simulation" in judge and isinstance(judge.get("simulation"), dict):
            _check_qualities(f"judges[{i}].simulation.qualities", set(qualities), declared, problems)
            if "unguided_qualities" in judge["simulation"]:
                unguided = set(_table(judge["simulation"], "unguided_qualities"))
                _check_qualities(f"judges[{i}].simulation.unguided_qualities", unguided, declared, problems)
    problems += _references(data, declared)
    problems += _screen(data)
    problems += plan_too_large(len(contestants), n_prompts, len(judges), _table(data, "comparison"))
    return problems


def _screen(data: dict[str, Any]) -> list[str]:
    comparison = _table(data, "comparison")
    screen = comparison.get("screen")
    if not isinstance(screen, str):
        return []
    judges = {j.get("id") for j in _list(data, "judges")}
    if screen not in judges:
        return [f"comparison.screen: judge '{screen}' is not declared in [[judges]]"]
    if comparison.get("plan") == "adaptive":
        return ['comparison.screen: screening works with plan = "all" (adaptive already buys only open gaps)']
    if len(judges) < 2:
        return ["comparison.screen: screening needs a panel besides the screening judge"]
    return []


def _references(data: dict[str, Any], declared: set[str]) -> list[str]:
    """The contestants named by `[reference] ranking` and `[comparison] pairs.baseline` must be declared."""
    ranking = _table(data, "reference").get("ranking")
    problems = [
        f"reference.ranking: contestant '{cid}' is not declared"
        for cid in (ranking if isinstance(ranking, list) else [])
        if isinstance(cid, str) and cid not in declared
    ]
    baseline = _table(_table(data, "comparison"), "pairs").get("baseline")
    if isinstance(baseline, str) and baseline not in declared:
        problems.append(f"comparison.pairs.baseline: contestant '{baseline}' is not declared")
    return problems


def _file_refs(data: dict[str, Any]) -> list[tuple[str, Any]]:
    """(key path, relative path) of every file the tournament file names (data files are the loader's). Of the
    prompts' texts and responses only those given as `{ file = ... }` tables (at 10^6 prompts, a key path made for
    every plain text took seconds)."""
    refs: list[tuple[str, Any]] = []
    for i, prompt in enumerate(_prompts(data)[0]):
        text = prompt.get("text")
        if isinstance(text, dict):
            refs.append((f"prompts[{i}].text.file", text.get("file")))
        for cid, value in _table(prompt, "responses").items():
            if isinstance(value, dict):
                refs.append((f"prompts[{i}].responses.{cid}.file", value.get("file")))
    comparison = _table(data, "comparison")
    for key in ("system_template", "user_template"):
        refs.append((f"comparison.{key}.file", _table(comparison, key).get("file")))
    refs.append(("comparison.examples_file", comparison.get("examples_file")))
    refs += [
        (f"judges[{i}].path", j.get("path"))
        for i, j in enumerate(_list(data, "judges"))
        if j.get("provider") == "replay"
    ]
    refs.append(("reference.votes", _table(data, "reference").get("votes")))
    refs.append(("reference.gold", _table(data, "reference").get("gold")))
    return refs


def missing_files(data: dict[str, Any], base_dir: Path) -> list[str]:
    """`key: PATH does not exist`, or why it cannot be read as a file (a FIFO, a folder, a device: elotui.tournament.user_files),
    for every named file that cannot be read; checked at once, without reading any of them."""
    out = []
    for key, rel in _file_refs(data):
        if isinstance(rel, str) and rel:
            target = Path(rel).expanduser()
            target = target if target.is_absolute() else base_dir / target
            if not target.exists():
                out.append(f"{key}: {target} does not exist")
            elif (problem := check_regular(target)) is not None:
                out.append(f"{key}: {problem}")
    return out
