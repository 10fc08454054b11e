"""The bootstrap's rounds as blocks of games equal a direct resampling with the same draws, and the Elo rounds
played natively from blocks equal the numpy path round for round."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from elotui.rating import VerdictTable, games
from elotui.rating.bootstrap import Resampling, gap_stats, percentile_interval, resampled_blocks
from elotui.rating.elo import elo_rounds
from elotui.rating.native import _KERNELS
from tests.rating.rating_builders import simulate


def _games():  # type: ignore[no-untyped-def]
    rows = simulate({"A": 90, "B": 0, "C": -30, "D": 20}, prompts=9, judges=2, seed=6)
    return games(VerdictTable.from_rows(rows), "none")


def test_prompt_blocks_are_the_drawn_prompts_games() -> None:
    g = _games()
    resampling = resampled_blocks(g, "prompt", 4, seed=11)
    rng = np.random.default_rng(11)  # the same draws, done directly: multinomial counts of the prompts
    prompts = np.unique(g.prompt)
    counts = rng.multinomial(len(prompts), np.full(len(prompts), 1 / len(prompts)), size=4)
    for blocks, c in zip(resampling.rounds, counts, strict=True):
        got = Resampling.indices(resampling.order, blocks)
        want = np.concatenate(
            [np.flatnonzero(g.prompt == p) for p, k in zip(prompts, c, strict=True) for _ in range(k)]
        )
        assert np.array_equal(got, want)


def test_game_blocks_are_single_draws() -> None:
    g = _games()
    resampling = resampled_blocks(g, "game", 3, seed=2)
    rng = np.random.default_rng(2)
    for blocks in resampling.rounds:
        assert np.array_equal(Resampling.indices(resampling.order, blocks), rng.integers(0, len(g), len(g)))


@pytest.mark.parametrize("unit", ["prompt", "game"])
def test_native_rounds_equal_numpy_rounds(unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    g = _games()
    native = elo_rounds(g, rounds=20, unit=unit, seed=4)  # type: ignore[arg-type]
    monkeypatch.setitem(_KERNELS, "state", "off")
    monkeypatch.delitem(_KERNELS, "kernels", raising=False)
    plain = elo_rounds(g, rounds=20, unit=unit, seed=4)  # type: ignore[arg-type]
    np.testing.assert_allclose(native, plain, atol=1e-9)
    assert native.shape == (20, 4) and np.ptp(native, axis=0).min() > 0


def test_games_listed_by_prompt_are_resampled_without_an_order() -> None:
    """Games already listed by prompt (Elo's rounds list them so) need no order to gather through: the rounds'
    blocks are those of the same games in any other listing, moved to their places."""
    from elotui.rating.bootstrap import resampled_blocks_of

    prompt = np.random.default_rng(1).permutation(_games().prompt)  # games in no particular order
    order = np.argsort(prompt, kind="stable")
    listed = resampled_blocks_of(prompt[order], "prompt", 5, seed=3)
    shuffled = resampled_blocks_of(prompt, "prompt", 5, seed=3)
    assert listed.order is None and shuffled.order is not None
    for a, b in zip(listed.rounds, shuffled.rounds, strict=True):
        assert np.array_equal(order[Resampling.indices(None, a)], Resampling.indices(shuffled.order, b))


def test_gap_statistics_of_all_neighbours_at_once_are_each_pairs() -> None:
    """`gap_stats` takes every pair of neighbours in one pass over the rounds; each pair's interval and order
    confidence are those of its own gaps alone (the percentile interval of one column, the share of rounds above
    with a tie counting half), bit for bit, ties and equal columns included."""
    from elotui.vocab import RATING_TIE

    rng = np.random.default_rng(3)
    for trial in range(60):
        rounds = rng.normal(1000.0, 40.0, (int(rng.integers(1, 250)), int(rng.integers(2, 30))))
        if trial % 3 == 0:
            rounds = np.round(rounds / 10.0) * 10.0  # many ties
        rounds[:, 1] = rounds[:, 0]
        order = rng.permutation(rounds.shape[1])
        low, high, confidence = gap_stats(rounds, order[:-1], order[1:])
        for k, (upper, lower) in enumerate(itertools.pairwise(order)):
            gaps = rounds[:, upper] - rounds[:, lower]
            want_low, want_high = percentile_interval(gaps)
            above = np.mean(gaps > RATING_TIE) + 0.5 * np.mean(np.abs(gaps) <= RATING_TIE)
            assert (low[k], high[k], confidence[k]) == (want_low, want_high, above)


def _many_prompts(prompts: int, seed: int):  # type: ignore[no-untyped-def]
    """One game a prompt, 4 contestants, in a shuffled listing (the games not grouped by prompt)."""
    from elotui.rating.games import Games

    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, prompts).astype(np.int32)
    b = ((a + rng.integers(1, 4, prompts)) % 4).astype(np.int32)
    return Games(
        a, b, rng.choice([0.0, 0.5, 1.0], prompts), 4, {}, prompt=rng.permutation(prompts).astype(np.int32)
    )


def test_counts_drawn_in_chunks_of_rounds_are_the_counts_of_one_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    """The draw counts come a chunk of rounds at a time (bounded memory): the prompt bootstrap's win matrices and
    the rounds' blocks are those of one (rounds x prompts) draw, whatever the chunk."""
    from elotui.rating import bootstrap
    from elotui.rating.bootstrap import prompt_win_rounds

    g = _many_prompts(3000, 5)
    whole = prompt_win_rounds(g, 23, seed=9)
    rounds = [
        Resampling.indices(r.order, b) for r in [resampled_blocks(g, "prompt", 23, 9)] for b in r.rounds
    ]
    monkeypatch.setattr(bootstrap, "COUNTS_AT_ONCE", 3000 * 4)  # 4 rounds a chunk: 6 chunks, the last of 3
    assert np.array_equal(prompt_win_rounds(g, 23, seed=9), whole)
    again = resampled_blocks(g, "prompt", 23, 9)
    assert all(
        np.array_equal(Resampling.indices(again.order, b), r)
        for b, r in zip(again.rounds, rounds, strict=True)
    )
    # and one draw, done directly
    counts = np.random.default_rng(9).multinomial(3000, np.full(3000, 1 / 3000), size=23)
    cells = np.zeros((23, 16))
    for k in range(len(g)):
        p, a, b, s = g.prompt[k], g.a[k], g.b[k], g.score_a[k]
        cells[:, a * 4 + b] += counts[:, p] * s
        cells[:, b * 4 + a] += counts[:, p] * (1 - s)
    assert np.array_equal(whole.reshape(23, 16), cells)


def test_the_prompt_bootstrap_holds_a_chunk_of_counts_not_every_round(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """10^5 prompts, 200 rounds: the whole (rounds x prompts) count matrix would be 160 MB; drawn in chunks of
    2^20 counts, the bootstrap's peak stays far below it."""
    import tracemalloc

    from elotui.rating import bootstrap
    from elotui.rating.bootstrap import prompt_win_rounds

    g = _many_prompts(100_000, 1)
    monkeypatch.setattr(bootstrap, "COUNTS_AT_ONCE", 1 << 20)
    tracemalloc.start()
    try:
        prompt_win_rounds(g, 200, seed=3)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 60e6, f"{peak / 1e6:.0f} MB"
