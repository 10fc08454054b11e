"""Whole conversations and reference answers from data files (`[data] turn = "conversation"`, `[data] references`).

A conversation comes from MT-bench's `turns` lists (a question's user turns; an answer row's
`choices[0].turns`) or from a `messages` list of `{role, content}` objects (the `user` messages of a prompt row;
the `assistant` messages of a response row). Its last user turn becomes the prompt's `text` and the rest
`earlier_turns`; a contestant's last answer becomes its response and the rest `earlier_answers`.

References come from MT-bench's `reference_answer/*.jsonl` (`question_id` + `choices[0].turns`) or from rows of
`prompt_id` + `reference`. With `turn = N` the reference is the answer to turn N; in a conversation it is the
list of answers to every turn.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from elotui.tournament.data_rows import Row, found, parse_path, pick

CONVERSATION = "conversation"
PROMPT_TURNS = ("turns",)
ANSWER_TURNS = ("choices[0].turns", "turns")
REFERENCE_FIELDS = ("reference", "choices[0].turns", "turns")


def _texts(value: Any) -> list[str] | None:
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _messages(values: dict[str, Any], role: str) -> list[str] | None:
    messages = values.get("messages")
    if not isinstance(messages, list):
        return None
    out = [
        m["content"]
        for m in messages
        if isinstance(m, dict) and m.get("role") == role and isinstance(m.get("content"), str)
    ]
    return out or None


def turns_of(row: Row, paths: tuple[str, ...], role: str) -> list[str] | None:
    """A row's turns: the first list of texts found at `paths`, else its `messages` of this role."""
    for path in paths:
        value = pick(row.values, parse_path(path))
        if found(value) and _texts(value) is not None:
            return _texts(value)
    return _messages(row.values, role)


def conversation_prompt(row: Row) -> tuple[str, list[str]] | None:
    """(the last user turn, the user turns before it) of a prompt row, or None when it has no turns."""
    turns = turns_of(row, PROMPT_TURNS, "user")
    return (turns[-1], turns[:-1]) if turns else None


def conversation_answers(row: Row) -> list[str] | None:
    """A response row's answers, one per turn (None when it has none)."""
    return turns_of(row, ANSWER_TURNS, "assistant")


def reference_of(row: Row, mapped: str | None, turn: int | str) -> str | list[str] | None:
    """A reference row's answer: the mapped field, else `reference`, else the turn's entry of its turns."""
    for path in (mapped,) if mapped else REFERENCE_FIELDS:
        value = pick(row.values, parse_path(path))
        if not found(value) or value is None or value == "":
            continue
        if isinstance(value, str):
            return value
        texts = _texts(value)
        if texts is None:
            return None
        if turn == CONVERSATION:
            return texts
        index = turn - 1 if isinstance(turn, int) and not isinstance(turn, bool) and turn >= 1 else 0
        return texts[index] if index < len(texts) else None
    return None


def put_conversation(
    prompt: dict[str, Any], cid: str, answers: list[str], where: str, problems: list[str]
) -> str:
    """Record a contestant's earlier answers on the prompt; return its last answer (its response)."""
    earlier = prompt.get("earlier_turns")
    expected = len(earlier) + 1 if isinstance(earlier, list) else 1
    if len(answers) != expected:
        problems.append(
            f"{where}: {len(answers)} answer turn(s) from '{cid}', but prompt '{prompt['id']}' has {expected} "
            "user turn(s)"
        )
    answers = (answers + [""] * expected)[:expected]
    table = prompt.setdefault("earlier_answers", {})
    if isinstance(table, dict):
        table.setdefault(cid, answers[:-1])
    return answers[-1]


def attach_references(
    prompts: list[Any],
    found_refs: dict[str, tuple[str | list[str], str]],
    notes: list[str],
    problems: list[str],
) -> None:
    """Put each reference (prompt id → (answer, where it was read)) on its prompt; references for prompts the
    tournament does not have are noted, a prompt with an inline reference as well is a problem."""
    by_id = {p["id"]: p for p in prompts if isinstance(p, dict) and isinstance(p.get("id"), str)}
    unknown = [pid for pid in found_refs if pid not in by_id]
    for pid, (answer, where) in found_refs.items():
        prompt = by_id.get(pid)
        if prompt is None:
            continue
        if prompt.get("reference") is not None:
            problems.append(f"{where}: the reference of prompt '{pid}' is also given inline")
            continue
        prompt["reference"] = answer
    if unknown:
        notes.append(
            f"ignored the references of {len(unknown)} prompt(s) that are not in the tournament: "
            + ", ".join(unknown[:5])
            + (", …" if len(unknown) > 5 else "")
        )


