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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from elotui.rating.pair_summary import PairSummary

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

    prompt_order: Mapping[str, int]
    contestant_order: Mapping[str, int]
    ratings: Mapping[str, float]  # the current leaderboard's
    lengths: Mapping[tuple[str, str], int]  # (prompt, contestant) -> response length


def sort_key(sort: str, ctx: SortContext) -> Callable[[PairSummary], tuple[float, ...]]:
    """The key of a sort; ties fall back to prompt order, then the pair's declaration order."""

    def base(s: PairSummary) -> tuple[float, ...]:
        far = len(ctx.contestant_order)
        return (
            ctx.prompt_order.get(s.prompt, len(ctx.prompt_order)),
            ctx.contestant_order.get(s.a, far),
            ctx.contestant_order.get(s.b, far),
        )

    def gap(s: PairSummary) -> float:
        a, b = ctx.ratings.get(s.a), ctx.ratings.get(s.b)
        return abs(a - b) if a is not None and b is not None else float("inf")

    def length(s: PairSummary) -> float:
        return -abs(ctx.lengths.get((s.prompt, s.a), 0) - ctx.lengths.get((s.prompt, s.b), 0))

    keys: dict[str, Callable[[PairSummary], tuple[float, ...]]] = {
        "prompt": base,
        "disagreement": lambda s: (
            -s.split,
            -(1 - (s.agreement if s.agreement is not None else 1)),
            *base(s),
        ),
        "flips": lambda s: (-s.flips, *base(s)),
        "rating gap": lambda s: (gap(s), *base(s)),
        "length difference": lambda s: (length(s), *base(s)),
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
    return sorted(chosen, key=sort_key(q.sort, ctx))


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
