"""The user's actions (keys and palette): threshold, method, tabs, scope, pause, export, screenshot, raw replies;
and the app's small helpers (its views, its workers by group, taking in a watched store).

A mixin of `ElotuiApp`: it names what it uses of the app below, and imports nothing of the app.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.widgets import Select, TabbedContent
from textual.worker import WorkerState

from elotui.records import PairDetail
from elotui.tournament.user_files import unused_path
from elotui.tui.collector import COLLECTOR
from elotui.tui.mixin_base import AppBase, W
from elotui.tui.run_monitor import Notice, RunMonitor
from elotui.tui.screens.help import HelpScreen, help_sections
from elotui.tui.screens.pairs import PairsPane
from elotui.tui.screens.raw_reply import RawTextScreen
from elotui.tui.state.watch import StoreWatcher
from elotui.tui.style_view import StyleViews
from elotui.tui.widgets.choice import ChoiceSelect
from elotui.vocab import METHOD_NAMES, THRESHOLDS, threshold_label

if TYPE_CHECKING:
    from elotui.rating.leaderboard import Leaderboard
    from elotui.session import TournamentSession
    from elotui.tournament.model import Tournament


EXIT_INTERRUPTED = 130
QUIT_KEYS: list[BindingType] = [
    # Textual's own ctrl+q quits at once and its ctrl+c only says how to quit: both stop the run gracefully
    Binding(
        "ctrl+q",
        "quit",
        "quit",
        show=False,
        priority=True,
        tooltip="as q: the calls in flight are stored first",
    ),
    Binding(
        "ctrl+c",
        "interrupt",
        "stop and exit (130)",
        show=False,
        priority=True,
        tooltip="stop: the calls in flight finish and are stored, exit 130 (again: abandon them, exit now)",
    ),
]
TABS_FOCUS = {
    "tab-leaderboard": "#leaderboard",
    "tab-pairs": "#pairs-table",
    "tab-diagnostics": "#diagnostics-pane",
}


def raw_title(d: PairDetail) -> str:
    return (
        f"raw reply of judge {d.judge} ({d.status}) — prompt {d.prompt}: {d.first} (first) vs {d.second} "
        "(second)"
    )


class AppActions(AppBase):
    tournament: Tournament
    session: TournamentSession
    monitor: RunMonitor
    board: Leaderboard | None
    board_preview: bool
    export_path: Path | None
    screenshot_dir: Path | None
    watcher: StoreWatcher | None
    watch_detail: str
    _workers_by_group: dict[str, Any]
    threshold: Any
    method: Any
    scope: Any
    style_controlled: Any
    style_views: StyleViews
    runner: Any
    _run_worker: Any
    quitting: str | None = None  # "q", "Ctrl-C": a quit waits for the run to end
    replay_held: bool = False  # a large import's replay waits for `p` (run_monitor.replay_waits)
    _quit_code: int | None = None

    if TYPE_CHECKING:  # the app's own methods, used here

        def _notice(self, n: Notice) -> None: ...
        def reload_from_store(self) -> None: ...
        def _drain(self) -> None: ...
        def _refresh_pairs(self, *, now: bool = False) -> None: ...
        def _refresh_diagnostics(self, *, now: bool = False) -> None: ...
        def _update_status(self) -> None: ...
        def _start_runner(self) -> None: ...
        def _show_judges(self) -> None: ...

    def action_threshold(self, index: int) -> None:
        COLLECTOR.until_refreshed(self)  # no full collection inside the redraw (elotui.tui.collector)
        self.threshold = THRESHOLDS[index - 1]

    def action_toggle_method(self) -> None:
        COLLECTOR.until_refreshed(self)
        self.method = "bt" if self.method == "elo" else "elo"

    def action_toggle_style(self) -> None:
        """Style-controlled Bradley–Terry or raw; from Elo, the controlled Bradley–Terry board (Elo has none)."""
        COLLECTOR.until_refreshed(self)
        views = self.style_views
        if not views.compared:  # no [ranking] style_control: say what this is and how to open on it
            self.style_views = replace(views, compared=True)
            wanted = ", ".join(f'"{f}"' for f in views.features)
            # short: the line above the board says the rest (the view, ▲▼, y), and at 80 columns a long toast hid
            # half the board for seconds
            self._notice(
                Notice(
                    f"to open on it: [ranking] style_control = [{wanted}] in {self.tournament.path.name}",
                    "style control (as `export --style-control`)",
                    timeout=8,
                )
            )
        if self.method != "bt":
            self._notice(
                Notice("style control is a Bradley–Terry fit: showing Bradley–Terry (m: back to Elo)")
            )
            self.set_reactive(type(self).style_controlled, True)  # type: ignore[attr-defined]
            self.method = "bt"
            return
        self.style_controlled = not self.style_controlled

    def action_show_tab(self, tab: str) -> None:
        self.query_one("#tabs", TabbedContent).active = tab
        self.query_one(TABS_FOCUS[tab]).focus()
        self._refresh_pairs(now=True)
        self._refresh_diagnostics(now=True)

    def set_scope_prompt(self, prompt: str | None) -> None:
        self.scope = replace(self.scope, prompt=prompt)
        self.query_one("#scope-prompt", ChoiceSelect).choose(prompt)

    def set_scope_judge(self, judge: str | None) -> None:
        self.scope = replace(self.scope, judge=judge)
        select = self.query_one("#scope-judge", Select)
        if select.value != (judge if judge is not None else Select.NULL):
            select.value = judge if judge is not None else Select.NULL

    def set_scope_turn(self, turn: int | None) -> None:
        """One turn's prompts (`[data] turn = [1, 2]`), as `elotui export --turn` ranks them; None: every turn."""
        self.scope = replace(self.scope, turn=turn)
        for select in self.query("#scope-turn").results(Select):
            if select.value != (str(turn) if turn is not None else Select.NULL):
                select.value = str(turn) if turn is not None else Select.NULL

    def hold_replay(self, verdicts: int) -> None:
        """Open without replaying a large import's verdicts (they rank from the store's snapshot); `p` starts it."""
        self.replay_held = True
        self.refresh_bindings()
        self.monitor.state = "imported"
        self._notice(
            Notice(
                f"{verdicts:,} imported verdicts, ranked. Their replay into the store (each verdict's details, for "
                "the pairs pane) waits: at this size it takes minutes and gigabytes. p starts it; "
                f"`elotui run {self.tournament.path} --headless` does it without the TUI.",
                "replay not started",
                timeout=30,
            )
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`p` is `replay` while a large import's replay waits, `pause` otherwise (the footer shows the one that
        applies)."""
        if action in ("pause", "replay"):
            return self.replay_held == (action == "replay")
        return True

    def action_replay(self) -> None:
        """Start the held replay of a large import's verdicts (`hold_replay`)."""
        if not self.replay_held:
            return
        self.replay_held = False
        self._start_runner()
        self._notice(Notice("replaying the imported verdicts into the store (p pauses)"))
        self.refresh_bindings()
        self._show_judges()
        self._update_status()

    def action_pause(self) -> None:
        runner = self.runner
        if runner is None or self.monitor.result is not None:
            self._notice(Notice("no run in progress: nothing to pause"))
            return
        if runner.paused:
            runner.resume()
            self.monitor.state = "running" if self.monitor.started else "preparing"
            self._notice(Notice("judging resumed"))
        else:
            runner.pause()
            self.monitor.state = "paused"
            self._notice(Notice("judging paused: calls in flight finish, no new calls start (p resumes)"))
        self._update_status()

    def _style_shown(self) -> bool:
        return bool(self.method == "bt" and self.style_controlled)

    def current_ratings(self) -> dict[str, float]:
        """The ratings of the leaderboard on screen (none yet: empty)."""
        board = getattr(self, "board", None)
        return board.ratings() if board is not None else {}

    def export_target(self) -> Path:
        """Where `e` writes: the path given at launch, else `<slug>-ranking-t<threshold>-<method>[-style][-scope].csv` in
        the current directory; never an existing file (`-2`, `-3`, ... are added)."""
        if self.export_path is not None:
            return unused_path(self.export_path)
        scope = self.scope
        parts = [f"{self.tournament.slug}-ranking", f"t{threshold_label(self.threshold)}", self.method]
        if self._style_shown():
            parts.append("style")
        if scope.turn is not None:
            parts.append(f"turn-{scope.turn}")
        for kind, value in (("category", scope.category), ("prompt", scope.prompt), ("judge", scope.judge)):
            if value is not None:
                parts.append(f"{kind}-{re.sub(r'[^A-Za-z0-9._]+', '_', value)[:40]}")
        return unused_path(Path.cwd() / ("-".join(parts) + ".csv"))

    def action_export(self) -> None:
        from elotui.export.ranking import write_csv

        board = self.board
        if board is None:
            self._notice(Notice("no ranking to export yet", severity="warning"))
            return
        if self.board_preview:  # a point fit: its intervals are not computed yet
            self._notice(
                Notice("the intervals are still being computed: export once they show", severity="warning")
            )
            return
        target = self.export_target()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("w", encoding="utf-8", newline="") as fh:
                write_csv(board, fh)
        except OSError as exc:
            self._notice(Notice(f"{target}: cannot write: {exc.strerror}", "export failed", "error"))
            return
        self._notice(
            Notice(
                f"{target}\n(threshold {threshold_label(self.threshold)}, {METHOD_NAMES[self.method]}"
                f"{', style-controlled' if self._style_shown() else ''}, "
                f"{self.scope.describe()})",
                "ranking exported",
            )
        )

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        """An SVG of the screen into the current directory (or `screenshot_dir`, or `path`), never over an earlier
        one, creating nothing outside it (Textual's own default writes to ~/Downloads, which need not exist)."""
        folder = Path(path) if path else (self.screenshot_dir or Path.cwd())
        stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        target = unused_path(folder / (filename or f"{self.tournament.slug}-{stamp}.svg"))
        try:
            self.save_screenshot(filename=target.name, path=str(folder))
        except OSError as exc:
            self._notice(Notice(f"{target}: cannot write: {exc.strerror}", "screenshot failed", "error"))
            return
        self._notice(Notice(str(target), "screenshot saved"))

    def action_help(self) -> None:
        self.push_screen(HelpScreen(help_sections(self.screen), self.board))

    def action_last_invalid(self) -> None:
        record = self.session.last_invalid(self.monitor.last_invalid_key)
        if record is None:
            self._notice(Notice("no invalid replies"))
            return
        self.push_screen(RawTextScreen(raw_title(record), str(record.raw_reply or "(empty reply)")))

    def action_pair_raw(self) -> None:
        if self.query_one("#tabs", TabbedContent).active != "tab-pairs":
            return
        bad = self.query_one(PairsPane).invalid_replies()
        if not bad:
            self._notice(Notice("the selected pair has no invalid or failed verdicts"))
            return
        body = "\n\n".join(
            f"--- {d.judge} · {d.first} first · {d.condition} · {d.status} ---\n"
            + str(d.raw_reply or d.error or "(empty)")
            for d in bad
        )
        self.push_screen(RawTextScreen(f"invalid and failed replies ({len(bad)})", body))

    async def action_quit(self) -> None:
        """q, ctrl+q: stop the run; the calls in flight finish and are stored; then exit (0, or 3 when calls failed
        for good). Returns at once (a second ctrl+c is read while the calls in flight finish)."""
        self._stop_then_exit("q", None)

    def action_interrupt(self) -> None:
        """ctrl+c: as q, then exit 130; a second ctrl+c while the calls in flight finish abandons them (they are not
        stored: the next run sends them again) and exits at once."""
        if self.quitting is not None:
            if self.runner is not None:
                self.runner.stop(cancel=True)
            self.quitting = "Ctrl-C twice"
            self.exit(EXIT_INTERRUPTED)
            return
        self._stop_then_exit("Ctrl-C", EXIT_INTERRUPTED)

    def _stop_then_exit(self, how: str, code: int | None) -> None:
        """Stop scheduling and exit once the run has ended (now, when none runs); never waits in the handler, so
        that a second ctrl+c is read while the calls in flight finish."""
        if self.quitting is not None:
            self._notice(Notice("stopping: waiting for the calls in flight (ctrl+c abandons them)"))
            return
        self.quitting, self._quit_code = how, code
        runner = self.runner
        if not self._busy("run"):
            self.run_ended()
        elif runner is None:  # still waiting to make its runner: nothing sent yet
            self._run_worker.cancel()
        else:
            in_flight = getattr(runner, "in_flight", 0)
            self._notice(
                Notice(f"stopping: waiting for {in_flight} call(s) in flight (ctrl+c again to abandon them)")
            )
            runner.stop()

    @property
    def interrupted(self) -> str | None:
        """What stopped the run, for the exit summary: "Ctrl-C", "q"; None when it ended by itself or none ran."""
        if self.quitting is None or (
            self.monitor.result is not None and self.monitor.result.state != "stopped"
        ):
            return None
        return self.quitting

    def run_ended(self) -> None:
        """The run worker ended: a quit that waited for it exits now."""
        if self.quitting is not None and self.quitting != "Ctrl-C twice":
            self.exit(self._quit_code if self._quit_code is not None else self.monitor.exit_code)

    # --- the app's small helpers (views, workers, watching) -------------------------------------------------

    def _poll_store(self) -> None:
        """Watching: take in what the writing process committed since the last poll."""
        assert self.watcher is not None
        seen = self.watcher.poll()
        if seen is None:
            return
        self.monitor.state, self.monitor.progress = seen.state, seen.progress
        self.watch_detail = seen.detail
        if seen.plan_changed:
            self.reload_from_store()
        elif seen.rows:
            self.monitor.pending.extend(seen.rows)
            self._drain()
        self._update_status()

    def _active_tab(self) -> str | None:
        tabs = self._view(TabbedContent)
        return tabs.active if tabs is not None else None

    def _view(self, kind: type[W]) -> W | None:
        """The one widget of a kind on the main screen, or None while the app starts or closes."""
        try:
            return self.screen_stack[0].query_one(kind)  # the main screen, even under a modal
        except (NoMatches, IndexError):
            return None

    def _spawn(self, group: str, start: Any) -> None:
        self._workers_by_group[group] = start()

    def _busy(self, group: str) -> bool:
        worker = self._workers_by_group.get(group)
        return worker is not None and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)

    def switch_theme(self, name: str) -> None:
        self.theme = name
