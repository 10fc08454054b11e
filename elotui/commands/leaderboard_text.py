"""The leaderboard as a text table (a headless run's stdout)."""

from __future__ import annotations

from typing import IO

from elotui.commands.common import table_lines
from elotui.rating.board import LeaderboardRow
from elotui.rating.labels import (
    band_text,
    interval_label,
    interval_text,
    order_text,
    rating_text,
    scale_note,
    uncertain_lines,
    warning_lines,
)
from elotui.session import TournamentSession
from elotui.store import Store
from elotui.terminal import one_line
from elotui.tournament.model import Tournament


def _order_cell(row: LeaderboardRow) -> str:
    """The order confidence (blank without one), marked when the order is not established."""
    return "" if row.order_confidence is None and not row.order_uncertain else order_text(row)


def print_leaderboard(tournament: Tournament, store: Store, out: IO[str]) -> None:
    board = TournamentSession(tournament, store).leaderboard()
    settings = tournament.spec.ranking
    print(f"{one_line(tournament.name)} — {settings.method}, threshold {settings.threshold}", file=out)
    header = (
        "rank",
        "contestant",
        "rating",
        "interval",
        "gap",
        "gap interval",
        "P(win)",
        "order",
        "band",
        "W-L-D",
        "games",
        "win rate",
    )
    grouped = len({r.group for r in board.rows if r.group is not None}) > 1
    rows = [
        (
            "—" if r.rank is None else f"{r.group}.{r.rank}" if grouped else str(r.rank),
            one_line(r.contestant, 40),  # a CR or an escape in an id must not break (or colour) the table
            rating_text(r, 1),
            interval_text(r, 1),
            "" if r.gap_to_next is None else f"{r.gap_to_next:.1f}",
            "" if r.gap_ci_low is None else f"{r.gap_ci_low:.0f} – {r.gap_ci_high:.0f}",
            "" if r.win_prob_vs_next is None else f"{100 * r.win_prob_vs_next:.0f}%",
            _order_cell(r),
            "" if r.band is None else band_text(r),
            f"{r.wins}-{r.losses}-{r.draws}",
            str(r.games),
            "" if r.win_rate is None else f"{100 * r.win_rate:.1f}%",
        )
        for r in board.rows
    ]
    for line in table_lines(header, rows, right_from=2):
        print(line, file=out)
    print(
        f"interval: {interval_label(board)}; order: the share of rounds with this row above the next (?: the "
        "order is not established, see below); a band range (tied–moderate) when the gap interval spans several "
        "bands",
        file=out,
    )
    for line in [scale_note(board), *warning_lines(board), *uncertain_lines(board)]:
        if line:
            print(f"note: {line}", file=out)
    counts = board.counts
    print(
        f"verdicts used {counts.get('verdicts_used', 0)} · invalid {counts.get('invalid', 0)} · "
        f"failed {counts.get('failed', 0)} · missing {counts.get('missing', 0)} · "
        "bands: Δ<50 practically tied, 50–150 moderate, >150 strong",
        file=out,
    )
