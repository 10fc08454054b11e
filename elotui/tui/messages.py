"""Messages the TUI posts to itself: past-tense events. High-rate ones collapse (`can_replace`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.message import Message

from elotui.plan.context_blocks import Exchange
from elotui.rating.leaderboard import Leaderboard
from elotui.rating.pair_summary import PairSummary
from elotui.records import DiagnoseReport, JudgeStats, PairDetail
from elotui.tui.state.live_ranking import ViewKey
from elotui.tui.state.pair_query import FilterCounts, SearchIndex


class VerdictsArrived(Message):
    """New run events are buffered; a burst collapses into one message (the handler drains the buffer)."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, VerdictsArrived)


class LeaderboardComputed(Message):
    def __init__(self, key: ViewKey, board: Leaderboard, version: int, *, preview: bool = False) -> None:
        super().__init__()
        self.key = key
        self.board = board
        self.version = version
        self.preview = preview  # a board's point fit, its intervals still being computed


class FlipsComputed(Message):
    """A view's board with its drop_to_flip counts (elotui.rating.drop_to_flip), of the verdicts of `version`."""

    def __init__(self, key: ViewKey, version: int, board: Leaderboard) -> None:
        super().__init__()
        self.key = key
        self.version = version
        self.board = board


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


class PairsLoaded(Message):
    def __init__(
        self, summaries: list[PairSummary], lengths: dict[tuple[str, str], int], counts: FilterCounts
    ) -> None:
        super().__init__()
        self.summaries = summaries
        self.lengths = lengths  # (prompt, contestant) -> response length (the length sort)
        self.counts = counts


class PairsSelected(Message):
    """The pairs pane's list for request `request` (its filters, search and sort), made in a worker."""

    def __init__(self, shown: list[PairSummary], request: int) -> None:
        super().__init__()
        self.shown = shown
        self.request = request


class SearchIndexBuilt(Message):
    def __init__(self, index: SearchIndex, version: int) -> None:
        super().__init__()
        self.index = index  # the search index of the pairs' texts
        self.version = version  # of the pairs it was built from


class PairDetailLoaded(Message):
    def __init__(
        self,
        summary: PairSummary,
        details: list[PairDetail],
        texts: dict[str, str | None],
        earlier: Sequence[Exchange] = (),
    ) -> None:
        """`texts`: each contestant's (last) response; `earlier`: a conversation's turns before the judged one."""
        super().__init__()
        self.summary = summary
        self.details = details
        self.texts = texts
        self.earlier = earlier
