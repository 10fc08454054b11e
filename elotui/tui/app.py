"""The elotui TUI: the App, its key bindings, the run worker and the ranking workers.

`make_app(...)` builds the app (the CLI and the tests share it); `run_tui(...)` runs it and returns an exit code.
The runner runs in an async worker on the app's event loop and reports typed events (`elotui.run.events`); the
app buffers them and a burst collapses into one `VerdictsArrived` message. Re-ranking runs in thread workers on a
snapshot of the verdict table; leaderboards are cached per (threshold, method, scope) until new verdicts arrive,
and after each refresh the other thresholds and method are precomputed, so keys 1–5 and m answer at once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Footer, Select, TabbedContent, TabPane
from textual.worker import Worker, WorkerState, get_current_worker

from elotui.config import Tournament
from elotui.errors import UserError
from elotui.rating.games import THRESHOLDS, Threshold
from elotui.rating.leaderboard import Leaderboard
from elotui.run.events import (
    CallFailed,
    CallRetried,
    CallStarted,
    Event,
    Progress,
    RunFinished,
    RunStarted,
    RunStateChanged,
    VerdictRecorded,
)
from elotui.store import Store
from elotui.themes import APP_VARIABLE_DEFAULTS, DEFAULT_THEME, load_themes
from elotui.tui.commands import ElotuiCommands
from elotui.tui.live_ranking import METHOD_NAMES, LiveRanking, Scope, VerdictTuple, ViewKey, threshold_label
from elotui.tui.messages import DiagnosticsComputed, JudgeStatsLoaded, LeaderboardComputed, VerdictsArrived
from elotui.tui.sanitize import one_line
from elotui.tui.screens.diagnostics import DiagnosticsPane
from elotui.tui.screens.help import HelpScreen
from elotui.tui.screens.leaderboard import LeaderboardPane
from elotui.tui.screens.pairs import PairsPane
from elotui.tui.screens.raw_reply import RawTextScreen
from elotui.tui.theming import register_themes
from elotui.tui.widgets.judges_table import JudgeLive, JudgesTable
from elotui.tui.widgets.leaderboard_table import LeaderboardTable, contestant_label
from elotui.tui.widgets.status_bar import StatusBar, StatusInfo

RunnerFactory = Callable[..., Any]
W = TypeVar("W", bound=Widget)
TICK_S = 0.25  # how often buffered events are ranked and the header redrawn
FAILURE_NOTICES = (1, 3, 10, 30, 100, 300, 1000)  # repeated failures: notify at these counts, count always


def tournament_slug(tournament: Tournament) -> str:
    return tournament.slug


class ElotuiApp(App[int]):
    CSS_PATH = "elotui.tcss"
    TITLE = "elotui"
    COMMANDS = App.COMMANDS | {ElotuiCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "threshold(1)", "1.0", show=False),
        Binding("2", "threshold(2)", "0.9", show=False),
        Binding("3", "threshold(3)", "0.75", show=False),
        Binding("4", "threshold(4)", "0.5", show=False),
        Binding("5", "threshold(5)", "none", show=False),
        Binding("m", "toggle_method", "Elo/BT"),
        Binding("l", "show_tab('tab-leaderboard')", "board"),
        Binding("v", "show_tab('tab-pairs')", "pairs"),
        Binding("d", "show_tab('tab-diagnostics')", "diagnostics"),
        Binding("p", "pause", "pause/resume"),
        Binding("e", "export", "export CSV"),
        Binding("i", "last_invalid", "invalid reply", show=False),
        Binding("r", "pair_raw", "raw reply", show=False),
        Binding("question_mark", "help", "help"),
        Binding("q", "quit", "quit"),
    ]

    threshold: reactive[Threshold] = reactive[Threshold](0.5, init=False)
    method: reactive[str] = reactive("elo", init=False)
    scope: reactive[Scope] = reactive(Scope(), init=False)

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
    ) -> None:
        super().__init__()
        self.tournament = tournament
        self.store = store
        self.max_cost = max_cost
        self.no_delay = no_delay
        self.export_path = export_path
        self._runner_factory = runner_factory
        self._start_run = start_run
        self.runner: Any = None
        self._run_worker: Worker[Any] | None = None
        self.run_result: RunFinished | None = None
        self.run_state = "stored"
        self.judge_kinds = {j.id: ("replay" if j.provider == "replay" else "simulated" if j.provider == "simulated"
                                   else "live") for j in tournament.spec.judges}
        kinds = sorted(set(self.judge_kinds.values()) - {"live"})
        self.judge_kinds_label = " and ".join(f"{k} verdicts" for k in kinds)
        self.ranking = LiveRanking(tournament)
        self._pending: list[VerdictTuple] = []
        self._posted = False
        self.progress: Progress | None = None
        self.live: dict[str, JudgeLive] = {j: JudgeLive() for j in tournament.judge_ids}
        self.judge_stats: dict[str, dict[str, float]] = {}
        self.board: Leaderboard | None = None
        self.board_key: ViewKey | None = None
        self.board_version = -1
        self._rank_worker: Worker[Any] | None = None
        self._diag_version = -1
        self._diag_worker: Worker[Any] | None = None
        self._stats_version = -1
        self._ticks = 0
        self.last_invalid_key: str | None = None
        self.plan_total = 0
        self.plan_done = 0
        self.plan_failed = 0
        self.plan_invalid = 0
        self.theme_names, self.theme_problems = register_themes(self, user_themes_dir)
        wanted = theme or DEFAULT_THEME
        if wanted not in self.available_themes:
            self.theme_problems.append(f"theme '{wanted}' is not available")
            wanted = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"
        self.theme = wanted
        settings = tournament.spec.ranking
        self.set_reactive(ElotuiApp.threshold, settings.threshold)
        self.set_reactive(ElotuiApp.method, settings.method if settings.method in ("elo", "bt") else "elo")

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(APP_VARIABLE_DEFAULTS)

    # -- layout ----------------------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        t = self.tournament
        yield StatusBar(id="status")
        with TabbedContent(initial="tab-leaderboard", id="tabs"):
            with TabPane("Leaderboard · l", id="tab-leaderboard"):
                labels = {c.id: c.label for c in t.spec.contestants}
                width = max(len(contestant_label(c, labels.get(c))) for c in t.contestant_ids)
                yield LeaderboardPane(t.prompt_ids, t.judge_ids, contestant_width=max(width, 10),
                                      id="leaderboard-pane")
            with TabPane("Pairs · v", id="tab-pairs"):
                yield PairsPane(t.prompt_ids, t.judge_ids, id="pairs-pane")
            with TabPane("Diagnostics · d", id="tab-diagnostics"):
                yield DiagnosticsPane(id="diagnostics-pane")
        yield Footer()

    def on_mount(self) -> None:
        for problem in self.theme_problems:
            self.notify(f"{problem}\nusing the default theme instead", title="theme not loaded", severity="warning",
                        timeout=15, markup=False)
        self.reload_from_store()
        self.set_interval(TICK_S, self._tick)
        if self._start_run:
            self._start_runner()
        self._tick()

    # -- the store ---------------------------------------------------------------------------------------------------
    def reload_from_store(self) -> None:
        """Rebuild the verdict table from the store's current plan (at start, and when a run sets its plan)."""
        rows = self.store.plan_verdicts()
        self.ranking = LiveRanking(self.tournament, rows)
        self._pending.clear()
        self.plan_total = len(rows)
        self.plan_done = sum(1 for r in rows if r[6] in ("ok", "invalid"))
        self.plan_failed = sum(1 for r in rows if r[6] == "error")
        self.plan_invalid = sum(1 for r in rows if r[6] == "invalid")
        self.board_version = -1
        self._diag_version = -1
        self._stats_version = -1
        self._show_current()

    def response_text(self, prompt: str, contestant: str) -> str:
        text = self.tournament.responses.get((prompt, contestant))
        if text is not None:
            return text
        for row in self.store.texts("generation"):
            if row["prompt"] == prompt and row["contestant"] == contestant:
                return str(row["text"])
        return "(no response recorded yet)"

    # -- the run -----------------------------------------------------------------------------------------------------
    def _make_runner(self) -> Any:
        if self._runner_factory is not None:
            return self._runner_factory(self.tournament, self.store, on_event=self.on_run_event,
                                        max_cost=self.max_cost)
        from elotui.run.runner import Runner

        kwargs: dict[str, Any] = {"on_event": self.on_run_event, "max_cost": self.max_cost}
        if self.no_delay:
            kwargs["no_delay"] = True
        return Runner(self.tournament, self.store, **kwargs)

    def _start_runner(self) -> None:
        self.runner = self._make_runner()
        self.run_state = "running"
        self._run_worker = self._run()

    @work(exclusive=True, group="run", exit_on_error=False)
    async def _run(self) -> RunFinished:
        return await self.runner.run()  # type: ignore[no-any-return]

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Every worker failure lands here: a notification, never a crash."""
        worker = event.worker
        if event.state == WorkerState.ERROR:
            error = worker.error
            if worker.group == "run":
                self.run_state = "stopped"
                self.notify(f"the run stopped: {type(error).__name__}: {one_line(error, 300)}", title="run failed",
                            severity="error", timeout=30, markup=False)
            else:
                self.notify(f"{worker.group}: {type(error).__name__}: {one_line(error, 300)}", severity="error",
                            timeout=15, markup=False)
        elif event.state == WorkerState.SUCCESS and worker.group == "run":
            result = worker.result
            if isinstance(result, RunFinished):
                self._finished(result)

    def on_run_event(self, event: Event) -> None:
        """Called by the runner on this loop for every event; cheap: buffer and count, then post one message."""
        try:
            self._handle_event(event)
        except Exception as exc:  # noqa: BLE001 - a display problem must never stop the run
            self.log.error(f"run event {type(event).__name__}: {exc!r}")
        if not self._posted:
            self._posted = True
            self.post_message(VerdictsArrived())

    def _handle_event(self, event: Event) -> None:
        if isinstance(event, VerdictRecorded):
            p = event.presentation
            self._pending.append((p.prompt, p.first, p.second, event.judge, p.condition, p.sample, event.status,
                                  event.winner if event.status == "ok" else None))
            c = self.live.setdefault(event.judge, JudgeLive())
            c.in_flight = max(c.in_flight - 1, 0)
            c.done += 1
            if event.latency_ms is not None:
                c.latency_sum_ms += event.latency_ms
                c.latency_n += 1
            if event.status == "invalid":
                c.invalid += 1
                self.last_invalid_key = event.key
                if c.invalid in FAILURE_NOTICES:
                    self.notify(f"judge {one_line(event.judge, 40)} gave an unparseable reply ({c.invalid} so far); "
                                "press i to read it", severity="warning", markup=False)
        elif isinstance(event, CallStarted):
            self.live.setdefault(event.judge, JudgeLive()).in_flight += 1
        elif isinstance(event, CallFailed):
            c = self.live.setdefault(event.judge, JudgeLive())
            c.in_flight = max(c.in_flight - 1, 0)
            c.failed += 1
            c.last_errors = (c.last_errors + [event.error])[-5:]
            if c.failed in FAILURE_NOTICES:
                self.notify(f"judge {one_line(event.judge, 40)}: a call failed after {event.attempts} attempt(s): "
                            f"{one_line(event.error, 200)} ({c.failed} failed so far)", title="judge failing",
                            severity="error", timeout=10, markup=False)
        elif isinstance(event, CallRetried):
            c = self.live.setdefault(event.notice.judge, JudgeLive())
            c.retries += 1
            if event.notice.status_code == 429:
                c.http_429s += 1
        elif isinstance(event, Progress):
            self.progress = event
        elif isinstance(event, RunStateChanged):
            self.run_state = event.state
            if event.state == "budget":
                self.notify(one_line(event.reason, 300), title="budget reached", severity="warning", timeout=30,
                            markup=False)
        elif isinstance(event, RunStarted):
            self.run_state = "running"
            self.reload_from_store()
        elif isinstance(event, RunFinished):
            self._finished(event)

    def _finished(self, result: RunFinished) -> None:
        if self.run_result is not None:
            return
        self.run_result = result
        self.run_state = result.state
        for c in self.live.values():
            c.in_flight = 0
        self._drain()
        self.reload_from_store()  # the store is the truth (a call may answer several plan rows)
        if result.failed:
            self.notify(f"{len(result.failed)} call(s) failed for good; they are retried on the next run",
                        title="run finished", severity="warning", timeout=15, markup=False)
        self._stats_version = -1

    @on(VerdictsArrived)
    def _drain(self) -> None:
        self._posted = False
        if self._pending:
            rows, self._pending = self._pending, []
            self.ranking.append(rows)
            self.plan_done += sum(1 for r in rows if r[6] in ("ok", "invalid"))
            self.plan_invalid += sum(1 for r in rows if r[6] == "invalid")

    def _tick(self) -> None:
        if self._view(StatusBar) is None:  # starting or closing
            return
        self._ticks += 1
        self._drain()
        if self.board_version != self.ranking.version and not self._busy(self._rank_worker):
            self._show_current()
        if self._stats_version != self.ranking.version and (self._ticks % 8 == 1 or self.run_state != "running"):
            self._stats_version = self.ranking.version
            self._load_judge_stats()
        elif self.runner is not None and self._ticks % 2 == 0:
            self._show_judges()
        tabs = self._view(TabbedContent)
        if tabs is None:
            return
        if tabs.active == "tab-diagnostics" and self._diag_version != self.ranking.version \
                and not self._busy(self._diag_worker) and (self._ticks % 20 == 1 or self._diag_version < 0):
            self._refresh_diagnostics()
        if tabs.active == "tab-pairs":
            pane = self._view(PairsPane)
            if pane is not None and pane.loaded_version != self.ranking.version and (self._ticks % 12 == 1 or pane.loaded_version < 0):
                pane.reload()
        self._update_status()

    def _view(self, kind: type[W]) -> W | None:
        """The one widget of a kind on the main screen, or None while the app starts or closes."""
        try:
            return self.screen_stack[0].query_one(kind)  # the main screen, even under a modal
        except (NoMatches, IndexError):
            return None

    @staticmethod
    def _busy(worker: Worker[Any] | None) -> bool:
        return worker is not None and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)

    # -- ranking -------------------------------------------------------------------------------------------------------
    @property
    def view_key(self) -> ViewKey:
        return (self.threshold, self.method, self.scope)

    def _show_current(self) -> None:
        """Show the cached leaderboard of the current view at once; recompute in a thread if it is stale."""
        key = self.view_key
        board, fresh = self.ranking.cached(key)
        if board is not None:
            self._show_board(key, board, self.ranking.version if fresh else -1)
        if board is None or not fresh:
            self._rank_worker = self._rank(key)

    @work(thread=True, exclusive=True, group="rank", exit_on_error=False)
    def _rank(self, key: ViewKey) -> None:
        worker = get_current_worker()
        table, version = self.ranking.snapshot_with_version()
        board = self.ranking.compute(key, table, version)
        if worker.is_cancelled:
            return
        self.post_message(LeaderboardComputed(key, board, version))
        threshold, method, scope = key
        others = [(t, method, scope) for t in THRESHOLDS if t != threshold]
        others += [(t, m, scope) for m in ("elo", "bt") if m != method for t in THRESHOLDS]
        for other in others:
            if worker.is_cancelled:
                return
            _, fresh = self.ranking.cached(other)
            if not fresh:
                self.ranking.compute(other, table, version)

    @on(LeaderboardComputed)
    def _computed(self, message: LeaderboardComputed) -> None:
        if message.key == self.view_key:
            self._show_board(message.key, message.board, message.version)

    def _show_board(self, key: ViewKey, board: Leaderboard, version: int) -> None:
        self.board, self.board_key, self.board_version = board, key, version
        labels = {c.id: c.label for c in self.tournament.spec.contestants if c.label}
        table, pane = self._view(LeaderboardTable), self._view(LeaderboardPane)
        if table is None or pane is None:
            return
        table.show(board, labels)
        pane.show_counts(board, "" if version == self.ranking.version else "updating…")
        self._update_status()

    def watch_threshold(self) -> None:
        self._show_current()

    def watch_method(self) -> None:
        self._show_current()

    def watch_scope(self) -> None:
        self._show_current()

    # -- judges and diagnostics ------------------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="judge-stats", exit_on_error=False)
    def _load_judge_stats(self) -> None:
        self.post_message(JudgeStatsLoaded(self.store.judge_stats()))

    @on(JudgeStatsLoaded)
    def _stats_loaded(self, message: JudgeStatsLoaded) -> None:
        self.judge_stats = message.stats
        self._show_judges()

    def _show_judges(self) -> None:
        """The judges panel: stored totals (store.judge_stats) + the runner's live counters (in flight, retries,
        429s) + this session's failure counts from the events."""
        live: dict[str, JudgeLive] = {}
        counters = getattr(self.runner, "counters", None) or {}
        for judge in self.tournament.judge_ids:
            mine = self.live.get(judge, JudgeLive())
            theirs = counters.get(judge)
            if theirs is None:
                live[judge] = mine
                continue
            latencies = list(getattr(theirs, "latencies_ms", []) or [])
            live[judge] = JudgeLive(
                in_flight=theirs.in_flight if self.run_result is None else 0, done=theirs.done,
                invalid=theirs.invalid, failed=max(theirs.failed, mine.failed), retries=theirs.retries,
                http_429s=theirs.http_429s, latency_sum_ms=sum(latencies), latency_n=len(latencies),
            )
        judges = [(j, self.judge_kinds.get(j, "live")) for j in self.tournament.judge_ids]
        table = self._view(JudgesTable)
        if table is not None:
            table.show(judges, self.judge_stats, live)

    def _refresh_diagnostics(self) -> None:
        self._diag_worker = self._diagnose(self.threshold, self.method)

    @work(thread=True, exclusive=True, group="diagnostics", exit_on_error=False)
    def _diagnose(self, threshold: Threshold, method: str) -> None:
        from elotui.commands.diagnose import diagnose_inputs
        from elotui.rating.diagnostics import diagnose

        table, version = self.ranking.snapshot_with_version()
        try:
            inputs = diagnose_inputs(self.tournament, self.store)
        except UserError as exc:  # a broken votes log: say so, diagnose without it
            self.call_from_thread(self.notify, str(exc), title="human votes not read", severity="warning",
                                  markup=False)
            inputs = diagnose_inputs(self.tournament, self.store, read_votes=False)
        inputs["method"] = method if method in ("elo", "bt") else "elo"  # the method on screen
        inputs["permutations"] = min(inputs["permutations"], 100)
        report = diagnose(table, **inputs)
        trajectory = self.ranking.trajectory(threshold, method)
        self.post_message(DiagnosticsComputed(report, trajectory, version))

    @on(DiagnosticsComputed)
    def _diagnostics_ready(self, message: DiagnosticsComputed) -> None:
        self._diag_version = message.version
        label = f"threshold {threshold_label(self.threshold)}, {METHOD_NAMES.get(self.method, self.method)}"
        pane = self._view(DiagnosticsPane)
        if pane is not None:
            pane.show(message.report, message.trajectory, label)

    # -- header ---------------------------------------------------------------------------------------------------------
    def _update_status(self) -> None:
        scope = self.scope
        info = StatusInfo(
            name=self.tournament.name,
            threshold=threshold_label(self.threshold),
            method=METHOD_NAMES.get(self.method, self.method),
            scope=scope.describe(),
            state=self.run_state if self.run_state != "stored" else "stored verdicts",
            kinds=sorted(set(self.judge_kinds.values())),
            progress=self.progress,
            done=self.plan_done,
            total=self.plan_total,
            failed=self.plan_failed,
            invalid=self.plan_invalid,
            ranking_note="" if self.board_version == self.ranking.version else "ranking…",
        )
        bar = self._view(StatusBar)
        if bar is not None:
            bar.show(info)

    # -- actions -----------------------------------------------------------------------------------------------------------
    def action_threshold(self, index: int) -> None:
        self.threshold = THRESHOLDS[index - 1]

    def action_toggle_method(self) -> None:
        self.method = "bt" if self.method == "elo" else "elo"

    def action_show_tab(self, tab: str) -> None:
        self.query_one("#tabs", TabbedContent).active = tab
        focus = {"tab-leaderboard": "#leaderboard", "tab-pairs": "#pairs-table", "tab-diagnostics": "#diagnostics-pane"}
        self.query_one(focus[tab]).focus()
        self._tick()

    def set_scope_prompt(self, prompt: str | None) -> None:
        self.scope = Scope(prompt=prompt, judge=self.scope.judge)
        select = self.query_one("#scope-prompt", Select)
        if select.value != (prompt if prompt is not None else Select.NULL):
            select.value = prompt if prompt is not None else Select.NULL

    def set_scope_judge(self, judge: str | None) -> None:
        self.scope = Scope(prompt=self.scope.prompt, judge=judge)
        select = self.query_one("#scope-judge", Select)
        if select.value != (judge if judge is not None else Select.NULL):
            select.value = judge if judge is not None else Select.NULL

    @on(Select.Changed, "#scope-prompt")
    def _scope_prompt_changed(self, event: Select.Changed) -> None:
        value = event.value if isinstance(event.value, str) else None
        if value != self.scope.prompt:
            self.scope = Scope(prompt=value, judge=self.scope.judge)

    @on(Select.Changed, "#scope-judge")
    def _scope_judge_changed(self, event: Select.Changed) -> None:
        value = event.value if isinstance(event.value, str) else None
        if value != self.scope.judge:
            self.scope = Scope(prompt=self.scope.prompt, judge=value)

    def action_pause(self) -> None:
        runner = self.runner
        if runner is None or self.run_result is not None:
            self.notify("no run in progress: nothing to pause", markup=False)
            return
        if runner.paused:
            runner.resume()
            self.run_state = "running"
            self.notify("judging resumed", markup=False)
        else:
            runner.pause()
            self.run_state = "paused"
            self.notify("judging paused: calls in flight finish, no new calls start (p resumes)", markup=False)
        self._update_status()

    def export_target(self) -> Path:
        return self.export_path or Path.cwd() / f"{tournament_slug(self.tournament)}-ranking.csv"

    def action_export(self) -> None:
        from elotui.export.ranking import write_csv

        board = self.board
        if board is None:
            self.notify("no ranking to export yet", severity="warning", markup=False)
            return
        target = self.export_target()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("w", encoding="utf-8", newline="") as fh:
                write_csv(board, fh)
        except OSError as exc:
            self.notify(f"{target}: cannot write: {exc.strerror}", title="export failed", severity="error",
                        markup=False)
            return
        self.notify(f"{target}\n(threshold {threshold_label(self.threshold)}, {METHOD_NAMES[self.method]}, "
                    f"{self.scope.describe()})", title="ranking exported", markup=False)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_last_invalid(self) -> None:
        if self.last_invalid_key is None:
            rows = self.store.plan_details("c.status = 'invalid'")
            if not rows:
                self.notify("no invalid replies", markup=False)
                return
            record = rows[-1]
        else:
            call = self.store.get_call(self.last_invalid_key)
            if call is None:
                return
            record = {"judge": call.judge, "prompt": call.prompt, "first": call.first, "second": call.second,
                      "raw_reply": call.raw_reply, "error": call.error, "status": call.status}
        self.push_screen(RawTextScreen(self._raw_title(record), str(record.get("raw_reply") or "(empty reply)")))

    @staticmethod
    def _raw_title(d: dict[str, Any]) -> str:
        return (f"raw reply of judge {d.get('judge')} ({d.get('status')}) — prompt {d.get('prompt')}: "
                f"{d.get('first')} (first) vs {d.get('second')} (second)")

    def action_pair_raw(self) -> None:
        if self.query_one("#tabs", TabbedContent).active != "tab-pairs":
            return
        bad = self.query_one(PairsPane).invalid_replies()
        if not bad:
            self.notify("the selected pair has no invalid or failed verdicts", markup=False)
            return
        body = "\n\n".join(
            f"--- {d['judge']} · {d['first']} first · {d['condition']} · {d['status']} ---\n"
            + str(d.get("raw_reply") or d.get("error") or "(empty)")
            for d in bad
        )
        self.push_screen(RawTextScreen(f"invalid and failed replies ({len(bad)})", body))

    def switch_theme(self, name: str) -> None:
        self.theme = name
        if self.board is not None and self.board_key is not None:
            self._show_board(self.board_key, self.board, self.board_version)

    def watch_theme(self) -> None:
        # (App.is_mounted is a method taking a widget, not a flag; a board only exists once the app runs)
        if self.board is not None and self.board_key is not None:
            self._show_board(self.board_key, self.board, self.board_version)

    async def action_quit(self) -> None:
        """Stop the runner, let calls in flight finish (they are stored), then exit."""
        runner, worker = self.runner, self._run_worker
        if runner is not None and worker is not None and self._busy(worker):
            self.notify("stopping: waiting for calls in flight…", markup=False)
            runner.stop()
            await worker.wait()
        self.exit(self.exit_code_for_run())

    def exit_code_for_run(self) -> int:
        if self.run_result is not None and self.run_result.failed and self.run_result.state == "finished":
            return 3
        return 0


