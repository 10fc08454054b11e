"""Messages the TUI posts to itself: past-tense events. High-rate ones collapse (`can_replace`)."""

from __future__ import annotations

from typing import Any

from textual.message import Message

from elotui.rating.leaderboard import Leaderboard
from elotui.tui.live_ranking import ViewKey


class VerdictsArrived(Message):
    """New run events are buffered; a burst collapses into one message (the handler drains the buffer)."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, VerdictsArrived)


class LeaderboardComputed(Message):
    def __init__(self, key: ViewKey, board: Leaderboard, version: int) -> None:
        super().__init__()
        self.key = key
        self.board = board
        self.version = version


class JudgeStatsLoaded(Message):
    def __init__(self, stats: dict[str, dict[str, float]]) -> None:
        super().__init__()
        self.stats = stats


class DiagnosticsComputed(Message):
    def __init__(self, report: dict[str, Any], trajectory: dict[str, Any], version: int) -> None:
        super().__init__()
        self.report = report
        self.trajectory = trajectory
        self.version = version


class PairsLoaded(Message):
    def __init__(self, rows: list[tuple[Any, ...]], version: int) -> None:
        super().__init__()
        self.rows = rows
        self.version = version


class PairDetailLoaded(Message):
    def __init__(self, pair_key: str, details: list[dict[str, Any]]) -> None:
        super().__init__()
        self.pair_key = pair_key
        self.details = details
