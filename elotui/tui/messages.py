"""Messages the TUI posts to itself: past-tense events. High-rate ones collapse (`can_replace`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from textual.message import Message

from elotui.rating.leaderboard import Leaderboard
from elotui.rating.pair_summary import PairSummary
from elotui.records import DiagnoseReport, JudgeStats, PairDetail
from elotui.tui.live_ranking import ViewKey
from elotui.tui.pair_query import SearchIndex


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
    def __init__(self, stats: dict[str, JudgeStats]) -> None:
        super().__init__()
        self.stats = stats


class DiagnosticsComputed(Message):
    def __init__(self, report: DiagnoseReport, trajectory: dict[str, Any], version: int) -> None:
        super().__init__()
        self.report = report
        self.trajectory = trajectory
        self.version = version


@dataclass(frozen=True)
class FilterCounts:
    """How many pairs each filter of the pairs pane keeps, counted in its loading worker (PairsPane._counts_of):
    per select, (label prefix, its values, pairs kept by each value); per checkbox, (label, pairs kept)."""

    selects: dict[str, tuple[str, list[str], Mapping[str, int]]]
    checks: dict[str, tuple[str, int]]


class PairsLoaded(Message):
    def __init__(
        self, summaries: list[PairSummary], lengths: dict[tuple[str, str], int], counts: FilterCounts
    ) -> None:
        super().__init__()
        self.summaries = summaries
        self.lengths = lengths  # (prompt, contestant) -> response length (the length sort)
        self.counts = counts


class SearchIndexBuilt(Message):
    def __init__(self, index: SearchIndex, version: int) -> None:
        super().__init__()
        self.index = index  # the search index of the pairs' texts
        self.version = version  # of the pairs it was built from


class PairDetailLoaded(Message):
    def __init__(self, summary: PairSummary, details: list[PairDetail], texts: dict[str, str | None]) -> None:
        super().__init__()
        self.summary = summary
        self.details = details
        self.texts = texts
