"""`[ranking] anchor = { contestant, rating }`: the ratings moved by one constant so that a reference contestant
sits at a chosen rating (Chatbot Arena pins mixtral-8x7b-instruct-v0.1 at 1114, arena-hard its baseline at 1000).
Gaps and interval widths are unchanged."""

from __future__ import annotations

from typing import Any

import numpy as np

from elotui.rating.board import Rated


def anchor_option(anchor: Any) -> tuple[str, float] | None:
    return None if anchor is None else (str(anchor.contestant), float(anchor.rating))


def anchored(r: Rated, contestants: list[str], anchor: tuple[str, float] | None) -> Rated:
    """`[ranking] anchor`: every rating, interval end, spread and bootstrap round shifted by the one constant that
    puts the anchor contestant at its rating (gaps and interval widths unchanged). No anchor, or an anchor
    without a rating here (not in this scope, or unrated): as it was."""
    if anchor is None or anchor[0] not in contestants:
        return r
    at = contestants.index(anchor[0])
    if not np.isfinite(r.rating[at]):
        return r
    shift = anchor[1] - float(r.rating[at])
    spread = (r.spread[0] + shift, r.spread[1] + shift) if r.spread is not None else None
    rating = r.rating + shift
    rating[at] = anchor[1]  # exactly, whatever the rounding of the shift
    return Rated(
        rating, r.low + shift, r.high + shift, r.rounds + shift if len(r.rounds) else r.rounds, spread
    )
