"""`elotui watch T` (or `elotui watch --store PATH`): the live TUI attached read-only to a store another process
is writing — a headless run on this machine, or on the machine you reached over SSH. The same leaderboard,
thresholds, panes and diagnostics as `elotui run`, the writer's progress from its heartbeat, and the run's end
(finished, stopped, budget, or writer gone when its lease expired). It sends no call."""

from __future__ import annotations

import argparse
from pathlib import Path

from elotui.commands.common import add_store_arg, store_to_read
from elotui.errors import UserError


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("watch", help="follow a run another process is writing (read-only TUI)")
    p.add_argument("tournament", metavar="T", nargs="?", help="the tournament file (optional with --store)")
    add_store_arg(p)
    p.add_argument("--theme", metavar="NAME", help="TUI theme")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from elotui.store import Store
    from elotui.store.runs import latest_run
    from elotui.tournament.model import load_tournament
    from elotui.tui.launch import run_tui

    if args.tournament is None and args.store is None:
        raise UserError("elotui watch: name the tournament file, or the store with --store PATH")
    if args.tournament is not None:
        tournament = load_tournament(args.tournament)
        store = store_to_read(tournament, args.store, reader=True)
    else:
        path = Path(args.store)
        if not path.is_file():
            raise UserError(f"{path}: no such store")
        store = Store(path, reader=True)
        run_row = latest_run(store)
        source = (run_row or {}).get("manifest", {}).get("tournament", {}).get("path")
        if not source or not Path(source).is_file():
            store.close()
            raise UserError(
                f"{path}: the tournament file of its runs ({source or 'none recorded'}) is not here; "
                "name it: elotui watch T --store PATH"
            )
        tournament = load_tournament(source)
    with store:
        return run_tui(tournament, store, theme=args.theme, watch=True)
