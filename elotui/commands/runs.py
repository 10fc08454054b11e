"""`elotui runs T`: the runs of a tournament's store — state (running, finished, stopped, budget, died when the
process vanished without closing its run, taken over), start and end, calls recorded, cost, elotui version,
host and pid."""

from __future__ import annotations

import argparse
import time

from elotui.commands.common import add_store_arg, add_tournament_arg, open_tournament, table_lines
from elotui.errors import store_problem
from elotui.terminal import one_line


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("runs", help="list the runs recorded for a tournament")
    add_tournament_arg(p)
    add_store_arg(p)
    p.set_defaults(handler=run)


DAMAGED = "?"  # a value a damaged row does not give as the type it has


def _when(ts: object) -> str:
    if ts is None:
        return "—"
    if not isinstance(ts, (int, float)) or isinstance(ts, bool):
        return DAMAGED
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))
    except (OverflowError, OSError, ValueError):  # a time no clock reaches
        return DAMAGED


def _text(value: object) -> str:
    if value is None or value == "":
        return "—"
    return one_line(str(value)) if isinstance(value, (str, int)) else DAMAGED


def _cost(value: object) -> str:
    return f"${value:.4f}" if isinstance(value, (int, float)) else DAMAGED


def run(args: argparse.Namespace) -> int:
    import sqlite3  # on use: `elotui --help` does not import it

    from elotui.store.batches import open_batches
    from elotui.store.runs import run_table

    _, store = open_tournament(args)
    with store:
        try:
            rows = run_table(store)
            batches = open_batches(store)
        except sqlite3.DatabaseError as exc:  # a damaged page, a row that is not text
            raise store_problem(store.path, exc) from None
    header = ("run", "state", "started", "ended", "calls", "cost", "elotui", "host", "pid")
    lines = [
        (
            _text(r["id"]),
            _text(r["state"]),
            _when(r["started_at"]),
            _when(r["finished_at"]),
            _text(r["calls"]),
            _cost(r["cost"]),
            _text(r["version"]),
            _text(r["host"]),
            _text(r["pid"]),
        )
        for r in rows
    ]
    for line in table_lines(header, lines, right_from=4):
        print(line)
    if not rows:
        print("no runs recorded yet")
    if batches:
        print(
            f"\nopen batches ({len(batches)}; `elotui run` collects them, `--cancel-batches` cancels them):"
        )
        columns = ("judge", "batch", "requests", "done", "failed", "status", "submitted", "run")
        shown = [
            (
                _text(b.judge),
                _text(b.batch_id),
                _text(len(b.keys)),
                _text(b.done),
                _text(b.failed),
                _text(b.status or b.state),
                _when(b.submitted_at),
                _text(b.run_id),
            )
            for b in batches
        ]
        for line in table_lines(columns, shown, right_from=2):
            print(line)
    return 0
