"""How a leaderboard row reads, the same in the TUI, the headless leaderboard and the help: a bound is "≥ 1234",
an unranked contestant has "—", an uncertain band is the range it spans ("tied–moderate") next to the order
confidence, and every interval names what it is."""

from __future__ import annotations

from elotui.rating.board import Leaderboard, LeaderboardRow

SHORT_BAND = {"practically tied": "tied", "moderate": "moderate", "strong": "strong"}


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


def order_text(row: LeaderboardRow) -> str:
    """The order confidence: the share of bootstrap rounds with this contestant above the next."""
    return "—" if row.order_confidence is None else f"{100 * row.order_confidence:.0f}%"


def interval_label(board: Leaderboard) -> str:
    """What the interval column is, e.g. "95 % bootstrap interval by prompt, 200 rounds"."""
    spec = board.settings.get("interval") or {}
    if spec.get("kind") != "bootstrap":
        return "no interval (bootstrap = 0)"
    return f"{100 * spec['level']:.0f} % bootstrap interval by {spec['unit']}, {spec['rounds']} rounds"


def scale_note(board: Leaderboard) -> str:
    threshold = board.settings.get("threshold")
    if threshold in (None, "none"):
        return ""
    return f"threshold {threshold}: a steeper scale than threshold none (not comparable)"


def warning_lines(board: Leaderboard) -> list[str]:
    return [str(w["message"]) for w in board.warnings]
