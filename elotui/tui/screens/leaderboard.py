"""The leaderboard pane: scope selectors, the line that says which view of style control is shown (only when style
control is in play: elotui.tui.style_view), the ranking table (`!` after a fragile gap), under it the selected
contestant's figures in the columns left out where the terminal is narrow and its gap to the next in full with its
drop_to_flip (elotui.tui.widgets.gap_detail), counts, the open batches of batch judges (while any is open), and the
judges panel."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Label, Static

from elotui.rating.labels import interval_label, scale_note, uncertain_lines, warning_lines
from elotui.rating.leaderboard import Leaderboard
from elotui.records import JudgeCounts, JudgeStats
from elotui.tui.widgets.batches_table import BatchesPanel
from elotui.tui.widgets.choice import choice_select
from elotui.tui.widgets.judges_table import JudgesTable, judges_summary
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
        turns: list[int] | None = None,
        **kwargs: object,
    ) -> None:
        """`turns`: the turns judged as their own prompts; with two or more, the scope bar offers one turn."""
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._prompts = prompts
        self._judges = judges
        self._categories = categories or []
        self._contestant_width = contestant_width
        self._turns = turns or []
        self._counts: tuple[Leaderboard, str, bool] | None = None  # show_counts' last arguments
        self._legend = ""  # what `!` after a gap means, while one is shown (elotui.tui.widgets.gap_detail)

    def compose(self) -> ComposeResult:
        with Horizontal(id="scope-bar"):
            yield Label("scope", classes="bar-label")
            if self._categories:
                yield choice_select(
                    "category",
                    self._categories,
                    blank="categories",
                    id="scope-category",
                    width=30,
                    compact=True,
                )
            if len(self._turns) > 1:
                turns = [str(n) for n in self._turns]
                yield choice_select("turn", turns, blank="all turns", id="scope-turn", width=8, compact=True)
            yield choice_select("prompt", self._prompts, blank="all prompts", id="scope-prompt", compact=True)
            yield choice_select("judge", self._judges, blank="all judges", id="scope-judge", compact=True)
            yield Label(
                "1–5 threshold (1.0 · 0.9 · 0.75 · 0.5 · none) · m Elo/BT · y style", classes="bar-hint"
            )
        yield Note(id="board-title")
        yield LeaderboardTable(contestant_width=self._contestant_width, id="leaderboard")
        yield Note(id="row-detail")
        yield Note(id="counts")
        yield BatchesPanel(id="batches-panel")
        yield Label("Judges", classes="section-title", id="judges-title")
        yield JudgesTable(id="judges")

    def show_title(self, title: Text | None) -> None:
        """The line above the table (None: hidden): style-controlled or raw, what ▲▼ count from."""
        line = self.query_one("#board-title", Note)
        line.display = title is not None
        if title is not None:
            line.update(title)

    def show_counts(self, board: Leaderboard, note: str = "", *, pending: bool = False) -> None:
        """The board's counts (the tournament's: every run, in the scope shown), then what its columns mean
        (`pending`: the board is a point fit, its bootstrap intervals being computed)."""
        self._counts = (board, note, pending)
        c = board.counts
        scoped = any(board.settings.get(part) is not None for part in ("prompts", "judges"))
        text = Text(
            f"tournament{', in this scope' if scoped else ''}: games {c.get('games', 0)} · verdicts used {c.get('verdicts_used', 0)}"
            f" · invalid {c.get('invalid', 0)} · failed {c.get('failed', 0)}",
        )
        if note:
            text.append(f" · {note}", style="italic")
        interval = "being computed (the order and ratings are final)" if pending else interval_label(board)
        text.append(
            f"\ninterval: {interval} · order: share of rounds above the next (?: not established)",
            style="dim",
        )
        text.append(" · Δ<50 practically tied, 50–150 moderate, >150 strong", style="dim")
        for line in [scale_note(board), *warning_lines(board)]:
            if line:
                text.append(f"\n⚠ {line}", style="bold")
        for line in uncertain_lines(board):  # each "?" of the table, with its reason
            text.append(f"\n{line}")
        if self._legend:
            text.append(f"\n{self._legend}")
        self.query_one("#counts", Static).update(text)
        self.show_row_detail()

    def show_flips_legend(self, legend: str, *, redraw: bool = True) -> None:
        """The line under the counts that says what `!` after a gap means ("": none shown); `redraw`: the counts
        now, else from the next `show_counts`."""
        if not redraw:
            self._legend = legend
        elif legend != self._legend:
            self._legend = legend
            if self._counts is not None:
                self.show_counts(*self._counts[:2], pending=self._counts[2])
        else:
            self.show_row_detail()

    @on(DataTable.RowHighlighted, "#leaderboard")
    def show_row_detail(self) -> None:
        """Under the table: the selected contestant's figures in the columns left out where the terminal is narrow,
        and its gap to the next row in full, with its drop_to_flip."""
        detail = self.query_one(LeaderboardTable).row_detail()
        note = self.query_one("#row-detail", Static)
        note.display = detail is not None
        if detail is not None:
            note.update(detail)

    def show_judges(
        self,
        judges: list[tuple[str, str]],
        stats: Mapping[str, JudgeStats],
        live: Mapping[str, JudgeCounts],
        replay_held: bool = False,
    ) -> None:
        """The judges panel and its one-line summary (the table scrolls where the terminal is short)."""
        self.query_one(JudgesTable).show(judges, stats, live)
        self.query_one("#judges-title", Label).update(judges_summary(judges, stats, live, replay_held))
