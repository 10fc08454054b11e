"""Reading graded verdicts (`[judge_prompt] scale = "graded"`): the five grades in both presentation orders, the
variants models write, and garbage (an `invalid` verdict, as on the binary scale). The binary scale is unchanged:
a grade there is not a binary answer."""

from __future__ import annotations

import json

import pytest

from elotui.judges.base import Presentation
from elotui.judges.parse import (
    GRADED_ANSWERS,
    GRADED_VERDICT_SCHEMA,
    VERDICT_SCHEMA,
    parse_graded_verdict,
    parse_on_scale,
    parse_verdict,
)

# grade → (winner as shown, strength)
GRADES = {
    "A>>B": ("first", 2),
    "A>B": ("first", 1),
    "A=B": ("tie", None),
    "B>A": ("second", 1),
    "B>>A": ("second", 2),
}


def contestant(winner: str | None, shown: Presentation) -> str | None:
    """Who won, by name: the winner is the side shown (A the first), whichever contestant sat there."""
    return {"first": shown.first, "second": shown.second, "tie": "tie"}.get(winner or "")


@pytest.mark.parametrize("grade", GRADED_ANSWERS)
@pytest.mark.parametrize("shown", [Presentation("q", "alpha", "beta"), Presentation("q", "beta", "alpha")])
def test_each_grade_in_each_presentation_order(grade: str, shown: Presentation) -> None:
    status, winner, strength, reasoning = parse_graded_verdict(
        json.dumps({"reasoning": "why", "better": grade})
    )
    assert (status, winner, strength, reasoning) == ("ok", *GRADES[grade], "why")
    # the same grade names the other contestant when the order is swapped: A is always the one shown first
    named = contestant(winner, shown)
    a_side = shown.first
    want = {"A>>B": a_side, "A>B": a_side, "A=B": "tie"}.get(grade, shown.second)
    assert named == want


VARIANTS = [
    ('{"reasoning": "r", "better": "[[A>>B]]"}', ("first", 2)),
    ('{"reasoning": "r", "better": "[A>B]"}', ("first", 1)),
    ('{"reasoning": "r", "better": " b >> a "}', ("second", 2)),
    ('{"reasoning": "r", "better": "A ≫ B"}', ("first", 2)),
    ('{"reasoning": "r", "better": "B≫A"}', ("second", 2)),
    ('{"reasoning": "r", "better": "B<<A"}', ("first", 2)),  # written the other way round
    ('{"reasoning": "r", "better": "A<B"}', ("second", 1)),
    ('{"reasoning": "r", "better": "B=A"}', ("tie", None)),
    ('{"reasoning": "r", "better": "A==B"}', ("tie", None)),
    ('{"reasoning": "r", "better": "A>B."}', ("first", 1)),
    ('{"reasoning": "r", "better": "tie"}', ("tie", None)),  # a plain binary answer: a tie ...
    ('{"reasoning": "r", "better": "A"}', ("first", 1)),  # ... or a clear preference
    ('{"reasoning": "r", "better": "Response B"}', ("second", 1)),
    ('{"Reasoning": "r", "WINNER": "a>>b"}', ("first", 2)),  # another decision key, odd case
    ('Let me compare.\n```json\n{"reasoning": "r", "better": "B>>A"}\n```', ("second", 2)),
    ('Both are fine. {"better": "A=B"} final.', ("tie", None)),
    ("Assistant A is correct, B is not.\n\nMy final verdict is: [[A>>B]]", ("first", 2)),  # arena-hard's form
    ("B is a little better. My final verdict is [[B > A]].", ("second", 1)),
    ("Close call: [[A=B]]", ("tie", None)),
    ("First I thought [[A>B]]; on reflection, final verdict: [[A>B]]", ("first", 1)),  # agreeing labels
]


@pytest.mark.parametrize(("text", "want"), VARIANTS)
def test_variants_models_write(text: str, want: tuple[str, int | None]) -> None:
    status, winner, strength, reasoning = parse_graded_verdict(text)
    assert (status, winner, strength) == ("ok", *want), text
    assert reasoning  # the reasoning (or the prose before the verdict) is kept


GARBAGE = [
    None,
    "",
    "   ",
    "I cannot decide.",
    '{"reasoning": "r", "better": "A>>A"}',  # a contestant against itself
    '{"reasoning": "r", "better": "C>B"}',
    '{"reasoning": "r", "better": "A>>>B"}',
    '{"reasoning": "r", "better": ">>"}',
    '{"reasoning": "r", "better": 3}',
    '{"reasoning": "r", "better": true}',
    '{"reasoning": "r", "better": null}',
    '{"reasoning": "r"}',  # the requested object without a decision
    '{"reasoning": "I would say [[A>B]]", "better": "maybe"}',  # a JSON object's unreadable decision is final
    '{"reasoning": "r", "better": "A>B", "winner": "B>A"}',  # keys that disagree
    '{"better": "A>B"} and then {"better": "A>>B"}',  # objects that disagree
    "First [[A>B]], then [[B>A]]",  # bracketed labels that disagree
    '{"reasoning": "r", "better": "' + "A>" * 50 + 'B"}',
    "[" * 100_000,
]


@pytest.mark.parametrize("text", GARBAGE)
def test_garbage_is_invalid(text: str | None) -> None:
    status, winner, strength, reasoning = parse_graded_verdict(text)
    assert (status, winner, strength, reasoning) == ("invalid", None, None, None), text


def test_the_binary_scale_reads_as_before() -> None:
    assert parse_verdict('{"reasoning": "r", "better": "A"}') == ("ok", "first", "r")
    assert parse_verdict('{"reasoning": "r", "better": "A>>B"}') == ("invalid", None, None)
    assert parse_verdict("My final verdict is: [[A>B]]") == ("invalid", None, None)
    assert parse_on_scale('{"reasoning": "r", "better": "B"}', "binary") == ("ok", "second", None, "r")
    assert parse_on_scale('{"reasoning": "r", "better": "B>>A"}', "graded") == ("ok", "second", 2, "r")


def test_the_schemas_name_the_scales_answers() -> None:
    assert VERDICT_SCHEMA["properties"]["better"]["enum"] == ["A", "B", "tie"]
    assert GRADED_VERDICT_SCHEMA["properties"]["better"]["enum"] == ["A>>B", "A>B", "A=B", "B>A", "B>>A"]
    assert {k: v for k, v in GRADED_VERDICT_SCHEMA.items() if k != "properties"} == {
        k: v for k, v in VERDICT_SCHEMA.items() if k != "properties"
    }
