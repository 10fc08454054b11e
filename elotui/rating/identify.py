"""Which ratings the games determine, said out loud.

- A contestant with no games has no rating: it is listed as unranked (no rating, no interval, no band).
- Ratings are defined only relative to the contestants a contestant is connected to by games: with several
  connected groups of the comparison graph, each group is ranked on its own and no gap or band is drawn across
  groups (the offset between groups would be set by the prior, not by data).
- Within a group, Bradley–Terry's maximum-likelihood ratings exist only when the wins link every contestant both
  ways (elotui.rating.win_order). Otherwise the group splits into win components ordered by the condensation:
  a component above another beat it and never lost to it, and the likelihood alone would put it infinitely far
  above. Bradley–Terry then shows the penalised estimate (a weak Gaussian prior on the natural-log strengths,
  elotui.rating.bt) and lists the contestants in an order the wins support; the warnings say which components
  are separated and that the gaps between them are set by the prior. Elo is defined for any set of games: every
  contestant with games has an Elo rating; it carries only a note that the data are thin.
- `unbeaten` names the contestants with no loss (and a win), `winless` those with no win (and a loss), each with
  its record (W-L, and D when it drew).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from elotui.rating.elo import Canonical
from elotui.rating.games import tally
from elotui.rating.win_order import WinOrder, win_order


@dataclass(frozen=True)
class Identified:
    rated: NDArray[np.bool_]  # the contestants with games: every one is rated
    component: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # -1: no games
    warnings: list[dict[str, object]] = field(default_factory=list)  # what holds for every method
    wins: WinOrder | None = None  # the win components and their order (None: not computed)
    # (n, 3) wins, losses, draws
    record: NDArray[np.int64] = field(default_factory=lambda: np.zeros((0, 3), dtype=np.int64))
    bt_warnings: list[dict[str, object]] = field(default_factory=list)  # Bradley–Terry's identifiability
    elo_notes: list[dict[str, object]] = field(default_factory=list)  # Elo's note that the data are thin

    def warnings_for(self, method: str) -> list[dict[str, object]]:
        """The warnings a leaderboard by `method` shows: identifiability is Bradley–Terry's alone."""
        return [*self.warnings, *(self.bt_warnings if method == "bt" else self.elo_notes)]


def components(a: NDArray[np.integer], b: NDArray[np.integer], n: int) -> NDArray[np.int64]:
    """Connected groups of the comparison graph of n contestants whose games are a vs b (or whose pairs that met
    are); -1 for no games. Groups are numbered by size, largest first (ties by their lowest contestant code)."""
    code = np.minimum(a, b).astype(np.int64) * n + np.maximum(a, b)  # one integer per pair met
    if n * n <= 1 << 24:  # the pairs that met, without sorting the games
        met = np.flatnonzero(np.bincount(code, minlength=n * n))
    else:
        met = np.unique(code)
    low, high = met // n, met % n
    roots = lowest_members(low, high, n)
    played = np.zeros(
        n, dtype=bool
    )  # from the pairs that met, not the games: every game's pair is one of them
    played[low] = True
    played[high] = True
    sizes = np.bincount(roots[played], minlength=n)
    groups = np.flatnonzero(sizes)
    label_of = np.full(n, -1, dtype=np.int64)  # each group's root -> its number, largest group first
    label_of[groups[np.lexsort((groups, -sizes[groups]))]] = np.arange(len(groups))
    return np.where(played, label_of[roots], -1)


def lowest_members(x: NDArray[np.int64], y: NDArray[np.int64], n: int) -> NDArray[np.int64]:
    """For each of n nodes, the lowest node of its connected component under the edges (x, y), in whole-array
    rounds: each root that an edge joins to a lower root hooks under the lowest such root, then every node jumps
    to its root (pointer jumping). A round leaves only the roots lower than every root they are joined to, so a
    few rounds settle a tournament's graph, where most contestants meet most others; a component loses a root
    a round at the least."""
    root = np.arange(n, dtype=np.int64)
    while True:
        rx, ry = root[x], root[y]
        apart = rx != ry
        if not apart.any():
            return root
        low, high = np.minimum(rx[apart], ry[apart]), np.maximum(rx[apart], ry[apart])
        np.minimum.at(root, high, low)  # a root hooks under a lower one: no cycles
        while True:
            up = root[root]
            if np.array_equal(up, root):
                break
            root = up


def identify(c: Canonical, names: list[str]) -> Identified:
    """What the games of `c` (`canonical(g)`: the distinct games, oriented, with how many of each) determine. The
    distinct games are at most n * n * 3 (a game's score is 1, 0.5 or 0, so orienting it loses nothing): at 10^7
    games this takes a few ms, against 0.27 s over the games themselves."""
    n = c.n
    a, b, s = c.games_of(c.listing.keys)
    many = c.listing.counts
    component = components(a, b, n)
    counts = tally(a, b, s, n, many)
    order = win_order(a, b, s, n)
    ident = Identified(component >= 0, component, _warnings(component, names), order, counts)
    return Identified(
        ident.rated,
        component,
        ident.warnings,
        order,
        counts,
        record_warnings(counts, names, order),
        thin_notes(ident, names),
    )


def record_text(counts: NDArray[np.int64], i: int) -> str:
    """A contestant's record as W-L (W-L-D when it drew)."""
    w, l_, d = (int(x) for x in counts[i])
    return f"{w}-{l_}" + (f"-{d}" if d else "")


