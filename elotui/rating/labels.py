"""How a leaderboard row reads, the same in the TUI, the headless leaderboard and the help: a bound is "≥ 1234",
an unranked contestant has "—", an uncertain band is the range it spans ("tied–moderate") next to the order
confidence, and every interval names what it is."""

from __future__ import annotations

import itertools

from elotui.rating.board import Leaderboard, LeaderboardRow

SHORT_BAND = {"practically tied": "tied", "moderate": "moderate", "strong": "strong"}


def signed_points(value: float) -> str:
    """Whole Elo points with their sign, `+38`, `-2`; `0` for what rounds to zero (never `-0`)."""
    whole = round(value)
    return f"{whole:+d}" if whole else "0"


def rating_text(row: LeaderboardRow, digits: int = 0) -> str:
    if row.rating is None:
        return "—"
    sign = {"lower": "≥", "upper": "≤"}.get(row.bound or "", "")
    return f"{sign}{row.rating:.{digits}f}"


def interval_text(row: LeaderboardRow, digits: int = 0) -> str:
    if row.ci_low is None or row.ci_high is None or row.bound is not None:
        return "—"
    return f"{row.ci_low:.{digits}f}–{row.ci_high:.{digits}f}"


def band_text(row: LeaderboardRow) -> str:
    """The band when the gap interval lies in one band; else the range of bands it spans ("tied–moderate")."""
    if row.band is None:
        return "—"
    if row.band_range is None or len(row.band_range) == 1:
        return row.band
    return "–".join(SHORT_BAND[b] for b in (row.band_range[0], row.band_range[-1]))


UNCERTAIN_MARK = (
    "?"  # after the order confidence and the gap: this row's order above the next is not established
)


def order_text(row: LeaderboardRow) -> str:
    """The order confidence: the share of bootstrap rounds with this contestant above the next, marked "?" when
    the order is not established (`row.order_uncertain`: below one half, or no path of wins orders the two)."""
    mark = UNCERTAIN_MARK if row.order_uncertain else ""
    return (
        ("—" + mark if mark else "—")
        if row.order_confidence is None
        else f"{100 * row.order_confidence:.0f}%{mark}"
    )


def gap_text(row: LeaderboardRow, digits: int = 0) -> str:
    """The gap to the next row (+12), marked "?" when their order is not established."""
    if row.gap_to_next is None:
        return "—"
    return f"{row.gap_to_next:+.{digits}f}" + (UNCERTAIN_MARK if row.order_uncertain else "")


def uncertain_lines(board: Leaderboard) -> list[str]:
    """One line per marked pair: why its order is not established."""
    rows = board.rows
    return [
        f"{UNCERTAIN_MARK} {row.contestant} above {nxt.contestant}: {row.order_uncertain}"
        for row, nxt in itertools.pairwise(rows)
        if row.order_uncertain
    ]


def interval_label(board: Leaderboard) -> str:
    """What the interval column is, e.g. "95 % bootstrap interval by prompt, 200 rounds"."""
    spec = board.settings.get("interval") or {}
    if spec.get("kind") != "bootstrap":
        return "no interval (bootstrap = 0)"
    return f"{100 * spec['level']:.0f} % bootstrap interval by {spec['unit']}, {spec['rounds']} rounds"


def scale_note(board: Leaderboard) -> str:
    """At a threshold, that its ratings are on a steeper scale than threshold none's; nothing where every game is
    one verdict (one judge, one verdict a presentation: an arena import), whose ratings are threshold none's."""
    threshold = board.settings.get("threshold")
    if threshold in (None, "none"):
        return ""
    if board.counts.get("games") == board.counts.get("verdicts_used"):
        return ""
    return f"threshold {threshold}: a steeper scale than threshold none (not comparable)"


def warning_lines(board: Leaderboard) -> list[str]:
    return [str(w["message"]) for w in board.warnings]
