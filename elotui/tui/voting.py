"""Voting in the pairs pane: `a` (the first-listed contestant is better), `b` (the other), `t` (a tie), `u` (undo
the voter's last vote), `j` (to the next pair of the queue). A vote is committed to the tournament's store when
the key is pressed (elotui.store.human_votes), then the cursor moves on to the next pair of the queue
(elotui.tui.vote_queue). The vote line above the pair shows the voter's count, the queue's length, an estimate of
the time it takes, and everyone's votes on the selected pair.

`VotingPane` is a base of the pairs pane (elotui.tui.screens.pairs), which supplies what it declares.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, Label, Select

from elotui.errors import UserError
from elotui.rating.pair_summary import PairSummary
from elotui.session import TournamentSession
from elotui.store.human_votes import HumanVote
from elotui.tui.vote_queue import (
    QUEUES,
    next_in_queue,
    queue,
    seconds_per_vote,
    vote_key,
    vote_line,
    vote_status,
)
from elotui.tui.widgets.pair_detail import PairDetailView


class VoteCast(Message):
    """A human vote was stored or undone: what reads the votes (the diagnostics) is out of date."""


class VoteBar(Horizontal):
    """The queue selector and the vote line."""

    def compose(self) -> ComposeResult:
        yield Select([(f"queue: {q}", q) for q in QUEUES], value=QUEUES[0], allow_blank=False,
                     id="f-queue", compact=True)  # fmt: skip
        yield Label("", id="vote-status", markup=False)


class VotingPane(Widget):
    """The voting actions of the pairs pane (a base of it, after its container class)."""

    session: TournamentSession
    voter: str
    shown_pairs: list[PairSummary]
    _shown: dict[str, PairSummary]
    _detail_key: str | None
    _ratings: Callable[[], Mapping[str, float]]

    def _add_rows(self, n: int) -> None:
        raise NotImplementedError

    def selected(self) -> PairSummary | None:
        raise NotImplementedError

    # -- the queue -----------------------------------------------------------------------------------------------
    @property
    def queue_mode(self) -> str:
        value = self.query_one("#f-queue", Select).value
        return value if isinstance(value, str) else QUEUES[0]

    def queued(self, votes: list[HumanVote] | None = None) -> list[PairSummary]:
        """The listed pairs of the current queue the voter has not decided."""
        mine = self.session.votes.human_votes(self.voter) if votes is None else votes
        return queue(self.shown_pairs, self.queue_mode, self._ratings(), {v.pair_key for v in mine})

    def show_votes(self) -> None:
        """The vote line: the voter's count, the queue, the estimate, and the votes on the selected pair."""
        everyone = self.session.votes.human_votes()
        mine = [v for v in everyone if v.voter == self.voter]
        line = vote_status(self.voter, len(mine), len(self.queued(mine)), seconds_per_vote(mine))
        if self.session.store.read_only:
            line = f"read-only store: no votes here · {line}"
        self.query_one("#vote-status", Label).update(line)
        s = self.selected()
        if s is not None:
            on_pair = [v for v in everyone if v.pair_key == vote_key(s)]
            self.query_one(PairDetailView).show_votes(vote_line(s, on_pair))

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "f-queue":
            self.show_votes()

    def _go_to(self, s: PairSummary) -> bool:
        """Put the cursor on a listed pair (adding the table's rows up to it); False when it is not listed."""
        at = next((i for i, p in enumerate(self.shown_pairs) if p.key == s.key), -1)
        if at < 0:
            return False
        if at >= len(self._shown):
            self._add_rows(at - len(self._shown) + 1)
        table = self.query_one("#pairs-table", DataTable)
        table.move_cursor(row=at, animate=False)
        return True

    def action_next_queued(self, after: str | None = None) -> None:
        """To the next pair of the queue after the selected one (wrapping round)."""
        queued = self.queued()
        at = next_in_queue(self.shown_pairs, queued, after or self._detail_key)
        if at < 0:
            self.notify(f"the queue '{self.queue_mode}' is empty in this list", timeout=3)
            return
        self._go_to(self.shown_pairs[at])

    # -- votes -----------------------------------------------------------------------------------------------------
    def action_vote(self, winner: str) -> None:
        """Store the voter's vote on the selected pair (at once), then on to the next pair of the queue."""
        s = self.selected()
        if s is None:
            self.notify("no pair selected: choose one in the list", timeout=3)
            return
        try:
            self.session.votes.cast_vote(s.prompt, s.a, s.b, winner, self.voter, shown="listed")
        except UserError as exc:
            self.notify(str(exc), title="vote not stored", severity="warning", markup=False)
            return
        self.post_message(VoteCast())
        self.show_votes()
        if self.queued():
            self.action_next_queued(after=s.key)

    def action_undo_vote(self) -> None:
        """Delete the voter's last vote and go back to its pair."""
        try:
            gone = self.session.votes.undo_vote(self.voter)
        except UserError as exc:
            self.notify(str(exc), title="nothing undone", severity="warning", markup=False)
            return
        if gone is None:
            self.notify(f"no vote of {self.voter} to undo", timeout=3, markup=False)
            return
        self.post_message(VoteCast())
        back = next((p for p in self.shown_pairs if vote_key(p) == gone.pair_key), None)
        if back is not None:
            self._go_to(back)
        self.notify(
            f"undone: {gone.voter}'s vote ({gone.winner}) on {gone.prompt}: {gone.first} vs {gone.second}",
            timeout=3,
            markup=False,
        )
        self.show_votes()
