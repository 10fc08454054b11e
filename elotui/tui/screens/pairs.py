"""The pairs pane: every (prompt, pair) with its stability counts and how the judges split — searchable (`/`),
sortable (`o`), filterable, exportable for a reviewer (`x` CSV, `X` JSON) — and the selected pair in full.

Filters (elotui.tui.state.pair_query) combine; each option shows how many pairs it keeps. The judge and condition
selectors re-summarise that judge's or condition's verdicts only (its own flips, its own preferences).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Checkbox, DataTable, Input, Label, Select

from elotui.rating.pair_summary import PairSummary
from elotui.records import PairDetail
from elotui.session import TournamentSession
from elotui.tui.bindings import PAIRS_BINDINGS
from elotui.tui.colours import theme_colour
from elotui.tui.messages import PairDetailLoaded, PairsLoaded, PairsSelected, SearchIndexBuilt
from elotui.tui.screens.blind_review import BlindReviewScreen
from elotui.tui.state.pair_query import (
    SORT_LABELS,
    SORTS,
    FilterCounts,
    PairQuery,
    SearchIndex,
    SortContext,
    describe,
    filter_counts,
    select_pairs,
    words_of,
)
from elotui.tui.voting import VoteBar, VotingPane
from elotui.tui.widgets.choice import choice_options, choice_select
from elotui.tui.widgets.pair_detail import PairDetailView
from elotui.tui.widgets.pairs_table import pair_cells, pair_columns

ROWS_AT_ONCE = 200  # rows put in the table at a time (more are added as the cursor nears the end)
WORKER_FROM = 20_000  # pairs: from here a list is made in a worker (see PairsPane._fill)
HIGHLIGHT_AFTER_S = 0.15  # the open pair's highlights follow the search once typing pauses


def _options(values: list[str], counts: Mapping[str, int], noun: str) -> list[tuple[str, str]]:
    """A filter's options, each with the number of pairs it keeps."""
    return [(f"{label} ({counts.get(v, 0)})", v) for label, v in choice_options(noun, values, 24)]


