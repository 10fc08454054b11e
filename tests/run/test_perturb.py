"""Lexical perturbations: deterministic per seed, surface-only, meaning-bearing words untouched."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from elotui.plan.perturb import CONTRACTIONS, SYNONYMS, perturb

TEXT = (
    "However it's very important that AI systems don't fail! You should test 3 cases, and you shouldn't skip "
    "the 12.5% of edge cases. Clearly, many users won't care, but the engineers can't ignore 2 outages."
)

NOUNS = [
    "system",
    "cases",
    "users",
    "engineers",
    "outages",
    "model",
    "data",
    "patients",
    "city",
    "river",
    "Paris",
    "budget",
    "network",
    "doctor",
    "battery",
]
NEGATIONS = re.compile(r"\b(?:not|no|never|nothing|none|nobody|cannot)\b|n't\b", re.IGNORECASE)
NUMBERS = re.compile(r"\d+(?:[.,]\d+)*%?")


def negations(text: str) -> int:
    return len(NEGATIONS.findall(text))


def words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z]+", text)


def test_deterministic_per_seed_and_salt() -> None:
    assert perturb(TEXT, seed=7, salt="p1/a") == perturb(TEXT, seed=7, salt="p1/a")
    variants = {perturb(TEXT, seed=s, salt="p1/a") for s in range(20)}
    assert len(variants) > 5  # different seeds draw different edits
    assert perturb(TEXT, seed=7, salt="p1/a") != perturb(TEXT, seed=7, salt="p1/b") or perturb(
        TEXT, seed=8, salt="p1/a"
    ) != perturb(TEXT, seed=8, salt="p1/b")
    assert all(v != TEXT for v in variants)


def test_each_kind_of_edit_occurs() -> None:
    variants = [perturb(TEXT, seed=s) for s in range(40)]
    joined = "\n".join(variants)
    assert "A.I." in joined  # acronym
    assert "do not" in joined and "will not" in joined  # contractions expanded
    assert "significant" in joined  # synonym
    assert "should probably" in joined or "arguably" in joined.lower()  # hedging
    assert "fail." in joined or "cases and you" in joined or "However," in joined  # punctuation


def test_meaning_bearing_words_are_kept() -> None:
    for seed in range(30):
        out = perturb(TEXT, seed=seed)
        assert NUMBERS.findall(out) == NUMBERS.findall(TEXT)
        assert negations(out) == negations(TEXT)
        for noun in ("systems", "cases", "users", "engineers", "outages", "edge"):
            assert out.count(noun) == TEXT.count(noun)


def test_code_blocks_are_untouched() -> None:
    text = "Don't do this:\n```python\nif AI: print(\"don't\")  # it's important\n```\nIt's fine."
    for seed in range(10):
        out = perturb(text, seed=seed)
        assert "```python\nif AI: print(\"don't\")  # it's important\n```" in out


def test_text_without_sites_is_unchanged() -> None:
    assert perturb("Paris 1889 tower", seed=3) == "Paris 1889 tower"


vocabulary = st.sampled_from(
    NOUNS
    + list(CONTRACTIONS)
    + list(SYNONYMS)
    + [
        "AI",
        "should",
        "clearly",
        "not",
        "never",
        "no",
        "and",
        "but",
        "the",
        "is",
        "42",
        "3.14",
        "1,000",
        "However",
        "!",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(vocabulary, min_size=1, max_size=30), st.integers(0, 10_000))
def test_property_numbers_negations_nouns_preserved(tokens: list[str], seed: int) -> None:
    text = " ".join(tokens).replace(" !", "!").replace(" and ", ", and ")
    out = perturb(text, seed=seed, salt="x")
    assert out == perturb(text, seed=seed, salt="x")
    assert NUMBERS.findall(out) == NUMBERS.findall(text)
    assert negations(out) == negations(text)
    for noun in NOUNS:
        assert words(out).count(noun) == words(text).count(noun)
