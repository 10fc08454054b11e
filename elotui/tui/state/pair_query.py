"""What the pairs pane shows: filters, sorts and text search over pair summaries. No Textual here.

Filters combine (all must hold): the majority stability class, any judge flipped, judges split (judges on both
sides), one judge against the rest, a chosen judge flipped, a contestant in the pair, a category, a turn, a prompt.
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
    turn: int | None = None  # one turn's prompts (`[data] turn = [1, 2]`): those of `turn_prompts`
    turn_prompts: frozenset[str] | None = None  # TournamentSession.scope_prompts(turn=turn)


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
        and (q.turn_prompts is None or s.prompt in q.turn_prompts)
    )


@dataclass(frozen=True)
class SortContext:
    """What the sorts other than disagreement and flips need."""

    prompt_order: Mapping[str, int]  # positions, from 0
    contestant_order: Mapping[str, int]
    ratings: Mapping[str, float]  # the current leaderboard's
    lengths: Mapping[tuple[str, str], int]  # (prompt, contestant) -> response length


def sort_keys(pairs: Sequence[PairSummary], sort: str, ctx: SortContext) -> list[int]:
    """Each pair's key in a sort, as one integer; ties fall back to prompt order, then the pair's declaration
    order. The integer is a mixed-radix number whose digits are the primary key's, then (prompt, first, second),
    so it orders as their tuple would; a primary key of floats (an even split, a rating gap) enters as its rank
    among the list's distinct values (which needs the whole list first: the keys are made before the sort). The
    whole list of a 10^6-verdict tournament (499,950 pairs; filters, keys and sort, bench_pairs): closest ratings
    first 0.48 s and the most even split first 0.60 s, against 0.93-0.94 s when their keys held floats; by prompt
    0.26 s, against 0.19 s when each key was made during the sort, and 0.32 s by tuples."""
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {', '.join(SORTS)}, not {sort!r}")
    prompts, contestants = ctx.prompt_order, ctx.contestant_order
    far_p, far_c = len(prompts), len(contestants)  # unknown ids sort after the declared ones
    radix = max([far_c, *contestants.values()]) + 1  # above every contestant digit
    span = (max([far_p, *prompts.values()]) + 1) * radix * radix  # above every base key
    bases = [
        (prompts.get(s.prompt, far_p) * radix + contestants.get(s.a, far_c)) * radix
        + contestants.get(s.b, far_c)
        for s in pairs
    ]
    if sort == "prompt":
        return bases
    primary = _PRIMARY[sort](pairs, ctx)
    return [p * span + b for p, b in zip(primary, bases, strict=True)]


def _most_flips(pairs: Sequence[PairSummary], ctx: SortContext) -> list[int]:
    return [-s.flips for s in pairs]


def _largest_length_difference(pairs: Sequence[PairSummary], ctx: SortContext) -> list[int]:
    lengths = ctx.lengths
    return [-abs(lengths.get((s.prompt, s.a), 0) - lengths.get((s.prompt, s.b), 0)) for s in pairs]


def _closest_ratings(pairs: Sequence[PairSummary], ctx: SortContext) -> list[int]:
    """The rank of the pair's rating gap (no rating: last)."""
    ratings, inf = ctx.ratings, float("inf")
    gaps = []
    for s in pairs:
        a, b = ratings.get(s.a), ratings.get(s.b)
        gaps.append(abs(a - b) if a is not None and b is not None else inf)
    return _ranks(gaps)[0]


def _most_even_split(pairs: Sequence[PairSummary], ctx: SortContext) -> list[int]:
    """The most even split first, then the lowest agreement (no agreement: as full agreement)."""
    split, _ = _ranks([-s.split for s in pairs])
    agree, levels = _ranks([s.agreement - 1 if s.agreement is not None else 0.0 for s in pairs])
    return [x * levels + y for x, y in zip(split, agree, strict=True)]


_PRIMARY: dict[str, Callable[[Sequence[PairSummary], SortContext], list[int]]] = {
    "disagreement": _most_even_split,
    "flips": _most_flips,
    "rating gap": _closest_ratings,
    "length difference": _largest_length_difference,
}


def _ranks(values: list[float]) -> tuple[list[int], int]:
    """Each value's rank among the distinct values, ascending (integers that order as the values do), and how many
    distinct values there are."""
    rank = {v: i for i, v in enumerate(sorted(set(values)))}
    return [rank[v] for v in values], len(rank)


def select_pairs(
    pairs: Iterable[PairSummary],
    q: PairQuery,
    categories: Mapping[str, str],
    ctx: SortContext,
    found: set[str] | None = None,
) -> list[PairSummary]:
    """The pairs that pass every filter (and the search, when `found` holds the matching keys), sorted (stably)."""
    chosen = [s for s in pairs if matches(s, q, categories) and (found is None or s.key in found)]
    keys = sort_keys(chosen, q.sort, ctx)
    return [chosen[i] for i in sorted(range(len(chosen)), key=keys.__getitem__)]


def describe(q: PairQuery, judge: str | None, condition: str | None, search: str) -> str:
    """The list's filters in words (the review export's description): e.g. "stability position bias, judges split"."""
    parts = [
        f"{name} {value}"
        for name, value in (
            ("stability", q.klass),
            ("contestant", q.contestant),
            ("category", q.category),
            ("turn", None if q.turn is None else str(q.turn)),
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
