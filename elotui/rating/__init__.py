"""Ratings and diagnostics: pure numpy/scipy functions over a columnar verdict table (no I/O, no Textual).

verdict rows -> `VerdictTable` -> `games(table, threshold)` -> Elo / Bradley–Terry -> `rank(...)` -> `Leaderboard`;
`diagnose(table, ...)` -> a JSON-ready dict of bias and agreement diagnostics (schema in `docs/diagnose.md`).
"""

from elotui.rating.games import THRESHOLDS, Games, games
from elotui.rating.leaderboard import Leaderboard, LeaderboardRow, rank
from elotui.rating.table import VerdictTable

__all__ = ["THRESHOLDS", "Games", "Leaderboard", "LeaderboardRow", "VerdictTable", "games", "rank"]
