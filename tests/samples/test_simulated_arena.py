"""The simulated arena: known qualities, judges that differ, and a run that recovers the true order."""

from __future__ import annotations

import asyncio
from itertools import pairwise
from pathlib import Path

import pytest

from elotui.rating.diagnostics import diagnose
from elotui.rating.leaderboard import RatingOptions
from elotui.run.runner import Runner
from elotui.store import Store
from elotui.tournament.model import Tournament, load_tournament
from tests.samples.sample_paths import SAMPLES

TOURNAMENT = SAMPLES / "simulated_arena" / "tournament.toml"


@pytest.fixture(scope="module")
def arena() -> Tournament:
    return load_tournament(TOURNAMENT)


def test_known_qualities_and_different_judges(arena: Tournament) -> None:
    spec = arena.spec
    assert len(arena.contestant_ids) == 20 and len(arena.prompt_ids) == 10 and len(spec.judges) == 5
    sims = [j.simulation for j in spec.judges]
    assert all(j.provider == "simulated" for j in spec.judges) and all(s is not None for s in sims)
    qualities = sims[0].qualities  # type: ignore[union-attr]
    assert all(s.qualities == qualities for s in sims)  # type: ignore[union-attr]
    assert spec.reference is not None
    assert spec.reference.ranking == sorted(qualities, key=lambda c: -qualities[c])
    values = sorted(qualities.values())
    assert all(b - a == 50 for a, b in pairwise(values))
    for attr in ("noise", "position_bias", "length_bias", "seed"):
        assert len({getattr(s, attr) for s in sims}) >= 3, attr
    lengths = [len(text) for text in arena.responses.values()]
    assert max(lengths) > 3 * min(lengths)


def test_a_run_recovers_the_true_order(arena: Tournament, tmp_path: Path) -> None:
    with Store.open_for(arena, tmp_path / "arena.sqlite") as store:
        finished = asyncio.run(Runner(arena, store, no_delay=True).run())
        assert finished.state == "finished" and finished.done == 19000
        from elotui.rating.table import VerdictTable

        table = VerdictTable.from_rows(store.plan_verdicts(), contestants=arena.contestant_ids)
    assert arena.spec.reference is not None
    lengths = {key: len(text) for key, text in arena.responses.items()}
    report = diagnose(
        table,
        reference_ranking=arena.spec.reference.ranking,
        lengths=lengths,
        options=RatingOptions(permutations=20),
    )
    for threshold, agreement in report["reference"]["by_threshold"].items():
        assert agreement["kendall_tau"] >= 0.9, threshold
    judges = report["judges"]
    assert (
        judges["first-lover"]["position"]["first_slot_share"]
        > judges["sharp"]["position"]["first_slot_share"]
    )
    assert (
        judges["second-lover"]["position"]["first_slot_share"]
        < judges["sharp"]["position"]["first_slot_share"]
    )
    longer = {j: judges[j]["length_bias"]["longer_wins_share"] for j in judges}
    assert longer["verbose-lover"] > max(longer["sharp"], longer["second-lover"])
    assert judges["noisy"]["position"]["consistent"] < judges["sharp"]["position"]["consistent"]
