"""Stable orders of integer keys, and dense codes of values that take few distinct values, at numpy speed.

numpy's stable sort is a radix sort for keys of 16 bits or fewer (~15 ms for 10^6 keys) and a comparison sort
above (~80 ms for 32- or 64-bit keys, as for `np.lexsort` over several arrays); `stable_argsort` sorts wider keys
by 16-bit digits, least significant first, which gives the same permutation as a stable sort of the whole keys."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

DIGIT = 16
SAMPLE = 1024  # values looked at to guess the distinct ones before checking them all
FEW = 8  # up to this many distinct values, codes by comparisons (~3x faster than a binary search each)
CHUNK = 1 << 20  # values coded at a time by comparisons
# entries a table over a key range may have whatever the count of keys (~0.5 MB of counts)
TABLE_SLACK = 1 << 16


def table_fits(key_range: int, count: int) -> bool:
    """Whether `count` keys in 0 .. key_range - 1 are best handled by a table over the whole range (a count, first
    index or value per possible key: one pass, no sort): a range of at most four entries a key, plus TABLE_SLACK.
    Wider ranges are sorted or searched instead."""
    return key_range <= 4 * count + TABLE_SLACK


def in_order(keys: NDArray[np.integer]) -> bool:
    """Whether the keys never decrease (then a stable sort leaves them as they are)."""
    return bool(np.all(keys[1:] >= keys[:-1]))


def stable_argsort(keys: NDArray[np.integer], key_range: int) -> NDArray[np.intp]:
    """np.argsort(keys, kind="stable") for integer keys in 0 .. key_range - 1 (keys already in order: as they are,
    for one comparison pass instead of a sort)."""
    keys = np.asarray(keys)
    if in_order(keys):
        return np.arange(len(keys))
    if key_range <= 1 << DIGIT:  # one digit: no masking, no 64-bit copy
        return np.argsort(keys.astype(np.uint16, copy=False), kind="stable")
    wide = keys.view(np.uint64) if keys.dtype == np.int64 else keys.astype(np.uint64, copy=False)
    order = np.argsort((wide & np.uint64(0xFFFF)).astype(np.uint16), kind="stable")
    shift = DIGIT
    while (key_range - 1) >> shift:
        digit = ((wide[order] >> np.uint64(shift)) & np.uint64(0xFFFF)).astype(np.uint16)
        order = order[np.argsort(digit, kind="stable")]
        shift += DIGIT
    return order


def dense_codes(values: NDArray[np.floating]) -> tuple[NDArray[np.float64], NDArray[np.integer]]:
    """(sorted distinct values, each value's index among them): np.unique(values, return_inverse=True), found
    without sorting the values when a sample of them already holds every distinct value (scores of a few kinds)."""
    values = np.asarray(values, dtype=np.float64)
    if len(values):
        table = np.unique(values[:: max(1, len(values) // SAMPLE)])
        codes = _few_codes(values, table) if len(table) <= FEW else _searched_codes(values, table)
        if codes is not None:
            return table, codes
    table, inverse = np.unique(values, return_inverse=True)
    return table, inverse.reshape(-1)


def _few_codes(values: NDArray[np.floating], table: NDArray[np.float64]) -> NDArray[np.uint8] | None:
    """Each value's index in `table` (searchsorted's: how many entries lie below it, by a comparison per entry),
    in a byte, a slice of CHUNK values at a time (10^7 values: no 80 MB temporaries); None where a value is not
    in the table."""
    codes = np.zeros(len(values), dtype=np.uint8)
    for lo in range(0, len(values), CHUNK):
        v, c = values[lo : lo + CHUNK], codes[lo : lo + CHUNK]
        for entry in table:
            c += v > entry
        np.minimum(c, len(table) - 1, out=c)
        if not np.array_equal(table[c], v):
            return None
    return codes


def _searched_codes(values: NDArray[np.floating], table: NDArray[np.float64]) -> NDArray[np.intp] | None:
    codes = np.searchsorted(table, values)  # never negative: clipped above only, in place
    np.minimum(codes, len(table) - 1, out=codes)
    return codes if np.array_equal(table[codes], values) else None


def unique_ints(
    keys: NDArray[np.integer], key_range: int
) -> tuple[NDArray[np.int64], NDArray[np.intp], NDArray[np.intp]]:
    """np.unique(keys, return_index=True, return_inverse=True) for integer keys in 0 .. key_range - 1: the sorted
    distinct keys, the index of each one's first occurrence, and each key's index among them."""
    wide = np.asarray(keys).astype(np.int64, copy=False)
    order = stable_argsort(wide, key_range)
    ordered = wide[order]
    starts = np.r_[True, ordered[1:] != ordered[:-1]] if len(ordered) else np.zeros(0, dtype=bool)
    inverse = np.empty(len(wide), dtype=np.intp)
    inverse[order] = np.cumsum(starts) - 1
    return ordered[starts], order[starts], inverse


def unique_counts(keys: NDArray[np.integer], key_range: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """np.unique(keys, return_counts=True) for integer keys in 0 .. key_range - 1: the distinct keys ascending and
    how often each occurs, by a count of each key when their range is small, else by a stable sort."""
    wide = np.asarray(keys).astype(np.int64, copy=False)
    if table_fits(key_range, len(wide)):
        counts = np.bincount(wide, minlength=key_range)
        distinct = np.flatnonzero(counts)
        return distinct.astype(np.int64, copy=False), counts[distinct].astype(np.int64, copy=False)
    ordered = wide[stable_argsort(wide, key_range)]
    starts = (
        np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(ordered) else np.zeros(0, np.intp)
    )
    return ordered[starts], np.diff(np.r_[starts, len(ordered)]).astype(np.int64)


def dense_ints(codes: NDArray[np.integer]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """np.unique(codes, return_inverse=True) for non-negative integer codes (prompt or contestant codes): the
    distinct codes and each code's index among them, by a count of each code when their range is small."""
    codes = np.asarray(codes)
    if len(codes) == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    present = _present(codes)
    if present is None:
        _, first, inverse = unique_ints(codes, int(codes.max()) + 1)
        return codes[first].astype(np.intp), inverse
    return np.flatnonzero(present), (np.cumsum(present) - 1)[codes]


