"""What the pairs pane shows: filters, sorts and text search over pair summaries. No Textual here.

Filters combine (all must hold): the majority stability class, any judge flipped, judges split (judges on both
sides), one judge against the rest, a chosen judge flipped, a contestant in the pair, a category, a prompt.
(The judge and condition scopes re-summarise that judge's or condition's verdicts: see the pane.)

Search: case-insensitive; the query's words (and "quoted phrases") must all appear somewhere in the pair's texts
(the prompt, both responses, every judge's reasoning). Typing forward only narrows, so each keystroke searches the previous
matches only.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from elotui.rating.pair_summary import CLASSES, PairSummary

SORTS = ("prompt", "disagreement", "flips", "rating gap", "length difference")
SORT_LABELS = {
    "prompt": "by prompt",
    "disagreement": "most even split first",
    "flips": "most flips first",
    "rating gap": "closest ratings first",
    "length difference": "largest length difference first",
}


@dataclass(frozen=True)
class PairQuery:
    klass: str | None = None  # the majority stability class
    any_flip: bool = False
    judges_split: bool = False
    dissent: bool = False  # one judge against the (agreeing) rest
    flipped_judge: str | None = None
    contestant: str | None = None
    category: str | None = None
    prompt: str | None = None
    sort: str = "prompt"


def _judges_match(s: PairSummary, q: PairQuery) -> bool:
    return (
        (not q.any_flip or s.any_flip)
        and (not q.judges_split or s.judges_split)
        and (not q.dissent or s.dissenter is not None)
        and (q.flipped_judge is None or q.flipped_judge in s.flipped)
    )


def matches(s: PairSummary, q: PairQuery, categories: Mapping[str, str]) -> bool:
    return (
        (q.klass is None or s.klass == q.klass)
        and _judges_match(s, q)
        and (q.contestant is None or q.contestant in (s.a, s.b))
        and (q.category is None or categories.get(s.prompt) == q.category)
        and (q.prompt is None or s.prompt == q.prompt)
    )


@dataclass(frozen=True)
class SortContext:
    """What the sorts other than disagreement and flips need."""

    prompt_order: Mapping[str, int]  # positions, from 0
    contestant_order: Mapping[str, int]
    ratings: Mapping[str, float]  # the current leaderboard's
    lengths: Mapping[tuple[str, str], int]  # (prompt, contestant) -> response length


def sort_key(sort: str, ctx: SortContext) -> Callable[[PairSummary], Any]:
    """The key of a sort; ties fall back to prompt order, then the pair's declaration order. That fallback is one
    integer (prompt, first, second as the digits of a mixed-radix number, so it orders as their tuple would): the
    whole list of a 10^6-verdict tournament (499,950 pairs) sorts by prompt in 0.19 s, by the tuple in 0.31 s."""
    prompts, contestants = ctx.prompt_order, ctx.contestant_order
    far_p, far_c = len(prompts), len(contestants)  # unknown ids sort after the declared ones
    radix = max([far_c, *contestants.values()]) + 1  # above every contestant digit
    span = (max([far_p, *prompts.values()]) + 1) * radix * radix  # above every base key

    def base(s: PairSummary) -> int:
        return (prompts.get(s.prompt, far_p) * radix + contestants.get(s.a, far_c)) * radix + contestants.get(
            s.b, far_c
        )

    def gap(s: PairSummary) -> float:
        a, b = ctx.ratings.get(s.a), ctx.ratings.get(s.b)
        return abs(a - b) if a is not None and b is not None else float("inf")

    def length(s: PairSummary) -> int:
        return -abs(ctx.lengths.get((s.prompt, s.a), 0) - ctx.lengths.get((s.prompt, s.b), 0))

    keys: dict[str, Callable[[PairSummary], Any]] = {
        "prompt": base,
        "disagreement": lambda s: (
            -s.split,
            -(1 - (s.agreement if s.agreement is not None else 1)),
            base(s),
        ),
        "flips": lambda s: -s.flips * span + base(s),
        "rating gap": lambda s: (gap(s), base(s)),
        "length difference": lambda s: length(s) * span + base(s),
    }
    if sort not in keys:
        raise ValueError(f"sort must be one of {', '.join(SORTS)}, not {sort!r}")
    return keys[sort]


def select_pairs(
    pairs: Iterable[PairSummary],
    q: PairQuery,
    categories: Mapping[str, str],
    ctx: SortContext,
    found: set[str] | None = None,
) -> list[PairSummary]:
    """The pairs that pass every filter (and the search, when `found` holds the matching keys), sorted."""
    chosen = [s for s in pairs if matches(s, q, categories) and (found is None or s.key in found)]
    chosen.sort(key=sort_key(q.sort, ctx))
    return chosen


def describe(q: PairQuery, judge: str | None, condition: str | None, search: str) -> str:
    """The list's filters in words (the review export's description): e.g. "stability position bias, judges split"."""
    parts = [
        f"{name} {value}"
        for name, value in (
            ("stability", q.klass),
            ("contestant", q.contestant),
            ("category", q.category),
            ("judge flipped", q.flipped_judge),
            ("prompt", q.prompt),
            ("judge", judge),
            ("condition", condition),
        )
        if value is not None
    ]
    parts += [
        name
        for name, on_ in (
            ("any judge flipped", q.any_flip),
            ("judges split", q.judges_split),
            ("one judge against the rest", q.dissent),
        )
        if on_
    ]
    if search.strip():
        parts.append(f"search {search.strip()!r}")
    return ", ".join(parts) or "every pair"


@dataclass(frozen=True)
class FilterCounts:
    """How many pairs each filter of the pairs pane keeps: per select, (label prefix, its values, pairs kept by
    each value); per checkbox, (label, pairs kept). The keys are the widgets' selectors."""

    selects: dict[str, tuple[str, list[str], Mapping[str, int]]]
    checks: dict[str, tuple[str, int]]


