"""Elo: hand-computed sequences, permutation averaging, order and orientation invariance, JIT kernel == numpy."""

from __future__ import annotations

import numpy as np
import pytest

from elotui.rating import VerdictTable, games
from elotui.rating.elo import (
    canonical_games,
    elo_rounds,
    expected_score,
    online_elo,
    permutation_elo,
    permutation_orders,
    run_orders_numpy,
)
from elotui.rating.games import Games
from elotui.rating.native import jit_kernels
from tests.rating.rating_builders import simulate


def arr(*values: float) -> np.ndarray:
    return np.array(values)


def test_expected_score_formula() -> None:
    assert expected_score(1000, 1000) == 0.5
    assert expected_score(1100, 1000) == pytest.approx(
        0.6400649998
    )  # Δ=100 -> about 64 % (Braun and Forell 2026)
    assert expected_score(1200, 1000) == pytest.approx(0.7597469267)  # Δ=200 -> about 76 %


def test_hand_computed_sequence() -> None:
    # A beats B, then B beats A, then a draw; K = 16, both start at 1000.
    # 1: E_A = 0.5, A += 16 * 0.5 = 8 -> A 1008, B 992
    # 2: E_B = 1 / (1 + 10^(16/400)) = 1 / 2.0964781961 = 0.4769904127; B += 16 * 0.5230095873 = 8.3681533968
    #    -> A 999.6318466032, B 1000.3681533968
    # 3: E_A = 1 / (1 + 10^(0.7363067936/400)) = 0.4989403709; A += 16 * (0.5 - 0.4989403709) = 0.0169540651
    a = np.array([0, 1, 0])
    b = np.array([1, 0, 1])
    r = online_elo(a, b, arr(1.0, 1.0, 0.5), 2, k_factor=16, initial_rating=1000)
    assert r[0] == pytest.approx(999.6488006683, abs=1e-9)
    assert r[1] == pytest.approx(1000.3511993317, abs=1e-9)
    r = online_elo(a[:2], b[:2], arr(1.0, 1.0), 2, k_factor=16, initial_rating=1000)
    assert r.tolist() == pytest.approx([999.6318466032, 1000.3681533968], abs=1e-9)


def test_k_factor_and_initial_rating_from_settings() -> None:
    r = online_elo(np.array([0]), np.array([1]), arr(0.0), 2, k_factor=32, initial_rating=1500)
    assert r.tolist() == [1484.0, 1516.0]


def test_draw_between_equals_changes_nothing() -> None:
    r = online_elo(np.array([0, 1]), np.array([1, 0]), arr(0.5, 0.5), 3)
    assert r.tolist() == [1000.0, 1000.0, 1000.0]


def _games(a: list[int], b: list[int], s: list[float], n: int) -> Games:
    return Games(np.array(a, dtype=np.int32), np.array(b, dtype=np.int32), np.array(s), n, {})


def test_permutation_average_of_two_games_by_hand() -> None:
    # games: A beats B, B beats A. Order (AB win first): A 999.6318, B 1000.3682; the other order mirrors it.
    g = _games([0, 1], [1, 0], [1.0, 1.0], 2)
    pe = permutation_elo(g, permutations=200, seed=1)
    finals = {round(x, 6) for x in pe.ratings[:, 0].tolist()}
    assert finals == {999.631847, 1000.368153}
    share = np.mean(pe.ratings[:, 0] < 1000)
    assert pe.mean[0] == pytest.approx(999.6318466032 * share + 1000.3681533968 * (1 - share))
    assert pe.low[0] == pytest.approx(999.6318466032) and pe.high[0] == pytest.approx(1000.3681533968)
    assert pe.mean.sum() == pytest.approx(2000.0)  # Elo is zero-sum


def test_permutation_average_does_not_depend_on_storage_order() -> None:
    rows = simulate({"A": 100, "B": 50, "C": 0, "D": -80}, prompts=4, judges=3, seed=3)
    shuffled = [rows[i] for i in np.random.default_rng(9).permutation(len(rows))]
    names = ["A", "B", "C", "D"]
    for threshold in ("none", 0.5):
        x = permutation_elo(
            games(VerdictTable.from_rows(rows, contestants=names), threshold), permutations=50, seed=4
        )
        y = permutation_elo(
            games(VerdictTable.from_rows(shuffled, contestants=names), threshold), permutations=50, seed=4
        )
        np.testing.assert_allclose(x.mean, y.mean, atol=1e-9)
        np.testing.assert_allclose(x.low, y.low, atol=1e-9)


