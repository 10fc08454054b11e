"""The order the wins establish: the win graph's strongly connected components and their condensation.

The win graph has an edge x -> y when x scored against y (a win, or a draw: half a win each way). x "reaches" y
when a path of such edges leads from x to y. Within a strongly connected component (a win component) every
member reaches every other, and Bradley–Terry's maximum-likelihood ratings exist relative to each other; between
components they do not: a component that reaches another and is not reached back beat it and never lost to it,
and the likelihood only grows as the gap between them grows (Zermelo 1929; Ford 1957). The
components, ordered by the condensation (a directed acyclic graph), are the order the data establish;
components no path orders are incomparable.

`follow_wins` makes a display order from a rating order: the rating order wherever the wins allow it, and
otherwise the nearest order that puts every contestant below all that reach it (Kahn's algorithm on the
condensation, picking among the contestants whose components above are all placed the one first in the rating
order). Its result never lists y above x when x reaches y and y does not reach x.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from elotui.vocab import RATING_TIE


@dataclass(frozen=True)
class WinOrder:
    """`label[i]`: contestant i's win component (-1: no games); `reaches[a, b]`: component a reaches b through
    wins (a != b); `size[a]`: its members."""

    label: NDArray[np.int64]
    reaches: NDArray[np.bool_]
    size: NDArray[np.int64]

    def above(self, x: int, y: int) -> bool:
        """x reaches y through wins and y does not reach x (the data order x above y)."""
        a, b = int(self.label[x]), int(self.label[y])
        return a >= 0 and b >= 0 and a != b and bool(self.reaches[a, b])

    def comparable(self, x: int, y: int) -> bool:
        """One of x, y reaches the other (always so within a component)."""
        a, b = int(self.label[x]), int(self.label[y])
        return a >= 0 and b >= 0 and (a == b or bool(self.reaches[a, b] or self.reaches[b, a]))

    @property
    def separated(self) -> bool:
        """More than one win component among the contestants with games."""
        return len(self.size) > 1


def win_order(a: NDArray[np.integer], b: NDArray[np.integer], s: NDArray[np.floating], n: int) -> WinOrder:
    """The win components and their reachability, from games a vs b with a's score s (distinct games suffice:
    only which pairs scored matters)."""
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    played = np.zeros(n, dtype=bool)
    played[a64] = True
    played[b64] = True
    beat = np.zeros((n, n), dtype=bool)  # beat[x, y]: x scored against y
    beat[a64[s > 0], b64[s > 0]] = True
    beat[b64[s < 1], a64[s < 1]] = True
    idx = np.flatnonzero(played)
    label = np.full(n, -1, dtype=np.int64)
    if len(idx) == 0:
        return WinOrder(label, np.zeros((0, 0), dtype=bool), np.zeros(0, dtype=np.int64))
    sub = beat[np.ix_(idx, idx)]
    reach = _reach(sub)
    both = reach & reach.T
    np.fill_diagonal(both, True)
    first = both.argmax(axis=1)  # each contestant's component: its lowest member (in `idx`'s order)
    roots, local = np.unique(first, return_inverse=True)
    label[idx] = local
    reaches = reach[np.ix_(roots, roots)]
    np.fill_diagonal(reaches, False)
    return WinOrder(label, reaches, np.bincount(local, minlength=len(roots)))


def _reach(beat: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """reach[x, y]: a path of wins from x to y (x != y; x reaches itself only round a cycle). The common case,
    wins linking everyone both ways, is settled by two searches from one contestant; otherwise Warshall's
    algorithm, one row-and-column update per contestant (the groups whose wins are not strongly connected are
    those of the first verdicts and of small tournaments)."""
    m = len(beat)
    forward, backward = _search(beat, 0), _search(beat.T, 0)
    if forward.all() and backward.all():
        return np.ones((m, m), dtype=bool)
    reach = beat.copy()
    for k in range(m):
        reach |= reach[:, k : k + 1] & reach[k : k + 1, :]
    return reach


def _search(beat: NDArray[np.bool_], start: int) -> NDArray[np.bool_]:
    """Everyone `start` reaches, itself included (breadth first, a frontier at a time)."""
    seen = np.zeros(len(beat), dtype=bool)
    seen[start] = True
    frontier = seen.copy()
    while frontier.any():
        frontier = beat[frontier].any(axis=0) & ~seen
        seen |= frontier
    return seen


def follow_wins(ranked: list[int], order: WinOrder) -> list[int]:
    """`ranked` (contestants, best first) reordered as little as needed for no contestant to be listed above one
    that reaches it through wins without being reached back: each place goes to the first of `ranked` not yet
    listed whose components above are all listed (Kahn's algorithm, the rating order breaking the ties)."""
    if not order.separated:
        return list(ranked)
    labels = order.label[np.asarray(ranked, dtype=np.intp)] if ranked else np.zeros(0, np.int64)
    unplaced = np.bincount(labels[labels >= 0], minlength=len(order.size))  # members not yet listed
    remaining = list(ranked)
    out: list[int] = []
    while remaining:
        at = next(p for p, i in enumerate(remaining) if _free(int(order.label[i]), order, unplaced))
        i = remaining.pop(at)
        out.append(i)
        if order.label[i] >= 0:
            unplaced[order.label[i]] -= 1
    return out


def _free(c: int, order: WinOrder, unplaced: NDArray[np.int64]) -> bool:
    """No component that reaches component c (-1: no games) has members left to list."""
    return c < 0 or not (order.reaches[:, c] & (unplaced > 0)).any()


def contradicted(rating: NDArray[np.float64], order: WinOrder) -> bool:
    """Some contestant is rated at or below one it reaches through wins without being reached back."""
    idx = np.flatnonzero(order.label >= 0)
    labels, r = order.label[idx], rating[idx]
    above = order.reaches[np.ix_(labels, labels)]
    return bool((above & (r[:, None] <= r[None, :] + RATING_TIE)).any())
