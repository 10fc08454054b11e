"""The leaderboard pane: scope selectors, the ranking table, counts, and the judges panel."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, Static

from elotui.rating.labels import interval_label, scale_note, uncertain_lines, warning_lines
from elotui.rating.leaderboard import Leaderboard
from elotui.tui.widgets.choice import choice_select
from elotui.tui.widgets.judges_table import JudgesTable
from elotui.tui.widgets.leaderboard_table import LeaderboardTable
from elotui.tui.widgets.note import Note

ALL = "__all__"


class LeaderboardPane(Vertical):
    def __init__(
        self,
        prompts: list[str],
        judges: list[str],
        categories: list[str] | None = None,
        contestant_width: int = 24,
        **kwargs: object,
    ) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._prompts = prompts
        self._judges = judges
        self._categories = categories or []
        self._contestant_width = contestant_width

    def compose(self) -> ComposeResult:
        with Horizontal(id="scope-bar"):
            yield Label("scope", classes="bar-label")
            if self._categories:
                yield choice_select(
                    "category", self._categories, blank="categories", id="scope-category", width=30
                )
            yield choice_select("prompt", self._prompts, blank="all prompts", id="scope-prompt")
            yield choice_select("judge", self._judges, blank="all judges", id="scope-judge")
            yield Label("keys 1–5 threshold (1.0 · 0.9 · 0.75 · 0.5 · none) · m Elo/BT", classes="bar-hint")
        yield LeaderboardTable(contestant_width=self._contestant_width, id="leaderboard")
        yield Note(id="counts")
        yield Label("Judges", classes="section-title")
        yield JudgesTable(id="judges")

    def show_counts(self, board: Leaderboard, note: str = "") -> None:
        c = board.counts
        text = Text(
            f"games {c.get('games', 0)} · verdicts used {c.get('verdicts_used', 0)} · invalid {c.get('invalid', 0)}"
            f" · failed {c.get('failed', 0)}",
        )
        text.append(
            f" · interval: {interval_label(board)}; order: share of rounds above the next (?: not established)"
        )
        text.append(" · bands: Δ<50 practically tied, 50–150 moderate, >150 strong")
        if note:
            text.append(f" · {note}", style="italic")
        for line in [scale_note(board), *warning_lines(board)]:
            if line:
                text.append(f"\n⚠ {line}", style="bold")
        for line in uncertain_lines(board):  # each "?" of the table, with its reason
            text.append(f"\n{line}")
        self.query_one("#counts", Static).update(text)