@pytest.mark.parametrize("unit", ["prompt", "game"])
def test_bootstrap_rounds_do_not_depend_on_storage_order(unit: str) -> None:
    # The rounds list the games by (a, b, score, prompt) (prompt-major for prompt resampling) before drawing:
    # the same verdicts stored in another order give the same rounds, bit for bit.
    rows = simulate({"A": 100, "B": 50, "C": 0, "D": -80}, prompts=6, judges=3, seed=7)
    shuffled = [rows[i] for i in np.random.default_rng(2).permutation(len(rows))]
    names, prompts = ["A", "B", "C", "D"], sorted({r[0] for r in rows})
    for threshold in ("none", 0.5, 1.0):
        x, y = (
            elo_rounds(
                games(VerdictTable.from_rows(r, contestants=names, prompts=prompts), threshold),
                rounds=12,
                unit=unit,  # type: ignore[arg-type]
                seed=5,
            )
            for r in (rows, shuffled)
        )
        assert x.shape == (12, 4) and np.array_equal(x, y)


def test_swapping_shown_order_mirrors_elo() -> None:
    # the same verdicts with first/second swapped and the winner slot swapped: identical ratings
    rows = simulate({"A": 60, "B": 0, "C": -60}, prompts=3, judges=2, seed=5)
    flip = {"first": "second", "second": "first", "tie": "tie"}
    mirrored = [(p, s, f, j, c, k, st, flip[w] if w else None) for p, f, s, j, c, k, st, w in rows]
    names = ["A", "B", "C"]
    x = permutation_elo(
        games(VerdictTable.from_rows(rows, contestants=names), "none"), permutations=20, seed=2
    )
    y = permutation_elo(
        games(VerdictTable.from_rows(mirrored, contestants=names), "none"), permutations=20, seed=2
    )
    np.testing.assert_allclose(x.mean, y.mean, atol=1e-9)


def test_swapping_a_and_b_mirrors_online_elo() -> None:
    a, b, s = np.array([0, 0, 1]), np.array([1, 1, 0]), arr(1.0, 0.5, 0.0)
    r = online_elo(a, b, s, 2)
    swapped = online_elo(b, a, 1.0 - s, 2)
    assert swapped.tolist() == pytest.approx(r.tolist(), abs=1e-9)
    relabelled = online_elo(1 - a, 1 - b, s, 2)  # A <-> B everywhere
    assert relabelled.tolist() == pytest.approx(r[::-1].tolist(), abs=1e-9)


def test_orders_are_seeded_permutations() -> None:
    o = permutation_orders(1000, 5, seed=7)
    assert all(sorted(x) == list(range(1000)) for x in o.tolist())
    assert not np.array_equal(o[0], o[1])
    assert np.array_equal(o, permutation_orders(1000, 5, seed=7))
    assert not np.array_equal(o, permutation_orders(1000, 5, seed=8))


def test_numpy_fallback_matches_fast_path() -> None:
    rows = simulate({"A": 100, "B": 0, "C": -50}, prompts=5, judges=2, seed=1)
    g = games(VerdictTable.from_rows(rows), "none")
    a, b, s = canonical_games(g)
    reference = run_orders_numpy(a, b, s, permutation_orders(len(a), 7, seed=3), 3, 16.0, 1000.0)
    np.testing.assert_allclose(permutation_elo(g, permutations=7, seed=3).ratings, reference, atol=1e-9)
    kern = jit_kernels()  # llvmlite is a dependency: the native path must be there (not silently skipped)
    assert kern is not None, "the llvmlite Elo kernel did not compile"
    np.testing.assert_allclose(
        kern["online"](a.astype(np.int64), b.astype(np.int64), s, 3, 16.0, 1000.0),
        run_orders_numpy(a, b, s, np.arange(len(a))[None], 3, 16.0, 1000.0)[0],
        atol=1e-9,
    )


def test_no_games_gives_initial_ratings() -> None:
    pe = permutation_elo(_games([], [], [], 3), permutations=10, initial_rating=1200)
    assert pe.mean.tolist() == [1200.0] * 3


