"""numba kernels for `elotui.rating.elo` (imported lazily, only when numba is installed).

Module-level functions so that numba's on-disk cache (`cache=True`) works across processes: the first run
compiles (~2 s), later runs load the machine code in a few milliseconds. The constants are the ones of
`elotui.rating.elo`: the shuffle here draws exactly the orders `elo.permutation_orders` draws.
"""

from __future__ import annotations

import math

import numba
import numpy as np

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
S30, S27, S31, S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
ONE = np.uint64(1)
C = math.log(10.0) / 400.0


@numba.njit(cache=True, nogil=True)
def mix(z):  # type: ignore[no-untyped-def]  # splitmix64 output function
    z = (z ^ (z >> S30)) * M1
    z = (z ^ (z >> S27)) * M2
    return z ^ (z >> S31)


@numba.njit(cache=True, nogil=True)
def play(a, b, s, keys, n, k, init):  # type: ignore[no-untyped-def]
    """For each stream key: Fisher–Yates shuffle of the games, then Elo over them. Returns (orders, n)."""
    n_orders = keys.shape[0]
    n_games = a.shape[0]
    ratings = np.full((n_orders, n), init)
    order = np.empty(n_games, dtype=np.int64)
    for p in range(n_orders):
        for t in range(n_games):
            order[t] = t
        key = keys[p]
        for i in range(n_games - 1, 0, -1):
            ui = np.uint64(i)
            draw = mix(key + ui * GOLDEN)
            j = np.int64(((draw >> S32) * (ui + ONE)) >> S32)
            held = order[i]
            order[i] = order[j]
            order[j] = held
        r = ratings[p]
        for t in range(n_games):
            g = order[t]
            x = a[g]
            y = b[g]
            d = k * (s[g] - 1.0 / (1.0 + math.exp(C * (r[y] - r[x]))))
            r[x] += d
            r[y] -= d
    return ratings


@numba.njit(cache=True, nogil=True)
def online(a, b, s, n, k, init):  # type: ignore[no-untyped-def]
    """Elo once over the games in the given order."""
    r = np.full(n, init)
    for g in range(a.shape[0]):
        x = a[g]
        y = b[g]
        d = k * (s[g] - 1.0 / (1.0 + math.exp(C * (r[y] - r[x]))))
        r[x] += d
        r[y] -= d
    return r
