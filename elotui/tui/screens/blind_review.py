"""Blind review (`B` in the pairs pane): the pairs of the vote queue one at a time, showing only the prompt and the
two responses as "Response 1" and "Response 2", in a random order drawn for each pair; no contestant names, no
judge's verdict or reasoning, so the reviewer is not anchored by the judges. `a` (Response 1 is better), `b`
(Response 2), `t` (a tie) store the vote at once, mapped back to the contestants (the order shown is recorded with
the vote: listed or swapped), then the next pair of the queue comes; `u` undoes the voter's last vote; escape
leaves (back to the pairs pane, where the names and the judges show again).
"""

from __future__ import annotations

import random
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Label

from elotui.errors import UserError
from elotui.rating.pair_summary import PairSummary
from elotui.tui.sanitize import clean
from elotui.tui.vote_queue import next_in_queue, vote_status
from elotui.tui.voting import VoteCast, VotingPane
from elotui.tui.widgets.footer import KeyFooter
from elotui.tui.widgets.note import Note
from elotui.tui.widgets.pair_detail import response_shown

SWAPPED = {
    "first": "second",
    "second": "first",
    "tie": "tie",
}  # a vote on the shown order, in the listed order


class BlindReviewScreen(Screen[None]):
    HELP_TITLE = "in blind review"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "a", "vote('first')", "1 better", tooltip="blind vote: Response 1 is better (stored at once)"
        ),
        Binding("b", "vote('second')", "2 better", tooltip="blind vote: Response 2 is better"),
        Binding("t", "vote('tie')", "tie", tooltip="blind vote: a tie"),
        Binding("u", "undo_vote", "undo", tooltip="undo your last vote (its pair is shown again)"),
        Binding("escape", "leave", "leave", tooltip="leave the blind review, back to the pairs"),
    ]

    def __init__(self, pane: VotingPane, rng: random.Random | None = None) -> None:
        super().__init__()
        self.pane = pane
        self.rng = rng or random.Random()
        self.pair: PairSummary | None = None
        self.swapped = False

    def compose(self) -> ComposeResult:
        yield Label("", id="blind-status", markup=False)
        with VerticalScroll(id="blind-prompt-box"):
            yield Note(id="blind-prompt")
        with Horizontal(id="blind-responses"):
            with VerticalScroll(classes="response"):
                yield Note(id="blind-1")
            with VerticalScroll(classes="response"):
                yield Note(id="blind-2")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._show_next(None)

    def _show_next(self, after: str | None) -> None:
        pane = self.pane
        at = next_in_queue(pane.shown_pairs, pane.queued(), after)
        self._show(pane.shown_pairs[at] if at >= 0 else None)

    def _show(self, s: PairSummary | None) -> None:
        self.pair, self.swapped = s, self.rng.random() < 0.5
        mine = self.pane.session.votes.human_votes(self.pane.voter)
        status = vote_status(self.pane.voter, len(mine), len(self.pane.queued(mine)), None)
        self.query_one("#blind-status", Label).update(f"blind review ({self.pane.queue_mode}) · {status}")
        if s is None:
            self.query_one("#blind-prompt", Note).update(Text("The queue is empty: escape to go back."))
            for n in (1, 2):
                self.query_one(f"#blind-{n}", Note).update(Text())
            return
        session = self.pane.session
        prompt = session.tournament.prompt_texts.get(s.prompt, "")
        self.query_one("#blind-prompt", Note).update(Text(clean(prompt)))
        order = (s.b, s.a) if self.swapped else (s.a, s.b)
        for n, who in enumerate(order, 1):
            text = Text()
            text.append(f"Response {n}\n", style="bold underline")
            text.append(response_shown(session.shown_response(s.prompt, who)))
            self.query_one(f"#blind-{n}", Note).update(text)

    def action_vote(self, shown_winner: str) -> None:
        s = self.pair
        if s is None:
            return
        winner = SWAPPED[shown_winner] if self.swapped else shown_winner
        shown = "swapped" if self.swapped else "listed"
        try:
            self.pane.session.votes.cast_vote(s.prompt, s.a, s.b, winner, self.pane.voter, shown=shown)
        except UserError as exc:
            self.notify(str(exc), title="vote not stored", severity="warning", markup=False)
            return
        self.post_message(VoteCast())
        self._show_next(s.key)

    def action_undo_vote(self) -> None:
        try:
            gone = self.pane.session.votes.undo_vote(self.pane.voter)
        except UserError as exc:
            self.notify(str(exc), title="nothing undone", severity="warning", markup=False)
            return
        if gone is None:
            self.notify("no vote to undo", timeout=3)
            return
        self.post_message(VoteCast())
        back = next((p for p in self.pane.shown_pairs if (p.prompt, p.a, p.b) == gone.pair_key), None)
        self._show(back)

    def action_leave(self) -> None:
        self.dismiss(None)