def count_distinct(codes: NDArray[np.integer]) -> int:
    """len(np.unique(codes)) for non-negative integer codes (`dense_ints` without each code's index)."""
    codes = np.asarray(codes)
    if len(codes) == 0:
        return 0
    present = _present(codes)
    return (
        len(unique_ints(codes, int(codes.max()) + 1)[0])
        if present is None
        else int(np.count_nonzero(present))
    )


def _present(codes: NDArray[np.integer]) -> NDArray[np.bool_] | None:
    """Which codes of 0 .. max occur (a count of each), or None where that range is too wide for a table."""
    top = int(codes.max()) + 1
    return np.bincount(codes, minlength=top) > 0 if table_fits(top, len(codes)) else None


def groups_by_arrival(keys: NDArray[np.integer], key_range: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Equal keys as groups numbered in order of first appearance: (each group's first index, ascending; each
    key's group). With `np.unique(keys, return_index=True, return_inverse=True)` = (u, first, inverse) and
    order = argsort(first): first[order], and inverse mapped through the inverse of order."""
    wide = np.asarray(keys).astype(np.int64, copy=False)
    n = len(wide)
    if table_fits(key_range, n):  # a table over the key range: each key's first index, no sort
        first = np.full(max(key_range, 1), n, dtype=np.intp)
        np.minimum.at(first, wide, np.arange(n))
        at = first[wide]
    else:
        _, firsts, inverse = unique_ints(wide, key_range)
        at = firsts[inverse]
    is_first = np.zeros(n, dtype=bool)
    is_first[at] = True
    return np.flatnonzero(is_first), (np.cumsum(is_first) - 1)[at]
