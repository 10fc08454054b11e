"""Starting the TUI: `make_app(...)` builds the app (the CLI and the tests share it); `run_tui(...)` runs it and
returns the exit code. Startup errors (an unknown theme) are UserErrors, raised before anything starts."""

from __future__ import annotations

import sys
from pathlib import Path

from elotui.errors import UserError
from elotui.run.summary import exit_summary
from elotui.store import Store
from elotui.themes import load_themes
from elotui.tournament.model import Tournament
from elotui.tui.app import ElotuiApp
from elotui.tui.run_monitor import RunnerFactory


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
    watch: bool = False,
    force: bool = False,
    voter: str | None = None,
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
    return ElotuiApp(
        tournament,
        store,
        theme=theme,
        max_cost=max_cost,
        no_delay=no_delay,
        runner_factory=runner_factory,
        start_run=start_run,
        export_path=export_path,
        user_themes_dir=user_dir,
        watch=watch,
        force=force,
        voter=voter,
    )


def run_tui(
    tournament: Tournament,
    store: Store,
    *,
    theme: str | None = None,
    max_cost: float | None = None,
    no_delay: bool = False,
    watch: bool = False,
    force: bool = False,
    voter: str | None = None,
) -> int:
    """Run the live TUI on a tournament (judging in the background; with `watch`, following another process's
    run in the store), say the exit summary on stderr once it has closed, and return the exit code."""
    app = make_app(
        tournament,
        store,
        theme=theme,
        max_cost=max_cost,
        no_delay=no_delay,
        watch=watch,
        force=force,
        voter=voter,
    )
    result = app.run()
    # a held replay was never started: nothing stopped
    interrupted = None if app.replay_held else app.interrupted
    for line in exit_summary(tournament, store, app.monitor.result, interrupted):
        print(line, file=sys.stderr)
    return int(result) if isinstance(result, int) else app.monitor.exit_code
