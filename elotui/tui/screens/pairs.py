"""The pairs pane: every pair with its stability class and judge agreement, filterable; the selected pair's two
responses side by side, its AB/BA grid, and every verdict with its full reasoning (shown literally)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Checkbox, DataTable, Label, Select, Static

from elotui.records import PairDetail
from elotui.session import TournamentSession
from elotui.tui.colours import theme_colour
from elotui.tui.messages import PairDetailLoaded, PairsLoaded
from elotui.tui.pair_summary import POSITION_BIAS, PairSummary, filter_pairs, summarise_pairs
from elotui.tui.sanitize import clean, one_line
from elotui.tui.widgets.abba_grid import AbbaGrid

PAIR_COLUMNS = (
    ("prompt", 14),
    ("pair", 34),
    ("stability", 13),
    ("flips", 5),
    ("judges agree", 12),
    ("preferred", 16),
    ("verdicts", 8),
)


class PairsPane(Vertical):
    """Reads through its session in thread workers; the results come back as messages (PairsLoaded,
    PairDetailLoaded). `kinds`: judge id -> live / replay / simulated (labels); `kinds_label`: the header note."""

    def __init__(
        self, session: TournamentSession, kinds: Mapping[str, str], kinds_label: str, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.session = session
        t = session.tournament
        self._prompts, self._judges = t.prompt_ids, t.judge_ids
        self._kinds, self._kinds_label = kinds, kinds_label
        self._summaries: list[PairSummary] = []
        self._shown: dict[str, PairSummary] = {}
        self._details: list[PairDetail] = []
        self._detail_key: str | None = None
        self.loaded_version = -1

    def compose(self) -> ComposeResult:
        with Horizontal(id="pairs-filters"):
            yield Checkbox("position bias only", id="f-bias")
            yield Checkbox("disagreements only", id="f-disagree")
            yield Select(
                [(f"prompt {one_line(p, 30)}", p) for p in self._prompts], prompt="all prompts", id="f-prompt"
            )
            yield Select(
                [(f"judge {one_line(j, 30)}", j) for j in self._judges], prompt="all judges", id="f-judge"
            )
            yield Label("", id="pairs-count")
        yield DataTable(id="pairs-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="pair-detail"):
            yield Static("Select a pair to see both responses and every verdict.", id="pair-title")
            with Horizontal(id="responses"):
                with VerticalScroll(classes="response"):
                    yield Static(id="resp-a")
                with VerticalScroll(classes="response"):
                    yield Static(id="resp-b")
            yield AbbaGrid(id="abba")
            yield Static(id="verdicts")

    def on_mount(self) -> None:
        table = self.query_one("#pairs-table", DataTable)
        for name, width in PAIR_COLUMNS:
            table.add_column(name, key=name, width=width)

    # -- loading -------------------------------------------------------------------------------------------------
    def reload(self, version: int = 0) -> None:
        """Read the pairs again (`version`: of the verdicts the caller has seen)."""
        self.loaded_version = version
        self._load_pairs(self._judge_filter())

    def _judge_filter(self) -> str | None:
        value = self.query_one("#f-judge", Select).value
        return value if isinstance(value, str) else None

    @work(thread=True, exclusive=True, group="pairs-load", exit_on_error=False)
    def _load_pairs(self, judge: str | None) -> None:
        rows = self.session.store.plan_verdicts()
        if judge is not None:
            rows = [r for r in rows if r.judge == judge]
        self.post_message(PairsLoaded(summarise_pairs(rows, self.session.tournament.contestant_ids)))

    @on(PairsLoaded)
    def _pairs_loaded(self, message: PairsLoaded) -> None:
        self._summaries = message.summaries
        self._fill()

    def _fill(self) -> None:
        prompt = self.query_one("#f-prompt", Select).value
        shown = filter_pairs(
            self._summaries,
            position_bias_only=self.query_one("#f-bias", Checkbox).value,
            disagreements_only=self.query_one("#f-disagree", Checkbox).value,
            prompt=prompt if isinstance(prompt, str) else None,
        )
        table = self.query_one("#pairs-table", DataTable)
        keep = None
        if table.row_count:
            keep = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        table.clear()
        self._shown = {}
        bias_style = f"bold {theme_colour(self.app, 'verdict-invalid')}"
        for s in shown:
            self._shown[s.key] = s
            agreement = (
                "—" if s.agreement is None else f"{round(s.agreement * s.judges_voting)}/{s.judges_voting}"
            )
            table.add_row(
                Text(one_line(s.prompt, 14)),
                Text(f"{one_line(s.a, 15)} vs {one_line(s.b, 15)}"),
                Text(s.klass, style=bias_style if s.klass == POSITION_BIAS else ""),
                Text(f"{s.flips}/{s.units}" if s.units else "—", justify="right"),
                Text(agreement, justify="right", style="bold" if s.disagreement else ""),
                Text(one_line(s.preference or ("split" if s.agreement is not None else "—"), 16)),
                Text(str(s.verdicts), justify="right"),
                key=s.key,
            )
        self.query_one("#pairs-count", Label).update(f"{len(shown)} of {len(self._summaries)} pairs")
        if keep is not None and keep in self._shown:
            table.move_cursor(row=table.get_row_index(keep), animate=False)

    @on(Checkbox.Changed)
    @on(Select.Changed, "#f-prompt")
    def _filters_changed(self) -> None:
        self._fill()

    @on(Select.Changed, "#f-judge")
    def _judge_changed(self) -> None:
        self.reload()

    # -- one pair --------------------------------------------------------------------------------------------------
    @on(DataTable.RowHighlighted, "#pairs-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = str(event.row_key.value)
        summary = self._shown.get(key)
        if summary is not None and key != self._detail_key:
            self._load_detail(summary)

    def selected(self) -> PairSummary | None:
        return self._shown.get(self._detail_key or "")

    @work(thread=True, exclusive=True, group="pair-detail", exit_on_error=False)
    def _load_detail(self, s: PairSummary) -> None:
        details = self.session.pair_details(s.prompt, s.a, s.b)
        texts = {who: self.session.response_text(s.prompt, who) for who in (s.a, s.b)}
        self.post_message(PairDetailLoaded(s, details, texts))

    @on(PairDetailLoaded)
    def _show_detail(self, message: PairDetailLoaded) -> None:
        s, details = message.summary, message.details
        self._detail_key = s.key
        self._details = details
        title = Text()
        title.append("prompt ")
        title.append(one_line(s.prompt, 40), style="bold")
        title.append(": ")
        title.append(clean(self.session.tournament.prompt_texts.get(s.prompt, "")))
        title.append(f"\nstability: {s.klass}", style="bold")
        title.append(f" · flips {s.flips}/{s.units}" if s.units else "")
        if s.agreement is not None:
            title.append(f" · judges agreeing {round(s.agreement * s.judges_voting)}/{s.judges_voting}")
        if self._kinds_label:
            title.append(f" · {self._kinds_label}", style="italic")
        self.query_one("#pair-title", Static).update(title)
        for widget_id, who in (("#resp-a", s.a), ("#resp-b", s.b)):
            text = Text()
            text.append(f"{one_line(who, 40)}\n", style="bold underline")
            text.append(clean(message.texts.get(who) or "(no response recorded yet)"))
            self.query_one(widget_id, Static).update(text)
        self.query_one("#abba", AbbaGrid).show(s.a, s.b, details, self._judges)
        self.query_one("#verdicts", Static).update(self._verdicts_text(s, details))

    def _verdicts_text(self, s: PairSummary, details: list[PairDetail]) -> Text:
        app = self.app
        colours = {
            "first": theme_colour(app, "verdict-first"),
            "second": theme_colour(app, "verdict-second"),
            "tie": theme_colour(app, "verdict-tie"),
            "invalid": theme_colour(app, "verdict-invalid"),
        }
        judge_order = {j: i for i, j in enumerate(self._judges)}
        ordered = sorted(
            details, key=lambda d: (judge_order.get(d.judge, 99), d.condition, d.sample, d.first != s.a)
        )
        text = Text()
        for d in ordered:
            text.append("\n")
            text.append(one_line(d.judge, 30), style="bold")
            kind = self._kinds.get(d.judge, "live")
            if kind != "live":
                text.append(
                    f" [{kind}]", style="italic"
                )  # a literal label, not markup: Text.append never parses
            text.append(
                f" · {'AB' if d.first == s.a else 'BA'} ({one_line(d.first, 20)} first) · "
                f"{one_line(d.condition, 16)}"
            )
            if d.sample:
                text.append(f" · sample {d.sample}")
            text.append(" → ")
            _append_outcome(text, d, colours)
            if d.latency_ms:
                text.append(f"  {d.latency_ms:.0f} ms", style="dim")
            text.append("\n")
            if d.reasoning:
                text.append(clean(d.reasoning))
                text.append("\n")
        return text

    def invalid_replies(self) -> list[PairDetail]:
        return [d for d in self._details if d.status in ("invalid", "error")]


def _append_outcome(text: Text, d: PairDetail, colours: dict[str, str]) -> None:
    """What one verdict decided: the winner (and its slot), invalid, failed (with the error) or not judged yet."""
    if d.status == "ok":
        winner = d.winner
        who = d.first if winner == "first" else d.second if winner == "second" else "tie"
        text.append(f"{one_line(who, 30)}", style=f"bold {colours.get(winner or '', '')}")
        if winner in ("first", "second"):
            text.append(f" ({winner} slot)")
    elif d.status == "invalid":
        text.append("invalid reply (press r to read it)", style=f"bold {colours['invalid']}")
    elif d.status == "error":
        text.append("failed: ", style=f"bold {colours['invalid']}")
        text.append(one_line(d.error or "", 200))
    else:
        text.append("not judged yet", style="dim")
