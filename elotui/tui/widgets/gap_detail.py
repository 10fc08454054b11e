"""How few verdicts each adjacent order of the board rests on (`drop_to_flip`, elotui.rating.drop_to_flip), as the
leaderboard shows it: a `!` after the gap of a fragile order (one that at most 1 % of the games can flip), and,
under the table, the selected row's gap to the next in full: Δ, P(win), band, order confidence and what sets the
order, and its drop_to_flip ("…" while it is being computed, off the UI thread: elotui.tui.state.live_ranking).

The counts come from the board with each adjacent row's `drop_to_flip` and `fragile` filled in, the same
computation as `elotui export --format json`'s (`with_drop_to_flip`)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from rich.text import Text

from elotui.rating.board import Leaderboard, LeaderboardRow
from elotui.rating.drop_to_flip import FRAGILE_SHARE
from elotui.rating.labels import band_text, gap_text, order_text

FRAGILE_MARK = "!"  # after the gap of an order that at most FRAGILE_SHARE of the games can flip


@dataclass(frozen=True)
class GapFlip:
    """One adjacent order's drop_to_flip: the count (None: none found, or not searched), of `games` in `unit`."""

    drop: int | None
    fragile: bool | None  # None: not a fitted order (a bound, the wins alone, another group): no count
    games: int
    unit: str  # "games" (an agreed vote at a threshold) or "verdicts" (threshold none)
    searched: bool = True  # False: too many games to refit within the board's budget
    stale: bool = False  # of the board before the newest verdicts (the new one being computed)
    not_computed: str | None = None  # why the board has no count (a style-controlled ranking)

    def text(self) -> str:
        """`12 verdicts (0.4%) — fragile`, `none flips it`, `not searched …`, `— (…)`."""
        if self.not_computed is not None:
            return self.not_computed
        if self.fragile is None:
            return "— (the order is not a fitted one: the wins alone, a bound or another group)"
        if not self.searched:
            return "not searched (too many games to refit)"
        if self.drop is None:
            return f"none: no removal of the games found flips it ({self.games} {self.unit})"
        unit = self.unit[:-1] if self.drop == 1 else self.unit
        share = 100 * self.drop / self.games if self.games else 0.0
        out = f"{self.drop} {unit} ({share:.1f}%)"
        return out + (" — fragile" if self.fragile else "")


def gap_flips(flipped: Leaderboard, stale: bool = False) -> dict[tuple[str, str], GapFlip]:
    """Each adjacent pair (upper, lower) of a board with drop_to_flip filled in (`with_drop_to_flip`)."""
    setting = flipped.settings.get("drop_to_flip") or {}
    games = int(setting.get("games", 0))
    unit = str(setting.get("unit", "games"))
    skipped = {tuple(pair) for pair in setting.get("not_searched", [])}
    out = {}
    for up, lo in itertools.pairwise(flipped.rows):
        if up.gap_to_next is None:
            continue
        pair = (up.contestant, lo.contestant)
        out[pair] = GapFlip(
            up.drop_to_flip, up.fragile, games, unit, pair not in skipped, stale, setting.get("not_computed")
        )
    return out


def next_rows(board: Leaderboard) -> dict[str, str]:
    """Each contestant's next row (the one its gap is to)."""
    return {
        up.contestant: lo.contestant
        for up, lo in itertools.pairwise(board.rows)
        if up.gap_to_next is not None
    }


def marked_gap(row: LeaderboardRow, flip: GapFlip | None) -> str:
    """The Δ next cell: the gap, `!` after it when the order is fragile."""
    return gap_text(row) + (FRAGILE_MARK if flip is not None and flip.fragile else "")


BASIS = {  # what sets the order (LeaderboardRow.order_basis; None: the ratings, as Elo's always are)
    "ratings": "ratings",
    "wins": "the wins alone",
    "unordered": "nothing orders them",
}


def gap_line(
    row: LeaderboardRow, lower: str, flip: GapFlip | None, pending: bool, *, short: bool = False
) -> Text:
    """The selected row's gap to the next, in full; `pending`: its drop_to_flip not computed yet ("…");
    `short` (a narrow terminal, whose columns show the gap, band and order): what sets the order where it is not
    the ratings, and the drop_to_flip."""
    text = Text(f"above {lower}: ")
    basis = BASIS.get(row.order_basis or "ratings", row.order_basis or "")
    if short:
        text.append(f"order by {basis}, " if basis != "ratings" else "")
    else:
        text.append(f"Δ {gap_text(row)}")
        if row.win_prob_vs_next is not None:
            text.append(f" · P(win) {100 * row.win_prob_vs_next:.0f}%")
        text.append(f" · {band_text(row)} · order {order_text(row)} ({basis}) · ")
    text.append("drop_to_flip ")
    if flip is None or pending:
        text.append("…", style="dim")
        return text
    text.append(flip.text(), style="bold" if flip.fragile else "")
    if flip.stale:
        text.append(" (before the newest verdicts; updating…)", style="dim italic")
    return text


def legend(flips: dict[tuple[str, str], GapFlip]) -> str:
    """The line that says what `!` means, when a gap shown has one."""
    fragile = [f for f in flips.values() if f.fragile]
    if not fragile:
        return ""
    share, unit = f"{100 * FRAGILE_SHARE:.0f} %", fragile[0].unit
    return f"{FRAGILE_MARK} after Δ: fragile, removing ≤ {share} of the {unit} flips the order (drop_to_flip)"