def filter_counts(
    pairs: Sequence[PairSummary], contestants: list[str], judges: list[str], categories: Mapping[str, str]
) -> FilterCounts:
    """What each filter keeps over every pair of the scope (the pane's loading worker: ~0.6 s at 500,000 pairs)."""
    classes = Counter(s.klass for s in pairs)
    return FilterCounts(
        {
            "#f-class": ("", [k for k in CLASSES if classes[k]], classes),
            "#f-contestant": ("with", contestants, Counter(c for s in pairs for c in (s.a, s.b))),
            "#f-category": (
                "category",
                sorted(set(categories.values())),
                Counter(categories.get(s.prompt, "") for s in pairs),
            ),
            "#f-flipped": ("flipped:", judges, Counter(j for s in pairs for j in s.flipped)),
        },
        {
            "#f-flip": ("any flip", sum(1 for s in pairs if s.any_flip)),
            "#f-split": ("judges split", sum(1 for s in pairs if s.judges_split)),
            "#f-dissent": ("one vs rest", sum(1 for s in pairs if s.dissenter is not None)),
        },
    )


_TERM = re.compile(r'"([^"]*)"?|(\S+)')


def words_of(query: str) -> tuple[str, ...]:
    """The search terms of a query, lowercased: its words, and "quoted phrases" as one term each (an unclosed
    quote runs to the end: the phrase being typed)."""
    terms = (m.group(1) if m.group(1) is not None else m.group(2) for m in _TERM.finditer(query.lower()))
    return tuple(" ".join(t.split()) for t in terms if t and t.strip())


class SearchIndex:
    """The lowercased texts of every pair: its prompt, the two responses and the reasoning of every verdict on
    it. `search(query)` gives the keys of the pairs whose texts contain every word of the query."""

    def __init__(
        self,
        pairs: Sequence[PairSummary],
        prompt_texts: Mapping[str, str],
        responses: Mapping[tuple[str, str], str | None],
        reasoning: Mapping[str, str],  # pair key -> the reasoning of its verdicts, joined
    ) -> None:
        self._prompt = {p: t.lower() for p, t in prompt_texts.items()}
        self._response = {k: (t or "").lower() for k, t in responses.items()}
        self._fields: dict[str, tuple[str, str, str, str]] = {
            s.key: (
                self._prompt.get(s.prompt, ""),
                self._response.get((s.prompt, s.a), ""),
                self._response.get((s.prompt, s.b), ""),
                reasoning.get(s.key, "").lower(),
            )
            for s in pairs
        }
        self._last: tuple[str, set[str]] | None = None
        self.search(
            "e"
        )  # once, in the loading thread: the first pass over fresh strings is several times slower
        self._last = None

    def __len__(self) -> int:
        return len(self._fields)

    def search(self, query: str) -> set[str] | None:
        """Keys of the matching pairs; None for an empty query (no search)."""
        words = words_of(query)
        if not words:
            self._last = None
            return None
        normal = " ".join(query.lower().split())
        candidates: Iterable[str] = self._fields
        if self._last is not None and normal.startswith(self._last[0]):
            candidates = self._last[1]  # typing forward: every new match was a match before
        found = {k for k in candidates if all(any(w in f for f in self._fields[k]) for w in words)}
        self._last = (normal, found)
        return found
