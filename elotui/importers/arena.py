"""`elotui import arena`: Chatbot Arena battle logs (FastChat's `clean_battle*.json`: a JSON list, or JSON Lines).

A battle: `model_a`, `model_b`, `winner` (`model_a`, `model_b`, `tie` or `tie (bothbad)`), `question_id`,
`turn`, `language`, and `conv_metadata` with `sum_assistant_a_tokens`, `header_count_a`, `list_count_a`,
`bold_count_a` and their `_b` twins (a count, or a table of counts that are summed, as FastChat does). One battle
is one verdict of judge `human`, model_a shown first; a tie of either kind is a tie. The prompt is the battle's
`question_id` (its category: the `language`); the log carries no texts, so a prompt's text names the battle and
its responses are empty (in the prompts' rows: `Imported.inline_responses`). The style counts go to `style.jsonl`
for `[ranking] style_control`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from elotui.importers.common import BadRecord, Imported, Typed, need_object, need_text, read_each

JUDGE = "human"
WINNERS = {"model_a": "first", "model_b": "second", "tie": "tie", "tie (bothbad)": "tie"}
STYLE_KEYS = {
    "tokens": "sum_assistant_{}_tokens",
    "headers": "header_count_{}",
    "lists": "list_count_{}",
    "bold": "bold_count_{}",
}


Count = int | float | dict[str, int | float]


class _Metadata(msgspec.Struct):
    """The part of `conv_metadata` style control reads (the fast reading: `Typed`)."""

    sum_assistant_a_tokens: Count | None = None
    header_count_a: Count | None = None
    list_count_a: Count | None = None
    bold_count_a: Count | None = None
    sum_assistant_b_tokens: Count | None = None
    header_count_b: Count | None = None
    list_count_b: Count | None = None
    bold_count_b: Count | None = None


class _Battle(msgspec.Struct):
    """The fields of a battle the import reads; a line with another type in them is read the general way."""

    model_a: str
    model_b: str
    winner: str
    question_id: str | int | None = None
    turn: int | float | None = None
    language: str | None = None
    conv_metadata: _Metadata | None = None


def import_files(paths: list[Path], *, skip_bad: bool) -> Imported:
    imported = Imported(format="arena", both_orders=False, threshold="none", inline_responses=True)
    seen: dict[str, int] = {}

    def fast(imp: Imported, battle: _Battle) -> bool:
        """A typed battle (the general `one` below, for a battle that needs no message); False: leave it to `one`."""
        a, b, winner = battle.model_a, battle.model_b, WINNERS.get(battle.winner)
        if not a or not b or a == b or winner is None:
            return False
        metadata = battle.conv_metadata
        counts = None if metadata is None else _counts(metadata)
        if metadata is not None and counts is None:
            return False
        qid = str(battle.question_id) if battle.question_id not in (None, "") else f"battle-{imp.report.read}"
        if qid not in imp.prompts:
            imp.prompts[qid] = _prompt(qid, {"turn": battle.turn, "language": battle.language})
        imp.verdict(qid, a, b, JUDGE, winner, None)
        responses = imp.responses  # what `imp.respond(qid, model, None)` does, without a call per response
        responses.setdefault((qid, a), "")
        responses.setdefault((qid, b), "")
        if counts is not None:
            imp.style.setdefault((qid, a), counts[0])
            imp.style.setdefault((qid, b), counts[1])
        seen[winner] = seen.get(winner, 0) + 1
        return True

    def one(imp: Imported, where: str, record: Any) -> None:
        battle = need_object(record)
        a, b = need_text(battle, "model_a"), need_text(battle, "model_b")
        if a == b:
            raise BadRecord(f"model_a and model_b are the same model ({a!r})")
        winner = WINNERS.get(battle.get("winner"))  # type: ignore[arg-type]
        if winner is None:
            raise BadRecord(f"`winner` must be one of {', '.join(WINNERS)} (got {battle.get('winner')!r})")
        qid = (
            str(battle["question_id"])
            if battle.get("question_id") not in (None, "")
            else f"battle-{imp.report.read}"
        )
        if qid not in imp.prompts:
            imp.prompts[qid] = _prompt(qid, battle)
        imp.verdict(qid, a, b, JUDGE, winner, None)
        imp.respond(qid, a, None)
        imp.respond(qid, b, None)
        metadata = battle.get("conv_metadata")
        if isinstance(metadata, dict):
            for side, model in (("a", a), ("b", b)):
                counts = {name: _count(metadata, key.format(side)) for name, key in STYLE_KEYS.items()}
                imp.style.setdefault((qid, model), counts)
        seen[winner] = seen.get(winner, 0) + 1

    read_each(imported, paths, one, skip_bad=skip_bad, typed=Typed(msgspec.json.Decoder(_Battle), fast))
    imported.report.mapped.append(
        f"each battle: one verdict of judge {JUDGE!r}, model_a shown first "
        f"({', '.join(f'{n:,} {w}' for w, n in seen.items())}); `tie (bothbad)` is a tie"
    )
    if imported.style:
        imported.report.mapped.append(
            f"conv_metadata style counts of {len(imported.style):,} responses: style.jsonl"
        )
    return imported


def _prompt(qid: str, battle: dict[str, Any]) -> dict[str, str]:
    language = battle.get("language")
    turns = battle.get("turn")
    text = f"Chatbot Arena battle {qid}" + (f" ({turns} turn(s))" if isinstance(turns, int) else "")
    return {"text": text} | ({"category": language} if isinstance(language, str) and language else {})


def _count(metadata: dict[str, Any], key: str) -> int:
    value = metadata.get(key)
    if isinstance(value, dict):
        value = sum(v for v in value.values() if isinstance(v, (int, float)) and not isinstance(v, bool))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadRecord(f"conv_metadata.{key} must be a count or a table of counts (got {value!r})")
    return int(value)


_SIDES = tuple(tuple(key.format(side) for key in STYLE_KEYS.values()) for side in "ab")


def _counts(metadata: _Metadata) -> tuple[dict[str, int], dict[str, int]] | None:
    """The style counts of sides a and b, as `_count` makes them; None where one is missing: `_count` says why."""
    out = []
    for keys in _SIDES:
        values = [getattr(metadata, key) for key in keys]
        if any(v is None for v in values):
            return None
        totals = (int(sum(v.values())) if type(v) is dict else int(v) for v in values)
        out.append(dict(zip(STYLE_KEYS, totals, strict=True)))
    return out[0], out[1]
