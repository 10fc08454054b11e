"""The native Elo kernels (LLVM IR via llvmlite): they compile, and agree with hand-computed Elo and numpy."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

from elotui.rating import VerdictTable, games
from elotui.rating.elo import _stream_keys, canonical_games, permutation_orders, run_orders_numpy
from tests.rating.rating_builders import simulate

pytest.importorskip("llvmlite")
from elotui.rating.native.kernels import Kernels, Order, Packed, pack, whole


@pytest.fixture(scope="module")
def kernels() -> Kernels:
    return Kernels()  # must compile wherever llvmlite is installed: a broken IR fails here, not silently


def test_online_hand_computed(kernels: Kernels) -> None:
    # A beats B at 1000/1000: E = 0.5, d = 16 * 0.5 = 8 -> 1008 / 992; then a draw: E_A = 1/(1+10^(-16/400))
    e = 1.0 / (1.0 + 10.0 ** (-16.0 / 400.0))
    d = 16.0 * (0.5 - e)
    r = kernels.online(np.array([0, 0]), np.array([1, 1]), np.array([1.0, 0.5]), 2, 16.0, 1000.0)
    assert r.tolist() == pytest.approx([1008.0 + d, 992.0 - d], abs=1e-12)


def test_play_matches_numpy_orders() -> None:
    rows = simulate({"A": 120, "B": 0, "C": -40, "D": 10}, prompts=6, judges=3, seed=4)
    g = games(VerdictTable.from_rows(rows), "none")
    a, b, s = canonical_games(g)
    kern = Kernels()
    fast = kern.play(a, b, s, _stream_keys(9, 5), 4, 16.0, 1000.0)
    slow = run_orders_numpy(a, b, s, permutation_orders(len(a), 9, 5), 4, 16.0, 1000.0)
    np.testing.assert_allclose(fast, slow, atol=1e-9)
    assert fast.shape == (9, 4)
    assert not np.allclose(fast[0], fast[1])  # different orders really were played


def test_single_game_and_no_games(kernels: Kernels) -> None:
    keys = _stream_keys(3, 0)
    one = kernels.play(np.array([1]), np.array([0]), np.array([0.0]), keys, 2, 32.0, 1500.0)
    assert one.tolist() == [[1516.0, 1484.0]] * 3
    none = kernels.play(np.zeros(0, int), np.zeros(0, int), np.zeros(0), keys, 2, 16.0, 1000.0)
    assert none.tolist() == [[1000.0, 1000.0]] * 3
    assert math.isclose(
        float(kernels.online(np.zeros(0, int), np.zeros(0, int), np.zeros(0), 1, 16, 7)[0]), 7.0
    )


def test_out_of_range_codes_are_refused(kernels: Kernels) -> None:
    with pytest.raises(ValueError, match="codes"):
        kernels.online(np.array([0]), np.array([5]), np.array([1.0]), 2, 16.0, 1000.0)
    with pytest.raises(ValueError, match="codes"):
        kernels.play(np.array([-1]), np.array([0]), np.array([1.0]), _stream_keys(1, 0), 2, 16.0, 1000.0)


def random_games(
    seed: int, n: int, size: int, scores: tuple[float, ...] = (0.0, 0.5, 1.0)
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`size` games among `n` contestants (a != b), each with one of `scores`."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, size)
    return a, (a + rng.integers(1, n, size)) % n, rng.choice(scores, size)


def test_orders_of_blocks_play_the_blocks_laid_end_to_end(kernels: Kernels) -> None:
    # A bootstrap round is blocks of the source (prompts drawn with repeats, or single games): the kernel copies
    # them end to end and shuffles; the numpy reference gathers the same games and plays the same orders.
    n, size = 6, 500
    a, b, s = random_games(8, n, size, (0.0, 0.5, 1.0, 0.25))
    src = pack(a, b, s, n)
    rng = np.random.default_rng(8)
    for trial in range(5):
        starts = rng.integers(0, size - 40, 12).astype(np.int64)
        lengths = rng.integers(0, 40, 12).astype(np.int64) if trial else np.ones(12, dtype=np.int64)
        keys = _stream_keys(3, trial)
        got = kernels.play_packed(src, [Order(starts, lengths, int(k)) for k in keys], n, 16.0, 1000.0)
        keep = np.concatenate([np.arange(st, st + ln) for st, ln in zip(starts, lengths, strict=True)])
        want = run_orders_numpy(
            a[keep], b[keep], s[keep], permutation_orders(len(keep), 3, trial), n, 16.0, 1000.0
        )
        np.testing.assert_allclose(got, want, atol=1e-9)


def test_orders_of_every_length_are_the_numpy_orders(kernels: Kernels) -> None:
    # The shuffle makes its draws a block of 8 at a time in vectors where the position is 7 mod 8 (and swaps one
    # at a time before, between and after): every length around the block and the prefetch ring (256) plays the
    # orders `permutation_orders` draws. A draw out of place would play the games in another order: ratings apart
    # by far more than the 1e-9 the exp of numpy and of the kernel may differ by.
    n = 12
    a, b, s = random_games(44, n, 1_200)
    src = pack(a, b, s, n)
    for size in (2, 3, 7, 8, 9, 15, 16, 17, 255, 256, 257, 263, 264, 265, 271, 272, 520, 1_031, 1_200):
        keys = _stream_keys(4, size)
        got = kernels.play_packed(
            src, [Order(np.array([0]), np.array([size]), int(k)) for k in keys], n, 16.0, 1000.0
        )
        want = run_orders_numpy(
            a[:size], b[:size], s[:size], permutation_orders(size, 4, size), n, 16.0, 1000.0
        )
        np.testing.assert_allclose(got, want, atol=1e-9, err_msg=f"{size} games")


def test_orders_played_in_pairs_are_the_orders_played_one_by_one(kernels: Kernels) -> None:
    # Two orders of the same games go to elo_pair (side by side); alone, or next to an order of other blocks, to
    # elo_order: the same ratings bit for bit either way, whatever the pairing.
    n = 30
    src = pack(*random_games(21, n, 4_000), n)
    blocks = [
        (np.array([0, 100], np.int64), np.array([900, 2000], np.int64)),
        (np.array([5], np.int64), np.array([3000], np.int64)),
    ]
    plan = [Order(*blocks[i % 3 == 2], int(key)) for i, key in enumerate(_stream_keys(7, 3))]
    together = kernels.play_packed(src, plan, n, 16.0, 1000.0)
    for i, order in enumerate(plan):
        assert np.array_equal(together[i], kernels.play_packed(src, [order], n, 16.0, 1000.0)[0])


def test_words_of_every_width_play_the_same_orders(kernels: Kernels) -> None:
    # Games pack into the narrowest words they fit (16, 32 or 64 bits: the less memory the shuffles move): the
    # same games in every width are the same orders, bit for bit, including orders longer than the prefetch ring.
    n, size = 40, 5_000
    a, b, s = random_games(3, n, size)
    p = pack(a, b, s, n)
    assert p.words.dtype == np.uint16  # 2 x 6 bits of codes + 2 of score
    widths = [Packed(p.words.astype(word), p.table, p.cbits) for word in (np.uint32, np.uint64)]
    for size_ in (size, 300, 257, 256, 255, 70, 2):
        orders = whole(size_, _stream_keys(4, size_))
        narrow_r = kernels.play_packed(p, orders, n, 16.0, 1000.0)
        for wide in widths:
            assert np.array_equal(narrow_r, kernels.play_packed(wide, orders, n, 16.0, 1000.0))
        want = run_orders_numpy(
            a[:size_],
            b[:size_],
            p.table[p.words[:size_] >> 2 * p.cbits],
            permutation_orders(size_, 4, size_),
            n,
            16.0,
            1000.0,
        )
        np.testing.assert_allclose(narrow_r, want, atol=1e-9)
    with pytest.raises(ValueError, match="uint16, uint32 or uint64"):
        kernels.play_packed(
            Packed(p.words.astype(np.int64), p.table, p.cbits),
            whole(size, _stream_keys(1, 0)),
            n,
            16.0,
            1000.0,
        )
    scores = np.array([0.0, 0.5, 1.0])
    assert pack(np.zeros(3, int), np.ones(3, int), scores, 128).words.dtype == np.uint16  # 7 + 7 + 2 bits
    assert pack(np.zeros(3, int), np.ones(3, int), scores, 129).words.dtype == np.uint32  # 8 + 8 + 2
    assert pack(np.zeros(5, int), np.ones(5, int), np.linspace(0, 1, 5), 128).words.dtype == np.uint32
    huge = pack(np.zeros(3, int), np.ones(3, int), scores, 1 << 16)
    assert huge.words.dtype == np.uint64  # 2 x 16 bits of codes leave no room for the score index


def test_packing_round_trips_and_refuses_what_does_not_fit(kernels: Kernels) -> None:
    a, b, s = np.array([0, 2, 1]), np.array([1, 0, 2]), np.array([1.0, 0.5, 0.0])
    p = pack(a, b, s, 3)
    mask = (1 << p.cbits) - 1
    words = p.words.astype(object)
    assert [(int(w) & mask, (int(w) >> p.cbits) & mask, p.table[int(w) >> 2 * p.cbits]) for w in words] == [
        (0, 1, 1.0),
        (2, 0, 0.5),
        (1, 2, 0.0),
    ]
    with pytest.raises(
        ValueError, match="64-bit"
    ):  # 2^30 contestants leave 4 bits: 17 distinct scores do not fit
        pack(np.zeros(17, int), np.ones(17, int), np.linspace(0, 1, 17), 1 << 30)
    with pytest.raises(ValueError, match="inside"):
        kernels.play_packed(p, [Order(np.array([2]), np.array([2]), 0)], 3, 16.0, 1000.0)
    with pytest.raises(ValueError, match="int64"):
        kernels.play_packed(p, [Order(np.array([0], np.int32), np.array([1], np.int32), 0)], 3, 16.0, 1000.0)
    assert kernels.play_packed(p, whole(3, _stream_keys(0, 0)), 3, 16.0, 1000.0).shape == (0, 3)


def test_a_process_that_ends_while_the_kernels_compile_ends_cleanly(tmp_path: Path) -> None:
    # `elotui export` starts the compile in a background thread before it reads its input; bad input ends the
    # process at once. It must wait for the compile (LLVM unloaded under a compiling thread crashes: SIGSEGV).
    import subprocess
    import sys

    code = (
        "import sys, time, numpy; from elotui.rating.native import warm_kernels; warm_kernels(); "
        "time.sleep(float(sys.argv[1])); raise SystemExit(2)"
    )
    for delay in ("0", "0.05", "0.08", "0.1", "0.12", "0.15", "0.2"):  # across the ~0.2 s the compile takes
        home = tmp_path / f"home-{delay}"  # an empty cache each time: the kernels are compiled, not read
        env = {**os.environ, "ELOTUI_HOME": str(home)}
        run = subprocess.run([sys.executable, "-c", code, delay], check=False, capture_output=True, env=env)
        assert run.returncode == 2, (delay, run.returncode, run.stderr[-300:])


def test_orders_played_in_lanes_are_the_orders_played_one_by_one(kernels: Kernels) -> None:
    # Four orders at a time go to elo_lanes (their arithmetic in vectors): each lane its own blocks and length
    # (a bootstrap round's orders; past the shortest, the longer ones finish alone), none, one or many games,
    # in every word width: the same ratings bit for bit as each order played alone.
    n = 50
    a, b, s = random_games(31, n, 6_000)
    p = pack(a, b, s, n)
    rng = np.random.default_rng(31)
    plans = [
        [
            Order(np.array([0], np.int64), np.array([ln], np.int64), int(key))
            for ln, key in zip(lens, keys, strict=True)
        ]
        for lens, keys in (
            ((6_000,) * 4, _stream_keys(4, 1)),
            ((6_000, 10, 0, 5_999), _stream_keys(4, 2)),
            ((1, 1, 1, 1), _stream_keys(4, 3)),
            ((300, 257, 256, 2_000, 4_000, 1, 77, 6_000, 5), _stream_keys(9, 4)),
        )
    ]
    starts = rng.integers(0, 5_000, (4, 20)).astype(np.int64)
    lengths = rng.integers(0, 1_000, (4, 20)).astype(np.int64)
    plans.append([Order(starts[i], lengths[i], int(key)) for i, key in enumerate(_stream_keys(4, 5))])
    for word in (np.uint16, np.uint32, np.uint64):
        src = Packed(p.words.astype(word), p.table, p.cbits)
        for plan in plans:
            together = kernels.play_packed(src, plan, n, 16.0, 1000.0)
            for i, order in enumerate(plan):
                assert np.array_equal(together[i], kernels.play_packed(src, [order], n, 16.0, 1000.0)[0])


def test_orders_are_split_over_the_cores_evenly() -> None:
    # Runs of whole lanes (48 and 52 of 100) left one core idle for a lane group's time at the end; two runs of
    # 50 (12 groups and a pair each) end together.
    from elotui.rating.native.kernels import _split

    assert _split(100, 2) == [0, 50, 100]
    assert _split(32, 2) == [0, 16, 32]
    assert _split(4, 2) == [0, 2, 4]
    assert _split(100, 3) == [0, 33, 66, 100]
    assert _split(7, 1) == [0, 7]
    assert _split(0, 0) == [0, 0]