def record_warnings(counts: NDArray[np.int64], names: list[str], order: WinOrder) -> list[dict[str, object]]:
    """`unbeaten` (no loss, some win) and `winless` (no win, some loss), each contestant with its record; those
    alone in their win component (no draw links them back) are said to have a rating the prior places."""
    wins, losses = counts[:, 0], counts[:, 1]
    alone = np.zeros(len(counts), dtype=bool)
    played = order.label >= 0
    alone[played] = order.size[order.label[played]] == 1
    out: list[dict[str, object]] = []
    for kind, who, text in (
        ("unbeaten", np.flatnonzero((losses == 0) & (wins > 0)), "lost no game"),
        ("winless", np.flatnonzero((wins == 0) & (losses > 0)), "won no game"),
    ):
        if len(who):
            shown = [f"{names[i]} ({record_text(counts, int(i))})" for i in who]
            out.append(
                {
                    "kind": kind,
                    "contestants": [names[i] for i in who],
                    "records": {names[i]: record_text(counts, int(i)) for i in who},
                    "message": f"{', '.join(shown)} {text}" + _placed_by_prior(who, alone, names, kind),
                }
            )
    return out


def _placed_by_prior(who: NDArray[np.intp], alone: NDArray[np.bool_], names: list[str], kind: str) -> str:
    single = [names[i] for i in who if alone[i]]
    if not single:
        return ""
    side = "above" if kind == "unbeaten" else "below"
    verb = "sits" if len(single) == 1 else "sit"
    return f"; how far {', '.join(single)} {verb} {side} the rest is set by Bradley–Terry's prior, not by the data"


def separation_warnings(
    ident: Identified, names: list[str], groups: list[list[int]]
) -> list[dict[str, object]]:
    """For each group of the comparison graph (`groups`: each group's members as the leaderboard lists them)
    whose wins do not link everyone both ways: its win components in the listed order, each member with its
    record, and which neighbouring components no path of wins orders."""
    order = ident.wins
    if order is None:
        return []
    found = (_separated(listed, order, ident.record, names) for listed in groups)
    return [w for w in found if w is not None]


def _separated(
    listed: list[int], order: WinOrder, counts: NDArray[np.int64], names: list[str]
) -> dict[str, object] | None:
    members = [i for i in listed if order.label[i] >= 0]
    first: dict[int, list[int]] = {}  # each component's members, components in the order first listed
    for i in members:
        first.setdefault(int(order.label[i]), []).append(i)
    comps = list(first.values())
    if len(comps) < 2:
        return None
    parts = [", ".join(f"{names[i]} ({record_text(counts, i)})" for i in comp) for comp in comps]
    text = parts[0]
    for prev, comp, part in zip(comps, comps[1:], parts[1:], strict=False):
        text += (" > " if order.above(prev[0], comp[0]) else " ~ ") + part
    return {
        "kind": "separated",
        "contestants": [names[i] for comp in comps for i in comp],
        "components": [[names[i] for i in comp] for comp in comps],
        "records": {names[i]: record_text(counts, i) for i in members},
        "message": "the wins do not link every contestant both ways; win components, best first: "
        + text
        + " (>: lost no game to those below; ~: no path of wins orders them). How far apart the "
        "components are is set by the prior, not by the data",
    }


def thin_notes(ident: Identified, names: list[str]) -> list[dict[str, object]]:
    """Elo's note where a group's wins do not link everyone both ways (its ratings stay defined, on thin data):
    the contestants outside their group's largest win component, each with its record."""
    order = ident.wins
    if order is None or not order.separated:
        return []
    who: list[int] = []
    for k in range(int(ident.component.max(initial=-1)) + 1):
        members = np.flatnonzero(ident.component == k)
        labels = order.label[members]
        if len(set(labels.tolist())) > 1:
            largest = np.bincount(labels).argmax()
            linked = order.size[largest] >= 2  # else no two members are linked both ways: all are named
            who += members[(labels != largest) | (not linked)].tolist()
    if not who:
        return []
    shown = ", ".join(f"{names[i]} ({record_text(ident.record, i)})" for i in who)
    return [
        {
            "kind": "thin",
            "contestants": [names[i] for i in who],
            "records": {names[i]: record_text(ident.record, i) for i in who},
            "message": f"the data are thin: the wins do not link {shown} both ways with the others of their "
            "group; Elo rates every contestant with games, but their place rests on few games",
        }
    ]


def _warnings(component: NDArray[np.int64], names: list[str]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    no_games = [names[i] for i in np.flatnonzero(component < 0)]
    if no_games:
        out.append(
            {
                "kind": "no_games",
                "contestants": no_games,
                "message": f"{len(no_games)} contestant(s) have no games: unranked (no rating, no band)",
            }
        )
    groups = int(component.max()) + 1 if len(component) and component.max() >= 0 else 0
    if groups > 1:
        members = [[names[i] for i in np.flatnonzero(component == k)] for k in range(groups)]
        out.append(
            {
                "kind": "disconnected",
                "contestants": [c for m in members for c in m],
                "groups": members,
                "message": f"the comparisons form {groups} groups that never meet: each group is ranked on its "
                "own, and no gap or band is drawn across groups",
            }
        )
    return out
