"""Digit-wise stable sorts and dense codes equal numpy's own sort, lexsort and unique on random inputs."""

from __future__ import annotations

import numpy as np
import pytest

from elotui.rating.radix import (
    count_distinct,
    dense_codes,
    dense_ints,
    groups_by_arrival,
    stable_argsort,
    unique_counts,
    unique_ints,
)


@pytest.mark.parametrize("key_range", [1, 2, 300, 1 << 16, (1 << 16) + 1, 1 << 40, (1 << 63) - 1])
def test_stable_argsort_is_numpys_stable_argsort(key_range: int) -> None:
    rng = np.random.default_rng(key_range % 1000)
    for n in (0, 1, 7, 5000):
        keys = rng.integers(0, key_range, n, dtype=np.uint64) if key_range > 1 else np.zeros(n, np.uint64)
        keys[: n // 3] = keys[n // 3 : 2 * (n // 3)]  # plenty of ties: stability shows
        assert np.array_equal(stable_argsort(keys, key_range), np.argsort(keys, kind="stable"))
        if key_range < 1 << 63:  # signed keys as well (a composite key is built as int64)
            signed = keys.astype(np.int64)
            assert np.array_equal(stable_argsort(signed, key_range), np.argsort(keys, kind="stable"))


def test_keys_already_in_order_keep_their_order() -> None:
    rng = np.random.default_rng(4)
    for key_range in (3, 1 << 16, 1 << 40):
        keys = np.sort(rng.integers(0, key_range, 5000))  # ties: stability decides their order
        assert np.array_equal(stable_argsort(keys, key_range), np.argsort(keys, kind="stable"))
        keys[2500] = key_range - 1  # one out of order: sorted for real
        assert np.array_equal(stable_argsort(keys, key_range), np.argsort(keys, kind="stable"))


@pytest.mark.parametrize("kind", ["few", "many", "signed zeros", "one rare value", "nan"])
def test_dense_codes_are_numpys_unique(kind: str) -> None:
    rng = np.random.default_rng(3)
    values = {
        "few": rng.choice([0.0, 0.5, 1.0], 20_000),
        "many": rng.random(20_000),
        "signed zeros": rng.choice([0.0, -0.0, 1.0], 20_000),
        "one rare value": np.r_[
            rng.choice([0.0, 1.0], 20_000), 0.75
        ],  # missed by the sample: found by the check
        "nan": np.r_[rng.choice([0.0, 1.0], 999), np.nan],
    }[kind]
    table, codes = dense_codes(values)
    expected_table, expected_codes = np.unique(values, return_inverse=True)
    np.testing.assert_array_equal(table, expected_table)
    np.testing.assert_array_equal(codes, expected_codes.reshape(-1))
    assert len(dense_codes(np.zeros(0))[0]) == 0


@pytest.mark.parametrize("key_range", [1, 50, 10**6, 1 << 40])  # a table over the range, and the sorted path
def test_groups_by_arrival_are_uniques_in_first_appearance_order(key_range: int) -> None:
    rng = np.random.default_rng(9)
    for n in (0, 1, 3000):
        keys = rng.integers(0, key_range, n)
        keys[n // 2 :] = keys[: n - n // 2]  # repeats
        first, group = groups_by_arrival(keys, key_range)
        _, u_first, u_inverse = np.unique(keys, return_index=True, return_inverse=True)
        order = np.argsort(u_first, kind="stable")
        assert np.array_equal(first, u_first[order])
        rank = np.empty(len(order), dtype=np.intp)
        rank[order] = np.arange(len(order))
        assert np.array_equal(group, rank[u_inverse.reshape(-1)])
        assert np.array_equal(keys[first[group]], keys)  # each key's group starts with that key


@pytest.mark.parametrize("key_range", [1, 5, 70_000, 1 << 40])
def test_unique_ints_and_dense_ints_are_numpys_unique(key_range: int) -> None:
    rng = np.random.default_rng(key_range % 97)
    for n in (0, 1, 10, 10_000):
        keys = rng.integers(0, key_range, n)
        got, want = unique_ints(keys, key_range), np.unique(keys, return_index=True, return_inverse=True)
        for x, y in zip(got, want, strict=True):
            assert np.array_equal(x, y.reshape(-1))
        codes, inverse = dense_ints(keys)
        u, i = np.unique(keys, return_inverse=True)
        assert np.array_equal(codes, u) and np.array_equal(inverse, i.reshape(-1))


@pytest.mark.parametrize("key_range", [1, 7, 300, 1 << 40])
def test_count_distinct_is_the_length_of_numpys_unique(key_range: int) -> None:
    rng = np.random.default_rng(key_range)
    for size in (0, 1, 50, 5000):
        codes = rng.integers(0, key_range, size)
        assert count_distinct(codes) == len(np.unique(codes))


@pytest.mark.parametrize("key_range", [1, 5, 70_000, 1 << 40])
def test_unique_counts_are_numpys_unique_with_counts(key_range: int) -> None:
    # a count of each key where the range is small (1, 5, 70,000 against 10,000 keys), a sort where it is not
    rng = np.random.default_rng(key_range % 89)
    for n in (0, 1, 10, 10_000):
        keys = rng.integers(0, key_range, n)
        distinct, counts = unique_counts(keys, key_range)
        want, want_counts = np.unique(keys, return_counts=True)
        assert np.array_equal(distinct, want) and np.array_equal(counts, want_counts)
        assert distinct.dtype == counts.dtype == np.int64
