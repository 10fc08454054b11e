"""The pairs pane's sorts order exactly as their stated keys do: the primary key, then prompt order, then the
pair's declaration order, with ids missing from the declared order last. The keys are folded into integers
(elotui.tui.state.pair_query.sort_keys); the reference here compares the tuples they stand for."""

from __future__ import annotations

import random

import pytest

from elotui.rating.pair_summary import PairSummary
from elotui.tui.state.pair_query import SORTS, PairQuery, SortContext, select_pairs


def _summaries(rng: random.Random, prompts: list[str], contestants: list[str]) -> list[PairSummary]:
    out = []
    for _ in range(600):
        a, b = rng.sample(contestants, 2)
        judges = [f"j{i}" for i in range(rng.randint(0, 4))]
        prefs = {j: rng.choice([a, b, "tie"]) for j in judges}
        out.append(
            PairSummary(
                rng.choice(prompts),
                a,
                b,
                flips=rng.randint(0, 3),
                agreement=rng.choice([None, 0.5, 2 / 3, 0.75, 1.0]),
                prefs=prefs,
            )
        )
    return out


def reference_key(sort: str, ctx: SortContext):  # type: ignore[no-untyped-def]
    """Each sort's key as the tuple it stands for (also bench_pairs' reference)."""
    far_p, far_c = len(ctx.prompt_order), len(ctx.contestant_order)

    def base(s: PairSummary) -> tuple[int, int, int]:
        return (
            ctx.prompt_order.get(s.prompt, far_p),
            ctx.contestant_order.get(s.a, far_c),
            ctx.contestant_order.get(s.b, far_c),
        )

    def gap(s: PairSummary) -> float:
        a, b = ctx.ratings.get(s.a), ctx.ratings.get(s.b)
        return abs(a - b) if a is not None and b is not None else float("inf")

    def length(s: PairSummary) -> int:
        return abs(ctx.lengths.get((s.prompt, s.a), 0) - ctx.lengths.get((s.prompt, s.b), 0))

    return {
        "prompt": base,
        "disagreement": lambda s: (
            -s.split,
            -(1 - (s.agreement if s.agreement is not None else 1)),
            *base(s),
        ),
        "flips": lambda s: (-s.flips, *base(s)),
        "rating gap": lambda s: (gap(s), *base(s)),
        "length difference": lambda s: (-length(s), *base(s)),
    }[sort]


@pytest.mark.parametrize("seed", range(8))
def test_every_sort_orders_as_its_tuple_key(seed: int) -> None:
    rng = random.Random(seed)
    prompts = [f"p{i}" for i in range(rng.randint(1, 30))]
    contestants = [f"c{i}" for i in range(rng.randint(2, 12))]
    # some ids are left out of the declared orders (they sort last), some ratings and lengths are missing
    ctx = SortContext(
        {p: i for i, p in enumerate(prompts) if rng.random() < 0.9},
        {c: i for i, c in enumerate(contestants) if rng.random() < 0.85},
        {c: float(rng.randint(900, 1100)) for c in contestants if rng.random() < 0.8},
        {(p, c): rng.randint(0, 50) for p in prompts for c in contestants if rng.random() < 0.9},
    )
    pairs = _summaries(rng, prompts, contestants)
    rng.shuffle(pairs)
    for sort in SORTS:
        got = select_pairs(pairs, PairQuery(sort=sort), {}, ctx)
        want = sorted(pairs, key=reference_key(sort, ctx))
        assert [id(s) for s in got] == [id(s) for s in want], sort


def test_sorts_without_any_declared_order() -> None:
    pairs = _summaries(random.Random(9), ["p0", "p1"], ["c0", "c1", "c2"])
    ctx = SortContext({}, {}, {}, {})
    for sort in SORTS:
        got = select_pairs(pairs, PairQuery(sort=sort), {}, ctx)
        assert [id(s) for s in got] == [id(s) for s in sorted(pairs, key=reference_key(sort, ctx))], sort
