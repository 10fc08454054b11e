"""The help screen (`?`)."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS: tuple[tuple[str, str], ...] = (
    ("1 2 3 4 5", "agreement threshold 1.0 / 0.9 / 0.75 / 0.5 / none (games from unanimous … every verdict)"),
    ("m", "toggle the rating method: permutation Elo / Bradley–Terry"),
    ("l  v  d", "show the leaderboard / pairs / diagnostics"),
    ("p", "pause or resume judging (calls in flight finish)"),
    ("e", "export the ranking on screen to CSV (same format as `elotui export`)"),
    ("i", "read the raw reply of the last unparseable (invalid) verdict"),
    ("r", "on the pairs screen: read the raw replies of the selected pair's invalid verdicts"),
    ("ctrl+p", "command palette: every action, scopes, themes"),
    ("?", "this help"),
    ("q", "quit: stop judging, wait for calls in flight, keep every verdict in the store"),
)

ABOUT = (
    "Every pair is judged in both orders (AB and BA) by every judge. A threshold turns each presentation's votes "
    "into one game: at 1.0 only a unanimous verdict is a win (anything else a draw), at 0.5 a simple majority, and "
    "'none' makes every verdict its own game. Ratings are permutation-averaged Elo (interval over game orders) or "
    "Bradley–Terry (bootstrap interval). Δ is the gap to the next rank with the expected win probability "
    "1/(1+10^(-Δ/400)). Replayed and simulated verdicts are labelled in the header: they are not live judge calls."
)


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark", "dismiss", "close")]

    def compose(self) -> ComposeResult:
        table = Table(box=None, show_header=False, pad_edge=False)
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for key, what in KEYS:
            table.add_row(key, what)
        with VerticalScroll(id="help-body"):
            yield Static(Text("elotui — keys", style="bold"))
            yield Static(table)
            yield Static(Text("\n" + ABOUT))
            yield Static(Text("\nescape closes", style="dim"))
