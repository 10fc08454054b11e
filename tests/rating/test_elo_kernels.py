"""The native Elo kernels (LLVM IR via llvmlite): they compile, and agree with hand-computed Elo and numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from elotui.rating import VerdictTable, games
from elotui.rating.elo import _stream_keys, canonical_games, permutation_orders, run_orders_numpy
from tests.rating.rating_builders import simulate

pytest.importorskip("llvmlite")
from elotui.rating.elo_kernels import Kernels


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