def make_app(
    tournament: Tournament,
    store: Store,
    *,
    theme: str | None = None,
    max_cost: float | None = None,
    no_delay: bool = False,
    runner_factory: RunnerFactory | None = None,
    start_run: bool = True,
    export_path: Path | None = None,
) -> ElotuiApp:
    """The app, ready to run. An unknown theme name is a UserError (raised before anything starts), unless a user
    theme file failed to load (it may be the one asked for): then the app reports it and uses the default."""
    from elotui.locations import user_themes_dir

    user_dir = user_themes_dir()
    if theme is not None:
        from textual.theme import BUILTIN_THEMES

        specs, problems = load_themes(user_dir)
        if theme not in specs and theme not in BUILTIN_THEMES and not problems:
            known = sorted(set(specs) | set(BUILTIN_THEMES))
            raise UserError(f"unknown theme '{theme}' (themes: {', '.join(known)})")
    return ElotuiApp(tournament, store, theme=theme, max_cost=max_cost, no_delay=no_delay,
                     runner_factory=runner_factory, start_run=start_run, export_path=export_path,
                     user_themes_dir=user_dir)


def run_tui(tournament: Tournament, store: Store, *, theme: str | None = None, max_cost: float | None = None,
            no_delay: bool = False) -> int:
    """Run the live TUI on a tournament (judging in the background) and return the exit code."""
    app = make_app(tournament, store, theme=theme, max_cost=max_cost, no_delay=no_delay)
    result = app.run()
    return int(result) if isinstance(result, int) else app.exit_code_for_run()
