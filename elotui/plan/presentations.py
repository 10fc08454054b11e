"""The comparison plan: which presentations to judge, in which order (Braun and Forell 2026, pairwise framework; Diagnosing Bias and Instability in LLM Evaluation, evaluation pipeline).

For each prompt: every unordered pair of contestants × both orders (AB and BA when `both_orders`) × every
judge × `samples` × every condition. Each condition is its own presentation set (`clean`, `lexical`,
`injected`, `paraphrase`); they do not combine.

Order (the `seq` of the stored plan). The unit of work is one (prompt, unordered pair): all its conditions,
samples, judges and both orders are adjacent (AB immediately followed by BA), so every finished unit is a
complete game at any agreement threshold. Units are interleaved:

1. the pairs are split into round-robin rounds (the circle method): in a round every contestant plays at most
   once (exactly once for an even number of contestants; odd numbers get one bye per round);
2. step s gives prompt i the whole round (s·P + i + ⌊s / (R / gcd(P, R))⌋) mod R (P prompts, R rounds):
   for each prompt this visits every round exactly once, and the blocks of the whole run walk through the
   rounds almost cyclically (0, 1, 2, … across prompts and steps); within a step, prompts follow the file order.

So stopping at any point leaves the contestants' game counts within about one game of each other (two with
an odd number of contestants), every prompt within one round of the others, and — because different prompts
play different rounds — a comparison graph that connects all contestants after the first few rounds,
instead of "all of one pair (or one prompt) first".
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from math import gcd
from typing import NamedTuple

from elotui.judges.base import Presentation
from elotui.plan.recorded import recorded_comparisons
from elotui.runtime.heap import long_lived
from elotui.tournament.model import Tournament


class Comparison(NamedTuple):
    """One planned judge call: `first` is shown as Response A. A named tuple, as the store's records are: a plan
    makes 10^6 of them, at half the cost of a frozen dataclass's (0.60 against 1.26 s), and the collector stops
    tracking a tuple of strings and numbers after its first pass over it."""

    prompt: str
    first: str
    second: str
    judge: str
    condition: str
    sample: int

    @property
    def presentation(self) -> Presentation:
        return Presentation(self.prompt, self.first, self.second, self.condition, self.sample)


@dataclass(frozen=True)
class Generation:
    """A contestant's response that its `[contestants.generator]` must produce first."""

    prompt: str
    contestant: str


@dataclass(frozen=True)
class Plan:
    comparisons: tuple[Comparison, ...]  # in run order: seq = index
    generations: tuple[Generation, ...] = ()
    paraphrases: tuple[str, ...] = ()  # prompt ids to paraphrase (condition "paraphrase")

    @property
    def total(self) -> int:
        """Planned judge (verdict) calls."""
        return len(self.comparisons)

    @property
    def total_calls(self) -> int:
        """Every planned model call: verdicts, generations and paraphrases."""
        return len(self.comparisons) + len(self.generations) + len(self.paraphrases)

    def per_judge(self) -> Counter[str]:
        return Counter(c.judge for c in self.comparisons)


