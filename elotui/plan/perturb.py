"""Lexical noise (Diagnosing Bias and Instability in LLM Evaluation): small, seeded surface edits that keep a response's meaning.

Five rules, each applied at candidate sites chosen by a random generator seeded from
(`comparison.perturbation_seed`, salt) — the salt is the prompt and contestant, so every response gets its own
but reproducible edits:

- punctuation: drop the comma before "and"/"but", add one after an introductory "However"/"Therefore"/...,
  turn "!" into ".";
- acronyms: "AI" -> "A.I." (also "LLM" -> "L.L.M.", "API" -> "A.P.I.");
- contractions: "don't" -> "do not", "it's" -> "it is", ... (the negation stays: "n't" -> "not");
- synonyms: a small table of adjectives, adverbs and connectives ("important" -> "significant");
- hedging: "should" -> "should probably", "clearly" -> "arguably", ...

Nouns, numbers and negations are never rewritten (no rule matches them; contractions keep their "not").
Fenced code blocks (```...```) are left untouched. If no site was drawn but some exist, the first one is
applied, so a perturbed text differs from its base whenever any rule applies.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

CONTRACTIONS: dict[str, str] = {
    "can't": "cannot",
    "won't": "will not",
    "don't": "do not",
    "doesn't": "does not",
    "didn't": "did not",
    "isn't": "is not",
    "aren't": "are not",
    "wasn't": "was not",
    "weren't": "were not",
    "haven't": "have not",
    "hasn't": "has not",
    "hadn't": "had not",
    "shouldn't": "should not",
    "wouldn't": "would not",
    "couldn't": "could not",
    "mustn't": "must not",
    "it's": "it is",
    "that's": "that is",
    "there's": "there is",
    "what's": "what is",
    "let's": "let us",
    "i'm": "I am",
    "you're": "you are",
    "we're": "we are",
    "they're": "they are",
    "i've": "I have",
    "you've": "you have",
    "we've": "we have",
    "they've": "they have",
    "i'll": "I will",
    "you'll": "you will",
    "we'll": "we will",
    "they'll": "they will",
    "i'd": "I would",
    "you'd": "you would",
}

SYNONYMS: dict[str, str] = {
    "important": "significant",
    "very": "highly",
    "quickly": "rapidly",
    "often": "frequently",
    "easy": "simple",
    "difficult": "challenging",
    "many": "numerous",
    "usually": "typically",
    "however": "nevertheless",
    "also": "additionally",
    "helpful": "useful",
    "big": "large",
    "main": "primary",
    "essential": "crucial",
    "various": "diverse",
    "effective": "efficient",
    "carefully": "attentively",
    "overall": "in general",
    "especially": "particularly",
    "obviously": "evidently",
}

HEDGES: dict[str, str] = {
    "should": "should probably",
    "clearly": "arguably",
    "definitely": "most likely",
    "certainly": "very likely",
    "will always": "will generally",
}

ACRONYMS: dict[str, str] = {"AI": "A.I.", "LLM": "L.L.M.", "LLMs": "L.L.M.s", "API": "A.P.I."}

INTRODUCTORY = (
    "However",
    "Therefore",
    "Moreover",
    "Furthermore",
    "Additionally",
    "Finally",
    "First",
    "Second",
)

_APOSTROPHES = "'\u2019"


def _match_case(source: str, replacement: str) -> str:
    if source.isupper() and len(source) > 1 and not replacement[0].isupper():
        return replacement.upper()
    if source[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    replace: Callable[[re.Match[str]], str]


def _word_table_rule(name: str, table: dict[str, str], *, case_sensitive: bool = False) -> Rule:
    words = sorted(table, key=len, reverse=True)
    alternatives = "|".join(re.escape(w).replace("'", f"[{_APOSTROPHES}]") for w in words)
    flags = 0 if case_sensitive else re.IGNORECASE
    pattern = re.compile(rf"(?<![\w.'\u2019-])(?:{alternatives})(?![\w'\u2019-])", flags)
    lookup = {w.lower() if not case_sensitive else w: r for w, r in table.items()}

    def replace(m: re.Match[str]) -> str:
        found = m.group(0)
        normal = found.replace("\u2019", "'")
        repl = lookup[normal if case_sensitive else normal.lower()]
        return repl if case_sensitive else _match_case(found, repl)

    return Rule(name, pattern, replace)


def _punctuation_rule() -> Rule:
    intro = "|".join(INTRODUCTORY)
    pattern = re.compile(
        rf",( (?:and|but) )|(?:(?<=^)|(?<=[.!?]\s))({intro}) (?=[a-z])|(?<=[a-z])!(?=\s|$)", re.MULTILINE
    )

    def replace(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return m.group(1)
        if m.group(2) is not None:
            return f"{m.group(2)}, "
        return "."

    return Rule("punctuation", pattern, replace)


RULES: tuple[Rule, ...] = (
    _punctuation_rule(),
    _word_table_rule("acronym", ACRONYMS, case_sensitive=True),
    _word_table_rule("contraction", CONTRACTIONS),
    _word_table_rule("synonym", SYNONYMS),
    _word_table_rule("hedge", HEDGES),
)

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)


def _rng(seed: int, salt: str) -> random.Random:
    digest = hashlib.sha256(f"elotui-perturb\x00{seed}\x00{salt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def perturb(text: str, *, seed: int, salt: str = "", rate: float = 0.5) -> str:
    """The lexically perturbed version of `text`; the same (text, seed, salt) always gives the same result."""
    rng = _rng(seed, salt)
    # Split off fenced code so that code is never touched; perturb the prose segments.
    segments: list[tuple[bool, str]] = []
    pos = 0
    for m in _FENCE.finditer(text):
        segments.append((True, text[pos : m.start()]))
        segments.append((False, m.group(0)))
        pos = m.end()
    segments.append((True, text[pos:]))

    # Collect every candidate site (segment, start, end, replacement) in text order, rule by rule.
    sites: list[tuple[int, int, int, str]] = []
    for index, (prose, segment) in enumerate(segments):
        if not prose:
            continue
        taken: list[tuple[int, int]] = []
        for rule in RULES:
            for m in rule.pattern.finditer(segment):
                if any(m.start() < e and s < m.end() for s, e in taken):
                    continue
                taken.append((m.start(), m.end()))
                sites.append((index, m.start(), m.end(), rule.replace(m)))
    sites.sort(key=lambda s: (s[0], s[1]))
    chosen = [site for site in sites if rng.random() < rate]
    if not chosen and sites:
        chosen = [sites[0]]

    out = [segment for _, segment in segments]
    for index, start, end, replacement in sorted(chosen, key=lambda s: (s[0], -s[1])):
        seg = out[index]
        out[index] = seg[:start] + replacement + seg[end:]
    return "".join(out)