def references_in(
    path: Path,
    rows: list[Row],
    fields: Any,
    as_id: Callable[[Any], str | None],
    cfg: dict[str, Any],
    report: Any,
) -> dict[str, tuple[str | list[str], str]]:
    """prompt id → (its reference answer, `FILE:LINE`) from a references file's rows (ids found as the data
    loader's `fields` find them); a row without either is a problem (`report.file_problems`)."""
    mapping = cfg.get("fields")
    mapped = mapping.get("reference") if isinstance(mapping, dict) else None
    out: dict[str, tuple[str | list[str], str]] = {}
    for row in rows:
        pid = as_id(fields.get(row, "prompt_id"))
        answer = reference_of(row, mapped if isinstance(mapped, str) else None, cfg.get("turn", 1))
        if pid is None or answer is None:
            missing = (
                f"no prompt id (looked for {fields.names('prompt_id')})"
                if pid is None
                else f"no reference answer for turn {cfg.get('turn', 1)} (looked for "
                f"{mapped if isinstance(mapped, str) else ', '.join(REFERENCE_FIELDS)})"
            )
            report.file_problems.append(f"{path}:{row.line}: {missing}")
            continue
        out.setdefault(pid, (answer, f"{path}:{row.line}"))
    return out


def turn_id(prompt_id: str, turn: int) -> str:
    """The id of one turn of a question judged at several turns (`[data] turn = [1, 2]`): `81-t2`."""
    return f"{prompt_id}-t{turn}"


def merge_each_turn(
    data: dict[str, Any], base_dir: Path, merge: Callable[..., Any], report_type: type
) -> Any:
    """`[data] turn = [1, 2, ...]`: the data files merged once per turn, each turn's prompts under their own ids
    (`turn_id`) with `turn` set; inline `[[prompts]]` once, as written. One report for all turns.

    `"conversation"` in the list (MT-bench's `[1, "conversation"]`): each question's whole conversation, as the
    prompts of its last turn; that turn may not be listed alone as well."""
    inline = data.get("prompts")
    inline_ids = {p.get("id") for p in inline if isinstance(p, dict)} if isinstance(inline, list) else set()
    report = report_type()
    prompts: list[Any] = []
    # a repeated turn is merged once; a wrong one not at all (the schema check names it); none left: turn 1
    turns = [t for t in dict.fromkeys(data["data"]["turn"]) if t == CONVERSATION or _number(t)] or [1]
    for n, turn in enumerate(turns):
        one = {**data, "data": {**data["data"], "turn": turn}}
        got = merge(one, base_dir)
        prompts += _turn_prompts(one["prompts"], inline_ids, turn, first=n == 0)
        _add_report(report, got, turn)
    data["prompts"] = _alone_or_in_conversation(prompts, set(turns), report)
    return report


def _number(turn: Any) -> bool:
    return isinstance(turn, int) and not isinstance(turn, bool) and turn >= 1


def _alone_or_in_conversation(prompts: list[Any], turns: set[Any], report: Any) -> list[Any]:
    """The prompts, but a conversation ending at a turn that is also judged alone (one problem for all)."""
    clash = [
        p
        for p in prompts
        if isinstance(p, dict) and p.get("earlier_turns") is not None and p.get("turn") in turns
    ]
    if clash:
        turn = clash[0]["turn"]
        report.toml_problems.append(
            f"data.turn: {len(clash)} conversation(s) end at turn {turn}, which is also listed alone: list "
            f'it once (a number: judged alone; "conversation": judged with the turns before it)'
        )
    return [p for p in prompts if not any(p is c for c in clash)]


def _turn_prompts(prompts: list[Any], inline_ids: set[Any], turn: int | str, *, first: bool) -> list[Any]:
    """One turn's merged prompts under their turn ids (a conversation's: its last turn's); the inline ones as
    written, from the first turn only."""
    out: list[Any] = []
    for p in prompts:
        if isinstance(p, dict) and p.get("id") not in inline_ids:
            earlier = p.get("earlier_turns")
            n = turn if isinstance(turn, int) else len(earlier) + 1 if isinstance(earlier, list) else 1
            out.append({**p, "id": turn_id(str(p["id"]), n), "turn": n})
        elif first:
            out.append(p)
    return out


def _add_report(report: Any, got: Any, turn: int | str) -> None:
    report.files.update(got.files)
    report.skipped.update(
        {
            turn_id(k, turn) if isinstance(turn, int) else f"{k} (conversation)": v
            for k, v in got.skipped.items()
        }
    )
    for name in ("notes", "toml_problems", "file_problems"):
        seen = getattr(report, name)
        seen += [line for line in getattr(got, name) if line not in seen]