def round_robin_rounds(contestants: list[str]) -> list[list[tuple[str, str]]]:
    """Every unordered pair once, grouped in circle-method rounds (disjoint pairs); each pair lists the
    earlier-declared contestant first."""
    index = {c: i for i, c in enumerate(contestants)}
    players: list[str | None] = list(contestants)
    if len(players) % 2:
        players.append(None)
    n = len(players)
    rounds: list[list[tuple[str, str]]] = []
    for _ in range(n - 1):
        current: list[tuple[str, str]] = []
        for i in range(n // 2):
            a, b = players[i], players[n - 1 - i]
            if a is None or b is None:
                continue
            current.append((a, b) if index[a] < index[b] else (b, a))
        if current:
            rounds.append(current)
        players = [players[0], players[-1], *players[1:-1]]
    return rounds


def round_robin(contestants: list[str]) -> list[tuple[str, str]]:
    """Every unordered pair once, round after round."""
    return [pair for r in round_robin_rounds(contestants) for pair in r]


def baseline_rounds(contestants: list[str], baseline: str) -> list[list[tuple[str, str]]]:
    """The baseline design: one pair per round, baseline vs each other contestant (earlier-declared first)."""
    index = {c: i for i, c in enumerate(contestants)}
    pairs = [
        (baseline, c) if index[baseline] < index[c] else (c, baseline) for c in contestants if c != baseline
    ]
    return [[pair] for pair in pairs]


def comparison_rounds(tournament: Tournament) -> list[list[tuple[str, str]]]:
    """The pairs the plan judges, in rounds: every pair (`pairs = "all"`) or each against the baseline (none for
    `pairs = "recorded"`: `elotui.plan.recorded` gives its comparisons)."""
    if tournament.spec.comparison.pairs == "recorded":
        return []
    baseline = tournament.baseline
    if baseline is not None:
        return baseline_rounds(tournament.contestant_ids, baseline)
    return round_robin_rounds(tournament.contestant_ids)


def unit_order(prompts: list[str], rounds: list[list[tuple[str, str]]]) -> list[tuple[str, tuple[str, str]]]:
    """(prompt, pair) units in run order (see the module docstring)."""
    n_rounds = len(rounds)
    if not n_rounds:
        return []
    cycle = n_rounds // gcd(len(prompts), n_rounds)  # steps after which s * P (mod R) repeats
    return [
        (p, pair)
        for s in range(n_rounds)
        for i, p in enumerate(prompts)
        for pair in rounds[(s * len(prompts) + i + s // cycle) % n_rounds]
    ]


def seat_flipped(seed: int, prompt: str, a: str, b: str, condition: str, sample: int) -> bool:
    """With one order per presentation (`both_orders = false`, `single_order = "random"`): whether the
    later-declared contestant is shown first — a fair coin, seeded, the same for every judge of the presentation.
    Position bias then averages out instead of always favouring the earlier-declared contestant."""
    digest = hashlib.sha256(
        f"elotui-seat\x00{seed}\x00{prompt}\x00{a}\x00{b}\x00{condition}\x00{sample}".encode()
    )
    return digest.digest()[0] & 1 == 1


def build_plan(tournament: Tournament) -> Plan:
    with long_lived():
        return _build_plan(tournament)


def _build_plan(tournament: Tournament) -> Plan:
    spec = tournament.spec
    comparison = spec.comparison
    judges = tournament.judge_ids
    orders = 2 if comparison.both_orders else 1
    out: list[Comparison] = []
    random_seat = orders == 1 and comparison.single_order == "random"
    out.extend(recorded_comparisons(tournament, Comparison))  # pairs = "recorded" (else none)
    for prompt, (a, b) in unit_order(tournament.prompt_ids, comparison_rounds(tournament)):
        for condition in comparison.conditions:
            for sample in range(comparison.samples):
                first, second = a, b
                if random_seat and seat_flipped(
                    comparison.perturbation_seed, prompt, a, b, condition, sample
                ):
                    first, second = b, a
                for judge in judges:
                    out.append(Comparison(prompt, first, second, judge, condition, sample))
                    if orders == 2:
                        out.append(Comparison(prompt, second, first, judge, condition, sample))
    paraphrases = tuple(tournament.prompt_ids) if "paraphrase" in comparison.conditions else ()
    return Plan(tuple(out), _generations(tournament), paraphrases)


def _generations(tournament: Tournament) -> tuple[Generation, ...]:
    """Every (prompt, contestant with a generator) whose response the tournament does not give, prompt by prompt."""
    generators = [c.id for c in tournament.spec.contestants if c.generator is not None]
    if not generators:
        return ()
    given = tournament.responses
    return tuple(
        Generation(pid, cid) for pid in tournament.prompt_ids for cid in generators if (pid, cid) not in given
    )
