"""The elotui TUI: the App, its key bindings, the run worker and the ranking workers.

`make_app(...)` builds the app (the CLI and the tests share it); `run_tui(...)` runs it and returns an exit code.
The runner runs in an async worker on the app's event loop and reports typed events (`elotui.run.events`); the
app buffers them and a burst collapses into one `VerdictsArrived` message. Re-ranking runs in thread workers on a
snapshot of the verdict table; leaderboards are cached per (threshold, method, scope, style) until new verdicts
arrive, and after each refresh the other view of style control, the other thresholds and method are precomputed, so
keys 1–5, y and m answer at once.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Select, TabbedContent, TabPane
from textual.worker import Worker, WorkerState, get_current_worker

from elotui.rating.leaderboard import Leaderboard
from elotui.rating.table import VerdictTable
from elotui.run.events import Event, RunFinished
from elotui.session import TournamentSession
from elotui.store import Store
from elotui.store.human_votes import voter_name
from elotui.store.runs import RunActive
from elotui.themes import APP_VARIABLE_DEFAULTS, DEFAULT_THEME
from elotui.tournament.model import Tournament
from elotui.tui import run_monitor
from elotui.tui.actions import QUIT_KEYS, AppActions
from elotui.tui.bindings import VIEW_BINDINGS
from elotui.tui.flips_view import FLIPS_EVERY_S, FlipsView
from elotui.tui.messages import DiagnosticsComputed, JudgeStatsLoaded, LeaderboardComputed, VerdictsArrived
from elotui.tui.palette import ElotuiCommands
from elotui.tui.run_monitor import Notice, PlanCounts, RunControl, RunMonitor, RunnerFactory
from elotui.tui.sanitize import one_line
from elotui.tui.screens.diagnostics import DiagnosticsPane
from elotui.tui.screens.leaderboard import LeaderboardPane
from elotui.tui.screens.pairs import PairsPane
from elotui.tui.state.live_ranking import (
    PREVIEW_VERDICTS,
    LiveRanking,
    RankingContext,
    ViewKey,
    ViewScope,
    chart_label,
)
from elotui.tui.state.watch import WATCH_EVERY_S, StoreWatcher
from elotui.tui.style_view import StyleViews, coefficient_lines, rank_shifts, style_info, title
from elotui.tui.theming import register_themes
from elotui.tui.voting import VoteCast
from elotui.tui.widgets.batches_table import BatchesPanel
from elotui.tui.widgets.footer import KeyFooter
from elotui.tui.widgets.gap_detail import legend
from elotui.tui.widgets.leaderboard_table import LeaderboardTable, contestant_label
from elotui.tui.widgets.status_bar import StatusBar, StatusInfo
from elotui.vocab import METHOD_NAMES, THRESHOLDS, Threshold, threshold_label

W = TypeVar("W", bound=Widget)
STATUS_EVERY_S = 0.25  # buffered verdicts are ranked and the header redrawn
JUDGE_STATS_EVERY_S = 2.0  # the judges panel's stored totals are read again (while verdicts arrive)
PAIRS_EVERY_S = 3.0  # the pairs pane reloads (when it is shown and verdicts arrived)
DIAGNOSTICS_EVERY_S = 5.0  # the diagnostics pane recomputes (when it is shown and verdicts arrived)


class ElotuiApp(FlipsView, AppActions, App[int]):
    CSS_PATH = "elotui.tcss"
    # classes of the screen for elotui.tcss: .-narrow below 110 columns, .-short below 30 lines (80x24 over SSH)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012 - as App declares it
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # noqa: RUF012 - as App declares it
    TITLE = "elotui"
    COMMANDS = App.COMMANDS | {ElotuiCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        *VIEW_BINDINGS,
        Binding("q", "quit", "quit", tooltip="stop judging; the calls in flight finish and are stored; exit"),
        *QUIT_KEYS,  # ctrl+q, ctrl+c (elotui.tui.actions)
    ]

    threshold: reactive[Threshold] = reactive[Threshold](0.5, init=False)
    method: reactive[str] = reactive("elo", init=False)
    scope: reactive[ViewScope] = reactive(ViewScope(), init=False)
    style_controlled: reactive[bool] = reactive(False, init=False)  # Bradley–Terry with style control (`y`)

    def __init__(
        self,
        tournament: Tournament,
        store: Store,
        *,
        theme: str | None = None,
        max_cost: float | None = None,
        no_delay: bool = False,
        runner_factory: RunnerFactory | None = None,
        start_run: bool = True,
        export_path: Path | None = None,
        user_themes_dir: Path | None = None,
        screenshot_dir: Path | None = None,
        watch: bool = False,
        force: bool = False,
        voter: str | None = None,
    ) -> None:
        super().__init__()
        self.tournament = tournament
        self.store = store
        self.session = TournamentSession(tournament, store)
        self.max_cost, self.no_delay = max_cost, no_delay
        self.export_path = export_path
        self.screenshot_dir = screenshot_dir
        self._runner_factory = runner_factory
        self._start_run = start_run and not watch
        self.force = force
        self.voter = voter_name(voter)
        self.watcher = StoreWatcher(store) if watch else None
        self.runner: RunControl | None = None
        self._run_worker: Worker[RunFinished] | None = None
        self.monitor = RunMonitor()
        self.watch_detail = ""
        self.judge_kinds = dict(self.session.judge_kinds())
        kinds = sorted(set(self.judge_kinds.values()) - {"live"})
        self.judge_kinds_label = " and ".join(f"{k} verdicts" for k in kinds)
        settings = tournament.spec.ranking
        self.style_views = StyleViews.of(settings.style_control)
        self._style_lookup: Any = None
        self._style_lock = threading.Lock()
        self.ranking_context = RankingContext(
            self.tournament.categories,
            self.session.note_design,
            self.style_counts,
            scope_prompts=self.session.scope_prompts,
        )
        self.ranking = LiveRanking(self.session.empty_table(), self.session.options, self.ranking_context)
        self._posted = False
        self.judge_stats: dict[str, Any] = {}
        self.board: Leaderboard | None = None
        self.board_key: ViewKey | None = None
        self.board_version = -1
        self.board_preview = False  # the board shown is a point fit, its intervals to come (`_rank`)
        self._workers_by_group: dict[str, Worker[Any]] = {}
        self._diag_version = self._stats_version = -1
        self._flips_started = -FLIPS_EVERY_S  # time.monotonic() of the last drop_to_flip computation
        self.theme_names, self.theme_problems = register_themes(self, user_themes_dir)
        wanted = theme or DEFAULT_THEME
        if wanted not in self.available_themes:
            self.theme_problems.append(f"theme '{wanted}' is not available")
            wanted = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"
        self.theme = wanted
        self.set_reactive(ElotuiApp.threshold, settings.threshold)
        method = settings.method if settings.method in ("elo", "bt") else "elo"
        if self.style_views.configured and "method" not in settings.model_fields_set:
            method = "bt"  # style control is Bradley–Terry's: a file that asks for it opens on the controlled board
        self.set_reactive(ElotuiApp.method, method)
        self.set_reactive(ElotuiApp.style_controlled, self.style_views.configured)

    def style_counts(self) -> Any:
        """The games' style counts (elotui.rating.style_rank.StyleLookup): the session's with `style_control`,
        else read once, when a ranking thread first needs them (`[data] style` or the responses' texts)."""
        with self._style_lock:
            if self._style_lookup is None:
                from elotui.rating.style_rank import style_lookup

                found = self.session.options.style
                self._style_lookup = found if found is not None else style_lookup(self.tournament)
            return self._style_lookup

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(APP_VARIABLE_DEFAULTS)

    # -- layout ------------------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        t = self.tournament
        yield StatusBar(id="status")
        with TabbedContent(initial="tab-leaderboard", id="tabs"):
            with TabPane("Leaderboard · l", id="tab-leaderboard"):
                labels = {c.id: c.label for c in t.spec.contestants}
                width = max(len(contestant_label(c, labels.get(c))) for c in t.contestant_ids)
                yield LeaderboardPane(
                    t.prompt_ids,
                    t.judge_ids,
                    sorted(set(t.categories.values())),
                    contestant_width=max(width, 10),
                    turns=self.session.judged_turns(),
                    id="leaderboard-pane",
                )
            with TabPane("Pairs · v", id="tab-pairs"):
                kinds = (self.judge_kinds, self.judge_kinds_label)
                yield PairsPane(
                    self.session, *kinds, ratings=self.current_ratings, voter=self.voter, id="pairs-pane"
                )
            with TabPane("Diagnostics · d", id="tab-diagnostics"):
                yield DiagnosticsPane(id="diagnostics-pane")
        yield KeyFooter()

    def on_mount(self) -> None:
        for problem in self.theme_problems:
            self._notice(
                Notice(f"{problem}\nusing the default theme instead", "theme not loaded", "warning", 15)
            )
        self.reload_from_store()
        self.set_interval(STATUS_EVERY_S, self._refresh_status)
        self.set_interval(JUDGE_STATS_EVERY_S, self._refresh_judges)
        self.set_interval(PAIRS_EVERY_S, self._refresh_pairs)
        self.set_interval(DIAGNOSTICS_EVERY_S, self._refresh_diagnostics)
        if self._start_run and (held := run_monitor.replay_waits(self.store)) is not None:
            self.hold_replay(held)
        elif self._start_run:
            self._start_runner()
        if self.watcher is not None:
            self.set_interval(WATCH_EVERY_S, self._poll_store)
            self._poll_store()
        self._refresh_status()
        self._refresh_judges()

    def _notice(self, n: Notice) -> None:
        self.notify(n.message, title=n.title, severity=n.severity, timeout=n.timeout, markup=False)  # type: ignore[arg-type]

    # -- the store -----------------------------------------------------------------------------------------------
    def reload_from_store(self) -> None:
        """Rebuild the verdict table from the store's current plan (at start, and when a run stores its plan)."""
        columns = self.store.verdict_columns()
        self.ranking = LiveRanking(
            self.session.plan_table(columns, include_missing=False),
            self.session.options,
            self.ranking_context,
        )
        self.monitor.pending.clear()
        self.monitor.plan = PlanCounts.of(columns.outcome)
        self.monitor.reload_wanted = False
        self.board_version = self._diag_version = self._stats_version = -1
        if self.watcher is not None:
            self.watcher.mark()
        self._show_current()

    # -- the run -------------------------------------------------------------------------------------------------
    def _make_runner(self) -> RunControl:
        if self._runner_factory is not None:
            return self._runner_factory(
                self.tournament, self.store, on_event=self.on_run_event, max_cost=self.max_cost
            )
        from elotui.run.runner import Runner

        return Runner(
            self.tournament,
            self.store,
            on_event=self.on_run_event,
            max_cost=self.max_cost,
            no_delay=self.no_delay,
            force=self.force,
        )

    def _start_runner(self) -> None:
        self.monitor.state = "preparing"  # until RunStarted: the calls planned, the plan stored
        self._run_worker = self._workers_by_group["run"] = self._run()

    @work(exclusive=True, group="run", exit_on_error=False)
    async def _run(self) -> RunFinished:
        self.runner = runner = await run_monitor.runner_after_first_board(
            lambda: self.board is not None, self._make_runner
        )
        return await runner.run()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Every worker failure lands here: a notification, never a crash. Workers post their results as
        messages; only the run worker's result is read here."""
        worker = event.worker
        if event.state == WorkerState.ERROR:
            error = worker.error
            if worker.group == "run" and isinstance(
                error, RunActive
            ):  # another process started first: follow it
                self.runner, self.watcher = None, StoreWatcher(self.store)
                self._notice(Notice(str(error), "already running: watching it", "warning", 15))
                self.set_interval(WATCH_EVERY_S, self._poll_store)
            elif worker.group == "run":
                self.monitor.state = "stopped"
                self._notice(
                    Notice(
                        f"the run stopped: {type(error).__name__}: {one_line(error, 300)}",
                        "run failed",
                        "error",
                        30,
                    )
                )
            else:
                self._notice(
                    Notice(
                        f"{worker.group}: {type(error).__name__}: {one_line(error, 300)}",
                        severity="error",
                        timeout=15,
                    )
                )
        elif (
            event.state == WorkerState.SUCCESS
            and worker.group == "run"
            and isinstance(worker.result, RunFinished)
        ):
            self._finished(worker.result)
        if worker.group == "run" and worker.is_finished:
            self.run_ended()  # a quit that waited for the run exits now

    def on_run_event(self, event: Event) -> None:
        """Called by the runner on this loop for every event; cheap: hand it to the monitor, post one message."""
        try:
            for n in self.monitor.handle(event):
                self._notice(n)
            if self.monitor.reload_wanted:
                self.reload_from_store()  # the run stored its plan, or ended (the store is the truth)
                self._stats_version = -1
        except Exception as exc:  # noqa: BLE001 - a display problem must never stop the run
            self.log.error(f"run event {type(event).__name__}: {exc!r}")
        if not self._posted:
            self._posted = True
            self.post_message(VerdictsArrived())

    def _finished(self, result: RunFinished) -> None:
        for n in self.monitor.finished(result):
            self._notice(n)
        if self.monitor.reload_wanted:
            self.reload_from_store()

    @on(VerdictsArrived)
    def _drain(self) -> None:
        self._posted = False
        rows = self.monitor.take_pending()
        if rows:
            self.ranking.append(rows)

    # -- timers ----------------------------------------------------------------------------------------------------
    def _refresh_status(self) -> None:
        if self._view(StatusBar) is None:  # starting or closing
            return
        self._drain()
        if self.board_version != self.ranking.version and not self._busy("rank"):
            self._show_current()
        if self.runner is not None:
            self._show_judges()
        self._want_flips()
        self._update_status()

    def _refresh_judges(self) -> None:  # a fifth of a core at most: elotui.session.judge_stats_rested
        if self._stats_version != self.ranking.version and self.session.judge_stats_rested(4.0):
            self._stats_version = self.ranking.version
            self._spawn("judge-stats", self._load_judge_stats)

    def _refresh_pairs(self, *, now: bool = False) -> None:
        pane = self._view(PairsPane)
        if (
            pane is not None
            and self._active_tab() == "tab-pairs"
            and (now or pane.loaded_version != self.ranking.version)
        ):
            pane.reload(self.ranking.version)

    def _refresh_diagnostics(self, *, now: bool = False) -> None:
        if (
            self._active_tab() == "tab-diagnostics"
            and not self._busy("diagnostics")
            and (now or self._diag_version != self.ranking.version)
        ):
            self._spawn("diagnostics", lambda: self._diagnose(self.view_key))

    # -- ranking ---------------------------------------------------------------------------------------------------
    @property
    def view_key(self) -> ViewKey:
        return self.style_views.key(self.threshold, self.method, self.scope, self.style_controlled)

    def _show_current(self) -> None:
        """Show the cached leaderboard of the current view at once; recompute in a thread if it is stale."""
        key = self.view_key
        board, fresh = self.ranking.cached(key)
        if board is not None:
            self._show_board(key, board, self.ranking.version if fresh else -1)
        elif (found := self.ranking.latest(key))[0] is not None:  # a point fit, its rounds not done
            self._show_board(key, found[0], -1, preview=True)
        partner = self.style_views.other(key)  # the rank changes need it too
        if board is None or not fresh or (partner is not None and not self.ranking.cached(partner)[1]):
            self._spawn("rank", lambda: self._rank(key))

    @work(thread=True, exclusive=True, group="rank", exit_on_error=False)
    def _rank(self, key: ViewKey) -> None:
        """The view's board and the board its rank changes count from (its style twin), then every other view.
        A style-controlled board's point fit is shown first (its bootstrap takes a hundred times longer), and so is
        every board's of PREVIEW_VERDICTS verdicts or more (a 10^6-battle import: its 200 rounds take ~15 s); of
        the two boards the raw one is ranked first."""
        worker = get_current_worker()
        if (
            self.tournament.spec.ranking.strong_weight > 1
        ):  # the graded verdicts stored so far count as strong
            self.ranking.options = self.session.options_now()
        table, version = self.ranking.snapshot_with_version()
        partner = self.style_views.other(key)
        views = [key] if partner is None else sorted([key, partner], key=lambda view: bool(view[3]))
        many = len(table) >= PREVIEW_VERDICTS  # every board's rounds take long: its point fit first
        for view in views if self.ranking.options.bootstrap > 0 else []:
            if (view[3] or many) and not self.ranking.cached(view)[1] and not worker.is_cancelled:
                board = self.ranking.preview(view, table, version)
                self.post_message(LeaderboardComputed(view, board, version, preview=True))
        for view in views:
            board = self._current_or_computed(view, table, version)
            if worker.is_cancelled:
                return
            self.post_message(LeaderboardComputed(view, board, version))
        for view in self._precomputed(key):  # every other view, so keys 1-5, y and m answer at once
            if worker.is_cancelled:
                return
            if not self.ranking.cached(view)[1]:
                self.ranking.compute(view, table, version)

    def _current_or_computed(self, key: ViewKey, table: VerdictTable, version: int) -> Leaderboard:
        """The view's board: the cached one when it is of these verdicts, else ranked now."""
        board, fresh = self.ranking.cached(key)
        return board if board is not None and fresh else self.ranking.compute(key, table, version)

    def _precomputed(self, key: ViewKey) -> list[ViewKey]:
        """The views a key may show next: the other thresholds of this view and of its style partner, then the
        other method's."""
        threshold, method, scope, _ = key
        views = [replace_threshold(key, t) for t in THRESHOLDS if t != threshold]
        partner = self.style_views.other(key)
        if partner is not None:
            views += [replace_threshold(partner, t) for t in THRESHOLDS if t != threshold]
        other = "bt" if method == "elo" else "elo"
        views += [self.style_views.key(t, other, scope, self.style_controlled) for t in THRESHOLDS]
        return views

    @on(LeaderboardComputed)
    def _computed(self, message: LeaderboardComputed) -> None:
        if message.key == self.view_key:
            if message.preview and self.board_key == message.key and not self.board_preview:
                return  # the full board is on screen already
            version = -1 if message.preview else message.version  # a preview is not the view's board yet
            self._show_board(message.key, message.board, version, preview=message.preview)
        elif (
            message.key == self.style_views.other(self.view_key)
            and self.board is not None
            and self.board_key == self.view_key
        ):  # the other view of style control came: the rank changes against it
            self._show_board(self.board_key, self.board, self.board_version, preview=self.board_preview)

    def _show_board(self, key: ViewKey, board: Leaderboard, version: int, *, preview: bool = False) -> None:
        """Show a board; `preview`: a board's point fit, its intervals, order and bands to come (`_rank`)."""
        self.board, self.board_key, self.board_version = board, key, version
        self.board_preview = preview
        labels = {c.id: c.label for c in self.tournament.spec.contestants if c.label}
        table, pane = self._view(LeaderboardTable), self._view(LeaderboardPane)
        if table is None or pane is None:
            return
        partner = self.style_views.other(key)
        other = self.ranking.latest(partner)[0] if partner is not None else None
        shifts = rank_shifts(board, other) if other is not None else ({} if partner is not None else None)
        flips = self._flips_of(key)
        table.show_flips(flips, redraw=False)
        pane.show_flips_legend(legend(flips), redraw=False)
        table.show(board, labels, shifts, pending=preview)
        controlled, pending = self._controlled_board(key, board, preview)
        pane.show_title(title(key, self.style_views, controlled, pending=pending))
        pane.show_counts(board, "" if version == self.ranking.version else "updating…", pending=preview)
        diagnostics = self._view(DiagnosticsPane)
        if diagnostics is not None and not pending:
            where = f"threshold {threshold_label(key[0])}, {key[2].describe()}"
            lines = coefficient_lines(style_info(controlled), where, self.style_views.compared)
            diagnostics.show_style(lines)
        self._want_flips()
        self._update_status()

    def _controlled_board(
        self, key: ViewKey, board: Leaderboard, preview: bool
    ) -> tuple[Leaderboard | None, bool]:
        """The style-controlled board of this threshold and scope (the board shown, or its twin's newest), and
        whether it is a preview (its coefficients' intervals to come)."""
        if key[3]:
            return board, preview
        if not self.style_views.compared:
            return None, False
        threshold, _, scope, _ = key
        return self.ranking.latest(self.style_views.key(threshold, "bt", scope, True))

    def watch_threshold(self) -> None:
        self._show_current()

    def watch_method(self) -> None:
        self._show_current()

    def watch_scope(self) -> None:
        self._show_current()

    def watch_style_controlled(self) -> None:
        self._show_current()

    # -- judges and diagnostics --------------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="judge-stats", exit_on_error=False)
    def _load_judge_stats(self) -> None:
        self.post_message(JudgeStatsLoaded(self.session.judge_stats()))

    @on(JudgeStatsLoaded)
    def _stats_loaded(self, message: JudgeStatsLoaded) -> None:
        self.judge_stats = message.stats
        self._show_judges()

    def _show_judges(self) -> None:
        """The judges panel: the store's totals for the plan + the runner's published counts of this run."""
        pane = self._view(LeaderboardPane)
        if pane is not None:
            judges = [(j, self.judge_kinds.get(j, "live")) for j in self.tournament.judge_ids]
            pane.show_judges(judges, self.judge_stats, self.monitor.judge_counts, self.replay_held)

    @work(thread=True, exclusive=True, group="diagnostics", exit_on_error=False)
    def _diagnose(self, key: ViewKey) -> None:
        threshold, method, scope, style = key
        table, version = self.ranking.snapshot_with_version()
        inputs = self.session.diagnose_inputs()
        for problem in inputs.problems:  # e.g. a broken votes log: say so, diagnose without it
            self.call_from_thread(self._notice, Notice(str(problem), "human votes not read", "warning"))
        report = self.session.diagnose_report(
            table, method=method if method in ("elo", "bt") else "elo", max_permutations=100, inputs=inputs
        )
        trajectory = self.ranking.trajectory(threshold, method, scope=scope, style=style)
        self.post_message(DiagnosticsComputed(report, trajectory, version))

    @on(VoteCast)
    def _vote_cast(self) -> None:
        self._diag_version = -1  # the human votes feed the diagnostics: computed again when next shown

    @on(DiagnosticsComputed)
    def _diagnostics_ready(self, message: DiagnosticsComputed) -> None:
        self._diag_version = message.version
        label = chart_label(self.threshold, self.method, message.trajectory, style=self.view_key[3])
        pane = self._view(DiagnosticsPane)
        if pane is not None:
            pane.show(message.report, message.trajectory, label)

    # -- header ------------------------------------------------------------------------------------------------------
    def _update_status(self) -> None:
        m, plan = self.monitor, self.monitor.plan
        p = m.progress
        info = StatusInfo(
            name=self.tournament.name,
            threshold=threshold_label(self.threshold),
            method=METHOD_NAMES.get(self.method, self.method)
            + (", style-controlled" if self.view_key[3] else ""),
            scope=self.scope.describe(),
            state=m.state if m.state != "stored" else "stored verdicts",
            kinds=sorted(set(self.judge_kinds.values())),
            progress=m.progress,
            done=plan.done,
            total=plan.total,
            failed=plan.failed,
            invalid=plan.invalid,
            ranking_note=""
            if self.board_version == self.ranking.version and self.board_key == self.view_key
            else "ranking…",
            detail=" · ".join(
                filter(
                    None,
                    (
                        "the replay (each verdict's details) waits: p starts it"
                        if self.replay_held
                        else None,
                        p.batches if p else None,
                        self.watch_detail or (p.adaptive if p else None),
                    ),
                )
            ),
        )
        bar = self._view(StatusBar)
        if bar is not None:
            bar.show(info)
        batches = self._view(BatchesPanel)
        if batches is not None:  # the run's open batches, as it last polled them
            batches.show(p.open_batches if p else (), time.time())

    @on(Select.Changed, "#scope-bar Select")
    def _scope_changed(self, event: Select.Changed) -> None:
        """#scope-prompt, #scope-judge, #scope-category, #scope-turn: one field of the scope each (blank = all)."""
        field = (event.select.id or "").removeprefix("scope-")
        value: Any = event.value if isinstance(event.value, str) else None
        if field == "turn" and value is not None:
            value = int(value)
        if field in ("prompt", "judge", "category", "turn") and value != getattr(self.scope, field):
            self.scope = replace(self.scope, **{field: value})

    def watch_theme(self) -> None:
        if self.board is not None and self.board_key is not None:  # a board only exists once the app runs
            self._show_board(self.board_key, self.board, self.board_version, preview=self.board_preview)


def replace_threshold(key: ViewKey, threshold: Threshold) -> ViewKey:
    return (threshold, key[1], key[2], key[3])