def _oriented(g: Games) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    swap = g.a > g.b
    return np.where(swap, g.b, g.a), np.where(swap, g.a, g.b), np.where(swap, 1.0 - g.score_a, g.score_a)


def test_the_canonical_listing_is_the_oriented_games_sorted() -> None:
    # Listed by counting (distinct keys repeated by their counts): the same games, in the same places, as the
    # oriented games sorted by (a, b, score), or by (prompt, a, b, score); packed the same.
    from elotui.rating.elo import canonical
    from elotui.rating.native.kernels import pack

    rng = np.random.default_rng(23)
    # the last: keys over a range too wide for a table (their words are searched for, not looked up)
    for n, size, prompts in ((2, 1, 1), (5, 400, 3), (40, 20_000, 17), (130, 5_000, 2), (300, 2_000, 3)):
        a = rng.integers(0, n, size)
        g = Games(
            a=a.astype(np.int32),
            b=((a + rng.integers(1, n, size)) % n).astype(np.int32),
            score_a=rng.choice([0.0, 0.25, 0.5, 1.0], size),
            n_contestants=n,
            counts={},
            prompt=rng.integers(0, prompts, size).astype(np.int32),
        )
        oa, ob, os_ = _oriented(g)
        c = canonical(g)
        order = np.lexsort((os_, ob, oa))
        want = (oa[order], ob[order], os_[order])
        for got, expected in zip(c.games(), want, strict=True):
            assert np.array_equal(got, expected)
        assert np.array_equal(c.packed(n).words, pack(*want, n).words)
        listing = c.by_prompt(g.prompt)
        order = np.lexsort((os_, ob, oa, g.prompt))
        want = (oa[order], ob[order], os_[order])
        for got, expected in zip(c.games(listing), want, strict=True):
            assert np.array_equal(got, expected)
        assert np.array_equal(c.packed(n, listing).words, pack(*want, n).words)
        assert np.array_equal(listing.repeated(listing.keys // c.span), g.prompt[order])


def test_a_listing_too_wide_for_one_integer_key_is_refused() -> None:
    from elotui.rating.elo import canonical

    n = 1 << 20
    g = Games(
        a=np.array([0, 5], np.int32),
        b=np.array([n - 1, 7], np.int32),
        score_a=np.array([1.0, 0.5]),
        n_contestants=n,
        counts={},
        prompt=np.array([0, 1 << 22], np.int32),
    )
    with pytest.raises(ValueError, match="too many prompts"):
        canonical(g).by_prompt(g.prompt)


@pytest.mark.parametrize("unit", ["prompt", "game"])
def test_bootstrap_rounds_natively_and_with_numpy_agree(unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from elotui.rating import native as loading

    rows = simulate({"A": 100, "B": 50, "C": 0, "D": -80}, prompts=7, judges=3, seed=11)
    g = games(VerdictTable.from_rows(rows), "none")
    native = elo_rounds(g, rounds=9, unit=unit, seed=4)  # type: ignore[arg-type]
    monkeypatch.setattr(loading, "_KERNELS", {"state": "off"})  # as with ELOTUI_NO_JIT=1
    assert loading.jit_kernels() is None
    fallback = elo_rounds(g, rounds=9, unit=unit, seed=4)  # type: ignore[arg-type]
    np.testing.assert_allclose(native, fallback, atol=1e-9)


@pytest.mark.parametrize("unit", ["prompt", "game"])
def test_tail_averaged_rounds_natively_and_with_numpy_agree(
    unit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from elotui.rating import native as loading
    from elotui.rating.order_noise import averages_tails

    rows = simulate({"A": 100, "B": 50, "C": 0, "D": -80}, prompts=70, judges=2, seed=11)
    g = games(VerdictTable.from_rows(rows), "none")
    assert averages_tails(len(g), 4, 16.0)  # enough games: the rounds take tail averages
    native = elo_rounds(g, rounds=5, unit=unit, seed=4)  # type: ignore[arg-type]
    monkeypatch.setattr(loading, "_KERNELS", {"state": "off"})
    fallback = elo_rounds(g, rounds=5, unit=unit, seed=4)  # type: ignore[arg-type]
    np.testing.assert_allclose(native, fallback, rtol=1e-10)
