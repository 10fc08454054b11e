"""Few-shot retrieval: TF-IDF cosine (hand-computed), the most similar example, the file format."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from elotui.errors import UserError
from elotui.plan.fewshot import Example, ExampleIndex, load_examples, tokenize


def ex(prompt: str, a: str = "", b: str = "", better: str = "A") -> Example:
    return Example(prompt, a, b, better, "why")


def test_tfidf_cosine_matches_a_hand_computation() -> None:
    index = ExampleIndex([ex("apple apple banana"), ex("banana cherry")])
    # df: apple 1, banana 2, cherry 1; N = 2; idf = ln(3 / (1 + df)) + 1
    idf1, idf2 = math.log(3 / 2) + 1, math.log(3 / 3) + 1
    d0 = np.array([2 * idf1, idf2, 0.0])
    d1 = np.array([0.0, idf2, idf1])
    q = np.array([idf1, 0.0, idf1])  # query "apple cherry"
    expected = [float(d @ q / np.linalg.norm(d) / np.linalg.norm(q)) for d in (d0, d1)]
    got = index.similarities("Apple, cherry!")
    assert got == pytest.approx(expected, rel=1e-12)


def test_picks_the_most_similar_example() -> None:
    examples = [
        ex("How do I bake sourdough bread?", "Use a starter.", "Buy bread."),
        ex("Explain the causes of World War I.", "Alliances, militarism.", "Archduke."),
        ex(
            "How can I improve my time management skills?",
            "Prioritise tasks with a calendar.",
            "Work harder.",
        ),
    ]
    index = ExampleIndex(examples)
    best, sim = index.most_similar(
        "What are good ways to manage my time better?", "Use a calendar and prioritise.", "Sleep more."
    )
    assert best is examples[2] and sim > 0
    best, _ = index.most_similar("Why did World War I start?", "The alliance system.", "Nationalism.")
    assert best is examples[1]


def test_ties_and_no_overlap_go_to_the_first_example() -> None:
    index = ExampleIndex([ex("alpha"), ex("alpha")])
    assert index.most_similar("alpha", "", "")[0] is index.examples[0]
    assert index.most_similar("zzz", "", "")[0] is index.examples[0]


def test_tokenize() -> None:
    assert tokenize("It's A.I., 3.5 times_more!") == ["it", "s", "a", "i", "3", "5", "times", "more"]


def test_examples_file_format(tmp_path: Path) -> None:
    path = tmp_path / "ex.jsonl"
    rows = [
        {"prompt": "p", "response_a": "a", "response_b": "b", "better": "B", "reasoning": "b is right"},
        {"prompt": "q", "response_a": "a", "response_b": "b", "better": "first"},
    ]
    path.write_text("# past verdicts\n" + "\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    got = load_examples(path)
    assert got == [Example("p", "a", "b", "B", "b is right"), Example("q", "a", "b", "A", "")]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"prompt": "p", "response_a": "a", "better": "A"}', "missing or non-text field(s): response_b"),
        ('{"prompt": "p", "response_a": "a", "response_b": "b", "better": "C"}', "better must be"),
        ("not json", "not a JSON object"),
    ],
)
def test_bad_examples_are_located(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "ex.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(UserError) as err:
        load_examples(path)
    assert f"{path}:1:" in str(err.value) and message in str(err.value)
