"""The comparison plan: counts, and an order that keeps a stopped run balanced."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from elotui.plan.presentations import build_plan, round_robin, round_robin_rounds, unit_order
from elotui.tournament.model import load_tournament
from tests.run.fakes import write_tournament

JUDGES = [
    {"id": j, "provider": "openai-compatible", "model": "m", "base_url": "http://127.0.0.1:9"}
    for j in ("j1", "j2")
]


def test_counts_every_pair_both_orders_judges_samples_conditions(tmp_path: Path) -> None:
    t = load_tournament(
        write_tournament(
            tmp_path / "t.toml",
            contestants=list("abcde"),
            prompts={"p1": "x", "p2": "y", "p3": "z"},
            judges=JUDGES,
            comparison={"samples": 2, "conditions": ["clean", "lexical", "injected"]},
        )
    )
    plan = build_plan(t)
    # 3 prompts x C(5,2)=10 pairs x 2 orders x 2 judges x 2 samples x 3 conditions
    assert plan.total == 3 * 10 * 2 * 2 * 2 * 3 == 720
    assert plan.per_judge() == {"j1": 360, "j2": 360}
    keys = [(c.prompt, c.first, c.second, c.judge, c.condition, c.sample) for c in plan.comparisons]
    assert len(set(keys)) == len(keys)  # every presentation exactly once
    ordered = Counter((c.first, c.second) for c in plan.comparisons)
    assert set(ordered) == {(a, b) for a in "abcde" for b in "abcde" if a != b}
    assert set(ordered.values()) == {36}
    assert plan.generations == () and plan.paraphrases == ()


def test_one_order_when_both_orders_is_off(tmp_path: Path) -> None:
    t = load_tournament(
        write_tournament(
            tmp_path / "t.toml",
            contestants=list("abcd"),
            judges=JUDGES[:1],
            comparison={"both_orders": False},
        )
    )
    plan = build_plan(t)
    assert plan.total == 2 * 6
    assert {frozenset((c.first, c.second)) for c in plan.comparisons} == {
        frozenset(p) for p in combinations("abcd", 2)
    }


def test_generations_and_paraphrases_are_planned(tmp_path: Path) -> None:
    gen = {
        "id": "g",
        "generator": {"provider": "openai-compatible", "model": "small", "base_url": "http://x"},
    }
    t = load_tournament(
        write_tournament(
            tmp_path / "t.toml",
            contestants=["a", "b"],
            extra_contestants=[gen],
            judges=JUDGES[:1],
            comparison={
                "conditions": ["clean", "paraphrase"],
                "paraphraser": {"provider": "openai-compatible", "model": "para", "base_url": "http://x"},
            },
        )
    )
    plan = build_plan(t)
    assert [(g.prompt, g.contestant) for g in plan.generations] == [("p1", "g"), ("p2", "g")]
    assert plan.paraphrases == ("p1", "p2")
    assert plan.total == 2 * 3 * 2 * 2
    assert plan.total_calls == plan.total + 4


@pytest.mark.parametrize("n", range(2, 10))
def test_round_robin_rounds_play_everyone_once(n: int) -> None:
    players = [f"c{i}" for i in range(n)]
    pairs = round_robin(players)
    assert sorted(tuple(sorted(p)) for p in pairs) == sorted(combinations(players, 2))
    per_round = n // 2
    for r in range(0, len(pairs), per_round):  # each round: disjoint pairs
        members = [c for p in pairs[r : r + per_round] for c in p]
        assert len(members) == len(set(members))
    for a, b in pairs:  # the earlier-declared contestant is listed first (shown first in the AB order)
        assert players.index(a) < players.index(b)


@pytest.mark.parametrize(
    ("n", "n_prompts"), [(4, 1), (5, 3), (8, 10), (6, 4), (3, 7), (20, 10), (7, 14), (9, 3)]
)
def test_stopping_anywhere_leaves_a_balanced_plan(n: int, n_prompts: int) -> None:
    players = [f"c{i}" for i in range(n)]
    prompts = [f"p{i}" for i in range(n_prompts)]
    units = unit_order(prompts, round_robin_rounds(players))
    # every (prompt, pair) exactly once
    assert sorted((p, tuple(sorted(pair))) for p, pair in units) == sorted(
        (p, tuple(sorted(pair))) for p in prompts for pair in combinations(players, 2)
    )
    games: Counter[str] = Counter()
    per_prompt: Counter[str] = Counter()
    pairs_per_round = n // 2
    for k, (prompt, (a, b)) in enumerate(units, 1):
        games[a] += 1
        games[b] += 1
        per_prompt[prompt] += 1
        counts = [games[c] for c in players]
        # contestants' game counts stay within one game (two with an odd number: byes) at every prefix
        assert max(counts) - min(counts) <= (1 if n % 2 == 0 else 2), (k, counts)
        # prompts advance together: never more than one round apart
        prompt_counts = [per_prompt[p] for p in prompts]
        assert max(prompt_counts) - min(prompt_counts) <= pairs_per_round
    # the naive nested order (prompt by prompt, pairs in file order) would not pass the first check
    naive = [(p, pair) for p in prompts for pair in combinations(players, 2)]
    g2: Counter[str] = Counter()
    worst = 0
    for _, (a, b) in naive:
        g2[a] += 1
        g2[b] += 1
        worst = max(worst, max(g2[c] for c in players) - min(g2[c] for c in players))
    assert n < 4 or worst > 1


def test_early_stop_connects_all_contestants() -> None:
    """Different prompts play different rounds: a few blocks in, the comparison graph is connected."""
    players = [f"c{i}" for i in range(8)]
    units = unit_order([f"p{i}" for i in range(5)], round_robin_rounds(players))
    first_blocks = units[: 3 * 4]  # three prompts' first rounds (4 pairs each)
    parent = {c: c for c in players}

    def find(c: str) -> str:
        while parent[c] != c:
            c = parent[c]
        return c

    for _, (a, b) in first_blocks:
        parent[find(a)] = find(b)
    assert len({find(c) for c in players}) == 1


def test_single_prompt_order_is_round_by_round() -> None:
    players = list("abcdef")
    units = unit_order(["p"], round_robin_rounds(players))
    for r in range(5):  # after each round of 3 pairs, every contestant has played r + 1 games
        games = Counter(c for _, pair in units[: 3 * (r + 1)] for c in pair)
        assert set(games.values()) == {r + 1} and len(games) == 6


def test_orders_are_adjacent_and_units_contiguous(tmp_path: Path) -> None:
    t = load_tournament(
        write_tournament(
            tmp_path / "t.toml",
            contestants=list("abcd"),
            judges=JUDGES,
            comparison={"samples": 2, "conditions": ["clean", "injected"]},
        )
    )
    plan = build_plan(t)
    comps = plan.comparisons
    for i in range(0, len(comps), 2):  # AB immediately followed by BA, same judge/sample/condition
        ab, ba = comps[i], comps[i + 1]
        assert (ab.first, ab.second) == (ba.second, ba.first)
        assert (ab.prompt, ab.judge, ab.sample, ab.condition) == (
            ba.prompt,
            ba.judge,
            ba.sample,
            ba.condition,
        )
    block = 2 * 2 * 2 * 2  # orders x judges x samples x conditions
    units = [comps[i : i + block] for i in range(0, len(comps), block)]
    for unit in units:  # one (prompt, pair) per block
        assert len({(c.prompt, frozenset((c.first, c.second))) for c in unit}) == 1
    # rounds of 2 pairs alternate between the prompts rather than finishing one prompt first
    assert [u[0].prompt for u in units[:8]] == ["p1", "p1", "p2", "p2", "p1", "p1", "p2", "p2"]
    p1_pairs = [frozenset((u[0].first, u[0].second)) for u in units if u[0].prompt == "p1"]
    assert len(set(p1_pairs)) == len(p1_pairs) == 6
    # the two prompts start with different rounds
    assert {frozenset((u[0].first, u[0].second)) for u in units[:2]}.isdisjoint(
        {frozenset((u[0].first, u[0].second)) for u in units[2:4]}
    )