class PairsPane(Vertical, VotingPane):
    HELP_TITLE = "on the pairs screen"
    """Reads through its session in thread workers; the results come back as messages (PairsLoaded,
    PairDetailLoaded). `kinds`: judge id -> live / replay / simulated (labels); `kinds_label`: the header note;
    `ratings`: the current leaderboard's ratings (the "rating gap" sort)."""

    BINDINGS: ClassVar[list[BindingType]] = PAIRS_BINDINGS

    def __init__(
        self,
        session: TournamentSession,
        kinds: Mapping[str, str],
        kinds_label: str,
        ratings: Callable[[], Mapping[str, float]] | None = None,
        voter: str = "reviewer",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.session, self.voter = session, voter
        t = session.tournament
        self._prompts, self._judges, self._contestants = t.prompt_ids, t.judge_ids, t.contestant_ids
        self._categories = t.categories
        self._turns = [str(n) for n in session.judged_turns()]
        self._conditions = list(t.spec.comparison.conditions)
        self._kinds, self._kinds_label = kinds, kinds_label
        self._ratings = ratings or dict
        self._summaries: list[PairSummary] = []
        self._shown: dict[str, PairSummary] = {}
        self._details: list[PairDetail] = []
        self._detail_key: str | None = None
        self._index: SearchIndex | None = None
        self._index_version = -1  # the pairs load the index was built from (see _index_for_search)
        self._pairs_version = 0
        self._indexing = False
        self._lengths: dict[tuple[str, str], int] = {}
        self.sort = "prompt"
        self._highlight_timer: Timer | None = None
        self._last_detail: PairDetailLoaded | None = None
        self.loaded_version = -1
        self._columns: list[tuple[str, int]] = []
        self.shown_pairs: list[PairSummary] = []
        self._requested = self._shown_request = 0  # list requests made, and the one the table shows
        # a list is being made in a worker (one at a time; the latest request follows)
        self._selecting = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="pairs-search", classes="pairs-bar"):
            yield Input(placeholder="/ search prompts, responses, reasoning", id="f-search", compact=True)
            yield Select(
                [(SORT_LABELS[s], s) for s in SORTS],
                value="prompt",
                allow_blank=False,
                id="f-sort",
                compact=True,
            )
            yield Label("", id="pairs-count")
        with Horizontal(id="pairs-filters", classes="pairs-bar"):
            yield Select([], prompt="stability", id="f-class", compact=True)
            yield Select([], prompt="contestant", id="f-contestant", compact=True)
            if self._categories:
                yield Select([], prompt="category", id="f-category", compact=True)
            if len(self._turns) > 1:
                yield choice_select(
                    "turn", self._turns, blank="all turns", id="f-turn", width=8, compact=True
                )
            yield Select([], prompt="flipped", id="f-flipped", compact=True)
            yield choice_select(
                "judge", self._judges, blank="all judges", id="f-judge", width=24, compact=True
            )
        with Horizontal(id="pairs-checks", classes="pairs-bar"):
            yield Checkbox("any flip", id="f-flip", compact=True)
            yield Checkbox("judges split", id="f-split", compact=True)
            yield Checkbox("one vs rest", id="f-dissent", compact=True)
            if len(self._conditions) > 1:
                yield choice_select(
                    "condition", self._conditions, blank="all conditions", id="f-condition", compact=True
                )
            yield choice_select(
                "prompt", self._prompts, blank="all prompts", id="f-prompt", width=24, compact=True
            )
        yield DataTable(id="pairs-table", cursor_type="row", zebra_stripes=True)
        yield VoteBar(id="pairs-votes", classes="pairs-bar")
        yield PairDetailView(self._judges, self._kinds, self._kinds_label, id="pair-detail")

    def on_mount(self) -> None:
        self._layout()

    def on_resize(self) -> None:
        if self._layout():
            self._show_list(self.shown_pairs, self._shown_request)

    def _layout(self) -> bool:
        """The table's columns for the terminal's width (elotui.tui.widgets.pairs_table); True when they changed."""
        longest = max((len(c) for c in self._contestants), default=0)
        columns = pair_columns(self.app.size.width, longest)
        if columns == self._columns:
            return False
        self._columns = columns
        table = self.query_one("#pairs-table", DataTable)
        table.clear(columns=True)
        for name, width in columns:
            table.add_column(name, key=name, width=width)
        return True

    # -- loading -------------------------------------------------------------------------------------------------
    def _value(self, selector: str) -> str | None:
        found = self.query(selector)
        value = found.first(Select).value if found else None
        return value if isinstance(value, str) else None

    def reload(self, version: int = 0) -> None:
        """Read the pairs again (`version`: of the verdicts the caller has seen)."""
        self.loaded_version = version
        self._load_pairs(self._value("#f-judge"), self._value("#f-condition"))

    @work(thread=True, exclusive=True, group="pairs-load", exit_on_error=False)
    def _load_pairs(self, judge: str | None, condition: str | None) -> None:
        summaries = self.session.pair_summaries(judge=judge, condition=condition)
        lengths = {k: len(v or "") for k, v in self.session.response_texts().items()}
        counts = filter_counts(summaries, self._contestants, self._judges, self._categories)
        self.post_message(PairsLoaded(summaries, lengths, counts))

    @on(PairsLoaded)
    def _pairs_loaded(self, message: PairsLoaded) -> None:
        self._summaries = message.summaries
        self._pairs_version += 1
        self._lengths = message.lengths
        self._update_counts(message.counts)
        self._fill()

    # The search index (every text of every pair, lowercased) is built only when a search is typed, and again
    # only when the pairs were reloaded since: a live run reloads the pairs often, most of them without a search.
    def _index_for_search(self) -> SearchIndex | None:
        """The index to search with now (perhaps one pairs-load old); starts a build when it is missing or stale."""
        if self._index_version != self._pairs_version and not self._indexing:
            self._indexing = True
            self._build_index(list(self._summaries), self._pairs_version)
        return self._index

    @work(thread=True, exclusive=True, group="pairs-index", exit_on_error=False)
    def _build_index(self, summaries: list[PairSummary], version: int) -> None:
        s = self.session
        index = SearchIndex(summaries, s.tournament.prompt_texts, s.response_texts(), s.pair_reasoning())
        self.post_message(SearchIndexBuilt(index, version))

    @on(SearchIndexBuilt)
    def _index_built(self, message: SearchIndexBuilt) -> None:
        self._index, self._index_version, self._indexing = message.index, message.version, False
        if self.query_one("#f-search", Input).value.strip():
            self._fill()

    def _update_counts(self, counts: FilterCounts) -> None:
        """Each filter option with the number of pairs it keeps."""
        for selector, (noun, values, kept) in counts.selects.items():
            found = self.query(selector)
            if not found:
                continue
            select = found.first(Select)
            keep = select.value
            select.set_options(_options(values, kept, noun))
            if isinstance(keep, str) and keep in values:
                select.value = keep
        for selector, (label, n) in counts.checks.items():
            self.query_one(selector, Checkbox).label = f"{label} ({n})"

    def query_now(self) -> PairQuery:
        return PairQuery(
            klass=self._value("#f-class"),
            any_flip=self.query_one("#f-flip", Checkbox).value,
            judges_split=self.query_one("#f-split", Checkbox).value,
            dissent=self.query_one("#f-dissent", Checkbox).value,
            flipped_judge=self._value("#f-flipped"),
            contestant=self._value("#f-contestant"),
            category=self._value("#f-category"),
            prompt=self._value("#f-prompt"),
            sort=self.sort,
            **self._turn_query(),
        )

    def _turn_query(self) -> dict[str, Any]:
        """The turn filter's fields of the query: the turn and its prompts, as `elotui export --turn` takes them."""
        turn = self._value("#f-turn") if self._turns else None
        if turn is None:
            return {}
        return {
            "turn": int(turn),
            "turn_prompts": frozenset(self.session.scope_prompts(turn=int(turn)) or ()),
        }

    def search_words(self) -> tuple[str, ...]:
        return words_of(self.query_one("#f-search", Input).value)

    # A list (filters, search, sort) of WORKER_FROM pairs or more is made in a worker: 500,000 pairs take ~0.1-1 s,
    # which the event loop does not wait for. One worker at a time; requests made meanwhile collapse into one, made
    # when it is done. Smaller lists are made at once (10,000 pairs: ~10 ms, less than a worker's round trip).
    @property
    def settled(self) -> bool:
        """The table shows the list for the pane's current filters, search and sort."""
        return not self._selecting and self._shown_request == self._requested

    def _fill(self) -> None:
        self._requested += 1
        if not self._selecting:
            self._start_select()

    def _start_select(self) -> None:
        query, summaries, q, categories = (
            self.query_one("#f-search", Input).value,
            self._summaries,
            self.query_now(),
            self._categories,
        )
        ctx = SortContext(
            {p: i for i, p in enumerate(self._prompts)},
            {c: i for i, c in enumerate(self._contestants)},
            self._ratings(),
            self._lengths,
        )
        index = self._index_for_search() if query.strip() else None

        def make() -> list[PairSummary]:  # reads nothing the event loop changes
            found = index.search(query) if index is not None else (set() if query.strip() else None)
            return select_pairs(summaries, q, categories, ctx, found)

        if len(summaries) < WORKER_FROM:
            self._show_list(make(), self._requested)
            return
        self._selecting = True
        self._show_count("filtering… · ")  # first: seen in a narrow terminal too
        self._select(self._requested, make)

    @work(thread=True, group="pairs-select", exit_on_error=False)
    def _select(self, request: int, make: Callable[[], list[PairSummary]]) -> None:
        shown: list[PairSummary] = []
        try:
            shown = make()
        finally:  # the next request must run even after a failure (the worker's error is shown, not raised)
            self.post_message(PairsSelected(shown, request))

    @on(PairsSelected)
    def _selected(self, message: PairsSelected) -> None:
        self._selecting = False
        self._show_list(message.shown, message.request)
        if message.request != self._requested:
            self._start_select()

    def _show_count(self, note: str = "") -> None:
        searching = self.query_one("#f-search", Input).value.strip()
        indexing = " · indexing the texts…" if searching and self._indexing else ""
        self.query_one("#pairs-count", Label).update(
            f"{note}{len(self.shown_pairs):,} of {len(self._summaries):,} pairs · {SORT_LABELS[self.sort]}{indexing}"
        )

    def _show_list(self, shown: list[PairSummary], request: int) -> None:
        self.shown_pairs, self._shown_request = shown, request
        table = self.query_one("#pairs-table", DataTable)
        keep = None
        if table.row_count:
            keep = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        table.clear()
        self._shown = {}
        self._add_rows(ROWS_AT_ONCE)
        self._show_count()
        if keep is not None and keep in self._shown:
            table.move_cursor(row=table.get_row_index(keep), animate=False)
        self.show_votes()

    def _add_rows(self, n: int) -> None:
        """The next `n` listed pairs into the table (the table holds a window that grows as the cursor nears
        its end: a DataTable row costs ~0.1 ms to add, so 10,000 at once would cost a second per keystroke)."""
        table = self.query_one("#pairs-table", DataTable)
        bias_style = f"bold {theme_colour(self.app, 'verdict-invalid')}"
        start = len(self._shown)
        for s in self.shown_pairs[start : start + n]:
            self._shown[s.key] = s
            table.add_row(*pair_cells(s, self._columns, bias_style), key=s.key)

    # -- filters, search, sort -----------------------------------------------------------------------------------
    @on(Checkbox.Changed)
    @on(Select.Changed, "#f-class, #f-contestant, #f-category, #f-turn, #f-flipped, #f-prompt")
    def _filters_changed(self) -> None:
        self._fill()

    @on(Select.Changed, "#f-judge, #f-condition")
    def _scope_changed(self) -> None:
        self.reload(self.loaded_version)

    @on(Select.Changed, "#f-sort")
    def _sort_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value != self.sort:
            self.sort = event.value
            self._fill()

    @on(Input.Changed, "#f-search")
    def _search_changed(self) -> None:
        self._fill()
        if self._highlight_timer is not None:
            self._highlight_timer.stop()
        self._highlight_timer = self.set_timer(HIGHLIGHT_AFTER_S, self._rehighlight)

    def _rehighlight(self) -> None:
        self._highlight_timer = None
        if self._last_detail is not None:
            self._show_detail(self._last_detail)

    @on(Input.Submitted, "#f-search")
    def _search_done(self) -> None:
        self.query_one("#pairs-table", DataTable).focus()

    def action_search(self) -> None:
        self.query_one("#f-search", Input).focus()

    def action_leave_search(self) -> None:
        """Escape in the search box: back to the list, the search kept (so `q`, `n`, `o`... are keys again)."""
        self.query_one("#pairs-table", DataTable).focus()

    def action_cycle_sort(self) -> None:
        self.query_one("#f-sort", Select).value = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]

    def action_blind_review(self) -> None:
        """The queue's pairs one at a time, names and judges hidden (elotui.tui.screens.blind_review)."""
        self.app.push_screen(BlindReviewScreen(self), lambda _: self.show_votes())

    def action_match(self, step: int) -> None:
        detail = self.query_one(PairDetailView)
        at = detail.next_match(step)
        if at < 0:
            self.notify("no match in this pair", timeout=2)

    def action_export_pairs(self, fmt: str) -> None:
        """The listed pairs (every filter and the search applied) into the current directory, never over a file."""
        from elotui.export.pairs import pair_records, write_pairs_csv, write_pairs_json
        from elotui.tournament.user_files import unused_path

        if not self.settled:  # the list does not yet match the filters the export would be described by
            self.notify("the list is still being made: export again when it shows", timeout=4)
            return

        t = self.session.tournament
        records = pair_records(self.shown_pairs, self._categories, t.prompt_texts)
        query = self.query_one("#f-search", Input).value.strip()
        stem = f"{t.slug}-pairs" + (f"-{re.sub(r'[^A-Za-z0-9]+', '_', query)[:30]}" if query else "")
        target = unused_path(Path.cwd() / f"{stem}.{fmt}")
        try:
            with target.open("w", encoding="utf-8", newline="") as fh:
                if fmt == "json":
                    write_pairs_json(records, fh, description=self._describe())
                else:
                    write_pairs_csv(records, fh)
        except OSError as exc:
            self.notify(
                f"{target}: cannot write: {exc.strerror}",
                title="export failed",
                severity="error",
                markup=False,
            )
            return
        self.notify(
            f"{target}\n({len(records)} pairs: {self._describe()})", title="pairs exported", markup=False
        )

    def _describe(self) -> str:
        query = self.query_one("#f-search", Input).value
        return describe(self.query_now(), self._value("#f-judge"), self._value("#f-condition"), query)

    # -- one pair --------------------------------------------------------------------------------------------------
    @on(DataTable.RowHighlighted, "#pairs-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row >= len(self._shown) - 10 and len(self._shown) < len(self.shown_pairs):
            self._add_rows(ROWS_AT_ONCE)
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
        earlier = self.session.earlier_exchanges(s.prompt)
        self.post_message(PairDetailLoaded(s, details, texts, earlier))

    @on(PairDetailLoaded)
    def _show_detail(self, message: PairDetailLoaded) -> None:
        self._last_detail = message
        s = message.summary
        self._detail_key = s.key
        self._details = message.details
        t = self.session.tournament
        self.query_one(PairDetailView).show(
            s,
            message.details,
            message.texts,
            t.prompt_texts.get(s.prompt, ""),
            self._categories.get(s.prompt),
            self.search_words(),
            message.earlier,
        )
        self.show_votes()

    def invalid_replies(self) -> list[PairDetail]:
        return [d for d in self._details if d.status in ("invalid", "error")]
