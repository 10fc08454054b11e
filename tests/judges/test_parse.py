from __future__ import annotations

import pytest

from elotui.judges.parse import parse_verdict
from tests.servers.fake_llm import Verdict, verdict_text


@pytest.mark.parametrize(
    ("text", "winner", "reasoning"),
    [
        ('{"reasoning": "A is precise.", "better": "A"}', "first", "A is precise."),
        ('{"reasoning": "B wins.", "better": "B"}', "second", "B wins."),
        ('{"reasoning": "Same.", "better": "tie"}', "tie", "Same."),
        ('  {"Reasoning": "r", "BETTER": "  b "}  ', "second", "r"),
        ('{"reasoning": "r", "winner": "A"}', "first", "r"),
        ('{"reasoning": "r", "preferred": 1}', "first", "r"),
        ('{"reasoning": "r", "preferred": "2"}', "second", "r"),
        ('{"preferred_profile": 2, "explanation": "e"}', "second", "e"),
        ('{"better": "Response A", "reasoning": "r"}', "first", "r"),
        ('{"better": "Tie", "reasoning": "r"}', "tie", "r"),
        ('I think B is better.\n{"better": "B"}', "second", "I think B is better."),
        ('Thoughts...\n```json\n{"reasoning": "fenced", "better": "A"}\n```\nDone.', "first", "fenced"),
        ('```\n{"reasoning": "plain fence", "winner": "B"}\n```', "second", "plain fence"),
        ('prose {"note": 1} then {"reasoning": "r", "better": "A"} end', "first", "r"),
    ],
)
def test_accepted_shapes(text: str, winner: str, reasoning: str) -> None:
    assert parse_verdict(text) == ("ok", winner, reasoning)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        None,
        "Response A is better.",
        '{"reasoning": "no decision"}',
        '{"better": "C"}',
        '{"better": true}',
        '{"preferred": 3}',
        '{"better": "A", "winner": "B"}',
        'first {"better": "A"} and then {"better": "B"}',
        '["A"]',
        '{"better": "A" ',
        '{"better": "AB"}',
    ],
)
def test_everything_else_is_invalid(text: str | None) -> None:
    assert parse_verdict(text) == ("invalid", None, None)


@pytest.mark.parametrize(
    "shape", ["better", "winner", "preferred", "preferred_profile", "prose", "fence", "upper"]
)
@pytest.mark.parametrize(("better", "winner"), [("A", "first"), ("B", "second"), ("tie", "tie")])
def test_every_fake_server_shape_parses(shape: str, better: str, winner: str) -> None:
    text = verdict_text(Verdict(better, "r", shape))  # type: ignore[arg-type]
    status, got, _ = parse_verdict(text)
    assert (status, got) == ("ok", winner)
