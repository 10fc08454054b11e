"""The leaderboard's two Bradley–Terry views, style-controlled and raw (`y` toggles): which view is the other one,
how far each contestant moved between them (▲ up, ▼ down, ` =` the same rank), the line above the board that says which
view it is, and the style coefficients (Elo points per standard deviation of each feature, with the bootstrap
interval), as `elotui diagnose` reports them.

Style control is a Bradley–Terry fit (elotui.rating.style_rank): an Elo view is never controlled. Without
`[ranking] style_control` the controlled view controls for length and markdown, as `elotui export --style-control`
does. No Textual here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from elotui.rating.labels import signed_points
from elotui.rating.leaderboard import Leaderboard
from elotui.tui.sanitize import one_line
from elotui.tui.state.live_ranking import ViewKey, ViewScope
from elotui.vocab import Threshold

DEFAULT_FEATURES = ("length", "markdown")  # `export --style-control`'s


@dataclass(frozen=True)
class StyleViews:
    """The style features the controlled view controls for, whether `[ranking] style_control` names them, and
    whether the two views are compared (from the start with `style_control`; once `y` was pressed without)."""

    features: tuple[str, ...]
    configured: bool
    compared: bool

    @classmethod
    def of(cls, style_control: Sequence[str]) -> StyleViews:
        chosen = tuple(style_control)
        return cls(chosen or DEFAULT_FEATURES, bool(chosen), bool(chosen))

    def key(self, threshold: Threshold, method: str, scope: ViewScope, controlled: bool) -> ViewKey:
        """The view shown: Bradley–Terry controlled for the features when `controlled`; Elo never."""
        return (threshold, method, scope, self.features if controlled and method == "bt" else ())

    def other(self, key: ViewKey) -> ViewKey | None:
        """The view the rank changes are counted from: the raw board of a controlled one and the controlled board
        of a raw Bradley–Terry one, once compared; None for Elo, or before `y` without `style_control`."""
        threshold, method, scope, style = key
        if method != "bt" or not self.compared:
            return None
        return (threshold, method, scope, () if style else self.features)


def rank_shifts(board: Leaderboard, other: Leaderboard) -> dict[str, int]:
    """Each ranked contestant's places gained in `board` over `other` (positive: higher here), from the two
    orders; contestants unranked in either are left out."""
    ranked = [r.contestant for r in other.rows if r.rank is not None]
    there = {c: i for i, c in enumerate(ranked)}
    here = [r.contestant for r in board.rows if r.rank is not None]
    return {c: there[c] - i for i, c in enumerate(here) if c in there}


def shift_text(shift: int | None) -> str:
    """▲2: two places higher in this view than in the other; ▼1: one lower; ` =`: the same (as wide as a change of
    one digit, so that the ranks line up); blank: not ranked."""
    if shift is None:
        return ""
    return " =" if shift == 0 else f"▲{shift}" if shift > 0 else f"▼{-shift}"


def style_info(board: Leaderboard | None) -> Mapping[str, Any] | None:
    """The style fit's report in a controlled board's settings (None: not a controlled board)."""
    info = board.settings.get("style_control") if board is not None else None
    return info if isinstance(info, Mapping) else None


def coefficient_short(c: Mapping[str, Any], pending: bool = False) -> str:
    """`length +38 [+31, +45]`: a coefficient in Elo points per standard deviation, as the title line shows it
    (`pending`: its interval still being computed, `[…]`)."""
    name = {"tokens": "length"}.get(str(c["feature"]), str(c["feature"]))
    low, high = c["interval"]
    shown = "[…]" if pending else f"[{signed_points(low)}, {signed_points(high)}]"
    return f"{name} {signed_points(c['elo_per_sd'])} {shown}"


def title(
    key: ViewKey, views: StyleViews, controlled_board: Leaderboard | None, *, pending: bool = False
) -> Text | None:
    """The line above the board: which view it is, what ▲▼ count from, the key that toggles and the coefficients
    (of `controlled_board`, when computed; `pending`: it is the point fit, the intervals to come). None while style
    control is not in play (no `style_control`, no `y`)."""
    _, method, _, style = key
    if not views.compared and not style:
        return None
    features = ", ".join(views.features)
    text = Text(no_wrap=True, overflow="ellipsis")
    if method != "bt":
        text.append("Elo: raw", style="bold")
        text.append(" · style control is a Bradley–Terry fit · y: style-controlled Bradley–Terry")
        return text
    if style:
        text.append(f"style-controlled ({features})", style="bold reverse")
        text.append(" · ▲▼ rank vs raw · y: raw")
    else:
        text.append("raw", style="bold reverse")
        text.append(f" · ▲▼ rank vs style-controlled ({features}) · y: style-controlled")
    info = style_info(controlled_board)
    missing = int(info.get("missing_responses") or 0) if info is not None else 0
    if missing:  # e.g. an import without the responses' texts: those sides count as no style at all
        text.append(f" · ⚠ {missing} game sides without style counts", style="bold")
    if info is not None:
        shown = (coefficient_short(c, pending) for c in info["coefficients"])
        text.append(" · Elo/SD: " + " · ".join(shown))
    return text


def coefficient_lines(info: Mapping[str, Any] | None, where: str, compared: bool = False) -> Text:
    """The diagnostics' style section: the features, where their counts come from, each coefficient with its
    bootstrap interval (`elotui diagnose`'s lines), and the responses without counts. `compared`: style control is
    in play, its board not computed for this view yet (an Elo view, at first)."""
    if info is None and compared:
        return Text(
            "the style-controlled Bradley–Terry board of this view is not computed yet: y shows it, with its "
            "coefficients",
            style="dim",
        )
    if info is None:
        return Text(
            "not style-controlled: y on the leaderboard ranks Bradley–Terry with length and markdown controlled "
            '([ranking] style_control = ["length", "markdown"] opens on it)',
            style="dim",
        )
    source = one_line(info["source"], 120)  # a file name of the tournament's
    text = Text(f"{', '.join(info['features'])}; counts from {source}; {where}\n", style="dim")
    text.append("\n".join(str(c["text"]) for c in info["coefficients"]))
    missing = int(info.get("missing_responses") or 0)
    if missing:
        text.append(f"\n{missing} game sides without style counts (counted as 0)", style="italic")
    return text
